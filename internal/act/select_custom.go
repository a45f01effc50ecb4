package act

import (
	"cmp"
	"context"
	"strings"

	"github.com/browserd/browserd/internal/browser"
	"github.com/browserd/browserd/internal/tool"
)

// A dropdown the page draws itself (react-select, an ARIA combobox or
// listbox, a button that pops up a menu) is chosen from as a person does:
// open it with a click, click the option that shows the wanted text —
// after typing the text to filter the list when the control takes typing
// and the option is not shown. select on such a control does that instead
// of failing because it is not a <select>.

// dropdownJS tells whether the element is a control that shows options
// (see above), and whether it takes typing.
const dropdownJS = `function() {
  const el = this.nodeType === 1 ? this : this.parentElement;
  const role = el.getAttribute('role') || '';
  const tag = el.tagName;
  // Inputs with a value of their own kind (a range, a date) are set, not
  // chosen from; a textarea takes typing.
  if (tag === 'INPUT' && ['checkbox','radio','file','range','color','date','time','datetime-local','month','week','number','hidden'].includes(el.type)) return {pops: false};
  const editable = !el.readOnly && ((tag === 'INPUT' && !['button','submit','reset','image'].includes(el.type)) || tag === 'TEXTAREA') || el.isContentEditable;
  const open = /^(listbox|radiogroup|menu|menubar|tree|grid)$/.test(role) || el.getAttribute('aria-expanded') === 'true';
  const pops = /^(combobox|listbox|radiogroup|menu|menubar|tree|grid)$/.test(role) || el.hasAttribute('aria-haspopup') ||
    el.hasAttribute('aria-autocomplete') || el.hasAttribute('aria-expanded') || el.hasAttribute('aria-controls') ||
    el.hasAttribute('aria-owns') || el.hasAttribute('list') || /react-select|select__input|combobox|dropdown|picker/i.test(el.id + ' ' + el.className) ||
    !!el.closest('[class*="select__control"],[class*="-control"][class*="select"],[role=combobox]');
  return {pops, editable, open};
}`

// optionJS finds, for a dropdown, the shown option whose text is want
// (trimmed, any case; else the one option whose text starts with it): in
// the elements the control names (aria-controls, aria-owns), then in the
// control's own box, then anywhere in the page among elements that say
// they are options (role option; react-select's ids and classes) — and,
// with wide (once the control was opened), menu and tree items. It
// returns the option, or null.
const optionJS = `function(want, wide) {
  const el = this.nodeType === 1 ? this : this.parentElement;
  const w = want.trim().toLowerCase();
  const root = el.getRootNode();
  const byId = id => (root.getElementById ? root.getElementById(id) : document.getElementById(id));
  const vis = x => x.getClientRects().length > 0 && getComputedStyle(x).visibility !== 'hidden';
  const text = x => (x.getAttribute('aria-label') || x.innerText || x.textContent || '').trim().replace(/\s+/g, ' ').toLowerCase();
  const optSel = '[role=option],[role=menuitem],[role=menuitemradio],[role=menuitemcheckbox],[role=radio],[role=treeitem],[role=gridcell],[id*="-option-"],[class*="__option"],[class*="-option"]';
  const scopes = [];
  for (const a of ['aria-controls', 'aria-owns']) for (const id of (el.getAttribute(a) || '').split(/\s+/)) { const s = id && byId(id); if (s) scopes.push([s, optSel + ',li']); }
  const box = el.closest('[class*="select"],[class*="Select"],[class*="dropdown"],[class*="Dropdown"],[class*="combobox"],[role=combobox],[role=listbox],[role=radiogroup],[role=menu],[role=tree],[role=grid]');
  if (box) scopes.push([box, optSel + ',li']);
  if (/^(listbox|radiogroup|menu|tree|grid)$/.test(el.getAttribute('role') || '')) scopes.push([el, optSel + ',li']);
  // Anywhere in the page (a menu portalled to the body): what says it is
  // an option — and, once the control was opened, a menu or tree item.
  scopes.push([document, '[role=option],[id*="-option-"],[class*="__option"]' +
    (wide ? ',[role=menuitem],[role=menuitemradio],[role=menuitemcheckbox],[role=treeitem],[class*="-option"]' : '')]);
  for (const [s, sel] of scopes) {
    const cands = [...s.querySelectorAll(sel)].filter(x => x !== el && !x.contains(el) && vis(x));
    const hit = cands.find(x => text(x) === w);
    if (hit) return hit;
    const starts = cands.filter(x => text(x).startsWith(w));
    if (starts.length === 1) return starts[0];
  }
  return null;
}`

