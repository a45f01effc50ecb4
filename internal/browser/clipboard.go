package browser

import (
	"context"
	"fmt"
	"strings"
)

// The clipboard is the browser's, not a tab's: every session in one
// browser (the shared browser of ephemeral sessions, a profile's browser
// that several tasks use) copies into and pastes from the same one. So
// that nothing a session copied reaches another's page, the clipboard
// has an owner — the scope (PageOptions.Scope: browserd gives each
// session its own) of the tab whose chord last copied or cut into it —
// and a paste in a tab of another scope finds it emptied first. What a
// page wrote there itself (no chord of browserd's) has no owner: emptied
// before any paste. The copy, the emptying and the paste are one step
// for the browser (Browser.clipMu), whatever other sessions do meanwhile.

// clipChord says what a chord does with the clipboard: "copy" (Control+C,
// Control+X, Control+Insert, Shift+Delete), "paste" (Control+V,
// Shift+Insert), or "". Meta counts as Control (a Mac's).
func clipChord(d keyDef, mods int) string {
	ctrl, shift := mods&(2|4) != 0, mods&8 != 0
	switch k := strings.ToLower(d.key); {
	case ctrl && (k == "c" || k == "x" || k == "insert"):
		return "copy"
	case shift && !ctrl && k == "delete":
		return "copy"
	case ctrl && k == "v", shift && !ctrl && k == "insert":
		return "paste"
	}
	return ""
}

// scope is the clipboard's owner a chord of this tab sets or must match.
func (p *Page) scope() string {
	if p.opts.Scope != "" {
		return p.opts.Scope
	}
	return "tab " + p.TargetID
}

// emptyClipboardJS writes empty text to the clipboard: a copy command
// whose copy event sets nothing (with the call's user gesture, as a
// keyboard's Control+C has).
const emptyClipboardJS = `(() => {
  const h = e => { e.stopImmediatePropagation(); e.preventDefault(); e.clipboardData.setData('text/plain', ''); };
  window.addEventListener('copy', h, true);
  try { return document.execCommand('copy'); } finally { window.removeEventListener('copy', h, true); }
})()`

// guardClipboard runs chord's key events (press) with the clipboard kept
// to its owner: before a paste in a tab of another scope, the clipboard is
// emptied; a copy makes this tab's scope its owner.
func (p *Page) guardClipboard(ctx context.Context, kind string, press func() error) error {
	if kind == "" || p.b == nil {
		return press()
	}
	b := p.b
	b.clipMu.Lock()
	defer b.clipMu.Unlock()
	if kind == "paste" && b.clipOwner != p.scope() {
		var r evalResult
		err := p.inWorld(ctx, p.sess, p.TargetID, func(id int64) error {
			r = evalResult{}
			return p.sess.Call(ctx, "Runtime.evaluate", map[string]any{
				"expression": emptyClipboardJS, "contextId": id, "returnByValue": true, "userGesture": true,
			}, &r)
		})
		if err == nil {
			err = r.decode(nil)
		}
		if err != nil {
			// Not pasting is the safe answer to a clipboard that
			// could not be emptied.
			return fmt.Errorf("the clipboard holds what another session copied and could not be emptied before the paste: %w", err)
		}
		b.clipOwner = p.scope()
	}
	if err := press(); err != nil {
		return err
	}
	if kind == "copy" {
		b.clipOwner = p.scope()
	}
	return nil
}
