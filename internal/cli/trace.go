package cli

import (
	"cmp"
	"context"
	"fmt"
	"net/url"
	"os"
)

// traceCmd is `browserd trace`: a task's recording (what its agent did and
// saw) as JSON, or one self-contained HTML file.
type traceCmd struct {
	ID     string `arg:"" optional:"" name:"session" help:"The session (default: the profile's, default)."`
	HTML   bool   `name:"html" help:"One self-contained HTML file to open offline, frames included (default: JSON)."`
	Output string `name:"output" short:"o" placeholder:"FILE" help:"Write it to FILE instead of standard output."`
}

func (c *traceCmd) run(ctx context.Context, e *env) error {
	session := cmp.Or(c.ID, e.g.Profile, "default")
	task := cmp.Or(e.g.Session, "default")
	path := "/api/sessions/" + url.PathEscape(session) + "/trace?task=" + url.QueryEscape(task)
	if c.HTML {
		path += "&format=html"
	}
	var b []byte
	if err := e.api(ctx, "GET", path, nil, &b); err != nil {
		return err
	}
	if c.Output != "" {
		if err := os.WriteFile(c.Output, b, 0o600); err != nil {
			return fmt.Errorf("writing the trace: %w", err)
		}
		_, err := fmt.Fprintln(e.stdout, c.Output)
		return err
	}
	_, err := e.stdout.Write(b)
	return err
}
