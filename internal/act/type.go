package act

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/browserd/browserd/internal/browser"
	"github.com/browserd/browserd/internal/timing"
	"github.com/browserd/browserd/internal/tool"
)

// valueTypes are the input types a person fills through a picker, not
// keystrokes: typing sets their value the way the picker would, in the
// format the input takes.
var valueTypes = map[string]string{
	"date": "YYYY-MM-DD", "time": "HH:MM or HH:MM:SS", "datetime-local": "YYYY-MM-DDTHH:MM",
	"month": "YYYY-MM", "week": "YYYY-Www", "color": "#rrggbb", "range": "a number within the slider's range",
}

// Type types into a field as a person would: it focuses the field
// without clicking inside it (a click at the centre of a narrow number
// input lands on its spin arrows), optionally clears it, inserts the text
// and optionally presses Enter. Inputs filled through a picker (date,
// time, color, range, …) get their value set with input and change
// events. The field's value is read back afterwards; a value that is not
// what was typed is reported. A stored secret is not typed as keys: it is
// written into the field's own document in one step (typeSecret).
func (c *Tab) Type(ctx context.Context) error {
	var el browser.Elem
	var err error
	if c.Targeted() && !c.Pointed() {
		el, err = c.Target(ctx)
	} else {
		// At a point (clicked there first), or where the focus is.
		var ok bool
		if el, ok, err = c.focusedField(ctx); err == nil && !ok {
			if c.In.Secret != "" {
				return tool.Fail("no field has the focus to type secret %s into: give its ref, or a point on it (x, y)", c.In.Secret)
			}
			return c.typeKeys(ctx)
		}
	}
	if err != nil {
		return err
	}
	if c.In.Secret != "" {
		if err := c.useSecret(ctx, el, c.In.Secret); err != nil {
			return err
		}
		defer func() { c.secret = "" }()
	}
	timing.Mark(ctx, "found")
	if c.Targeted() && !c.Pointed() && c.In.Secret == "" && !c.In.Clear {
		// Most often a text field ready as it is: probed, aimed at and
		// given the caret in one round trip.
		kind, m, ok, err := c.readyField(ctx, el)
		if ok {
			return c.typeAndSettle(ctx, el, kind, m)
		}
		if err != nil && !errors.Is(err, browser.ErrStale) {
			return err
		}
	}
	// A page that draws its form again every few hundred ms (htmx, a
	// polling component) can replace the field at any step before the
	// caret is in it — on a loaded machine, more than once. Until then
	// nothing was typed, so a ref is followed to the element that took
	// its place and the steps start again, a few times at most.
	var kind fieldKind
	for follow := 0; ; follow++ {
		var m browser.Mark
		var done bool
		kind, m, done, err = c.aimField(ctx, el)
		if done {
			return err
		}
		if err == nil {
			timing.Mark(ctx, "caret")
			return c.typeAndSettle(ctx, el, kind, m)
		}
		if !errors.Is(err, browser.ErrStale) || c.In.Ref == "" || follow == 3 {
			return err
		}
		if el, err = c.Target(ctx); err != nil {
			return err
		}
	}
}

// typeAndSettle types the call's text into el, a field of kind whose
// caret is placed, then waits, from the mark m taken before the caret,
// for what the page does in answer; the field is read back meanwhile.
func (c *Tab) typeAndSettle(ctx context.Context, el browser.Elem, kind fieldKind, m browser.Mark) error {
	spilled, err := c.typeInto(ctx, kind.Max, kind.keysUnheard())
	if err != nil {
		return err
	}
	timing.Mark(ctx, "typed")
	if c.In.Submit {
		// What the field holds is read before Enter can send the form
		// and empty it.
		c.note(c.checkValue(ctx, el, kind, spilled))
		timing.Mark(ctx, "checked")
		return c.submitAndSettle(ctx, m)
	}
	// Else the field is read back while the page settles: the read goes
	// to the page at once, the quiet does not wait on its answer.
	var notes, details []string
	var wg sync.WaitGroup
	wg.Go(func() { notes, details = c.checkValue(ctx, el, kind, spilled) })
	err = c.Page.Settle(ctx, m)
	wg.Wait()
	c.note(notes, details)
	return err
}

