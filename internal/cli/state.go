package cli

import (
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

func (c *stateLoadCmd) run(ctx context.Context, e *env) error {
	data, err := os.ReadFile(c.File)
	if err != nil {
		return err
	}
	res, err := e.call(ctx, tool.Input{Action: "state_load", State: data})
	if err != nil {
		return err
	}
	return e.print(res)
}

// call sends one input to the daemon with the global task and profile.
func (e *env) call(ctx context.Context, in tool.Input) (tool.Result, error) {
	if in.Task == "" {
		in.Task = e.g.Session
	}
	if in.Profile == "" {
		in.Profile = e.g.Profile
	}
	h, done, err := e.connect(ctx, e.g.Config)
	if err != nil {
		return tool.Result{}, err
	}
	defer done()
	res, err := h.Do(ctx, in)
	if res.Action == "" {
		res.Action = in.Action
	}
	return res, err
}
