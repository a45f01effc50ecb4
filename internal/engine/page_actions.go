package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/browserd/browserd/internal/browser"
)

// valueTypes are the input types a person fills through a picker, not
// keystrokes: typing sets their value the way the picker would, in the
// format the input takes.
var valueTypes = map[string]string{
	"date": "YYYY-MM-DD", "time": "HH:MM or HH:MM:SS", "datetime-local": "YYYY-MM-DDTHH:MM",
	"month": "YYYY-MM", "week": "YYYY-Www", "color": "#rrggbb", "range": "a number within the slider's range",
}

// typeText types into a field as a person would: it focuses the field
// without clicking inside it (a click at the centre of a narrow number
// input lands on its spin arrows), optionally clears it, inserts the text
// and optionally presses Enter. Inputs filled through a picker (date,
// time, color, range, …) get their value set with input and change
// events. The field's value is read back afterwards; a value that is not
// what was typed is reported.
func (c *call) typeText(ctx context.Context) error {
	pg := c.tab.page
	el, err := c.target(ctx)
	if err != nil {
		return err
	}
	var kind struct {
		Editable bool   `json:"editable"`
		Tag      string `json:"tag"`
		Type     string `json:"type"`
		Value    string `json:"value"`
		Suggests bool   `json:"suggests"`
		Max      int    `json:"max"` // maxlength; 0: none
		ReadOnly bool   `json:"readOnly"`
	}
	err = pg.CallOn(ctx, el, `function() {
	  const el = this.nodeType === 1 ? this : this.parentElement;
	  const tag = el.tagName.toLowerCase();
	  const editable = el.isContentEditable || (tag === 'textarea') ||
	    (tag === 'input' && !['checkbox','radio','button','submit','reset','file','image','hidden'].includes(el.type));
	  const suggests = el.getAttribute('role') === 'combobox' || el.hasAttribute('aria-autocomplete') || el.hasAttribute('list') ||
	    el.hasAttribute('aria-controls') || el.hasAttribute('aria-owns');
	  const max = (tag === 'input' || tag === 'textarea') && el.maxLength > 0 ? el.maxLength : 0;
	  const readOnly = (tag === 'input' || tag === 'textarea') && el.readOnly;
	  return {editable, tag, type: tag === 'input' ? el.type : '', value: 'value' in el && tag !== 'button' ? String(el.value) : el.innerText, suggests, max, readOnly};
	}`, &kind)
	if err != nil {
		return err
	}
	// A field that offers suggestions shows them after a debounce: wait
	// for that as for a click's delayed reaction.
	first := time.Duration(0)
	if kind.Suggests {
		first = browser.DOMFirst
	}
	if !kind.Editable {
		what := safeWord(kind.Tag)
		if kind.Type != "" {
			what += " type=" + safeWord(kind.Type)
		}
		return fail("cannot type into a <%s>: pick a textbox, searchbox or editable element (use click for checkboxes and buttons, select for dropdowns, upload for file inputs)", what)
	}
	if _, typed := valueTypes[kind.Type]; kind.ReadOnly && !typed {
		// Keys would do nothing: a date picker's field (flatpickr) takes
		// its value from the picker.
		return fail("the field is read-only: it takes its value from a picker or the page — click it and choose from what opens")
	}
	if _, _, err := pg.Point(ctx, el, "type"); err != nil {
		return err
	}
	m := pg.Mark(ctx, first)
	if format, ok := valueTypes[kind.Type]; ok {
		var got string
		err := pg.CallOn(ctx, el, `function(v) {
		  this.focus();
		  Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set.call(this, v);
		  this.dispatchEvent(new Event('input', {bubbles: true}));
		  this.dispatchEvent(new Event('change', {bubbles: true}));
		  return this.value;
		}`, &got, c.in.Text)
		if err != nil {
			return err
		}
		if got != c.in.Text && c.in.Text != "" {
			if got == "" || kind.Type != "range" && kind.Type != "color" {
				return fail("the %s input did not take %q: type it as %s", kind.Type, c.in.Text, format)
			}
			// What it holds is the page's to say: in the details.
			c.res.Notes = append(c.res.Notes, fmt.Sprintf("the %s input holds another value than was typed (its bounds or format changed it); its value is in the details", safeWord(kind.Type)))
			c.res.Details = append(c.res.Details, "value now: "+jsString(truncate(got, 200)))
		}
		if c.in.Submit {
			if err := pg.Press(ctx, "Enter"); err != nil {
				return err
			}
		}
		return pg.Settle(ctx, m)
	}
	// A field that has the focus already (the agent clicked into it, or
	// selected its text with Control+a) is typed into where its caret or
	// selection is, as a keyboard does; else at its end.
	var focused bool
	_ = pg.CallOn(ctx, el, `function() {
	  const el = this.nodeType === 1 ? this : this.parentElement;
	  let a = document.activeElement;
	  while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
	  return a === el;
	}`, &focused)
	if err := pg.Focus(ctx, el); err != nil {
		return err
	}
	if c.in.Clear {
		err := pg.CallOn(ctx, el, `function() {
		  const el = this.nodeType === 1 ? this : this.parentElement;
		  if ('select' in el && typeof el.select === 'function') el.select();
		  else { const r = document.createRange(); r.selectNodeContents(el); const s = getSelection(); s.removeAllRanges(); s.addRange(r); }
		}`, nil)
		if err != nil {
			return err
		}
		if err := pg.Press(ctx, "Delete"); err != nil {
			return err
		}
	} else if !focused {
		// Type at the end, as a person who clicked into the field would.
		_ = pg.CallOn(ctx, el, `function() {
		  const el = this.nodeType === 1 ? this : this.parentElement;
		  try { if (typeof el.setSelectionRange === 'function') { const n = el.value.length; el.setSelectionRange(n, n); } } catch (e) {}
		  if (el.isContentEditable) { const r = document.createRange(); r.selectNodeContents(el); r.collapse(false); const s = getSelection(); s.removeAllRanges(); s.addRange(r); }
		}`, nil)
	}
	// More text than the field takes (a one-time code's six one-digit
	// boxes): typed a character at a time, as a keyboard does, so that
	// what the field does not take goes where the page moves the focus.
	//
	// A text of up to browser.KeyTypeMax characters is typed a key at a
	// time (keydown, keypress, input, keyup), so pages that listen to keys
	// hear it; a longer one, or one with a newline or tab, is inserted at
	// once, as a paste.
	spill := kind.Max > 0 && utf8.RuneCountInString(c.in.Text) > kind.Max
	switch {
	case c.in.Text == "":
	case browser.KeyTypeable(c.in.Text):
		if err := pg.TypeKeys(ctx, c.in.Text); err != nil {
			return err
		}
	case spill:
		for _, r := range c.in.Text {
			if err := pg.InsertText(ctx, string(r)); err != nil {
				return err
			}
		}
	default:
		if err := pg.InsertText(ctx, c.in.Text); err != nil {
			return err
		}
	}
	var moved bool
	if spill && pg.CallOn(ctx, el, `function() { return document.activeElement !== this; }`, &moved) == nil && moved {
		takes := "one character"
		if kind.Max > 1 {
			takes = fmt.Sprintf("%d characters", kind.Max)
		}
		c.res.Notes = append(c.res.Notes, "the field takes "+takes+": the rest of the text went, a character at a time, where the page moved the focus (its next fields)")
	}
	// What the field holds now, before Enter can submit and clear it.
	var now string
	if !moved && pg.CallOn(ctx, el, `function() { const el = this.nodeType === 1 ? this : this.parentElement;
	  return 'value' in el && el.tagName !== 'BUTTON' ? String(el.value) : el.innerText; }`, &now) == nil {
		want := c.in.Text
		if !c.in.Clear {
			want = kind.Value + c.in.Text
		}
		if strings.TrimRight(now, "\n") != strings.TrimRight(want, "\n") {
			c.res.Notes = append(c.res.Notes, "the field's value is not what was typed (the page or the input type changed it); its value is in the details")
			c.res.Details = append(c.res.Details, "value now: "+jsString(truncate(now, 200)))
		}
	}
	if c.in.Submit {
		if err := pg.Press(ctx, "Enter"); err != nil {
			return err
		}
	}
	return pg.Settle(ctx, m)
}

