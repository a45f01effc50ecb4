package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/browserd/browserd/internal/client"
	"github.com/browserd/browserd/internal/config"
)

// healthCmd asks a running daemon whether it is up — GET /api/health, which
// needs no token — and never starts one: the check of a container's
// HEALTHCHECK (the image has no curl) or of a script waiting for the
// daemon. It asks the HTTP listener, as a load balancer does: --url, else
// --listen's address (127.0.0.1 for a wildcard such as 0.0.0.0), else
// serve's default; --listen given empty asks the Unix socket instead.
type healthCmd struct {
	URL     string        `name:"url" placeholder:"URL" help:"The daemon's base URL, e.g. http://10.0.0.5:8765 (default: --listen's address, 127.0.0.1 for a wildcard, else 127.0.0.1:8765; --listen '' asks the Unix socket)."`
	Timeout time.Duration `name:"timeout" default:"5s" help:"Fail when the daemon has not answered within this long."`
}

func (c *healthCmd) run(ctx context.Context, e *env) error {
	ctx, cancel := context.WithTimeout(ctx, c.Timeout)
	defer cancel()
	base := c.URL
	if base == "" && e.g.listenSet && e.g.Listen == "" {
		cl := client.New(e.g.SocketPath())
		defer cl.Close()
		h, err := cl.HealthInfo(ctx)
		if err != nil {
			return err
		}
		return e.printHealth(h, cl.Socket())
	}
	if base == "" {
		listen := e.g.Listen
		if !e.g.listenSet {
			listen = config.DefaultListen
		}
		var err error
		if base, err = localURL(listen); err != nil {
			return usageError{err}
		}
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return usagef("--url %q: want the daemon's base URL, e.g. http://127.0.0.1:8765", base)
	}
	target := strings.TrimSuffix(base, "/") + "/api/health"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return usagef("--url %q: %v", base, err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("browserd does not answer at %s: %w", target, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	var h client.Health
	if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &h) != nil || !h.OK {
		return fmt.Errorf("browserd at %s is not ok: HTTP %d %.200s", target, resp.StatusCode, body)
	}
	return e.printHealth(h, target)
}

// printHealth prints a daemon's health, as JSON with --json.
func (e *env) printHealth(h client.Health, where string) error {
	if e.g.JSON {
		return writeJSON(e.stdout, h)
	}
	fmt.Fprintf(e.stdout, "ok: browserd %s (pid %d) at %s\n", h.Version, h.PID, where)
	return nil
}

// localURL is the http:// base URL at which this machine reaches a daemon
// listening on listen: a wildcard host (0.0.0.0, ::, none) becomes the
// loopback address of its family.
func localURL(listen string) (string, error) {
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return "", fmt.Errorf("--listen %q: want HOST:PORT: %w", listen, err)
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
		if ip != nil && ip.To4() == nil {
			host = "::1"
		}
	}
	return "http://" + net.JoinHostPort(host, port), nil
}