// readyJS readies a text field of the top document to take keys in one
// call: it probes it (probeJS); when it is an input or textarea typed into
// as keys (not a picker's, not read-only), checks that it can be used
// (browser.CheckJS: shown, enabled, not covered — scrolled to if need be),
// focuses it unless it has the focus and puts the caret at its end, as
// aimField and placeCaret do one round trip each. caret says it did; else
// Type takes those steps.
var readyJS = `async function() {
  const kind = (` + probeJS + `).call(this);
  const el = this.nodeType === 1 ? this : this.parentElement;
  if (!kind.editable || kind.readOnly || !kind.top || !(kind.tag === 'input' || kind.tag === 'textarea') || ` + pickedJS + `.includes(kind.type)) return {kind};
  const aim = await (` + browser.CheckJS + `).call(this, 'type');
  if (!aim.ok) return {kind};
  if (!kind.focused) {
    el.focus({preventScroll: true});
    try { if (typeof el.setSelectionRange === 'function') { const n = el.value.length; el.setSelectionRange(n, n); } } catch (e) {}
  }
  return {kind, caret: document.activeElement === el, moving: document.getAnimations().some(a => a.playState === 'running')};
}`

// readyField is readyJS's steps, with the mark taken before the caret
// (browser.Page.MarkThen) and the page asked meanwhile what its scripts
// hear of typing (browser.Page.Hearing): ok says the field is ready to
// type into. Where nothing of the page hears the focus, the caret or the
// text (no listener, handler or observer of them, no frame callback
// pending, nothing animating, no Enter to send), the mark says so
// (browser.Mark.Unheard): the answer waits for no frame.
func (c *Tab) readyField(ctx context.Context, el browser.Elem) (kind fieldKind, m browser.Mark, ok bool, err error) {
	var heard browser.Hearing
	var wg sync.WaitGroup
	wg.Go(func() { heard = c.Page.Hearing(ctx) })
	var r struct {
		Kind   fieldKind `json:"kind"`
		Caret  bool      `json:"caret"`
		Moving bool      `json:"moving"`
	}
	m, err = c.Page.MarkThen(ctx, el, readyJS, &r)
	wg.Wait()
	r.Kind.KeysHeard = heard.Keys
	if err != nil || !r.Caret {
		return r.Kind, m, false, err
	}
	timing.Mark(ctx, "caret")
	if heard.Silent() && !r.Kind.KeyAttr && !r.Kind.EditAttr && !r.Moving && !r.Kind.Suggests && !c.In.Submit {
		m = m.Unheard()
	}
	return r.Kind, m, true, nil
}

// aimField readies el to take keys: it learns the field's kind, scrolls
// it to where it can be used and places the caret. Fields set by value
// (dates, colours, ranges), a secret and keys for a field that takes no
// text are finished here (done); otherwise the caller types.
func (c *Tab) aimField(ctx context.Context, el browser.Elem) (kind fieldKind, m browser.Mark, done bool, err error) {
	pg := c.Page
	kind, err = c.probeField(ctx, el)
	if err != nil {
		return kind, m, false, err
	}
	timing.Mark(ctx, "probed")
	// (A field that offers suggestions shows them after a debounce: a
	// timer Settle waits for.)
	if !kind.Editable && (c.Pointed() || !c.Targeted()) && c.In.Secret == "" {
		return kind, m, true, c.typeKeys(ctx) // the focus is on a canvas, a button: keys go there
	}
	if err := kind.checkTypeable(); err != nil {
		return kind, m, true, err
	}
	if _, _, err := pg.Point(ctx, el, "type"); err != nil {
		return kind, m, false, err
	}
	timing.Mark(ctx, "aimed")
	m = pg.Mark(ctx)
	if format, ok := valueTypes[kind.Type]; ok {
		if re, dated := keyedFormats[kind.Type]; dated && c.secret == "" && !re.MatchString(c.In.Text) && partKeys.MatchString(c.In.Text) {
			// Not the value's format but what a keyboard enters into the
			// field's parts ("06282014", "0537A"), as keys. (Text with
			// separators in another order, "27/11/2026", is refused below
			// with the format: as keys it would make another date.)
			if err := c.typeDateKeys(ctx, el, kind, format); err != nil {
				return kind, m, true, err
			}
			return kind, m, true, c.submitAndSettle(ctx, m)
		}
		if err := c.setByValue(ctx, el, kind.Type, format); err != nil {
			return kind, m, true, err
		}
		return kind, m, true, c.submitAndSettle(ctx, m)
	}
	if c.secret != "" {
		return kind, m, true, c.typeSecretAndSettle(ctx, el, kind, m)
	}
	return kind, m, false, c.placeCaret(ctx, el, kind.Focused)
}

