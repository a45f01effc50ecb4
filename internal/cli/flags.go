package cli

import "github.com/browserd/browserd/internal/tool"

// targetFlags name an element when a command takes one; the positional REF,
// when the command has one, is the other way.
type targetFlags struct {
	Selector string `help:"CSS selector of the element." placeholder:"CSS"`
	Role     string `help:"ARIA role of the element (with --name)." placeholder:"ROLE"`
	Name     string `help:"Accessible name of the element (with --role)." placeholder:"NAME"`
}

func (t targetFlags) given() bool { return t.Selector != "" || t.Role != "" || t.Name != "" }

func (t targetFlags) apply(in *tool.Input, ref string) {
	in.Ref, in.Selector, in.Role, in.Name = ref, t.Selector, t.Role, t.Name
}

// timeoutFlag is the action timeout.
type timeoutFlag struct {
	Timeout int `help:"Milliseconds to wait before giving up (default: the daemon's)." placeholder:"MS"`
}

// pageFlags are the flags of an action that changes the page.
type pageFlags struct {
	Timeout    int  `help:"Milliseconds to wait before giving up (default: the daemon's)." placeholder:"MS"`
	NoSnapshot bool `name:"no-snapshot" help:"Do not print the page snapshot after the action."`
	Full       bool `help:"Print the whole page after the action, not only what changed."`
	Codegen    bool `name:"code" help:"Also print the Playwright line that does the same as the action (codegen: true)."`
}

// input starts the input of a page-changing action.
func (p pageFlags) input(action string) tool.Input {
	in := tool.Input{Action: action, Timeout: p.Timeout, Full: p.Full, Codegen: p.Codegen}
	if p.NoSnapshot {
		no := false
		in.Snapshot = &no
	}
	return in
}
