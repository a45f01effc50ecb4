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
type RouteAnswer struct {
	Name    string // the route, as the network log marks what it answered
	Abort   string
	Status  int
	Headers map[string]string
	Body    []byte
	Delay   time.Duration
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
	case ans.Status > 0:
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
		if len(ans.Headers) > 0 {
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