// fieldKind is what Type learns about the field before it types (see
// probeField).
type fieldKind struct {
	Editable bool   `json:"editable"`
	Tag      string `json:"tag"`
	Type     string `json:"type"`
	Value    string `json:"value"`
	Suggests bool   `json:"suggests"`
	Max      int    `json:"max"` // maxlength; 0: none
	ReadOnly bool   `json:"readOnly"`
	Focused  bool   `json:"focused"` // it has the focus already
	Top      bool   `json:"top"`     // it is in the tab's top document
	KeyAttr  bool   `json:"keyAttr"` // a key handler in an attribute on its way up
	// EditAttr: a handler of input, focus or blur in an attribute on the
	// way up from the field or from the element that has the focus.
	EditAttr bool `json:"editAttr"`
	// KeysHeard: a script of the top document may hear keys
	// (browser.Page.KeysHeard), asked beside the probe.
	KeysHeard bool `json:"-"`
}

// keysUnheard says whether no script of the page can hear a key typed
// into the field: a text input or textarea of the top document, offering
// no suggestions, with no key handler in an attribute on its way up and
// none added by a script. Such a field takes the text at once
// (Input.insertText: the same beforeinput and input events, without the
// keydown, keypress and keyup no one listens to), in one round trip
// instead of two a character.
func (kind fieldKind) keysUnheard() bool {
	return kind.Top && !kind.KeyAttr && !kind.KeysHeard && !kind.Suggests && (kind.Tag == "input" || kind.Tag == "textarea")
}

// probeField reads, in the page, what kind of field el is: whether text
// can be typed into it at all, its tag and input type, the value it holds
// before typing, whether it offers suggestions as one types (a combobox,
// an autocomplete), its maxlength, whether it is read-only, and whether it
// has the focus already.
func (c *Tab) probeField(ctx context.Context, el browser.Elem) (fieldKind, error) {
	var kind fieldKind
	heard := true
	var wg sync.WaitGroup
	wg.Go(func() { heard = c.Page.KeysHeard(ctx) })
	err := c.Page.CallOn(ctx, el, probeJS, &kind)
	wg.Wait()
	kind.KeysHeard = heard
	return kind, err
}

// probeJS is probeField's function: what kind of field this is.
const probeJS = `function() {
	  const el = this.nodeType === 1 ? this : this.parentElement;
	  const tag = el.tagName.toLowerCase();
	  const editable = el.isContentEditable || (tag === 'textarea') ||
	    (tag === 'input' && !['checkbox','radio','button','submit','reset','file','image','hidden'].includes(el.type));
	  const suggests = el.getAttribute('role') === 'combobox' || el.hasAttribute('aria-autocomplete') || el.hasAttribute('list') ||
	    el.hasAttribute('aria-controls') || el.hasAttribute('aria-owns');
	  const max = (tag === 'input' || tag === 'textarea') && el.maxLength > 0 ? el.maxLength : 0;
	  const readOnly = (tag === 'input' || tag === 'textarea') && el.readOnly;
	  let a = document.activeElement;
	  while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
	  // A key handler in an attribute on the way the field's keys bubble
	  // (its ancestors, through shadow roots, to the document).
	  let keyAttr = false;
	  for (let n = el; n && !keyAttr; n = n.parentNode || n.host)
	    if (n.nodeType === 1) keyAttr = n.hasAttribute('onkeydown') || n.hasAttribute('onkeypress') || n.hasAttribute('onkeyup');
	  // A handler in an attribute of what else typing sets off — input,
	  // focus (on the field's way up), blur (on the focused element's).
	  const edits = ['oninput', 'onbeforeinput', 'onfocus', 'onfocusin', 'onblur', 'onfocusout', 'onselect', 'onselectionchange', 'onselectstart'];
	  let editAttr = false;
	  for (const from of a && a !== el ? [el, a] : [el])
	    for (let n = from; n && !editAttr; n = n.parentNode || n.host)
	      if (n.nodeType === 1) editAttr = edits.some(k => n.hasAttribute(k));
	  return {editable, tag, type: tag === 'input' ? el.type : '', value: 'value' in el && tag !== 'button' ? String(el.value) : el.innerText, suggests, max, readOnly, focused: a === el,
	    top: window === window.top, keyAttr, editAttr};
	}`

