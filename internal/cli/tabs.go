package cli

import "github.com/browserd/browserd/internal/tool"

type tabsCmd struct{}

func (c *tabsCmd) input() (tool.Input, error) { return tool.Input{Action: "tabs"}, nil }

type tabCmd struct {
	New    tabNewCmd    `cmd:"" help:"Open a new tab, at URL if given, and switch to it."`
	Close  tabCloseCmd  `cmd:"" help:"Close a tab (default: the current one)."`
	Switch tabSwitchCmd `cmd:"" help:"Make a tab the task's current tab."`
}

type tabNewCmd struct {
	URL  string    `arg:"" optional:"" help:"http(s) URL to open."`
	Page pageFlags `embed:""`
}

func (c *tabNewCmd) input() (tool.Input, error) {
	in := c.Page.input("tab_new")
	in.URL = c.URL
	return in, nil
}

type tabCloseCmd struct {
	ID string `arg:"" optional:"" help:"Tab id from tabs, e.g. t2."`
}

func (c *tabCloseCmd) input() (tool.Input, error) {
	return tool.Input{Action: "tab_close", Tab: c.ID}, nil
}

type tabSwitchCmd struct {
	ID   string    `arg:"" help:"Tab id from tabs, e.g. t2."`
	Page pageFlags `embed:""`
}

func (c *tabSwitchCmd) input() (tool.Input, error) {
	in := c.Page.input("tab_switch")
	in.Tab = c.ID
	return in, nil
}
