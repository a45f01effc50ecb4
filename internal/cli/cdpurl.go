package cli

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strings"

	"github.com/browserd/browserd/internal/client"
)

// cdpURLCmd prints the URL of the daemon's CDP endpoint for a task
// (internal/cdpproxy): what Playwright's connectOverCDP, Puppeteer's
// connect and agent-browser's --cdp take. It holds admin's token, as
// clients that set no headers need: treat it as the token itself.
type cdpURLCmd struct {
	Session  string `name:"browser-session" placeholder:"NAME" help:"The tool's session to connect to (default: the profile's, or the default session)."`
	NoToken  bool   `name:"no-token" help:"Leave the token out (send it as Authorization: Bearer instead)."`
	HTTPForm bool   `name:"http" help:"Print the http:// form clients that ask /json/version take."`
}

func (c *cdpURLCmd) run(ctx context.Context, e *env) error {
	var h client.Health
	if err := e.api(ctx, "GET", "/api/health", nil, &h); err != nil {
		return err
	}
	listen := ""
	for _, s := range h.Settings {
		if s.Flag == "listen" && len(s.Values) > 0 {
			listen = s.Values[0]
		}
	}
	if listen == "" {
		return fmt.Errorf("the daemon of %s listens on its Unix socket only, and CDP clients connect over TCP: start it with browserd serve (it listens on 127.0.0.1:8765) or --listen ADDR", e.g.Data)
	}
	base, err := localURL(listen)
	if err != nil {
		return err
	}
	q := url.Values{}
	for k, v := range map[string]string{"session": c.Session, "profile": e.g.Profile, "task": e.g.Session} {
		if v != "" {
			q.Set(k, v)
		}
	}
	if !c.NoToken {
		tok, err := os.ReadFile(e.g.Path("token"))
		if err != nil {
			return fmt.Errorf("reading admin's token: %w (or use --no-token and send a token of your own)", err)
		}
		q.Set("token", strings.TrimSpace(string(tok)))
	}
	u := strings.Replace(base, "http://", "ws://", 1) + "/cdp"
	if c.HTTPForm {
		u = base
	}
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	fmt.Fprintln(e.stdout, u)
	return nil
}