// pickedJS are the valueTypes, as a JavaScript array.
var pickedJS = func() string {
	var ts []string
	for t := range valueTypes {
		ts = append(ts, "'"+t+"'")
	}
	slices.Sort(ts)
	return "[" + strings.Join(ts, ", ") + "]"
}()

// checkTypeable refuses, with a hint at the action that fits, a field
// that keys cannot fill: one that is not editable (a checkbox, a button,
// a file input), or a read-only one that is not filled through a picker.
func (kind fieldKind) checkTypeable() error {
	if !kind.Editable {
		what := safeWord(kind.Tag)
		if kind.Type != "" {
			what += " type=" + safeWord(kind.Type)
		}
		return tool.Fail("cannot type into a <%s>: pick a textbox, searchbox or editable element (use click for checkboxes and buttons, select for dropdowns, upload for file inputs)", what)
	}
	if _, typed := valueTypes[kind.Type]; kind.ReadOnly && !typed {
		// Keys would do nothing: a date picker's field (flatpickr) takes
		// its value from the picker.
		return tool.Fail("the field is read-only: it takes its value from a picker or the page — click it and choose from what opens")
	}
	return nil
}

// setByValue fills an input of one of the valueTypes (typ) the way its
// picker would: it sets the value and sends input and change events. A
// value the input refuses outright fails with the format it takes
// (format); one that it changes (a range's bounds, a colour's case) is
// noted, with what it holds in the details.
func (c *Tab) setByValue(ctx context.Context, el browser.Elem, typ, format string) error {
	var got string
	err := c.Page.CallOn(ctx, el, `function(v) {
	  this.focus();
	  Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set.call(this, v);
	  this.dispatchEvent(new Event('input', {bubbles: true}));
	  this.dispatchEvent(new Event('change', {bubbles: true}));
	  return this.value;
	}`, &got, c.In.Text)
	if err != nil {
		return err
	}
	if got != c.In.Text && c.In.Text != "" {
		if c.secret != "" {
			return tool.Fail("the %s input did not take secret %s: it takes %s", typ, c.secret, format)
		}
		if got == "" || typ != "range" && typ != "color" {
			return tool.Fail("the %s input did not take %q: type it as %s", typ, c.In.Text, format)
		}
		// What it holds is the page's to say: in the details.
		c.Res.Notes = append(c.Res.Notes, fmt.Sprintf("the %s input holds another value than was typed (its bounds or format changed it); its value is in the details", safeWord(typ)))
		c.Res.Details = append(c.Res.Details, "value now: "+jsString(truncate(got, 200)))
	}
	return nil
}

// keyedFormats are the value formats of the inputs a keyboard fills part
// by part (month, day, year; hours, minutes, AM/PM): a text in the format
// is set as the value, any other is typed as keys into the parts.
var keyedFormats = map[string]*regexp.Regexp{
	"date":           regexp.MustCompile(`^\d{4,}-\d{2}-\d{2}$`),
	"time":           regexp.MustCompile(`^\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$`),
	"datetime-local": regexp.MustCompile(`^\d{4,}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$`),
	"month":          regexp.MustCompile(`^\d{4,}-\d{2}$`),
	"week":           regexp.MustCompile(`^\d{4,}-W\d{2}$`),
}

