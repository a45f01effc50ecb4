package cli

import (
	"strings"

	"github.com/browserd/browserd/internal/tool"
)

type clickCmd struct {
	Ref      string      `arg:"" optional:"" help:"Element ref from the last snapshot, e.g. e12."`
	Double   bool        `help:"Double-click."`
	Button   string      `help:"Mouse button: left (default), right or middle." enum:"left,right,middle" default:"left"`
	Modifier []string    `help:"Key held during the click: Shift, Control, Alt or Meta (repeat for several)." placeholder:"KEY"`
	Point    pointFlag   `embed:""`
	Target   targetFlags `embed:""`
	Page     pageFlags   `embed:""`
}

func (c *clickCmd) input() (tool.Input, error) {
	in := c.Page.input("click")
	c.Target.apply(&in, c.Ref)
	in.Double = c.Double
	if c.Button != "left" {
		in.Button = c.Button
	}
	in.Modifiers = c.Modifier
	return in, c.Point.apply(&in)
}

type hoverCmd struct {
	Ref    string      `arg:"" optional:"" help:"Element ref from the last snapshot, e.g. e12."`
	Point  pointFlag   `embed:""`
	Target targetFlags `embed:""`
	Page   pageFlags   `embed:""`
}

func (c *hoverCmd) input() (tool.Input, error) {
	in := c.Page.input("hover")
	c.Target.apply(&in, c.Ref)
	return in, c.Point.apply(&in)
}

// dragCmd is drag: REF TO, or --selector CSS TO.
type dragCmd struct {
	Args   []string    `arg:"" name:"ref-to" help:"The element to drag (a ref, e.g. e12; or give --selector or --at X,Y) and the ref of the element to drop it on (or a point X,Y)."`
	Point  pointFlag   `embed:""`
	Target targetFlags `embed:""`
	Page   pageFlags   `embed:""`
}

func (c *dragCmd) input() (tool.Input, error) {
	in := c.Page.input("drag")
	ref, to, err := refAndValue("drag", c.Args)
	if err != nil {
		return tool.Input{}, err
	}
	c.Target.apply(&in, ref)
	in.To = to
	return in, c.Point.apply(&in)
}

// fillCmd is fill: REF=VALUE….
type fillCmd struct {
	Fields []string  `arg:"" optional:"" name:"ref=value" help:"Fields to set, each REF=VALUE: text for a textbox (cleared first), an option for a select, true or false for a checkbox, switch or radio."`
	Secret []string  `help:"REF=NAME: type the stored secret NAME into that field (see browserd secret); repeatable." placeholder:"REF=NAME"`
	Page   pageFlags `embed:""`
}

func (c *fillCmd) input() (tool.Input, error) {
	in := c.Page.input("fill")
	for _, a := range c.Fields {
		ref, value, ok := strings.Cut(a, "=")
		if !ok {
			return tool.Input{}, usagef("fill takes REF=VALUE pairs (e.g. e3=Ada e5=true), not %q", a)
		}
		in.Fields = append(in.Fields, tool.Field{Ref: ref, Value: value})
	}
	for _, a := range c.Secret {
		ref, name, ok := strings.Cut(a, "=")
		if !ok || name == "" {
			return tool.Input{}, usagef("fill --secret takes REF=NAME (e.g. --secret e6=SHOP_PASSWORD), not %q", a)
		}
		in.Fields = append(in.Fields, tool.Field{Ref: ref, Secret: name})
	}
	if len(in.Fields) == 0 {
		return tool.Input{}, usagef("fill needs fields: REF=VALUE pairs, or --secret REF=NAME")
	}
	return in, nil
}

// refAndValue splits `[REF] VALUE`: kong cannot put an optional positional
// before a required one.
func refAndValue(cmd string, args []string) (ref, value string, err error) {
	switch len(args) {
	case 1:
		return "", args[0], nil
	case 2:
		return args[0], args[1], nil
	default:
		return "", "", usagef("%s takes [REF] VALUE, got %d arguments; quote text that has spaces", cmd, len(args))
	}
}

type typeCmd struct {
	Args   []string    `arg:"" optional:"" name:"ref-and-text" help:"Element ref (optional when --selector or --role is given), then the text (none with --secret)."`
	Secret string      `help:"Type the stored secret NAME instead of a text: its value never comes back (see browserd secret)." placeholder:"NAME"`
	Clear  bool        `help:"Clear the field first."`
	Submit bool        `help:"Press Enter after typing."`
	Point  pointFlag   `embed:""`
	Target targetFlags `embed:""`
	Page   pageFlags   `embed:""`
}

func (c *typeCmd) input() (tool.Input, error) {
	var ref, text string
	var err error
	switch {
	case c.Secret != "" && len(c.Args) > 1:
		return tool.Input{}, usagef("type --secret NAME takes only the element's ref, not a text")
	case c.Secret != "" && len(c.Args) == 1:
		ref = c.Args[0]
	case c.Secret == "":
		if ref, text, err = refAndValue("type", c.Args); err != nil {
			return tool.Input{}, err
		}
	}
	in := c.Page.input("type")
	c.Target.apply(&in, ref)
	in.Text, in.Secret, in.Clear, in.Submit = text, c.Secret, c.Clear, c.Submit
	return in, c.Point.apply(&in)
}

