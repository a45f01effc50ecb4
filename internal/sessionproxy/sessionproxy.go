// Package sessionproxy is a session's own upstream proxy (launch's proxy,
// Playwright's shape): its requests go through it once browserd's guard
// allowed them, from the session's guard listener (internal/egress).
// Like the environment fields it is set when launch creates the session.
// The package reads and checks launch's proxy before any session is made
// (a proxy browserd cannot use, or whose address the session's guard
// refuses, fails the call with nothing made and nothing sent to it),
// refuses another proxy for a session that runs, gives the session its
// proxy, and words what a proxy did for the agent and for status.
//
// The engine wires Proxies (its room) and calls it from launch.
package sessionproxy

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/browserd/browserd/internal/egress"
	"github.com/browserd/browserd/internal/sessions"
	"github.com/browserd/browserd/internal/tool"
)

// Policies gives the guard's policy a launch's lists make for its session
// (browsers.Pool's LaunchPolicy).
type Policies interface {
	LaunchPolicy(in *tool.Input) (egress.Policy, error)
}

// Proxies reads, checks and applies sessions' upstream proxies.
type Proxies struct {
	*sessions.Registry
	Policies Policies
}

// ParseProxy reads launch's proxy (nil for none) and checks it as the
// session's guard would: a *tool.Error says what to fix.
func (p *Proxies) ParseProxy(ctx context.Context, in *tool.Input) (*egress.Upstream, error) {
	px := in.Proxy
	if px == nil {
		return nil, nil
	}
	switch {
	case p.Cfg.CDP != "":
		return nil, tool.Fail("proxy cannot apply to a browser browserd attaches to (--cdp): its requests do not go through browserd; start that browser with its own --proxy-server")
	case p.NoProxy:
		return nil, tool.Fail("proxy needs browserd's egress proxy, which this daemon runs without")
	}
	u, err := egress.ParseUpstream(px.Server)
	if err != nil {
		return nil, tool.Fail("launch: proxy.server: %v", err)
	}
	if u.HasLogin() {
		return nil, tool.Fail("launch: proxy.server %s holds a login: give it in proxy.username and proxy.password instead, which are never shown", u)
	}
	u.Username, u.Password, u.Bypass = px.Username, px.Password, egress.SplitBypass(px.Bypass)
	if err := u.Validate(); err != nil {
		return nil, tool.Fail("launch: proxy: %v", err)
	}
	// The proxy's own address passes the guard like any destination's;
	// the guard checks it again at each dial (its name may resolve
	// elsewhere by then).
	pol, err := p.Policies.LaunchPolicy(in)
	if err != nil {
		return nil, err
	}
	if err := p.Proxy.CheckUpstream(ctx, pol, &u); err != nil {
		msg := fmt.Sprintf("launch: proxy.server: %v", err)
		if ue := (*egress.UpstreamError)(nil); errors.As(err, &ue) && ue.Rule != "" {
			// The session's own lists narrow the daemon's.
			switch {
			case ue.Rule == egress.RuleNotOnly && len(in.OnlyHosts) > 0:
				msg += "; launch's onlyHosts must name it too"
			case ue.Rule != egress.RuleBlocked && ue.Rule != egress.RuleNotOnly && ue.Rule != egress.RuleProxyItself && len(in.AllowHosts) > 0:
				msg += "; launch's allowHosts must name it too"
			}
		}
		return nil, tool.Fail("%s", msg)
	}
	return &u, nil
}

// SameProxy refuses a launch on a session that already runs (the call
// did not create it) when it asks for another proxy than the session has:
// a proxy applies only when a session is created. A launch that leaves
// proxy out, or asks for the session's, passes.
func (p *Proxies) SameProxy(s *sessions.Session, want *egress.Upstream) error {
	if want == nil {
		return nil
	}
	p.Mu.Lock()
	have := s.Proxy
	p.Mu.Unlock()
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
	return tool.Fail("session %q already runs %s: proxy applies only when launch creates the session — close it first (the close action; a session ends with its last task's close), then launch again, or launch another session",
		sessions.BareName(s.ID), now)
}

// ApplyProxy gives a session a call created its proxy u (nil: the
// daemon's), on its guard listener if it has one already; one opened
// later gets it from EgressFor.
func (p *Proxies) ApplyProxy(s *sessions.Session, u *egress.Upstream) error {
	p.Mu.Lock()
	s.Proxy = u
	eg := s.Egress
	p.Mu.Unlock()
	if eg == nil {
		return nil
	}
	if err := eg.SetUpstream(u); err != nil {
		return fmt.Errorf("giving the session its proxy: %w", err)
	}
	return nil
}

// Note says what launch set up, never the password.
func Note(u *egress.Upstream) string {
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

// Failure words what an upstream proxy did for the agent, with where its
// login is set when that is what failed: the session's own proxy (own),
// or the daemon's.
func Failure(own bool, err *egress.UpstreamError) string {
	msg := err.Error()
	if !err.Login {
		return msg
	}
	if own {
		return msg + "; they are the session's (launch's proxy): close the session and launch it again with the right ones"
	}
	return msg + "; they are browserd's (--proxy-login-file, or BROWSERD_PROXY_USERNAME and BROWSERD_PROXY_PASSWORD), read when the daemon starts"
}

// ProxyStatus is the line status shows for a session's upstream proxy,
// "" when it has none. Call with the registry's Mu held.
func (p *Proxies) ProxyStatus(s *sessions.Session) string {
	var srv string
	var own bool
	switch {
	case s.Egress != nil:
		srv, own = s.Egress.Upstream()
	case s.Proxy != nil:
		srv, own = s.Proxy.String(), true
	case p.Cfg.CDP == "" && !p.NoProxy:
		srv = p.Proxy.Upstream()
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