// shownOptionsJS lists the texts of the options a dropdown shows, for an
// error that says what there is.
const shownOptionsJS = `function() {
  const out = [];
  for (const x of document.querySelectorAll('[role=option],[role=menuitem],[role=menuitemradio],[role=radio],[role=treeitem],[id*="-option-"],[class*="__option"]')) {
    if (!x.getClientRects().length) continue;
    const t = (x.innerText || x.getAttribute('aria-label') || '').trim().replace(/\s+/g, ' ');
    if (t && !out.includes(t)) out.push(t.slice(0, 60));
    if (out.length >= 20) break;
  }
  return out;
}`

// selectCustom chooses want's values from a dropdown the page draws; ok is
// false when el is not such a control (the caller's error stands).
func (c *Tab) selectCustom(ctx context.Context, el browser.Elem, want []string) (ok bool, err error) {
	pg := c.Page
	var kind struct {
		Pops     bool `json:"pops"`
		Editable bool `json:"editable"`
		Open     bool `json:"open"` // shows its options already: no click opens it
	}
	if err := pg.CallOn(ctx, el, dropdownJS, &kind); err != nil {
		return true, err
	}
	if !kind.Pops {
		return false, nil
	}
	click := func(e browser.Elem) error {
		aim, err := pg.Aim(ctx, e, "click")
		if err != nil {
			return err
		}
		m := pg.Mark(ctx)
		if err := pg.Click(ctx, aim.X, aim.Y, browser.ClickOptions{}); err != nil {
			return err
		}
		return pg.Settle(ctx, m)
	}
	var picked []string
	for _, w := range want {
		opt, found, err := pg.ElemFrom(ctx, el, optionJS, w, kind.Open)
		if err != nil {
			return true, err
		}
		if !found && !kind.Open { // open it
			if err := click(el); err != nil {
				return true, err
			}
			if opt, found, err = pg.ElemFrom(ctx, el, optionJS, w, true); err != nil {
				return true, err
			}
		}
		if !found && kind.Editable { // filter the list by typing, in place of its text
			if err := pg.Focus(ctx, el); err != nil {
				return true, err
			}
			_ = pg.CallOn(ctx, el, `function() { if (typeof this.select === 'function') this.select(); }`, nil)
			m := pg.Mark(ctx)
			if err := pg.TypeKeys(ctx, w); err != nil {
				return true, err
			}
			if err := pg.Settle(ctx, m); err != nil {
				return true, err
			}
			if opt, found, err = pg.ElemFrom(ctx, el, optionJS, w, true); err != nil {
				return true, err
			}
		}
		if !found {
			var shown []string
			_ = pg.CallOn(ctx, el, shownOptionsJS, &shown)
			if len(shown) > 0 {
				c.Res.Details = append(c.Res.Details, "options shown: "+strings.Join(shown, ", "))
				return true, tool.Fail("this dropdown shows no option %s; the options it shows are listed in the result's details", jsString(w))
			}
			return true, tool.Fail("this dropdown showed no options when clicked; take a snapshot to see what it opened, and click the option you want")
		}
		var text string
		_ = pg.CallOn(ctx, opt, `function() { return (this.innerText || this.textContent || '').trim().replace(/\s+/g, ' ').slice(0, 80); }`, &text)
		if err := click(opt); err != nil {
			return true, err
		}
		picked = append(picked, cmp.Or(text, w))
	}
	c.Res.Details = append(c.Res.Details, "selected: "+strings.Join(picked, ", ")+" (the page's own dropdown: opened, and the option clicked)")
	return true, nil
}
