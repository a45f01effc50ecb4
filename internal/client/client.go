// Package client is the Go client of the browserd daemon's HTTP API over its
// Unix socket. The CLI and `browserd mcp` use it; Ensure starts a daemon when
// none answers, so that a client call is all a user needs.
package client

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/browserd/browserd/internal/config"
	"github.com/browserd/browserd/internal/tool"
)

// ErrUnreachable is returned (wrapped) when nothing answers on the socket:
// the request was never sent, so it is safe to start a daemon and retry.
var ErrUnreachable = errors.New("browserd daemon unreachable")

// Client talks to one daemon. It is safe for concurrent use.
type Client struct {
	socket string
	hc     *http.Client
}

// Health is what the daemon says about itself.
type Health struct {
	OK      bool   `json:"ok"`
	PID     int    `json:"pid"`
	Version string `json:"version"`
	// Settings are the daemon's effective settings (config.Settings);
	// nil from a daemon that does not report them.
	Settings []config.Setting `json:"settings"`
}

// New returns a client of the daemon listening on socketPath. It does not
// connect until the first call.
func New(socketPath string) *Client {
	c := &Client{socket: socketPath}
	c.hc = &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var d net.Dialer
			conn, err := d.DialContext(ctx, "unix", socketPath)
			if err != nil {
				return nil, &dialError{socket: socketPath, err: err}
			}
			return conn, nil
		},
		MaxIdleConns:    4,
		IdleConnTimeout: 30 * time.Second,
	}}
	return c
}

// Socket is the path the client dials.
func (c *Client) Socket() string { return c.socket }

// Close drops idle connections. The client stays usable.
func (c *Client) Close() { c.hc.CloseIdleConnections() }

// Do runs one browser tool call on the daemon. An action that fails comes
// back as a Result with Success false and a nil error; an error means the
// call could not be made (see ErrUnreachable).
func (c *Client) Do(ctx context.Context, in tool.Input) (tool.Result, error) {
	body, err := json.Marshal(in)
	if err != nil {
		return tool.Result{}, fmt.Errorf("encode %s input: %w", in.Action, err)
	}
	var res tool.Result
	if err := c.call(ctx, http.MethodPost, "/api/actions", body, &res); err != nil {
		return tool.Result{}, err
	}
	return res, nil
}

// HealthInfo asks the daemon for its health.
func (c *Client) HealthInfo(ctx context.Context) (Health, error) {
	var h Health
	if err := c.call(ctx, http.MethodGet, "/api/health", nil, &h); err != nil {
		return Health{}, err
	}
	if !h.OK {
		return h, fmt.Errorf("browserd daemon on %s says it is not ok", c.socket)
	}
	return h, nil
}

// Health returns nil when the daemon answers and is ok.
func (c *Client) Health(ctx context.Context) error {
	_, err := c.HealthInfo(ctx)
	return err
}

// SettingsWarning asks the daemon for its settings and, when it runs
// without some that cfg gives (config.Mismatches), says which and how to
// apply them; it is "" when the settings agree, and when the daemon cannot
// say (it does not answer, or is older than settings in /api/health).
//
// A daemon takes its settings when it starts: a command's flags reach only a
// daemon that the command starts, so without this warning a command such as
// `browserd --allow-host 10.0.0.5 open http://10.0.0.5/` would be refused
// with advice to pass the very flag it was given.
func (c *Client) SettingsWarning(ctx context.Context, cfg config.Config) string {
	h, err := c.HealthInfo(ctx)
	if err != nil || h.Settings == nil {
		return ""
	}
	return MismatchWarning(h.PID, cfg, config.Mismatches(cfg.Settings(), h.Settings))
}

// MismatchWarning phrases config.Mismatches of the daemon pid of cfg's data
// directory; "" when there are none.
func MismatchWarning(pid int, cfg config.Config, ms []config.Mismatch) string {
	if len(ms) == 0 {
		return ""
	}
	parts := make([]string, len(ms))
	for i, m := range ms {
		parts[i] = describeMismatch(m)
	}
	return fmt.Sprintf("the running browserd daemon (pid %d) was started with other settings, and keeps them until it restarts: %s; "+
		"to apply them, run `browserd stop --data %s` and retry this command (it starts a daemon with its settings)",
		pid, strings.Join(parts, "; "), cfg.Data)
}

