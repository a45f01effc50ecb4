package cli

import "github.com/browserd/browserd/internal/tool"

type navigateCmd struct {
	URL  string    `arg:"" help:"http(s) URL."`
	Page pageFlags `embed:""`
}

func (c *navigateCmd) input() (tool.Input, error) {
	in := c.Page.input("navigate")
	in.URL = c.URL
	return in, nil
}

type backCmd struct {
	Page pageFlags `embed:""`
}

func (c *backCmd) input() (tool.Input, error) { return c.Page.input("back"), nil }

type forwardCmd struct {
	Page pageFlags `embed:""`
}

func (c *forwardCmd) input() (tool.Input, error) { return c.Page.input("forward"), nil }

type reloadCmd struct {
	Page pageFlags `embed:""`
}

func (c *reloadCmd) input() (tool.Input, error) { return c.Page.input("reload"), nil }
