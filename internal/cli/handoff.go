package cli

import "github.com/browserd/browserd/internal/tool"

type handoffCmd struct {
	Reason string    `arg:"" help:"What the person should do, shown on the dashboard (e.g. \"enter the SMS code\")."`
	Page   pageFlags `embed:""`
}

// input asks a person for help: the tab waits on the dashboard until one
// takes control and hands it back (default 10 minutes; --timeout).
func (c *handoffCmd) input() (tool.Input, error) {
	in := c.Page.input("handoff")
	in.Reason = c.Reason
	return in, nil
}