// partKeys is text a keyboard types into a date or time field's parts:
// digits, then perhaps an A or P (AM, PM).
var partKeys = regexp.MustCompile(`^[0-9]+(?:[AaPp][Mm]?)?$`)

// typeDateKeys types the call's text as keys into a date or time field's
// parts: from the part that has the focus (the agent clicked it), else
// from the first. The value the field ends with is reported; none is an
// error that gives both ways to fill it.
func (c *Tab) typeDateKeys(ctx context.Context, el browser.Elem, kind fieldKind, format string) error {
	pg := c.Page
	if !kind.Focused {
		if err := pg.FocusThen(ctx, el, `function() {}`, nil); err != nil {
			return err
		}
	}
	var err error
	if browser.KeyTypeable(c.In.Text) {
		err = pg.TypeKeys(ctx, c.In.Text)
	} else {
		err = pg.InsertText(ctx, c.In.Text)
	}
	if err != nil {
		return err
	}
	var got string
	if err := pg.CallOn(ctx, el, `function() { return this.value; }`, &got); err != nil {
		return err
	}
	if got == "" {
		return tool.Fail("the %s input took no value from the keys %q: type its value as %s, or the digits of each part in the order it shows them (06282014 for 06/28/2014)", kind.Type, c.In.Text, format)
	}
	c.Res.Notes = append(c.Res.Notes, fmt.Sprintf("typed as keys into the %s input's parts; it holds %s", kind.Type, got))
	return nil
}

// placeCaret focuses the field and puts the caret where the text is to
// go: with the call's clear, over the whole of what the field holds,
// which it then deletes; else where the caret already is in a field that
// had the focus (focused, as the probe found it), or at the end of one
// that did not. The focus and the caret go to the page in one round trip.
func (c *Tab) placeCaret(ctx context.Context, el browser.Elem, focused bool) error {
	// A field that has the focus already (the agent clicked into it, or
	// selected its text with Control+a) is typed into where its caret or
	// selection is, as a keyboard does; else at its end.
	if c.In.Clear {
		if err := c.Page.FocusThen(ctx, el, selectAllJS, nil); err != nil {
			return err
		}
		return c.Page.Press(ctx, "Delete")
	}
	if focused {
		return c.Page.Focus(ctx, el)
	}
	// Type at the end, as a person who clicked into the field would.
	return c.Page.FocusThen(ctx, el, `function() {
	  const el = this.nodeType === 1 ? this : this.parentElement;
	  try { if (typeof el.setSelectionRange === 'function') { const n = el.value.length; el.setSelectionRange(n, n); } } catch (e) {}
	  if (el.isContentEditable) { const r = document.createRange(); r.selectNodeContents(el); r.collapse(false); const s = getSelection(); s.removeAllRanges(); s.addRange(r); }
	}`, nil)
}

// selectAllJS selects all that the field holds, so that a Delete empties
// it as a person does and the page hears the edit.
const selectAllJS = `function() {
	  const el = this.nodeType === 1 ? this : this.parentElement;
	  if ('select' in el && typeof el.select === 'function') el.select();
	  else { const r = document.createRange(); r.selectNodeContents(el); const s = getSelection(); s.removeAllRanges(); s.addRange(r); }
	}`

// typeInto types the call's text into the focused field, whose maxlength
// is maxLen (0: none); unheard says no script can hear its keys
// (fieldKind.keysUnheard). spilled reports whether the text was longer
// than the field takes, and so was typed a character at a time.
func (c *Tab) typeInto(ctx context.Context, maxLen int, unheard bool) (spilled bool, err error) {
	pg, text := c.Page, c.In.Text
	// More text than the field takes (a one-time code's six one-digit
	// boxes): typed a character at a time, as a keyboard does, so that
	// what the field does not take goes where the page moves the focus.
	//
	// A text of up to browser.KeyTypeMax characters is typed a key at a
	// time (keydown, keypress, input, keyup), so pages that listen to keys
	// hear it — unless none can (unheard): then it goes in at once, with
	// the same input events; a longer one, or one with a newline or tab,
	// is inserted at once, as a paste.
	spill := maxLen > 0 && utf8.RuneCountInString(text) > maxLen
	switch {
	case text == "":
	case browser.KeyTypeable(text) && !(unheard && !spill):
		if err := pg.TypeKeys(ctx, text); err != nil {
			return spill, err
		}
	case spill:
		for _, r := range text {
			if err := pg.InsertText(ctx, string(r)); err != nil {
				return spill, err
			}
		}
	default:
		if err := pg.InsertText(ctx, text); err != nil {
			return spill, err
		}
	}
	return spill, nil
}

