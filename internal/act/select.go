package act

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/browserd/browserd/internal/browser"
	"github.com/browserd/browserd/internal/tool"
)

// replacementJS finds the control a widget library drew in place of a
// <select>: an ancestor combobox, or one in the next two siblings.
const replacementJS = `function() {
  const el = this.nodeType === 1 ? this : this.parentElement;
  if (el.tagName !== 'SELECT') return null;
  const pops = '[role=combobox],[aria-haspopup]';
  const up = el.parentElement && el.parentElement.closest(pops);
  if (up) return up;
  for (let s = el.nextElementSibling, i = 0; s && i < 2; s = s.nextElementSibling, i++) {
    if (s.matches(pops)) return s;
    const inner = s.querySelector(pops);
    if (inner) return inner;
  }
  return null;
}`

// Select picks options of a <select> by value or by label, the way
// a person's choice does: selected, then input and change events. values
// picks several of a multi-select (and only those).
func (c *Tab) Select(ctx context.Context) error {
	pg := c.Page
	el, err := c.Target(ctx)
	if err != nil {
		return err
	}
	// value and values together name the options of both (clients that
	// fill every field they know send the same option twice).
	want := slices.Clone(c.In.Values)
	if c.In.Value != "" && !slices.Contains(want, c.In.Value) {
		want = append(want, c.In.Value)
	}
	if _, _, err := pg.Point(ctx, el, "select"); err != nil {
		// A <select> a widget library hid or covered with its own
		// control (Choices.js, Select2, jQuery UI's selectmenu, Tom
		// Select) is chosen from through that control, as a person does.
		var na *browser.NotActionableError
		if errors.As(err, &na) {
			if w, found, ferr := pg.ElemFrom(ctx, el, replacementJS); ferr == nil && found {
				if ok, cerr := c.selectCustom(ctx, w, want); ok {
					return cerr
				}
			}
		}
		return err
	}
	var r struct {
		OK      bool     `json:"ok"`
		Err     string   `json:"err"`
		Which   string   `json:"which"`
		Picked  []string `json:"picked"`
		Options []string `json:"options"`
	}
	// The watch and the choice go to the page together.
	m, err := pg.MarkThen(ctx, el, `function(want) {
	  let el = this.nodeType === 1 ? this : this.parentElement;
	  if (el.tagName === 'OPTION') el = el.closest('select');
	  if (!el || el.tagName !== 'SELECT') return {err: 'not a select'};
	  const opts = [...el.options];
	  const list = () => opts.map(o => o.label + (o.value !== o.label ? ' (' + o.value + ')' : ''));
	  if (want.length > 1 && !el.multiple) return {err: 'not multiple'};
	  const picked = [];
	  for (const w of want) {
	    const o = opts.find(o => o.value === w) || opts.find(o => o.label === w || o.text.trim() === w) ||
	              opts.find(o => o.label.toLowerCase() === w.toLowerCase());
	    if (!o) return {err: 'no option', which: w, options: list()};
	    if (o.disabled) return {err: 'disabled option', which: w};
	    picked.push(o);
	  }
	  el.focus();
	  if (el.multiple) for (const o of opts) o.selected = picked.includes(o);
	  else picked[0].selected = true;
	  el.dispatchEvent(new Event('input', {bubbles: true}));
	  el.dispatchEvent(new Event('change', {bubbles: true}));
	  return {ok: true, picked: picked.map(o => o.label)};
	}`, &r, want)
	if err != nil {
		return err
	}
	switch r.Err {
	case "":
	case "not a select":
		if ok, err := c.selectCustom(ctx, el, want); ok {
			return err
		}
		return tool.Fail("the target is not a dropdown: pick a <select>, a combobox or a listbox (or click the option you want)")
	case "not multiple":
		return tool.Fail("this select takes one option: pass value, not values")
	case "no option":
		c.Res.Details = append(c.Res.Details, "options: "+strings.Join(r.Options, ", "))
		return tool.Fail("no option %s; the select's options are listed in the result's details", jsString(r.Which))
	case "disabled option":
		return tool.Fail("option %s is disabled", jsString(r.Which))
	}
	// (What it holds now is in the answer: the select's line, its value.)
	return pg.Settle(ctx, m)
}
