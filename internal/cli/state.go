package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"

	"github.com/browserd/browserd/internal/tool"
)

type stateCmd struct {
	Save stateSaveCmd `cmd:"" help:"Save the session's cookies and storage as a Playwright storageState file."`
	Load stateLoadCmd `cmd:"" help:"Load a Playwright storageState file into the session."`
}

type stateSaveCmd struct {
	File string `arg:"" help:"File to write (Playwright's storageState JSON; it holds credentials, so it is written 0600)."`
}

// run saves the session's state — the folder's with --user-data-dir or
// AGENT_BROWSER_PROFILE, as every command that acts on a session (see
// env.call) — and writes a copy to File.
func (c *stateSaveCmd) run(ctx context.Context, e *env) error {
	res, err := e.call(ctx, tool.Input{Action: "state_save"})
	if err != nil {
		return err
	}
	if res.Success {
		if err := os.WriteFile(c.File, res.State, 0o600); err != nil {
			return fmt.Errorf("writing %s: %w", c.File, err)
		}
		res.Content = fmt.Sprintf("%s (copy written to %s)", res.Content, c.File)
	}
	res.State = nil
	return e.print(res)
}

type stateLoadCmd struct {
	File string `arg:"" help:"A Playwright storageState JSON file." type:"existingfile"`
}

// run loads File into the session — the folder's with --user-data-dir or
// AGENT_BROWSER_PROFILE, as every command that acts on a session (see
// env.call).
func (c *stateLoadCmd) run(ctx context.Context, e *env) error {
	data, err := os.ReadFile(c.File)
	if err != nil {
		return err
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return usagef("%s is empty: give a Playwright storageState JSON file (`browserd state save FILE` writes one)", c.File)
	}
	res, err := e.call(ctx, tool.Input{Action: "state_load", State: data})
	if err != nil {
		return err
	}
	return e.print(res)
}
