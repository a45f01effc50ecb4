package browsers

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/browserd/browserd/internal/browser"
	"github.com/browserd/browserd/internal/egress"
	"github.com/browserd/browserd/internal/sessions"
	"github.com/browserd/browserd/internal/tool"
)

// A session's browser context, and the guard's listener its requests go
// through.

func (e *Pool) ContextFor(ctx context.Context, sl *sessions.Slot, s *sessions.Session) (string, error) {
	br := sl.Br
	e.Mu.Lock()
	id := s.CtxID
	e.Mu.Unlock()
	// A profile's or a folder's session uses its browser's default context
	// (the one the folder's files belong to); an attached browser's tasks
	// share it too.
	if id != "" || br.Attached() || s.Profile != "" || s.Dir != "" {
		return id, nil
	}
	eg, err := e.EgressFor(s)
	if err != nil {
		return "", err
	}
	id, err = br.NewContext(ctx, e.Cfg.Path("downloads"), eg.URL())
	if err != nil {
		return "", fmt.Errorf("creating the session's browser context: %w", err)
	}
	e.Mu.Lock()
	s.CtxID = id
	e.Mu.Unlock()
	return id, nil
}

// fetchGuard is the Fetch-interception fallback of the guard for pages the
// egress proxy cannot see (an attached browser's default context). It
// applies the session's policy to each request's host; unlike the proxy it
// cannot pin the address Chromium then connects to, so DNS rebinding is
// not covered there (docs/security.md).
func (e *Pool) FetchGuard(s *sessions.Session) func(ctx context.Context, raw string) error {
	return func(ctx context.Context, raw string) error {
		u, err := url.Parse(raw)
		if err != nil {
			return fmt.Errorf("request to an unparsable URL refused")
		}
		switch u.Scheme {
		case "http", "https", "ws", "wss":
		default:
			return nil // data:, blob: and the like carry no network request
		}
		port := u.Port()
		if port == "" {
			port = map[string]string{"http": "80", "ws": "80", "https": "443", "wss": "443"}[u.Scheme]
		}
		e.Mu.Lock()
		pol := s.Policy
		e.Mu.Unlock()
		if d := pol.Check(ctx, e.Resolver, u.Hostname(), port); !d.Allowed {
			d.URL = u.Scheme + "://" + u.Host + u.Path
			return errors.New(d.Error())
		}
		return nil
	}
}

// egressFor returns the session's guard listener, opening it on first use
// with the session's policy and upstream proxy.
func (e *Pool) EgressFor(s *sessions.Session) (*egress.Session, error) {
	e.Mu.Lock()
	defer e.Mu.Unlock()
	if s.Egress != nil {
		return s.Egress, nil
	}
	eg, err := e.Proxy.Session(s.Policy)
	if err != nil {
		return nil, fmt.Errorf("opening the session's egress guard: %w", err)
	}
	if s.Proxy != nil {
		// The session's own upstream proxy, before any request.
		if err := eg.SetUpstream(s.Proxy); err != nil {
			eg.Close()
			return nil, fmt.Errorf("giving the session's guard its proxy: %w", err)
		}
	}
	if len(s.ClientCerts) > 0 {
		certs, err := sessions.ParseClientCerts(s.ClientCerts)
		if err != nil {
			e.Log.Warn("a session's client certificate no longer loads", "session", s.ID, "err", err)
		}
		eg.SetClientCerts(certs)
	}
	s.Egress = eg
	return eg, nil
}

// setPolicy narrows a session's guard with the lists of a launch call: a
// session can only refuse more than the server, never allow more.
func (e *Pool) SetPolicy(s *sessions.Session, in *tool.Input) error {
	pol, err := e.LaunchPolicy(in)
	if err != nil {
		return err
	}
	e.Mu.Lock()
	s.Policy = pol
	eg := s.Egress
	e.Mu.Unlock()
	if eg != nil {
		eg.SetPolicy(pol)
	}
	return nil
}

// LaunchPolicy is the policy a launch's lists give its session: the
// server's, narrowed by them (the server's as it is without any).
func (e *Pool) LaunchPolicy(in *tool.Input) (egress.Policy, error) {
	if len(in.AllowHosts)+len(in.BlockHosts)+len(in.OnlyHosts) == 0 {
		return e.Guard, nil
	}
	q := egress.Policy{AllowHosts: in.AllowHosts, AllowPrivate: e.Guard.AllowPrivate, BlockHosts: in.BlockHosts, OnlyHosts: in.OnlyHosts}
	if len(q.AllowHosts) == 0 {
		q.AllowHosts = e.Guard.AllowHosts
	}
	if err := q.Validate(); err != nil {
		return egress.Policy{}, &tool.Error{Msg: strings.NewReplacer("egress: --allow-host", "allowHosts", "egress: --block-host", "blockHosts", "egress: --only-hosts", "onlyHosts").Replace(err.Error())}
	}
	// A session narrows the server's guard, never widens it: an entry the
	// server does not allow is refused, not dropped without a word.
	if wider := e.Guard.Wider(q); len(wider) > 0 && !e.Guard.AllowPrivate {
		return egress.Policy{}, tool.Fail("allowHosts %s: not allowed by the server, and a session can only narrow the server's list — start browserd with --allow-host %s to let sessions reach it",
			strings.Join(wider, ", "), strings.Join(wider, " --allow-host "))
	}
	return e.Guard.Narrow(q), nil
}

// SpareTab hands out a blank tab nobody is attached to — the browser's own
// first tab (about:blank, opened at launch), or one RefillSpare opened
// ahead — once, so that a new tab need not wait for Chromium to open one.
func (e *Pool) SpareTab(sl *sessions.Slot, br *browser.Browser) string {
	e.Mu.Lock()
	defer e.Mu.Unlock()
	if len(sl.Spares) == 0 || sl.Br != br {
		return ""
	}
	id := sl.Spares[0]
	sl.Spares = sl.Spares[1:]
	return id
}

// RefillSpare opens, in the background, a blank tab in the default
// context of sl's browser br, for the next new tab to take (SpareTab):
// Chromium takes 25–80 ms to open a tab, which a task opening tabs one
// after another then does not wait for. Only for a browser browserd
// started that shows no windows (a person would see the blank tab), and
// one at a time. The tab closes with the browser; an engine that is
// closing opens none.
func (e *Pool) RefillSpare(sl *sessions.Slot, br *browser.Browser) {
	e.Mu.Lock()
	if e.Closed || sl.Br != br || len(sl.Spares) > 0 || sl.Refilling || sl.Headed || br.Attached() {
		e.Mu.Unlock()
		return
	}
	sl.Refilling = true
	e.WG.Add(1)
	e.Mu.Unlock()
	go func() {
		defer e.WG.Done()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		id, err := br.NewTarget(ctx, "")
		e.Mu.Lock()
		sl.Refilling = false
		keep := err == nil && !e.Closed && sl.Br == br && len(sl.Spares) == 0
		if keep {
			sl.Spares = append(sl.Spares, id)
		}
		e.Mu.Unlock()
		if err == nil && !keep {
			_ = br.CloseTarget(ctx, id)
		}
	}()
}
