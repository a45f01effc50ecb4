package browser

import (
	"context"
	"encoding/base64"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"
)

// This file answers the requests a session's routes match (the route
// action; the routes themselves are internal/routes'): made up, aborted,
// delayed, or passed on with changed headers. The tab's one Fetch.enable
// serves the guard, the routes and the HTTP credentials (fetchSetup).
//
// A route never widens the guard: a response it makes up dials nothing,
// and a request it passes on is vetted as any other (by the Fetch guard
// here, or by the egress proxy it goes through).

// Router answers the requests of a tab that its routes match.
type Router interface {
	// Active reports whether any route is set: the tab then pauses
	// every request to ask Route.
	Active() bool
	// Route is what to do with a request; ok is false when no route
	// matches it.
	Route(url, method, resourceType string) (ans RouteAnswer, ok bool)
}

// RouteAnswer is what a route does with a request: Abort it (Chromium's
// network error reason: Failed, Aborted, TimedOut, AccessDenied,
// ConnectionRefused, …), answer it (Status, Headers, Body), or else pass
// it on with Headers added to (or, empty, removed from) its own; after
// Delay.
//
// With Fetch the request goes to the server (vetted as any) and its
// answer comes back changed: Status (unless 0) and Headers (a header
// given empty is removed) replace the server's, and every From in its
// body becomes To.
type RouteAnswer struct {
	Name     string // the route, as the network log marks what it answered
	Abort    string
	Status   int
	Headers  map[string]string
	Body     []byte
	Delay    time.Duration
	Fetch    bool
	From, To string
}

// routing reports whether r has routes: every request is then paused.
func routing(r Router) bool { return r != nil && r.Active() }

// SetRouter gives the tab its routes (nil: none) and intercepts its
// requests while it has any.
func (p *Page) SetRouter(ctx context.Context, r Router) error {
	p.mu.Lock()
	p.opts.Router = r
	p.mu.Unlock()
	return p.SetCredentials(ctx, p.credentials())
}

func (p *Page) credentials() []Credential {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.opts.Credentials
}

// answerRoute answers one paused request as its route says.
func (p *Page) answerRoute(id, networkID, url string, reqHeaders map[string]string, ans RouteAnswer) {
	if ans.Delay > 0 {
		t := time.NewTimer(ans.Delay)
		select {
		case <-t.C:
		case <-p.loopDone:
			t.Stop()
			return
		}
	}
	p.netRouted(networkID, ans.Name)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	switch {
	case ans.Abort != "":
		_ = p.sess.Call(ctx, "Fetch.failRequest", map[string]any{"requestId": id, "errorReason": ans.Abort}, nil)
	case ans.Status > 0 && !ans.Fetch:
		var hs []map[string]string
		for _, k := range slices.Sorted(maps.Keys(ans.Headers)) {
			hs = append(hs, map[string]string{"name": k, "value": ans.Headers[k]})
		}
		_ = p.sess.Call(ctx, "Fetch.fulfillRequest", map[string]any{"requestId": id, "responseCode": ans.Status,
			"responsePhrase": http.StatusText(ans.Status), "responseHeaders": hs,
			"body": base64.StdEncoding.EncodeToString(ans.Body)}, nil)
	default:
		if p.opts.Guard != nil {
			if err := p.opts.Guard(ctx, url); err != nil {
				p.netRefused(networkID, err.Error())
				_ = p.sess.Call(ctx, "Fetch.failRequest", map[string]any{"requestId": id, "errorReason": "BlockedByClient"}, nil)
				return
			}
		}
		params := map[string]any{"requestId": id}
		if ans.Fetch {
			// Paused again with the server's answer (onRequestPaused's
			// response stage), which changeAnswer changes.
			params["interceptResponse"] = true
			p.mu.Lock()
			if p.fetching == nil {
				p.fetching = map[string]RouteAnswer{}
			}
			p.fetching[id] = ans
			p.mu.Unlock()
		} else if len(ans.Headers) > 0 {
			merged := map[string]string{}
			for k, v := range reqHeaders {
				merged[strings.ToLower(k)] = v
			}
			for k, v := range ans.Headers {
				if v == "" {
					delete(merged, strings.ToLower(k))
				} else {
					merged[strings.ToLower(k)] = v
				}
			}
			var hs []map[string]string
			for _, k := range slices.Sorted(maps.Keys(merged)) {
				hs = append(hs, map[string]string{"name": k, "value": merged[k]})
			}
			params["headers"] = hs
		}
		if err := p.sess.Call(ctx, "Fetch.continueRequest", params, nil); err != nil && !p.Closed() {
			// Chromium would not send it so (a header it sets itself):
			// the request fails now rather than stay paused until the
			// page gives up on it.
			p.netRefused(networkID, "route "+ans.Name+": Chromium refused to send the request with its headers")
			_ = p.sess.Call(ctx, "Fetch.failRequest", map[string]any{"requestId": id, "errorReason": "Failed"}, nil)
		}
	}
}

