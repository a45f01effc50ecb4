package network

import (
	"cmp"
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/browserd/browserd/internal/browser"
)

// What the network action reads of a tab, apart from the engine: one
// request whole with its body, the bodies a HAR file keeps, and which
// requests the session's guard refused.

// Bodies is what a tab gives of its requests' response bodies.
type Bodies interface {
	ResponseBody(ctx context.Context, id string) (data []byte, binary bool, err error)
}

// HAR bodies: the responses an API's debugging needs (documents, XHR,
// fetch), each up to harBodyMax, all of them up to harBodiesMax.
const (
	harBodyMax   = 256 << 10
	harBodiesMax = 8 << 20
)

// Request is request id of reqs shown whole (One), with its response's
// body when tab still holds it; ok is false when reqs has no such request.
func Request(ctx context.Context, tab Bodies, reqs []browser.Request, id string, opt OneOptions) (shown string, ok bool) {
	for i := range reqs {
		r := &reqs[i]
		if r.ID != id {
			continue
		}
		var body Body
		switch {
		case r.Failed != "" || r.Refused != "":
			body.Err = errors.New("it failed")
		case r.Status == 0:
			body.Err = errors.New("no response yet")
		default:
			// A response the page never read may not report its end:
			// Chromium may hold its body all the same.
			body.Data, body.Binary, body.Err = tab.ResponseBody(ctx, r.ID)
		}
		return One(r, body, opt), true
	}
	return "", false
}

// HARBodies are the bodies of reqs' documents, XHR and fetch responses
// that tab still holds, for HAROptions.Bodies: each up to 256 KB, 8 MB in
// all.
func HARBodies(ctx context.Context, tab Bodies, reqs []browser.Request) (map[string]Body, error) {
	bodies := map[string]Body{}
	total := 0
	for i := range reqs {
		r := &reqs[i]
		switch strings.ToLower(r.Type) {
		case "document", "xhr", "fetch":
		default:
			continue
		}
		if r.Status == 0 || r.Failed != "" || (r.Status >= 300 && r.Status < 400) || total >= harBodiesMax {
			continue
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		data, binary, err := tab.ResponseBody(ctx, r.ID)
		if err != nil || len(data) > harBodyMax {
			continue
		}
		bodies[r.ID] = Body{Data: data, Binary: binary}
		total += len(data)
	}
	return bodies, nil
}

// MarkRefused marks the requests the session's guard refused (refusal
// answers the rule's reason for the key the guard keeps a refusal under:
// scheme://host/path for plain HTTP, host:port for a tunnel): to Chromium
// they are a 403 (plain HTTP) or a tunnel that failed (HTTPS).
func MarkRefused(reqs []browser.Request, refusal func(key string) (reason string, ok bool)) {
	for i := range reqs {
		r := &reqs[i]
		if r.Refused != "" || (r.Failed == "" && r.Status != http.StatusForbidden) {
			continue
		}
		u, err := url.Parse(r.URL)
		if err != nil {
			continue
		}
		var key string
		switch u.Scheme {
		case "http", "ws":
			key = u.Scheme + "://" + u.Host + cmp.Or(u.EscapedPath(), "/")
		case "https", "wss":
			key = net.JoinHostPort(u.Hostname(), cmp.Or(u.Port(), "443"))
		default:
			continue
		}
		if reason, ok := refusal(key); ok {
			// The rule and its reason; no hint to loosen the guard: the
			// page chose the request.
			r.Refused = reason
		}
	}
}
