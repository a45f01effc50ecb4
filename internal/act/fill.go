package act

import (
	"context"
	"fmt"
	"strings"

	"github.com/browserd/browserd/internal/browser"
	"github.com/browserd/browserd/internal/tool"
)

// Fill sets several fields in one call (Playwright MCP's browser_fill_form,
// Chrome DevTools MCP's fill_form): each field as its own action would —
// a textbox cleared and typed into (type), a select's option chosen
// (select), a checkbox, switch or radio button clicked when its state is
// not the one asked (click) — in order, stopping at the first that fails,
// which the error names. The answer shows what all of them changed.
func (c *Tab) Fill(ctx context.Context) error {
	orig := c.In
	defer func() { c.In = orig }()
	for i, f := range orig.Fields {
		c.In = tool.Input{Action: "fill", Ref: f.Ref, Task: orig.Task, Tab: orig.Tab}
		if err := c.fillOne(ctx, f); err != nil {
			return &tool.Error{Msg: fmt.Sprintf("fill stopped at fields[%d] (%s, %d of %d set before it): %s", i, f.Ref, i, len(orig.Fields), c.explain(err))}
		}
	}
	return nil
}

// fillOne sets one field.
func (c *Tab) fillOne(ctx context.Context, f tool.Field) error {
	pg := c.Page
	el, err := c.Refs.Elem(f.Ref)
	if err != nil {
		return err
	}
	if el, err = c.replaced(ctx, f.Ref, el); err != nil {
		return err
	}
	var kind struct {
		Kind    string `json:"kind"` // check, radio, select, text
		Checked bool   `json:"checked"`
	}
	err = pg.CallOn(ctx, el, `function() {
	  let el = this.nodeType === 1 ? this : this.parentElement;
	  if (el.tagName === 'LABEL' && el.control) el = el.control;
	  const role = el.getAttribute('role');
	  if (el.tagName === 'INPUT' && (el.type === 'checkbox' || el.type === 'radio')) return {kind: el.type === 'radio' ? 'radio' : 'check', checked: el.checked};
	  if (role === 'checkbox' || role === 'switch' || role === 'menuitemcheckbox') return {kind: 'check', checked: el.getAttribute('aria-checked') === 'true'};
	  if (role === 'radio' || role === 'menuitemradio') return {kind: 'radio', checked: el.getAttribute('aria-checked') === 'true'};
	  if (el.tagName === 'SELECT' || el.tagName === 'OPTION') return {kind: 'select'};
	  return {kind: 'text'};
	}`, &kind)
	if err != nil {
		return err
	}
	if f.Secret != "" && kind.Kind != "text" {
		return tool.Fail("%s is a %s: a secret is typed only into a text field", f.Ref, kind.Kind)
	}
	switch kind.Kind {
	case "select":
		c.In.Value = f.Value
		return c.Select(ctx)
	case "check", "radio":
		want, ok := parseChecked(f.Value)
		if !ok {
			return tool.Fail("%s is a %s: give true or false as its value, not %q", f.Ref, map[string]string{"check": "checkbox", "radio": "radio button"}[kind.Kind], f.Value)
		}
		if want == kind.Checked {
			return nil
		}
		if !want && kind.Kind == "radio" {
			return tool.Fail("radio button %s cannot be unchecked: set another button of its group to true", f.Ref)
		}
		aim, err := pg.Aim(ctx, el, "click")
		if err != nil {
			return err
		}
		m := pg.Mark(ctx)
		if err := pg.Click(ctx, aim.X, aim.Y, browser.ClickOptions{}); err != nil {
			return err
		}
		return pg.Settle(ctx, m)
	}
	// A dropdown the page draws that takes no typing (a button popping
	// up a list, react-select's read-only input): its option is chosen.
	var dd struct {
		Pops     bool `json:"pops"`
		Editable bool `json:"editable"`
	}
	// (dropdownJS says no to inputs set by value: a range, a date.)
	if err := pg.CallOn(ctx, el, dropdownJS, &dd); f.Secret == "" && err == nil && dd.Pops && !dd.Editable {
		if ok, err := c.selectCustom(ctx, el, []string{f.Value}); ok {
			return err
		}
	}
	c.In.Text, c.In.Clear, c.In.Secret = f.Value, true, f.Secret
	return c.Type(ctx)
}

// parseChecked reads a checkbox's wanted state.
func parseChecked(v string) (want, ok bool) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true", "yes", "on", "checked", "1", "x":
		return true, true
	case "false", "no", "off", "unchecked", "0", "":
		return false, true
	}
	return false, false
}