// fetched takes the fetch route whose request id paused at its answer.
// It runs in an event handler: p.mu is held (handle).
func (p *Page) fetched(id string) (RouteAnswer, bool) {
	ans, ok := p.fetching[id]
	delete(p.fetching, id)
	return ans, ok
}

// maxFetchedBody bounds the server's answer a fetch route changes.
const maxFetchedBody = 10 << 20

// changeAnswer answers a request paused at the server's answer (status,
// headers) as its fetch route says: the body read, its From replaced by
// To, the status and headers given put in place of the server's. The
// body comes decoded: the headers that described its encoding go.
func (p *Page) changeAnswer(id string, status int, headers []Header, ans RouteAnswer) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var got struct {
		Body          string `json:"body"`
		Base64Encoded bool   `json:"base64Encoded"`
	}
	if err := p.sess.Call(ctx, "Fetch.getResponseBody", map[string]any{"requestId": id}, &got); err != nil {
		// No body to change (a redirect, a 204): the answer as it is.
		_ = p.sess.Call(ctx, "Fetch.continueResponse", map[string]any{"requestId": id}, nil)
		return
	}
	body := []byte(got.Body)
	if got.Base64Encoded {
		b, err := base64.StdEncoding.DecodeString(got.Body)
		if err != nil {
			_ = p.sess.Call(ctx, "Fetch.continueResponse", map[string]any{"requestId": id}, nil)
			return
		}
		body = b
	}
	if ans.From != "" && len(body) <= maxFetchedBody {
		body = []byte(strings.ReplaceAll(string(body), ans.From, ans.To))
	}
	if ans.Status > 0 {
		status = ans.Status
	}
	merged := map[string]string{}
	var order []string
	for _, h := range headers {
		k := strings.ToLower(h.Name)
		if k == "content-length" || k == "content-encoding" || k == "transfer-encoding" {
			continue
		}
		if _, ok := merged[k]; !ok {
			order = append(order, k)
			merged[k] = h.Value
		} else {
			merged[k] += "\n" + h.Value // Set-Cookie and the like, kept apart below
		}
	}
	for k, v := range ans.Headers {
		k = strings.ToLower(k)
		if _, ok := merged[k]; !ok {
			order = append(order, k)
		}
		merged[k] = v
	}
	var hs []map[string]string
	for _, k := range order {
		if merged[k] == "" {
			continue
		}
		for _, v := range strings.Split(merged[k], "\n") {
			hs = append(hs, map[string]string{"name": k, "value": v})
		}
	}
	if err := p.sess.Call(ctx, "Fetch.fulfillRequest", map[string]any{"requestId": id, "responseCode": status,
		"responsePhrase": http.StatusText(status), "responseHeaders": hs,
		"body": base64.StdEncoding.EncodeToString(body)}, nil); err != nil && !p.Closed() {
		// Chromium refused the changed answer (a header it will not
		// take): the page gets a failure now, not a request that hangs.
		_ = p.sess.Call(ctx, "Fetch.failRequest", map[string]any{"requestId": id, "errorReason": "Failed"}, nil)
	}
}

// netRouted notes the route that answered a request (Chromium's network
// id), for the log.
func (p *Page) netRouted(networkID, route string) {
	if networkID == "" {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if r := p.net.byID[networkID]; r != nil {
		r.Route = route
		return
	}
	if len(p.net.routed) < 256 {
		p.net.routed[networkID] = route
	}
}
