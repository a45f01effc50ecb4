package act

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/browserd/browserd/internal/browser"
	"github.com/browserd/browserd/internal/tool"
)

// A secret is never typed with keys (issue 36 point 1). A key goes where
// the page's focus is when the renderer handles it, and a page can move
// the focus at any time — on the first keydown, or 5 ms after its window
// blurs — into a field of another origin. So the class "every character
// of a secret goes to a field of a bound origin, or none does" is kept by
// writing the value into the field's own document: one call in
// browserd's isolated world of the field's frame checks, in one turn of
// that frame's event loop (no page script runs in between), that the
// frame is on one of the secret's origins and that the field has the
// focus, and then inserts the text with document.execCommand — which
// edits that document and no other, whatever the page does next. The page
// hears one input event (inputType insertText), as for a paste; it hears
// no keys.

// insertSecretJS writes text into the field (mode "field": this element,
// which must have its document's focus; focused first when it has not) or
// into its document's focused text field (mode "focused": the next box of
// a one-time code the page moved the focus to), after checking that the
// document is on one of origins (none: any). With clear, what the field
// holds is replaced. It answers {ok} or {why: "origin" | "focus", origin,
// where}: where is what has the focus instead (a word browserd chose, not
// the page's text).
// docOriginJS is the origin of the document it runs in, as a secret's
// origins are checked: an about:blank or srcdoc frame has the origin of
// the document that made it, though its location says "null" — the top's
// when it may read the top's location (the same origin), none otherwise
// (a sandboxed frame, another site's). location and top are properties
// no page script can replace.
const docOriginJS = `(() => { let o = location.origin;
  if (o === 'null' && location.protocol === 'about:') { try { o = top.location.origin; } catch (e) {} }
  return o; })()`

const insertSecretJS = `function(origins, text, clear, mode) {
  const el = this.nodeType === 1 ? this : this.parentElement;
  const origin = ` + docOriginJS + `;
  if (origins.length && !origins.includes(origin)) return {why: 'origin', origin};
  if (el.ownerDocument !== document || !el.isConnected) return {why: 'focus', where: 'gone'};
  const deep = () => { let a = document.activeElement; while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement; return a; };
  const textField = a => !!a && (a.isContentEditable || a.tagName === 'TEXTAREA' ||
    (a.tagName === 'INPUT' && !['checkbox','radio','button','submit','reset','file','image','hidden','range','color','date','time','datetime-local','month','week'].includes(a.type)));
  const holds = a => a === el || (!!a && a.isContentEditable && a.contains(el));
  const where = a => !document.hasFocus() ? 'outside' : a && ['IFRAME','FRAME','OBJECT','EMBED'].includes(a.tagName) ? 'frame' : 'elsewhere';
  let target = deep();
  if (mode === 'field') {
    if (!holds(target) || !document.hasFocus()) { el.focus(); target = deep(); }
    if (!holds(target) || !document.hasFocus()) return {why: 'focus', where: where(target)};
  } else if (!textField(target) || !document.hasFocus() || target.readOnly || target.disabled) {
    return {why: 'focus', where: where(target)};
  }
  if (clear) {
    if (typeof target.select === 'function') target.select();
    else { const r = document.createRange(); r.selectNodeContents(target); const s = getSelection(); s.removeAllRanges(); s.addRange(r); }
  }
  if (!document.execCommand('insertText', false, text) && (target.tagName === 'INPUT' || target.tagName === 'TEXTAREA')) {
    // An input execCommand does not edit (an email input in some
    // versions): its value is set, and the page told, as a picker does.
    const proto = target.tagName === 'INPUT' ? HTMLInputElement.prototype : HTMLTextAreaElement.prototype;
    const set = Object.getOwnPropertyDescriptor(proto, 'value').set;
    set.call(target, clear ? text : target.value + text);
    target.dispatchEvent(new InputEvent('input', {bubbles: true, inputType: 'insertText'}));
  }
  // What holds a secret gives nothing to the clipboard or a drag: a copy,
  // a cut or a drag that starts in it is cancelled (browserd's world; the
  // page's own listeners see the event, the clipboard gets nothing).
  const g = globalThis.__browserdSecretFields || (globalThis.__browserdSecretFields = new WeakSet());
  g.add(target);
  if (!globalThis.__browserdClipGuard) {
    globalThis.__browserdClipGuard = true;
    const inSecret = e => {
      const hit = n => { for (let x = n; x; x = x.parentNode || x.host) if (x.nodeType === 1 && g.has(x)) return true; return false; };
      let a = document.activeElement;
      while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
      const sel = getSelection();
      return hit(e.target) || hit(a) || (sel && sel.rangeCount > 0 && (hit(sel.anchorNode) || hit(sel.focusNode)));
    };
    const stop = e => { if (inSecret(e)) { e.preventDefault(); e.stopImmediatePropagation(); if (e.clipboardData) e.clipboardData.setData('text/plain', ''); } };
    for (const type of ['copy', 'cut', 'dragstart']) window.addEventListener(type, stop, true);
  }
  return {ok: true};
}`