// checkValue reads the field back after typing and notes where it does
// not hold what was typed: the text spilled (see typeInto) into the
// fields the page moved the focus to, or the page or the input type
// changed the value, which then goes in the details.
// It touches nothing of c's but reads (Type runs it beside Settle): the
// notes and details are returned, for note.
func (c *Tab) checkValue(ctx context.Context, el browser.Elem, kind fieldKind, spilled bool) (notes, details []string) {
	pg := c.Page
	var moved bool
	if spilled && pg.CallOn(ctx, el, `function() { return document.activeElement !== this; }`, &moved) == nil && moved {
		takes := "one character"
		if kind.Max > 1 {
			takes = fmt.Sprintf("%d characters", kind.Max)
		}
		notes = append(notes, "the field takes "+takes+": the rest of the text went, a character at a time, where the page moved the focus (its next fields)")
	}
	// What the field holds now, before Enter can submit and clear it.
	var now string
	if !moved && pg.CallOn(ctx, el, `function() { const el = this.nodeType === 1 ? this : this.parentElement;
	  return 'value' in el && el.tagName !== 'BUTTON' ? String(el.value) : el.innerText; }`, &now) == nil {
		want := c.In.Text
		if !c.In.Clear {
			want = kind.Value + c.In.Text
		}
		if strings.TrimRight(now, "\n") != strings.TrimRight(want, "\n") {
			if c.secret != "" {
				// Not even a part of it is shown (a maxlength cut).
				return append(notes, "the field's value is not secret "+c.secret+" as typed (the page, its maxlength or the input type changed it)"), details
			}
			notes = append(notes, "the field's value is not what was typed (the page or the input type changed it); its value is in the details")
			details = append(details, "value now: "+jsString(truncate(now, 200)))
		}
	}
	return notes, details
}

// note adds notes and details to the call's result.
func (c *Tab) note(notes, details []string) {
	c.Res.Notes = append(c.Res.Notes, notes...)
	c.Res.Details = append(c.Res.Details, details...)
}

// submitAndSettle presses Enter when the call asks to submit, then waits,
// from the mark m taken before typing, for what the page does in answer.
func (c *Tab) submitAndSettle(ctx context.Context, m browser.Mark) error {
	if c.In.Submit {
		if err := c.Page.Press(ctx, "Enter"); err != nil {
			return err
		}
	}
	return c.Page.Settle(ctx, m)
}

// useSecret makes the stored secret name the text to type into el, after
// checking that el's frame is on one of the secret's origins.
func (c *Tab) useSecret(ctx context.Context, el browser.Elem, name string) error {
	sec, ok := c.Secrets[name]
	if !ok {
		return tool.Fail("secret %s was not resolved for this call", name)
	}
	if len(sec.Origins) > 0 {
		// The element's own frame: a page on the secret's origin may
		// frame another site's form (docOriginJS).
		var origin string
		if err := c.Page.CallOn(ctx, el, `function() { return `+docOriginJS+`; }`, &origin); err != nil {
			return err
		}
		if !slices.Contains(sec.Origins, origin) {
			c.Res.Details = append(c.Res.Details, "the field's origin: "+origin)
			return tool.Fail("secret %s is typed only on %s; this field's page is on another origin (in the details): navigate to the site the secret is for", name, strings.Join(sec.Origins, ", "))
		}
	}
	c.In.Text, c.secret = sec.Value, name
	return nil
}
