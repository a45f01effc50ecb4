package cli

import "github.com/browserd/browserd/internal/tool"

type statusCmd struct{}

func (c *statusCmd) input() (tool.Input, error) { return tool.Input{Action: "status"}, nil }

type launchCmd struct {
	Timeout timeoutFlag `embed:""`
}

func (c *launchCmd) input() (tool.Input, error) {
	return tool.Input{Action: "launch", Timeout: c.Timeout.Timeout}, nil
}

type closeCmd struct{}

func (c *closeCmd) input() (tool.Input, error) { return tool.Input{Action: "close"}, nil }

type taskEndCmd struct{}

func (c *taskEndCmd) input() (tool.Input, error) { return tool.Input{Action: "task_end"}, nil }
