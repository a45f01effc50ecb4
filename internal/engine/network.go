package engine

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/browserd/browserd/internal/browser"
	"github.com/browserd/browserd/internal/config"
	"github.com/browserd/browserd/internal/network"
)

// network is the network action (internal/network): the tab's requests
// since its last navigation, one of them whole with its body, or the log
// as a HAR file.
func (c *call) network(ctx context.Context) error {
	pg := c.tab.Page
	reqs, dropped := pg.NetLog()
	c.e.Mu.Lock()
	eg := c.task.Sess.Egress
	c.e.Mu.Unlock()
	if eg != nil {
		network.MarkRefused(reqs, func(key string) (string, bool) { d, ok := eg.Refusal(key); return d.Reason, ok })
	}
	redact := c.in.Redact == nil || *c.in.Redact
	switch {
	case c.in.Request != "":
		shown, ok := network.Request(ctx, pg, reqs, c.in.Request, network.OneOptions{Redact: redact, MaxChars: c.in.MaxChars})
		if !ok {
			return fail("no request %s in tab %s's network log: it keeps the requests since the tab's last navigation (%d now); list them with network", c.in.Request, c.tab.ID, len(reqs))
		}
		c.res.Content = shown
		return nil
	case c.in.Path != "":
		path, err := c.e.DataFile(c.owner, "har", c.in.Path, fmt.Sprintf("%s-%s.har", c.tab.ID, browser.Stamp(time.Now())), ".har")
		if err != nil {
			return &userError{Msg: err.Error()}
		}
		bodies, err := network.HARBodies(ctx, pg, reqs)
		if err != nil {
			return err
		}
		data, err := network.HAR(reqs, network.HAROptions{Version: config.Version(), PageURL: pg.URL().Unwrap(), Redact: redact,
			Bodies: bodies, Redactor: c.e.Redactor(ctx, c.owner).String})
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
