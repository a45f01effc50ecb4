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
}

// input starts the input of a page-changing action.
func (p pageFlags) input(action string) tool.Input {
	in := tool.Input{Action: action, Timeout: p.Timeout, Full: p.Full}
	if p.NoSnapshot {
		no := false
		in.Snapshot = &no
	}
	return in
}

// pointFlag is --at X,Y: a point of the viewport in CSS pixels (a
// viewport screenshot's), in place of a ref.
type pointFlag struct {
	At string `help:"A point of the viewport in CSS pixels (a viewport screenshot's), in place of a ref: --at 480,240." placeholder:"X,Y"`
}

// apply sets the input's x and y from --at.
func (p pointFlag) apply(in *tool.Input) error {
	if p.At == "" {
		return nil
	}
	x, y, ok := tool.DragPoint(p.At)
	if !ok {
		return usagef("--at takes X,Y in CSS pixels of the viewport, e.g. --at 480,240, not %q", p.At)
	}
	in.X, in.Y = &x, &y
	return nil
}