// scrollBoxJS scrolls, by (%v, %v), the largest element in view that has
// more content than room in that direction and lets it scroll; it returns
// its tag, or "" when there is none.
const scrollBoxJS = `(() => { const dx = %v, dy = %v;
  let best = null, area = 0;
  for (const el of document.querySelectorAll('*')) {
    if (el === document.documentElement || el === document.body) continue;
    const fits = dy > 0 ? el.scrollTop + el.clientHeight < el.scrollHeight - 1 : dy < 0 ? el.scrollTop > 0 :
      dx > 0 ? el.scrollLeft + el.clientWidth < el.scrollWidth - 1 : el.scrollLeft > 0;
    if (!fits) continue;
    const s = getComputedStyle(el), o = dy !== 0 ? s.overflowY : s.overflowX;
    if (o !== 'auto' && o !== 'scroll') continue;
    const r = el.getBoundingClientRect();
    const w = Math.min(r.right, innerWidth) - Math.max(r.left, 0), h = Math.min(r.bottom, innerHeight) - Math.max(r.top, 0);
    if (w <= 0 || h <= 0 || w * h <= area) continue;
    best = el; area = w * h;
  }
  if (!best) return '';
  best.scrollBy(dx, dy);
  return best.tagName.toLowerCase(); })()`

