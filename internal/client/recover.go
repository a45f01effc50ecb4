package client

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/browserd/browserd/internal/config"
	"github.com/browserd/browserd/internal/tool"
)

// ErrLost is returned (wrapped) when the daemon stopped answering in the
// middle of a call: it was sent, and whether it took effect is unknown.
var ErrLost = errors.New("browserd daemon stopped answering")

// retryable are the actions that may be sent again after the daemon died
// under them: they change nothing on the page (reads), or doing them twice
// is doing them once (navigate to a URL, switching to a tab, saving a file
// under the same name).
var retryable = map[string]bool{
	"snapshot": true, "tabs": true, "status": true, "extract": true, "console": true,
	"screenshot": true, "wait": true, "list_sessions": true, "navigate": true,
	"tab_switch": true, "pdf": true, "state_save": true,
}

// Retryable reports whether a call cut short by the daemon's death may be
// sent again as it is.
func Retryable(in tool.Input) bool { return retryable[in.Action] }

// Resilient is the tool.Handler of the thin clients (the CLI, `browserd
// mcp`): it starts the daemon when none answers, and when the daemon dies
// during a call (kill -9, a crash), it starts another — which resumes the
// session from its capture on the call's first use — and then sends a
// Retryable call again, once; any other call is answered with what is known:
// the daemon restarted, the session is back, whether the action happened
// is unknown, and the page as it is now. It is safe for concurrent use.
type Resilient struct {
	cfg config.Config

	mu sync.Mutex // guards c; held while a daemon starts
	c  *Client

	// Started is called with each client Resilient makes after the
	// first (a daemon it started); nil is fine.
	Started func(*Client)
}

// NewResilient returns a Resilient for cfg's data directory (resolved).
// It does not connect until the first call.
func NewResilient(cfg config.Config) *Resilient {
	return &Resilient{cfg: cfg, c: New(cfg.SocketPath())}
}

// EnsureResilient is NewResilient with a daemon that answers (Ensure).
func EnsureResilient(ctx context.Context, cfg config.Config) (*Resilient, error) {
	c, err := Ensure(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return &Resilient{cfg: cfg, c: c}, nil
}

// Client is the current client.
func (r *Resilient) Client() *Client {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.c
}

// Close drops the current client's idle connections.
func (r *Resilient) Close() { r.Client().Close() }

// ensure starts a daemon unless one answers; one at a time.
func (r *Resilient) ensure(ctx context.Context) (*Client, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	// A daemon that is dying (or one just starting) may take the
	// connection and drop it: ask again until one answers or none is
	// there, which Ensure then starts.
	deadline := time.Now().Add(StartTimeout)
	var c *Client
	for {
		var err error
		c, err = Ensure(ctx, r.cfg)
		if err == nil {
			break
		}
		if !errors.Is(err, ErrLost) || time.Now().After(deadline) {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	if c.socket == r.c.socket {
		r.c.Close()
	}
	r.c = c
	if r.Started != nil {
		r.Started(c)
	}
	return c, nil
}

// Prestart starts a daemon unless one answers, before any call: a client
// that connects (browserd mcp) has it start while the agent gets going.
func (r *Resilient) Prestart(ctx context.Context) (*Client, error) {
	return r.ensure(ctx)
}

// Do sends in, starting or restarting the daemon as needed.
func (r *Resilient) Do(ctx context.Context, in tool.Input) (tool.Result, error) {
	c := r.Client()
	res, err := c.Do(ctx, in)
	switch {
	case errors.Is(err, ErrUnreachable):
		// Nothing answered, so the call was never sent: start a daemon
		// and send it. If that daemon dies under it too, the call is
		// lost as below.
		if c, err = r.ensure(ctx); err != nil {
			return tool.Result{}, err
		}
		if res, err = c.Do(ctx, in); !errors.Is(err, ErrLost) {
			return res, err
		}
	case !errors.Is(err, ErrLost):
		return res, err
	}
	lost := err
	// The daemon may die again while it resumes the session or answers
	// the call sent again (a machine out of memory, a crash the session
	// brings back): a few restarts are tried before the call fails.
	again := func(in tool.Input) (tool.Result, error) {
		for restarts := 1; ; restarts++ {
			if c, err = r.ensure(ctx); err != nil {
				return tool.Result{}, fmt.Errorf("%w; starting it again failed: %w", lost, err)
			}
			res, err := c.Do(ctx, in)
			if !errors.Is(err, ErrLost) || restarts == maxRestarts {
				return res, err
			}
			lost = err
		}
	}
	if Retryable(in) {
		res, err := again(in)
		if err == nil {
			res.Notes = append(res.Notes, "browserd restarted during this call (its daemon died); the session was resumed and the call sent again")
		}
		return res, err
	}
	// Whether it happened is unknown: answer with the page as it is.
	now, err := again(tool.Input{Action: "snapshot", Session: in.Session, Profile: in.Profile, Task: in.Task, Tab: in.Tab, UserDataDir: in.UserDataDir})
	if err != nil {
		return tool.Result{}, fmt.Errorf("%w; the daemon was started again, but reading the page failed: %w", lost, err)
	}
	now.Action, now.Success = in.Action, false
	now.Error = fmt.Sprintf("browserd restarted during %s (its daemon died); the session is back, but whether the %s happened is unknown — check the page below before you repeat it", in.Action, in.Action)
	if !now.Wrapped && now.Content == "" {
		now.Error += " (the page could not be read)"
	}
	return now, nil
}

// maxRestarts bounds the daemons Resilient.Do starts for one call.
const maxRestarts = 3

// API calls the current daemon's HTTP API (Client.API).
func (r *Resilient) API(ctx context.Context, method, path string, body, out any) error {
	return r.Client().API(ctx, method, path, body, out)
}
