package cli

import (
	"fmt"
	"strings"

	"github.com/browserd/browserd/internal/tool"
)

type snapshotCmd struct {
	Ref         string      `arg:"" optional:"" help:"Element ref: that element only, or a long list from that item on (the ref of a '… N more' line pages through it)."`
	Interactive bool        `short:"i" help:"Only elements you can act on."`
	Depth       int         `help:"Maximum tree depth." placeholder:"N"`
	MaxChars    int         `name:"max-chars" help:"Character budget of the snapshot." placeholder:"N"`
	Diff        bool        `help:"Only what changed since the last snapshot."`
	Selector    string      `help:"Snapshot only the part of the page under this CSS selector (an item of a long list: the list from it on)." placeholder:"CSS"`
	Full        bool        `help:"Read the whole page afresh, not patched from the last read and what changed since."`
	Timeout     timeoutFlag `embed:""`
}

func (c *snapshotCmd) input() (tool.Input, error) {
	return tool.Input{Action: "snapshot", Ref: c.Ref, Interactive: c.Interactive, Depth: c.Depth, MaxChars: c.MaxChars,
		Diff: c.Diff, Selector: c.Selector, Full: c.Full, Timeout: c.Timeout.Timeout}, nil
}

type extractCmd struct {
	Ref     string      `arg:"" optional:"" help:"Element ref from the last snapshot (default: the whole page)."`
	Target  targetFlags `embed:""`
	Timeout timeoutFlag `embed:""`
}

func (c *extractCmd) input() (tool.Input, error) {
	in := tool.Input{Action: "extract", Timeout: c.Timeout.Timeout}
	c.Target.apply(&in, c.Ref)
	return in, nil
}

type screenshotCmd struct {
	Ref      string      `arg:"" optional:"" help:"Element ref to capture (default: the whole page)."`
	FullPage bool        `name:"full-page" help:"Capture the whole page (the default)."`
	Viewport bool        `help:"Capture only the viewport, not the whole page." xor:"extent"`
	Path     string      `help:"File name inside the data directory (default: a new name)." placeholder:"NAME"`
	Annotate bool        `help:"The viewport with each actionable element's ref drawn on it, and the list of labels."`
	Target   targetFlags `embed:""`
	Timeout  timeoutFlag `embed:""`
}

func (c *screenshotCmd) input() (tool.Input, error) {
	in := tool.Input{Action: "screenshot", Path: c.Path, Timeout: c.Timeout.Timeout}
	switch {
	case c.Viewport && c.FullPage:
		return in, fmt.Errorf("screenshot: --viewport and --full-page contradict each other; give one")
	case c.Viewport:
		in.FullPage = new(false)
	case c.FullPage:
		in.FullPage = new(true)
	}
	c.Target.apply(&in, c.Ref)
	in.Annotate = c.Annotate
	return in, nil
}

type pdfCmd struct {
	Path    string      `help:"File name inside the data directory (default: a new name)." placeholder:"NAME"`
	Timeout timeoutFlag `embed:""`
}

func (c *pdfCmd) input() (tool.Input, error) {
	return tool.Input{Action: "pdf", Path: c.Path, Timeout: c.Timeout.Timeout}, nil
}

type evalCmd struct {
	Expression []string    `arg:"" help:"JavaScript expression; several words are joined with spaces."`
	Timeout    timeoutFlag `embed:""`
}

func (c *evalCmd) input() (tool.Input, error) {
	return tool.Input{Action: "evaluate", Expression: strings.Join(c.Expression, " "), Timeout: c.Timeout.Timeout}, nil
}

type waitCmd struct {
	Selector string `help:"Wait until an element matches this CSS selector." placeholder:"CSS"`
	Text     string `help:"Wait until this text appears." placeholder:"TEXT"`
	TextGone string `name:"text-gone" help:"Wait until this text disappears." placeholder:"TEXT"`
	URL      string `name:"url" help:"Wait until the URL contains this." placeholder:"URL"`
	Time     int    `help:"Sleep this many milliseconds." placeholder:"MS"`
	Load     bool   `help:"Wait for the tab's next page load (one in progress counts), e.g. after a click that navigates."`
	Timeout  int    `help:"Give up after this many milliseconds (default: the daemon's)." placeholder:"MS"`
	Full     bool   `help:"Print the whole page after waiting, not only what changed."`
}

func (c *waitCmd) input() (tool.Input, error) {
	return tool.Input{Action: "wait", Selector: c.Selector, Text: c.Text, TextGone: c.TextGone, URL: c.URL,
		Time: c.Time, Load: c.Load, Timeout: c.Timeout, Full: c.Full}, nil
}

type networkCmd struct {
	Filter  string      `arg:"" optional:"" help:"Only requests whose URL has this text, of this type (document, script, fetch, xhr, image, …), or failed."`
	Request string      `help:"Show this request whole (its id from the listing, e.g. r3): headers and response body." placeholder:"ID"`
	HAR     string      `name:"har" help:"Write the log as HAR 1.2 to this file name in the data directory's har folder; prints its path." placeholder:"NAME"`
	Redact  bool        `default:"true" negatable:"" help:"Redact cookies, logins and tokens (--no-redact keeps them)."`
	Timeout timeoutFlag `embed:""`
}

func (c *networkCmd) input() (tool.Input, error) {
	in := tool.Input{Action: "network", Filter: c.Filter, Request: c.Request, Path: c.HAR, Timeout: c.Timeout.Timeout}
	if !c.Redact {
		in.Redact = new(false)
	}
	return in, nil
}

type consoleCmd struct {
	Timeout timeoutFlag `embed:""`
}

func (c *consoleCmd) input() (tool.Input, error) {
	return tool.Input{Action: "console", Timeout: c.Timeout.Timeout}, nil
}