// truncate cuts s to at most n bytes on a rune boundary, marking the cut.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

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

// selectOption picks options of a <select> by value or by label, the way
// a person's choice does: selected, then input and change events. values
// picks several of a multi-select (and only those).
func (c *call) selectOption(ctx context.Context) error {
	pg := c.tab.page
	el, err := c.target(ctx)
	if err != nil {
		return err
	}
	// value and values together name the options of both (clients that
	// fill every field they know send the same option twice).
	want := slices.Clone(c.in.Values)
	if c.in.Value != "" && !slices.Contains(want, c.in.Value) {
		want = append(want, c.in.Value)
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
	m := pg.Mark(ctx, 0)
	var r struct {
		OK      bool     `json:"ok"`
		Err     string   `json:"err"`
		Which   string   `json:"which"`
		Picked  []string `json:"picked"`
		Options []string `json:"options"`
	}
	err = pg.CallOn(ctx, el, `function(want) {
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
		return fail("the target is not a dropdown: pick a <select>, a combobox or a listbox (or click the option you want)")
	case "not multiple":
		return fail("this select takes one option: pass value, not values")
	case "no option":
		c.res.Details = append(c.res.Details, "options: "+strings.Join(r.Options, ", "))
		return fail("no option %s; the select's options are listed in the result's details", jsString(r.Which))
	case "disabled option":
		return fail("option %s is disabled", jsString(r.Which))
	}
	c.res.Details = append(c.res.Details, "selected: "+strings.Join(r.Picked, ", "))
	return pg.Settle(ctx, m)
}

// scroll scrolls the page, or the element the input names, with the mouse
// wheel; top and bottom jump to the ends.
func (c *call) scroll(ctx context.Context) error {
	pg := c.tab.page
	dir := cmp.Or(c.in.Direction, "down")
	x, y, el, err := c.scrollPoint(ctx)
	if err != nil {
		return err
	}
	// What the page does when it scrolls (a virtual list drawing the rows
	// now in view, an infinite feed loading more) is waited for, as a
	// click's reaction is.
	m := pg.Mark(ctx, 0)
	if dir == "top" || dir == "bottom" {
		if err := c.scrollToEnd(ctx, el, dir == "bottom"); err != nil {
			return err
		}
		return pg.Settle(ctx, m)
	}
	if err := c.wheel(ctx, el, x, y, dir); err != nil {
		return err
	}
	if err := pg.Settle(ctx, m); err != nil {
		return err
	}
	var page []float64
	if pg.Run(ctx, "[scrollX, scrollY, document.documentElement.scrollHeight - innerHeight]", &page) == nil && len(page) == 3 {
		c.res.Notes = append(c.res.Notes, fmt.Sprintf("page scroll x %d, y %d of %d", int(page[0]), int(page[1]), int(page[2])))
	}
	return nil
}

// scrollPoint is where the wheel turns: over the element the input names
// (el), else the middle of the window (el nil).
func (c *call) scrollPoint(ctx context.Context) (x, y float64, el *browser.Elem, err error) {
	x, y = float64(c.e.cfg.Width)/2, float64(c.e.cfg.Height)/2
	if c.in.Ref == "" && c.in.Selector == "" && c.in.Role == "" {
		return x, y, nil, nil
	}
	e, err := c.target(ctx)
	if err != nil {
		return 0, 0, nil, err
	}
	if x, y, err = c.tab.page.Point(ctx, e, "scroll"); err != nil {
		return 0, 0, nil, err
	}
	return x, y, &e, nil
}

// scrollToEnd jumps el's box (or the window, el nil) to its top or bottom.
func (c *call) scrollToEnd(ctx context.Context, el *browser.Elem, bottom bool) error {
	pg := c.tab.page
	if el != nil {
		fn := `function(bottom) { const el = this.nodeType === 1 ? this : this.parentElement; el.scrollTop = bottom ? el.scrollHeight : 0; }`
		return pg.CallOn(ctx, *el, fn, nil, bottom)
	}
	expr := "window.scrollTo(0, 0)"
	if bottom {
		expr = "window.scrollTo(0, document.documentElement.scrollHeight)"
	}
	return pg.Run(ctx, expr, nil)
}

// scrollPosJS is where the page and the element stand: the wheel's effect
// shows there.
const scrollPosJS = `function() { const el = this && this.nodeType ? (this.nodeType === 1 ? this : this.parentElement) : null;
  let n = 0; for (let a = el; a; a = a.parentElement) n += a.scrollTop + a.scrollLeft;
  return [scrollX, scrollY, n]; }`

// wheel turns the mouse wheel at (x, y) towards dir by the input's amount
// (0.8 of the window), and when nothing moved, scrolls what a person would
// reach for: the element's own box, or the largest box in view.
func (c *call) wheel(ctx context.Context, el *browser.Elem, x, y float64, dir string) error {
	pg := c.tab.page
	amount := float64(c.in.Amount)
	if amount == 0 {
		amount = float64(c.e.cfg.Height) * 0.8
	}
	var dx, dy float64
	switch dir {
	case "down":
		dy = amount
	case "up":
		dy = -amount
	case "right":
		dx = amount
	case "left":
		dx = -amount
	}
	pos := func(out *[3]float64) error {
		if el != nil {
			return pg.CallOn(ctx, *el, scrollPosJS, out)
		}
		// The boxes under the wheel count too: the window stays put when
		// a box under the mouse scrolls.
		return pg.Run(ctx, fmt.Sprintf("(%s).call(document.elementFromPoint(%v, %v))", scrollPosJS, x, y), out)
	}
	var before, after [3]float64
	_ = pos(&before)
	if err := pg.Wheel(ctx, x, y, dx, dy); err != nil {
		return err
	}
	// The wheel scrolls asynchronously; let it land.
	moved := false
	for deadline := time.Now().Add(300 * time.Millisecond); time.Now().Before(deadline) && !moved; {
		time.Sleep(30 * time.Millisecond)
		moved = pos(&after) == nil && after != before
	}
	switch {
	case moved:
		return nil
	case el != nil:
		// Nothing under the mouse scrolled (the point is covered, or the
		// page cancels wheel events): scroll the element's own box, or its
		// nearest scrollable ancestor.
		return pg.CallOn(ctx, *el, `function(dx, dy) {
		  let a = this.nodeType === 1 ? this : this.parentElement;
		  for (; a; a = a.parentElement) { const s = getComputedStyle(a);
		    if ((a.scrollHeight > a.clientHeight && /auto|scroll/.test(s.overflowY)) || (a.scrollWidth > a.clientWidth && /auto|scroll/.test(s.overflowX))) break; }
		  (a || document.scrollingElement).scrollBy(dx, dy); }`, nil, dx, dy)
	}
	// (A frame under the mouse scrolls out of this document's sight.)
	var underFrame bool
	_ = pg.Run(ctx, fmt.Sprintf("(() => { const h = document.elementFromPoint(%v, %v); return !!h && /^(IFRAME|FRAME|EMBED|OBJECT)$/.test(h.tagName); })()", x, y), &underFrame)
	if underFrame {
		return nil
	}
	// The window does not scroll that way (an app whose content lives in a
	// scroll box, a list beside the middle of the window): scroll the
	// largest box in view that can, as a person would reach for it.
	var box string
	if err := pg.Run(ctx, fmt.Sprintf(scrollBoxJS, dx, dy), &box); err != nil {
		return err
	}
	if box == "" {
		c.res.Notes = append(c.res.Notes, "nothing scrolled: neither the window nor a scroll box in view can move "+dir)
	} else {
		c.res.Notes = append(c.res.Notes, "the window cannot scroll "+dir+"; the largest scroll box in view did (give a target inside another box to scroll that one)")
	}
	return nil
}

// extract returns the readable text of the page or an element, and its links.
func (c *call) extract(ctx context.Context) error {
	pg := c.tab.page
	const fn = `function(max) {
	  const root = this && this.nodeType ? (this.nodeType === 1 ? this : this.parentElement) : document.body;
	  if (!root) return {text: '', links: []};
	  // A field's text is its value, which innerText does not show.
	  const field = ['INPUT', 'TEXTAREA', 'SELECT'].includes(root.tagName);
	  let text = field ? (root.tagName === 'SELECT' ? [...root.selectedOptions].map(o => o.label).join('\n') : String(root.value)) :
	    (root.innerText || root.textContent || '').replace(/[ \t]+\n/g, '\n').replace(/\n{3,}/g, '\n\n').trim();
	  const links = [];
	  for (const a of root.querySelectorAll('a[href]')) {
	    if (links.length >= 200) break;
	    const t = (a.innerText || a.getAttribute('aria-label') || '').trim().replace(/\s+/g, ' ');
	    if (t) links.push(t.slice(0, 100) + ' → ' + a.href);
	  }
	  return {text, links, total: text.length};
	}`
	var r struct {
		Text  string   `json:"text"`
		Links []string `json:"links"`
		Total int      `json:"total"`
	}
	if c.in.Ref != "" || c.in.Selector != "" || c.in.Role != "" {
		el, err := c.target(ctx)
		if err != nil {
			return err
		}
		if err := pg.CallOn(ctx, el, fn, &r, 0); err != nil {
			return err
		}
	} else {
		expr := "(" + fn + ").call(null, 0)"
		if err := pg.Run(ctx, expr, &r); err != nil {
			return err
		}
	}
	limit := c.in.MaxChars
	if limit == 0 {
		limit = 20000
	}
	var b strings.Builder
	text := r.Text
	if len(text) > limit {
		text = text[:limit]
		fmt.Fprintf(&b, "%s\n[text cut at %d of %d chars — raise maxChars or extract a narrower element (ref or selector)]", text, limit, r.Total)
	} else {
		b.WriteString(text)
	}
	if len(r.Links) > 0 {
		b.WriteString("\n\nLinks:\n")
		for _, l := range r.Links {
			b.WriteString("- " + l + "\n")
		}
	}
	c.res.Content = strings.TrimRight(b.String(), "\n")
	return nil
}

// wait waits for a selector to be visible, text to appear or go, the URL to
// contain a string, or a fixed time.
func (c *call) wait(ctx context.Context) error {
	pg, in := c.tab.page, c.in
	if in.Time > 0 {
		t := time.NewTimer(time.Duration(in.Time) * time.Millisecond)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-t.C:
		}
		if in.Selector == "" && in.Text == "" && in.TextGone == "" && in.URL == "" && !in.Load {
			return nil
		}
	}
	if in.Load {
		if err := pg.WaitLoad(ctx); err != nil {
			if errors.Is(err, context.DeadlineExceeded) || errors.Is(context.Cause(ctx), context.DeadlineExceeded) {
				return fail("timed out waiting for the next page load: none started, or it did not finish; raise timeout (ms), or check the page with snapshot")
			}
			return err
		}
		if in.Selector == "" && in.Text == "" && in.TextGone == "" && in.URL == "" {
			return nil
		}
	}
	if in.Selector == "" && in.Text == "" && in.TextGone == "" && in.URL == "" {
		return nil // a time, a load or a person's hand-back (personGate) was all
	}
	var conds []string
	var desc []string
	if in.Selector != "" {
		conds = append(conds, `(() => { const el = document.querySelector(`+jsString(in.Selector)+`); if (!el) return false;
		  const r = el.getBoundingClientRect(); const s = getComputedStyle(el);
		  return r.width > 0 && r.height > 0 && s.visibility !== 'hidden'; })()`)
		desc = append(desc, fmt.Sprintf("selector %q to be visible", in.Selector))
	}
	if in.Text != "" {
		conds = append(conds, `!!document.body && document.body.innerText.includes(`+jsString(in.Text)+`)`)
		desc = append(desc, fmt.Sprintf("text %q", in.Text))
	}
	if in.TextGone != "" {
		conds = append(conds, `!document.body || !document.body.innerText.includes(`+jsString(in.TextGone)+`)`)
		desc = append(desc, fmt.Sprintf("text %q to disappear", in.TextGone))
	}
	if in.URL != "" {
		conds = append(conds, `location.href.includes(`+jsString(in.URL)+`)`)
		desc = append(desc, fmt.Sprintf("URL containing %q", in.URL))
	}
	expr := strings.Join(conds, " && ")
	for {
		var met bool
		err := pg.Run(ctx, expr, &met)
		if err == nil && met {
			return nil
		}
		if err != nil && ctx.Err() == nil && !strings.Contains(err.Error(), "context") && !strings.Contains(err.Error(), "Execution context was destroyed") && !strings.Contains(err.Error(), "Cannot find context") {
			if strings.Contains(err.Error(), "SyntaxError") || strings.Contains(err.Error(), "is not a valid selector") {
				return fail("bad selector %q", in.Selector)
			}
		}
		t := time.NewTimer(100 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			if context.Cause(ctx) == context.DeadlineExceeded || ctx.Err() == context.DeadlineExceeded {
				return fail("timed out waiting for %s; raise timeout (ms) or check the page with snapshot", strings.Join(desc, " and "))
			}
			return context.Cause(ctx)
		case <-t.C:
		}
	}
}

// htmlWords are the tag and input type names of HTML: a page may name its
// own elements (custom elements) and types, and those names are page text.
var htmlWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a abbr address area article aside audio b bdi bdo blockquote body br button
	canvas caption cite code col colgroup data datalist dd del details dfn dialog div dl dt em embed fieldset
	figcaption figure footer form h1 h2 h3 h4 h5 h6 header hr html i iframe img input ins kbd label legend li
	main map mark menu meter nav object ol optgroup option output p picture pre progress q rp rt ruby s samp
	search section select slot small source span strong sub summary sup table tbody td template textarea tfoot
	th thead time tr track u ul var video wbr svg math
	text search email url tel password number range date time datetime-local month week color checkbox radio
	file submit reset image hidden`) {
		m[w] = true
	}
	return m
}()

// safeWord is a page-supplied tag or input type name as an error may say
// it: an HTML name as it is, any other (a custom element's, a made-up
// type) as "custom", since the page chose it.
func safeWord(s string) string {
	if w := strings.ToLower(s); htmlWords[w] {
		return w
	}
	return "custom"
}
