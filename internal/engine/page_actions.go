package engine

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/browserd/browserd/internal/browser"
)

// typeText focuses the target with a real click (so focus handlers run),
// optionally clears it, inserts the text and optionally presses Enter.
func (c *call) typeText(ctx context.Context) error {
	pg := c.tab.page
	el, err := c.target(ctx)
	if err != nil {
		return err
	}
	m := pg.Mark()
	var kind struct {
		Editable bool   `json:"editable"`
		Tag      string `json:"tag"`
		Type     string `json:"type"`
		Focused  bool   `json:"focused"`
	}
	err = pg.CallOn(ctx, el, `function() {
	  const el = this.nodeType === 1 ? this : this.parentElement;
	  const tag = el.tagName.toLowerCase();
	  const editable = el.isContentEditable || (tag === 'textarea') ||
	    (tag === 'input' && !['checkbox','radio','button','submit','reset','file','image','range','color','hidden'].includes(el.type));
	  return {editable, tag, type: el.type || '', focused: document.activeElement === el || el.contains(document.activeElement)};
	}`, &kind)
	if err != nil {
		return err
	}
	if !kind.Editable {
		what := safeWord(kind.Tag)
		if kind.Type != "" {
			what += " type=" + safeWord(kind.Type)
		}
		return fail("cannot type into a <%s>: pick a textbox, searchbox or editable element (use click for checkboxes and buttons, select for dropdowns, upload for file inputs)", what)
	}
	x, y, err := pg.Point(ctx, el, "type")
	if err != nil {
		return err
	}
	if !kind.Focused {
		if err := pg.Click(ctx, x, y); err != nil {
			return err
		}
	}
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
	} else {
		// Type at the end, as a person who clicked into the field would.
		_ = pg.CallOn(ctx, el, `function() {
		  const el = this.nodeType === 1 ? this : this.parentElement;
		  try { if (typeof el.setSelectionRange === 'function') { const n = el.value.length; el.setSelectionRange(n, n); } } catch (e) {}
		}`, nil)
	}
	if c.in.Text != "" {
		if err := pg.InsertText(ctx, c.in.Text); err != nil {
			return err
		}
	}
	if c.in.Submit {
		if err := pg.Press(ctx, "Enter"); err != nil {
			return err
		}
	}
	return pg.Settle(ctx, m)
}

// selectOption picks an option of a <select> by value or by label, the way
// a person's choice does: selected, then input and change events.
func (c *call) selectOption(ctx context.Context) error {
	pg := c.tab.page
	el, err := c.target(ctx)
	if err != nil {
		return err
	}
	if _, _, err := pg.Point(ctx, el, "select"); err != nil {
		return err
	}
	var r struct {
		OK      bool     `json:"ok"`
		Err     string   `json:"err"`
		Picked  string   `json:"picked"`
		Options []string `json:"options"`
	}
	err = pg.CallOn(ctx, el, `function(want) {
	  let el = this.nodeType === 1 ? this : this.parentElement;
	  if (el.tagName === 'OPTION') el = el.closest('select');
	  if (!el || el.tagName !== 'SELECT') return {err: 'not a select'};
	  const opts = [...el.options];
	  const o = opts.find(o => o.value === want) || opts.find(o => o.label === want || o.text.trim() === want) ||
	            opts.find(o => o.label.toLowerCase() === want.toLowerCase());
	  if (!o) return {err: 'no option', options: opts.map(o => o.label + (o.value !== o.label ? ' (' + o.value + ')' : ''))};
	  if (o.disabled) return {err: 'disabled option'};
	  el.focus();
	  o.selected = true;
	  el.dispatchEvent(new Event('input', {bubbles: true}));
	  el.dispatchEvent(new Event('change', {bubbles: true}));
	  return {ok: true, picked: o.label};
	}`, &r, c.in.Value)
	if err != nil {
		return err
	}
	switch r.Err {
	case "":
	case "not a select":
		return fail("the target is not a dropdown (<select>); for custom dropdowns click the option instead")
	case "no option":
		c.res.Details = append(c.res.Details, "options: "+strings.Join(r.Options, ", "))
		return fail("no option %q; the select's options are listed in the result's details", c.in.Value)
	case "disabled option":
		return fail("option %q is disabled", c.in.Value)
	}
	c.res.Details = append(c.res.Details, "selected: "+r.Picked)
	return nil
}

// scroll scrolls the page, or the element the input names, with the mouse
// wheel; top and bottom jump to the ends.
func (c *call) scroll(ctx context.Context) error {
	pg := c.tab.page
	dir := c.in.Direction
	if dir == "" {
		dir = "down"
	}
	x, y := float64(c.e.cfg.Width)/2, float64(c.e.cfg.Height)/2
	var el *browser.Elem
	if c.in.Ref != "" || c.in.Selector != "" || c.in.Role != "" {
		e, err := c.target(ctx)
		if err != nil {
			return err
		}
		el = &e
		if x, y, err = pg.Point(ctx, e, "hover"); err != nil {
			return err
		}
	}
	if dir == "top" || dir == "bottom" {
		fn := `function(bottom) { const el = this.nodeType === 1 ? this : this.parentElement; el.scrollTop = bottom ? el.scrollHeight : 0; }`
		if el != nil {
			return pg.CallOn(ctx, *el, fn, nil, dir == "bottom")
		}
		expr := "window.scrollTo(0, 0)"
		if dir == "bottom" {
			expr = "window.scrollTo(0, document.documentElement.scrollHeight)"
		}
		return pg.Run(ctx, expr, nil)
	}
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
	var before, after [2]float64
	_ = pg.Run(ctx, "[scrollX, scrollY]", &before)
	if err := pg.Wheel(ctx, x, y, dx, dy); err != nil {
		return err
	}
	// The wheel scrolls asynchronously; let it land.
	deadline := time.Now().Add(300 * time.Millisecond)
	for time.Now().Before(deadline) {
		time.Sleep(30 * time.Millisecond)
		if pg.Run(ctx, "[scrollX, scrollY]", &after) == nil && after != before || el != nil {
			break
		}
	}
	var pos []float64
	if pg.Run(ctx, "[scrollX, scrollY, document.documentElement.scrollHeight - innerHeight]", &pos) == nil && len(pos) == 3 {
		c.res.Notes = append(c.res.Notes, fmt.Sprintf("page scroll x %d, y %d of %d", int(pos[0]), int(pos[1]), int(pos[2])))
	}
	return nil
}

// extract returns the readable text of the page or an element, and its links.
func (c *call) extract(ctx context.Context) error {
	pg := c.tab.page
	const fn = `function(max) {
	  const root = this && this.nodeType ? (this.nodeType === 1 ? this : this.parentElement) : document.body;
	  if (!root) return {text: '', links: []};
	  let text = (root.innerText || root.textContent || '').replace(/[ \t]+\n/g, '\n').replace(/\n{3,}/g, '\n\n').trim();
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
		if in.Selector == "" && in.Text == "" && in.TextGone == "" && in.URL == "" {
			return nil
		}
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

// safeWord keeps page-supplied tag and type names to letters, digits and
// '-', at most 20 characters.
func safeWord(s string) string {
	out := []rune{}
	for _, r := range s {
		if len(out) == 20 {
			break
		}
		if r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			out = append(out, r)
		}
	}
	return string(out)
}
