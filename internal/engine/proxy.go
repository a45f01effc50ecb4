package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/browserd/browserd/internal/egress"
	"github.com/browserd/browserd/internal/sessions"
)

// A session's upstream proxy (launch's proxy, Playwright's shape): its
// requests go through it once the guard allowed them, from its guard
// listener (internal/egress), which is the session's own. Like the
// environment fields it is set when launch creates the session.

// prepareProxy reads launch's proxy into c.proxy, before any session is
// made: a proxy browserd cannot use, or whose address the session's guard
// refuses (as it would a page's request there), fails the call with
// nothing made — and nothing sent to it.
func (c *call) prepareProxy(ctx context.Context) error {
	p := c.in.Proxy
	if p == nil {
		return nil
	}
	switch {
	case c.e.Cfg.CDP != "":
		return fail("proxy cannot apply to a browser browserd attaches to (--cdp): its requests do not go through browserd; start that browser with its own --proxy-server")
	case c.e.NoProxy:
		return fail("proxy needs browserd's egress proxy, which this daemon runs without")
	}
	u, err := egress.ParseUpstream(p.Server)
	if err != nil {
		return fail("launch: proxy.server: %v", err)
	}
	if u.HasLogin() {
		return fail("launch: proxy.server %s holds a login: give it in proxy.username and proxy.password instead, which are never shown", u)
	}
	u.Username, u.Password, u.Bypass = p.Username, p.Password, egress.SplitBypass(p.Bypass)
	if err := u.Validate(); err != nil {
		return fail("launch: proxy: %v", err)
	}
	// The proxy's own address passes the guard like any destination's;
	// the guard checks it again at each dial (its name may resolve
	// elsewhere by then).
	pol, err := c.e.LaunchPolicy(&c.in)
	if err != nil {
		return err
	}
	if err := c.e.Proxy.CheckUpstream(ctx, pol, &u); err != nil {
		msg := fmt.Sprintf("launch: proxy.server: %v", err)
		if ue := (*egress.UpstreamError)(nil); errors.As(err, &ue) && ue.Rule != "" {
			// The session's own lists narrow the daemon's.
			switch {
			case ue.Rule == egress.RuleNotOnly && len(c.in.OnlyHosts) > 0:
				msg += "; launch's onlyHosts must name it too"
			case ue.Rule != egress.RuleBlocked && ue.Rule != egress.RuleNotOnly && ue.Rule != egress.RuleProxyItself && len(c.in.AllowHosts) > 0:
				msg += "; launch's allowHosts must name it too"
			}
		}
		return fail("%s", msg)
	}
	c.proxy = &u
	return nil
}

// sameProxy refuses a launch on a session that already runs (the call
// did not create it) when it asks for another proxy than the session has:
// a proxy applies only when a session is created. A launch that leaves
// proxy out, or asks for the session's, passes.
func (e *Engine) sameProxy(s *sessions.Session, want *egress.Upstream) error {
	if want == nil {
		return nil
	}
	e.Mu.Lock()
	have := s.Proxy
	e.Mu.Unlock()
	if have != nil && have.String() == want.String() && have.Username == want.Username &&
		have.Password == want.Password && slices.Equal(have.Bypass, want.Bypass) {
		return nil
	}
	now := "without a proxy of its own"
	if have != nil {
		now = "with proxy " + have.String()
		if have.String() == want.String() {
			now += " (another login or bypass list)"
		}
	}
	return fail("session %q already runs %s: proxy applies only when launch creates the session — close it first (the close action; a session ends with its last task's close), then launch again, or launch another session",
		sessions.BareName(s.ID), now)
}

// applyProxy gives a session the call created its proxy (none: the
// daemon's), on its guard listener if it has one already; one opened
// later gets it from EgressFor.
func (c *call) applyProxy(s *sessions.Session) error {
	e := c.e
	e.Mu.Lock()
	s.Proxy = c.proxy
	eg := s.Egress
	e.Mu.Unlock()
	if eg == nil {
		return nil
	}
	if err := eg.SetUpstream(c.proxy); err != nil {
		return fmt.Errorf("giving the session its proxy: %w", err)
	}
	return nil
}

// proxyNote says what launch set up, never the password.
func proxyNote(u *egress.Upstream) string {
	n := "the session's requests go through proxy " + u.String()
	if u.Username != "" {
		n += " (login " + u.Username + ")"
	}
	n += " once browserd's guard allowed them, to the address the guard checked"
	if len(u.Bypass) > 0 {
		n += "; these go direct: " + strings.Join(u.Bypass, ", ")
	}
	return n + "; loopback always goes direct"
}

// proxyFailure words what an upstream proxy did for the agent, with where
// its login is set when that is what failed: the session's own proxy
// (own), or the daemon's.
func proxyFailure(own bool, err *egress.UpstreamError) string {
	msg := err.Error()
	if !err.Login {
		return msg
	}
	if own {
		return msg + "; they are the session's (launch's proxy): close the session and launch it again with the right ones"
	}
	return msg + "; they are browserd's (--proxy-login-file, or BROWSERD_PROXY_USERNAME and BROWSERD_PROXY_PASSWORD), read when the daemon starts"
}

// proxyStatus is the line status shows for a session's upstream proxy,
// "" when it has none. Called with e.Mu held.
func (e *Engine) proxyStatus(s *sessions.Session) string {
	var srv string
	var own bool
	switch {
	case s.Egress != nil:
		srv, own = s.Egress.Upstream()
	case s.Proxy != nil:
		srv, own = s.Proxy.String(), true
	case e.Cfg.CDP == "" && !e.NoProxy:
		srv = e.Proxy.Upstream()
	}
	if srv == "" {
		return ""
	}
	whose := "the daemon's"
	if own {
		whose = "its own"
		if s.Proxy != nil && s.Proxy.Username != "" {
			whose += ", login " + s.Proxy.Username
		}
	}
	return fmt.Sprintf("  session %s: through proxy %s (%s)\n", s.ID, srv, whose)
}