type selectCmd struct {
	Args   []string    `arg:"" name:"ref-and-values" help:"Element ref (optional when --selector or --role is given), then the option's value or label; several for a multi-select."`
	Target targetFlags `embed:""`
	Page   pageFlags   `embed:""`
}

func (c *selectCmd) input() (tool.Input, error) {
	args := c.Args
	in := c.Page.input("select")
	ref := ""
	if c.Target.Selector == "" && c.Target.Role == "" && len(args) > 1 {
		ref, args = args[0], args[1:]
	}
	if len(args) == 0 {
		return tool.Input{}, usagef("select takes [REF] VALUE [VALUE...]")
	}
	c.Target.apply(&in, ref)
	if len(args) == 1 {
		in.Value = args[0]
	} else {
		in.Values = args
	}
	return in, nil
}

type pressCmd struct {
	Key    string      `arg:"" help:"Key or chord, e.g. Enter, Tab, ArrowDown, Control+a."`
	Ref    string      `name:"ref" help:"Focus this element (ref from the last snapshot) first; default: what has focus." placeholder:"REF"`
	Target targetFlags `embed:""`
	Page   pageFlags   `embed:""`
}

func (c *pressCmd) input() (tool.Input, error) {
	in := c.Page.input("press")
	in.Key = c.Key
	c.Target.apply(&in, c.Ref)
	return in, nil
}

type scrollCmd struct {
	Direction string      `arg:"" optional:"" help:"down (default), up, left, right, top or bottom."`
	Amount    int         `help:"Pixels to scroll (default: one screen)." placeholder:"N"`
	Clicks    int         `help:"Wheel clicks to scroll, in place of --amount: 100 px each, or 0.8 of a smaller scroll box under the wheel." placeholder:"N"`
	Ref       string      `name:"ref" help:"Scroll inside this element (ref from the last snapshot) instead of the page." placeholder:"REF"`
	Point     pointFlag   `embed:""`
	Target    targetFlags `embed:""`
	Page      pageFlags   `embed:""`
}

func (c *scrollCmd) input() (tool.Input, error) {
	in := c.Page.input("scroll")
	in.Direction, in.Amount, in.Clicks = c.Direction, c.Amount, c.Clicks
	c.Target.apply(&in, c.Ref)
	return in, c.Point.apply(&in)
}

type uploadCmd struct {
	Args   []string    `arg:"" name:"ref-and-files" help:"Element ref of the file input (left out with --selector or --role), then file names inside the upload folder."`
	Target targetFlags `embed:""`
	Page   pageFlags   `embed:""`
}

func (c *uploadCmd) input() (tool.Input, error) {
	ref, files := "", c.Args
	if !c.Target.given() {
		if len(c.Args) < 2 {
			return tool.Input{}, usagef("upload takes REF FILE... (or --selector CSS FILE...): name the file input and at least one file")
		}
		ref, files = c.Args[0], c.Args[1:]
	}
	in := c.Page.input("upload")
	c.Target.apply(&in, ref)
	in.Files = files
	return in, nil
}

type dialogCmd struct {
	Accept  dialogAcceptCmd  `cmd:"" help:"Accept the dialog, answering a prompt with TEXT."`
	Dismiss dialogDismissCmd `cmd:"" help:"Dismiss (cancel) the dialog."`
}

type dialogAcceptCmd struct {
	Text string    `arg:"" optional:"" help:"Answer to a prompt dialog."`
	Page pageFlags `embed:""`
}

func (c *dialogAcceptCmd) input() (tool.Input, error) {
	in := c.Page.input("dialog")
	yes := true
	in.Accept, in.Text = &yes, c.Text
	return in, nil
}

type dialogDismissCmd struct {
	Page pageFlags `embed:""`
}

func (c *dialogDismissCmd) input() (tool.Input, error) {
	in := c.Page.input("dialog")
	no := false
	in.Accept = &no
	return in, nil
}

// mouseCmd is mouse_move, mouse_down and mouse_up: the mouse as separate
// steps at a point (drawing, a long press).
type mouseCmd struct {
	Step   string    `arg:"" enum:"move,down,up" help:"move, down or up."`
	At     string    `arg:"" name:"x,y" help:"The point of the viewport in CSS pixels, e.g. 480,240."`
	Button string    `help:"Mouse button for down and up: left (default), right or middle." enum:"left,right,middle" default:"left"`
	Page   pageFlags `embed:""`
}

func (c *mouseCmd) input() (tool.Input, error) {
	in := c.Page.input("mouse_" + c.Step)
	if c.Button != "left" {
		in.Button = c.Button
	}
	return in, pointFlag{At: c.At}.apply(&in)
}