// secretFocusJS says where the focus is now, seen from the field's frame:
// in that frame, on a text field or not, or outside it (where), and the
// origin of a same-origin child frame that has it.
const secretFocusJS = `function(origins) {
  if (!document.hasFocus()) return {where: 'outside'};
  let a = document.activeElement;
  while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
  if (!a || !['IFRAME','FRAME','OBJECT','EMBED'].includes(a.tagName)) return {where: 'here'};
  let o = '';
  try { o = a.contentWindow.location.origin; } catch (e) {}
  return {where: origins.length === 0 || origins.includes(o) ? 'here' : 'frame'};
}`

type secretAnswer struct {
	OK     bool   `json:"ok"`
	Why    string `json:"why"`
	Origin string `json:"origin"`
	Where  string `json:"where"`
}

// focusWords says where the focus went, for an error.
var focusWords = map[string]string{
	"outside":   "out of its frame (to the page around it or another frame)",
	"frame":     "into a frame inside its page",
	"elsewhere": "to something on its page that is not a text field",
	"gone":      "(the field left its page)",
	"here":      "",
}

// typeSecret writes the secret c.secret (its value in c.In.Text) into el
// (see insertSecretJS): all of it at once, or — when it is longer than the
// field's maxlength (a one-time code's one-digit boxes) — what the field
// takes, then a character at a time into the text field of the same
// document the page moves the focus to. It stops at the first character
// that would go anywhere else, failing with how much was typed; every
// character it typed went into a field of the secret's origins. spilled
// reports the second way.
func (c *Tab) typeSecret(ctx context.Context, el browser.Elem, maxLen int) (spilled bool, err error) {
	origins := c.Secrets[c.secret].Origins
	if origins == nil {
		origins = []string{}
	}
	text := c.In.Text
	first, rest := text, ""
	if n := utf8.RuneCountInString(text); maxLen > 0 && n > maxLen {
		spilled = true
		i := 0
		for j := range text {
			if i == maxLen {
				first, rest = text[:j], text[j:]
				break
			}
			i++
		}
	}
	if err := c.Page.Focus(ctx, el); err != nil {
		return spilled, err
	}
	typed, total := 0, utf8.RuneCountInString(text)
	insert := func(s, mode string, clear bool) error {
		var a secretAnswer
		if err := c.Page.CallOn(ctx, el, insertSecretJS, &a, origins, s, clear, mode); err != nil {
			return err
		}
		switch {
		case a.Why == "origin":
			c.Res.Details = append(c.Res.Details, "the field's origin: "+a.Origin)
			return tool.Fail("secret %s is typed only on %s; this field's page is now on another origin (in the details): nothing more of it was typed (%d of %d characters were, into the field on its origin)", c.secret, strings.Join(origins, ", "), typed, total)
		case !a.OK:
			how := "nothing of it was typed"
			if typed > 0 {
				how = fmt.Sprintf("%d of %d characters were typed, all into fields of the secret's origin, none where the focus went", typed, total)
			}
			return tool.Fail("the focus moved away from the field %s before secret %s was typed: %s. A page that takes the focus from a field may want what is typed into it: take a snapshot and check the page before typing the secret again", focusWords[a.Where], c.secret, how)
		}
		typed += utf8.RuneCountInString(s)
		return nil
	}
	if err := insert(first, "field", c.In.Clear); err != nil {
		return spilled, err
	}
	for _, r := range rest {
		if err := insert(string(r), "focused", false); err != nil {
			return spilled, err
		}
	}
	return spilled, nil
}

// secretFocusHeld fails when, after the secret was typed, the focus is
// no longer in the field's frame nor in a frame of the secret's origins:
// the next key (Enter, the agent's next type) would go to another origin,
// and a page that moves the focus away from a password field may want
// what is typed. Nothing of the secret went there (see typeSecret).
func (c *Tab) secretFocusHeld(ctx context.Context, el browser.Elem) error {
	origins := c.Secrets[c.secret].Origins
	if origins == nil {
		origins = []string{}
	}
	var a secretAnswer
	if err := c.Page.CallOn(ctx, el, secretFocusJS, &a, origins); err != nil {
		return nil // the field's frame is gone (the page went on): nothing to say
	}
	if a.Where == "here" || a.Where == "" {
		return nil
	}
	return tool.Fail("secret %s was typed into the field, all of it and nowhere else, but the page then moved the focus %s: nothing of the secret went there. A page that takes the focus from a field may want what is typed into it: take a snapshot and check the page before you submit or type anything more", c.secret, focusWords[a.Where])
}

// typeSecretAndSettle is Type's end for a secret (see typeSecret): the
// value written, the field read back, Enter pressed when the call asks
// (only while the focus is still on the secret's origin) and the page
// waited for, from the mark m. Without Enter, where the focus is once the
// page settled is checked too: a page that takes the focus a moment after
// the field got it (its window's blur, a timer) is caught there.
func (c *Tab) typeSecretAndSettle(ctx context.Context, el browser.Elem, kind fieldKind, m browser.Mark) error {
	spilled, err := c.typeSecret(ctx, el, kind.Max)
	if err != nil {
		return err
	}
	c.note(c.checkValue(ctx, el, kind, spilled))
	if c.In.Submit {
		// What Enter submits after a page moved the focus: not the form
		// the secret is in.
		if err := c.secretFocusHeld(ctx, el); err != nil {
			return err
		}
		return c.submitAndSettle(ctx, m)
	}
	if err := c.Page.Settle(ctx, m); err != nil {
		return err
	}
	return c.secretFocusHeld(ctx, el)
}