func describeMismatch(m config.Mismatch) string {
	flag := "--" + m.Flag
	if m.Switch {
		return fmt.Sprintf("this command gives %s, the daemon runs without it", flag)
	}
	want := flag + " " + strings.Join(quoteEmpty(m.Want), ",")
	switch {
	case m.Have == nil:
		return fmt.Sprintf("this command gives %s, the daemon has no %s (the default)", want, flag)
	case m.Flag == "listen" && len(m.Have) == 1 && m.Have[0] == "":
		return fmt.Sprintf("this command gives %s, the daemon serves its Unix socket only", want)
	default:
		return fmt.Sprintf("this command gives %s, the daemon has %s %s", want, flag, strings.Join(quoteEmpty(m.Have), ","))
	}
}

func quoteEmpty(vals []string) []string {
	out := make([]string, len(vals))
	for i, v := range vals {
		if v == "" {
			v = "''"
		}
		out[i] = v
	}
	return out
}

func (c *Client) call(ctx context.Context, method, path string, body []byte, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, "http://browserd"+path, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("build %s %s request: %w", method, path, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		if de := (*dialError)(nil); errors.As(err, &de) {
			return de
		}
		if ctx.Err() != nil {
			return fmt.Errorf("%s %s: %w", method, path, ctx.Err())
		}
		return fmt.Errorf("%w (on %s) during %s %s: %w; see browserd.log in the data directory", ErrLost, c.socket, method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return fmt.Errorf("%w: reading its answer to %s %s: %w", ErrLost, method, path, err)
	}
	if resp.StatusCode/100 != 2 {
		var e struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(data, &e) == nil && e.Error != "" {
			return fmt.Errorf("browserd daemon refused %s %s (HTTP %d): %s", method, path, resp.StatusCode, e.Error)
		}
		return fmt.Errorf("browserd daemon answered %s %s with HTTP %d: %.200s", method, path, resp.StatusCode, data)
	}
	if out == nil || resp.StatusCode == http.StatusNoContent {
		return nil
	}
	if raw, ok := out.(*[]byte); ok { // the answer as it came (a HAR, a trace)
		*raw = data
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("decode the daemon's answer to %s %s: %w", method, path, err)
	}
	return nil
}

// SessionHint is source 003 FR-5's prompt block for a session or a stored
// session (mcpserver.Hinter): what the MCP prompt session_context gives.
func (c *Client) SessionHint(ctx context.Context, session, stored string) (string, error) {
	path := "/api/sessions/" + url.PathEscape(cmp.Or(session, "default")) + "/hint"
	if stored != "" {
		path = "/api/stored-sessions/" + url.PathEscape(stored) + "/hint"
	}
	var h struct {
		PromptHint string `json:"promptHint"`
	}
	if err := c.call(ctx, http.MethodGet, path, nil, &h); err != nil {
		return "", err
	}
	return h.PromptHint, nil
}

// API calls one endpoint of the daemon's HTTP API as admin (the socket's
// owner): body is sent as JSON unless nil, a 2xx answer is decoded into
// out unless nil, and any other answer is an error carrying the daemon's
// message.
func (c *Client) API(ctx context.Context, method, path string, body, out any) error {
	var b []byte
	if body != nil {
		var err error
		if b, err = json.Marshal(body); err != nil {
			return fmt.Errorf("encode %s %s: %w", method, path, err)
		}
	}
	return c.call(ctx, method, path, b, out)
}

// dialError is a failure to reach the socket. It is ErrUnreachable.
type dialError struct {
	socket string
	err    error
}

func (e *dialError) Error() string {
	return fmt.Sprintf("browserd daemon unreachable on %s: %v — start it with `browserd serve`, or let any browserd command start it", e.socket, e.err)
}

func (e *dialError) Unwrap() []error { return []error{ErrUnreachable, e.err} }
