package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/browserd/browserd/internal/browser"
	"github.com/browserd/browserd/internal/config"
	"github.com/browserd/browserd/internal/network"
)

// HAR bodies: the responses an API's debugging needs (documents, XHR,
// fetch), each up to harBodyMax, all of them up to harBodiesMax.
const (
	harBodyMax   = 256 << 10
	harBodiesMax = 8 << 20
)

// network is the network action: the tab's requests since its last
// navigation, one of them whole with its body, or the log as a HAR file.
func (c *call) network(ctx context.Context) error {
	pg := c.tab.Page
	reqs, dropped := pg.NetLog()
	c.markRefused(reqs)
	redact := c.in.Redact == nil || *c.in.Redact
	switch {
	case c.in.Request != "":
		for i := range reqs {
			if r := &reqs[i]; r.ID == c.in.Request {
				var body network.Body
				switch {
				case r.Failed != "" || r.Refused != "":
					body.Err = errors.New("it failed")
				case r.Status == 0:
					body.Err = errors.New("no response yet")
				default:
					// A response the page never read may not report
					// its end: Chromium may hold its body all the same.
					body.Data, body.Binary, body.Err = pg.ResponseBody(ctx, r.ID)
				}
				c.res.Content = network.One(r, body, network.OneOptions{Redact: redact, MaxChars: c.in.MaxChars})
				return nil
			}
		}
		return fail("no request %s in tab %s's network log: it keeps the requests since the tab's last navigation (%d now); list them with network", c.in.Request, c.tab.ID, len(reqs))
	case c.in.Path != "":
		path, err := c.e.DataFile(c.owner, "har", c.in.Path, fmt.Sprintf("%s-%s.har", c.tab.ID, browser.Stamp(time.Now())), ".har")
		if err != nil {
			return &userError{Msg: err.Error()}
		}
		data, err := c.har(ctx, reqs, redact)
		if err != nil {
			return err
		}
		if err := os.WriteFile(path, data, 0o600); err != nil {
			return fmt.Errorf("saving the HAR file: %w", err)
		}
		c.res.Path = path
		what := "cookies and logins redacted"
		if !redact {
			what = "with cookies and logins: keep it private"
		}
		c.res.Content = fmt.Sprintf("HAR of %d requests saved to %s (%s; %s)", len(reqs), path, network.Size(int64(len(data))), what)
		return nil
	}
	c.res.Content = network.List(reqs, dropped, network.ListOptions{Filter: c.in.Filter})
	return nil
}

// har is the tab's log as HAR 1.2, with the bodies of its documents, XHR
// and fetch responses that Chromium still holds.
func (c *call) har(ctx context.Context, reqs []browser.Request, redact bool) ([]byte, error) {
	pg := c.tab.Page
	bodies := map[string]network.Body{}
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
		data, binary, err := pg.ResponseBody(ctx, r.ID)
		if err != nil || len(data) > harBodyMax {
			continue
		}
		bodies[r.ID] = network.Body{Data: data, Binary: binary}
		total += len(data)
	}
	return network.HAR(reqs, network.HAROptions{
		Version: config.Version(), PageURL: pg.URL().Unwrap(), Redact: redact, Bodies: bodies,
		Redactor: c.e.redactor(ctx, c.owner).String,
	})
}

// markRefused marks the requests the session's egress proxy refused: to
// Chromium they are a 403 (plain HTTP) or a tunnel that failed (HTTPS).
func (c *call) markRefused(reqs []browser.Request) {
	c.e.Mu.Lock()
	eg := c.task.Sess.Egress
	c.e.Mu.Unlock()
	if eg == nil {
		return
	}
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
		if d, ok := eg.Refusal(key); ok {
			// The rule and its reason; no hint to loosen the guard: the
			// page chose the request.
			r.Refused = d.Reason
		}
	}
}
