package cli

import (
	"context"
	"fmt"
	"os/exec"
)

type dashboardCmd struct {
	Open bool `help:"Open the URL in the desktop's browser (xdg-open)."`
}

// run prints a one-time URL that signs admin in to the dashboard (another
// owner gets one with POST /api/dashboard and its token).
func (c *dashboardCmd) run(ctx context.Context, e *env) error {
	var out struct {
		URL       string `json:"url"`
		ExpiresIn string `json:"expiresIn"`
	}
	if err := e.api(ctx, "POST", "/api/dashboard", nil, &out); err != nil {
		return err
	}
	if e.g.JSON {
		return writeJSON(e.stdout, out)
	}
	fmt.Fprintln(e.stdout, out.URL)
	fmt.Fprintf(e.stderr, "open it within %s; it works once, then the browser keeps a sign-in cookie\n", out.ExpiresIn)
	if c.Open {
		if err := exec.Command("xdg-open", out.URL).Start(); err != nil {
			return fmt.Errorf("opening the URL: %w; open it by hand", err)
		}
	}
	return nil
}
