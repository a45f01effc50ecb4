package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/browserd/browserd/internal/cdp"
)

// ClickOptions says how to click: which button, how many times, with
// which modifier keys held. The zero value is one left click.
type ClickOptions struct {
	Button    string   // left (default), right, middle
	Count     int      // 1 (default) or 2 for a double click
	Modifiers []string // Alt, Control, Meta, Shift
}

// Click presses and releases a mouse button at the point, as a person's
// mouse would: move, then press and release (twice for a double click,
// the second pair with clickCount 2 so the page gets dblclick).
//
// The events are pipelined: each waits in Chromium for the renderer's
// acknowledgement, often a whole frame, so sending them one after another
// would cost a frame each instead of about one in all.
func (p *Page) Click(ctx context.Context, x, y float64, o ClickOptions) error {
	if (o.Button == "" || o.Button == "left") && o.Count <= 1 && len(o.Modifiers) == 0 && p.Touch() {
		return p.Tap(ctx, x, y) // a touch screen's click (emulate.go)
	}
	button := o.Button
	if button == "" {
		button = "left"
	}
	mods := 0
	for _, m := range o.Modifiers {
		mods |= modifierBits[strings.ToLower(m)]
	}
	events := []map[string]any{{"type": "mouseMoved", "x": x, "y": y, "modifiers": mods}}
	for n := 1; n <= max(o.Count, 1) && n <= 3; n++ {
		for _, t := range []string{"mousePressed", "mouseReleased"} {
			events = append(events, map[string]any{"type": t, "x": x, "y": y, "button": button, "clickCount": n, "modifiers": mods})
		}
	}
	var waits []func(any) error
	for _, ev := range events {
		waits = append(waits, p.sess.Send(ctx, "Input.dispatchMouseEvent", ev))
	}
	return waitAll(waits)
}

// waitAll waits for every pipelined call and returns the first error.
func waitAll(waits []func(any) error) error {
	var first error
	for _, w := range waits {
		if err := w(nil); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// Hover moves the mouse to the point.
func (p *Page) Hover(ctx context.Context, x, y float64) error {
	return p.sess.Call(ctx, "Input.dispatchMouseEvent", map[string]any{"type": "mouseMoved", "x": x, "y": y}, nil)
}

// Wheel scrolls by (dx, dy) pixels with the mouse at (x, y).
func (p *Page) Wheel(ctx context.Context, x, y, dx, dy float64) error {
	if p.Touch() && p.Swipe(ctx, x, y, dx, dy) == nil {
		return nil // a touch screen's scroll (emulate.go)
	}
	return p.sess.Call(ctx, "Input.dispatchMouseEvent", map[string]any{"type": "mouseWheel", "x": x, "y": y, "deltaX": dx, "deltaY": dy}, nil)
}

// InsertText types text into the focused element as one input event.
func (p *Page) InsertText(ctx context.Context, text string) error {
	return p.sess.Call(ctx, "Input.insertText", map[string]any{"text": text}, nil)
}

// KeyTypeMax is the longest text TypeKeys types; a longer one is inserted
// at once, as a paste would be.
const KeyTypeMax = 256

// KeyTypeable says whether TypeKeys types text: at most KeyTypeMax
// characters and none that is a key of its own (a newline is Enter, which
// sends a form or a chat message; a tab moves the focus).
func KeyTypeable(text string) bool {
	if utf8.RuneCountInString(text) > KeyTypeMax {
		return false
	}
	for _, r := range text {
		if r < ' ' || r == 0x7f {
			return false
		}
	}
	return true
}

// TypeKeys types text into the focused element a key at a time, as a
// keyboard does: each character is a keydown (with its keypress,
// beforeinput and input) and a keyup, with the key, code and key code of a
// US keyboard and Shift held where that keyboard needs it; a character it
// has no key for is sent with its text alone. Pages that listen to keys — a
// search filtered on keyup, a phone mask that cancels each keydown and
// writes the digit itself — hear what a person's typing tells them, which
// Input.insertText does not. The events are pipelined, as Click's are.
func (p *Page) TypeKeys(ctx context.Context, text string) error {
	var waits []func(any) error
	for _, r := range text {
		d, mods := keyOf(r)
		ev := func(typ string) map[string]any {
			return map[string]any{"type": typ, "key": d.key, "code": d.code, "windowsVirtualKeyCode": d.keyCode, "modifiers": mods}
		}
		down := ev("keyDown")
		down["text"], down["unmodifiedText"] = d.text, d.text
		waits = append(waits, p.sess.Send(ctx, "Input.dispatchKeyEvent", down), p.sess.Send(ctx, "Input.dispatchKeyEvent", ev("keyUp")))
	}
	return waitAll(waits)
}

// usKeys are the keys of a US keyboard's punctuation: code, key code, and
// whether the character needs Shift.
var usKeys = map[rune]struct {
	code    string
	keyCode int
	shift   bool
}{
	' ': {"Space", 32, false}, '-': {"Minus", 189, false}, '_': {"Minus", 189, true},
	'=': {"Equal", 187, false}, '+': {"Equal", 187, true}, '[': {"BracketLeft", 219, false},
	'{': {"BracketLeft", 219, true}, ']': {"BracketRight", 221, false}, '}': {"BracketRight", 221, true},
	'\\': {"Backslash", 220, false}, '|': {"Backslash", 220, true}, ';': {"Semicolon", 186, false},
	':': {"Semicolon", 186, true}, '\'': {"Quote", 222, false}, '"': {"Quote", 222, true},
	',': {"Comma", 188, false}, '<': {"Comma", 188, true}, '.': {"Period", 190, false},
	'>': {"Period", 190, true}, '/': {"Slash", 191, false}, '?': {"Slash", 191, true},
	'`': {"Backquote", 192, false}, '~': {"Backquote", 192, true},
	'!': {"Digit1", 49, true}, '@': {"Digit2", 50, true}, '#': {"Digit3", 51, true},
	'$': {"Digit4", 52, true}, '%': {"Digit5", 53, true}, '^': {"Digit6", 54, true},
	'&': {"Digit7", 55, true}, '*': {"Digit8", 56, true}, '(': {"Digit9", 57, true}, ')': {"Digit0", 48, true},
}

// keyOf is the key that types r, and the modifiers held for it.
func keyOf(r rune) (keyDef, int) {
	d := keyDef{key: string(r), text: string(r)}
	switch {
	case r >= 'a' && r <= 'z':
		d.code, d.keyCode = "Key"+string(r-'a'+'A'), int(r-'a'+'A')
	case r >= 'A' && r <= 'Z':
		d.code, d.keyCode = "Key"+string(r), int(r)
		return d, modifierBits["shift"]
	case r >= '0' && r <= '9':
		d.code, d.keyCode = "Digit"+string(r), int(r)
	default:
		if k, ok := usKeys[r]; ok {
			d.code, d.keyCode = k.code, k.keyCode
			if k.shift {
				return d, modifierBits["shift"]
			}
		}
	}
	return d, 0
}

// Focus focuses the element.
func (p *Page) Focus(ctx context.Context, e Elem) error {
	s := p.SessionFor(e.Sess)
	if s == nil {
		return ErrStale
	}
	if err := s.Call(ctx, "DOM.focus", map[string]any{"backendNodeId": e.Backend}, nil); err != nil {
		if isStale(err) {
			return ErrStale
		}
		// A node the page took out of its document meanwhile (a form
		// drawn again) is "not focusable": it is stale.
		var live bool
		if cerr := p.CallOn(ctx, e, `function() { return this.isConnected; }`, &live); cerr == nil && !live || errors.Is(cerr, ErrStale) {
			return ErrStale
		}
		return fmt.Errorf("focusing element: %w", err)
	}
	return nil
}

// FocusThen focuses the element, as Focus does, and runs fn on it (as
// CallOn) in the same round trip: the two commands are sent together and
// the page runs them in order, so fn sees the element focused. (A type
// puts its caret this way.) fn's error is returned only when the focus
// succeeded.
func (p *Page) FocusThen(ctx context.Context, e Elem, fn string, out any, args ...any) error {
	s := p.SessionFor(e.Sess)
	if s == nil {
		return ErrStale
	}
	obj, kept := p.keptObject(s, e)
	if !kept {
		// Resolved once here (and kept): the focus and the call then go
		// together.
		if err := p.CallOn(ctx, e, `function() {}`, nil); err != nil {
			return err
		}
		if obj, kept = p.keptObject(s, e); !kept {
			if err := p.Focus(ctx, e); err != nil {
				return err
			}
			return p.CallOn(ctx, e, fn, out, args...)
		}
	}
	focus := s.Send(ctx, "DOM.focus", map[string]any{"backendNodeId": e.Backend})
	call := sendFunction(ctx, s, obj, fn, args...)
	ferr := focus(nil)
	cerr := call(out)
	if ferr != nil {
		// Again, one step at a time: Focus tells a stale element apart.
		if err := p.Focus(ctx, e); err != nil {
			return err
		}
		return p.CallOn(ctx, e, fn, out, args...)
	}
	if goneObject(cerr) {
		return p.CallOn(ctx, e, fn, out, args...)
	}
	return cerr
}

type keyDef struct {
	key, code string
	keyCode   int
	text      string
}

var keys = map[string]keyDef{
	"enter":      {"Enter", "Enter", 13, "\r"},
	"tab":        {"Tab", "Tab", 9, ""},
	"escape":     {"Escape", "Escape", 27, ""},
	"esc":        {"Escape", "Escape", 27, ""},
	"backspace":  {"Backspace", "Backspace", 8, ""},
	"delete":     {"Delete", "Delete", 46, ""},
	"space":      {" ", "Space", 32, " "},
	"arrowup":    {"ArrowUp", "ArrowUp", 38, ""},
	"arrowdown":  {"ArrowDown", "ArrowDown", 40, ""},
	"arrowleft":  {"ArrowLeft", "ArrowLeft", 37, ""},
	"arrowright": {"ArrowRight", "ArrowRight", 39, ""},
	"up":         {"ArrowUp", "ArrowUp", 38, ""},
	"down":       {"ArrowDown", "ArrowDown", 40, ""},
	"left":       {"ArrowLeft", "ArrowLeft", 37, ""},
	"right":      {"ArrowRight", "ArrowRight", 39, ""},
	"home":       {"Home", "Home", 36, ""},
	"end":        {"End", "End", 35, ""},
	"pageup":     {"PageUp", "PageUp", 33, ""},
	"pagedown":   {"PageDown", "PageDown", 34, ""},
	"insert":     {"Insert", "Insert", 45, ""},
}

var modifierBits = map[string]int{"alt": 1, "control": 2, "ctrl": 2, "meta": 4, "cmd": 4, "command": 4, "shift": 8}

// ParseKey parses a key or chord such as "Enter", "a", "Control+a",
// "Shift+Tab", "F5". The error lists what is accepted.
func ParseKey(s string) (def keyDef, modifiers int, err error) {
	parts := strings.Split(s, "+")
	if len(parts) > 1 && parts[len(parts)-1] == "" { // "Control++"
		parts = append(parts[:len(parts)-2], "+")
	}
	for _, m := range parts[:len(parts)-1] {
		bit, ok := modifierBits[strings.ToLower(strings.TrimSpace(m))]
		if !ok {
			return keyDef{}, 0, fmt.Errorf("unknown modifier %q in %q: use Control, Alt, Shift or Meta", m, s)
		}
		modifiers |= bit
	}
	name := strings.TrimSpace(parts[len(parts)-1])
	if name == "" && parts[len(parts)-1] == " " {
		name = "space"
	}
	if d, ok := keys[strings.ToLower(name)]; ok {
		return d, modifiers, nil
	}
	if len(name) >= 2 && (name[0] == 'F' || name[0] == 'f') {
		var n int
		if _, err := fmt.Sscanf(name[1:], "%d", &n); err == nil && n >= 1 && n <= 12 {
			return keyDef{key: "F" + fmt.Sprint(n), code: "F" + fmt.Sprint(n), keyCode: 111 + n}, modifiers, nil
		}
	}
	if utf8.RuneCountInString(name) == 1 {
		r, _ := utf8.DecodeRuneInString(name)
		d := keyDef{key: name, text: name}
		switch {
		case r >= 'a' && r <= 'z':
			d.code, d.keyCode = "Key"+strings.ToUpper(name), int(r-'a'+'A')
		case r >= 'A' && r <= 'Z':
			d.code, d.keyCode = "Key"+name, int(r)
		case r >= '0' && r <= '9':
			d.code, d.keyCode = "Digit"+name, int(r)
		}
		return d, modifiers, nil
	}
	return keyDef{}, 0, fmt.Errorf("unknown key %q: use a single character or Enter, Tab, Escape, Backspace, Delete, Space, Arrow{Up,Down,Left,Right}, Home, End, PageUp, PageDown, F1–F12, optionally with Control+, Alt+, Shift+, Meta+", s)
}

// Press presses and releases a key or chord (see ParseKey) on the focused
// element.
func (p *Page) Press(ctx context.Context, chord string) error {
	d, mods, err := ParseKey(chord)
	if err != nil {
		return err
	}
	text := d.text
	if mods&(1|2|4) != 0 { // no text with Alt/Control/Meta
		text = ""
	}
	down := map[string]any{"type": "keyDown", "key": d.key, "code": d.code, "windowsVirtualKeyCode": d.keyCode, "modifiers": mods}
	if text != "" {
		down["text"] = text
		down["unmodifiedText"] = text
	}
	if mods&2 != 0 && d.key == "a" {
		down["commands"] = []string{"selectAll"}
	}
	return p.guardClipboard(ctx, clipChord(d, mods), func() error {
		wait := p.sess.Send(ctx, "Input.dispatchKeyEvent", down)
		up := p.sess.Call(ctx, "Input.dispatchKeyEvent", map[string]any{"type": "keyUp", "key": d.key, "code": d.code, "windowsVirtualKeyCode": d.keyCode, "modifiers": mods}, nil)
		if err := wait(nil); err != nil {
			return err
		}
		return up
	})
}

// Hold presses chord and holds it down for d, as a finger on a key does:
// one keydown, then, after the keyboard's repeat delay (500 ms), a
// repeated keydown (autoRepeat) every 50 ms, then the keyup. A page that
// moves a game's piece while an arrow key is down sees it held.
func (p *Page) Hold(ctx context.Context, chord string, d time.Duration) error {
	k, mods, err := ParseKey(chord)
	if err != nil {
		return err
	}
	text := k.text
	if mods&(1|2|4) != 0 {
		text = ""
	}
	down := func(repeat bool) error {
		ev := map[string]any{"type": "keyDown", "key": k.key, "code": k.code, "windowsVirtualKeyCode": k.keyCode, "modifiers": mods, "autoRepeat": repeat}
		if text != "" {
			ev["text"], ev["unmodifiedText"] = text, text
		}
		return p.sess.Call(ctx, "Input.dispatchKeyEvent", ev, nil)
	}
	up := func() error {
		// The key goes up even when the hold was cut short.
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cdp.CleanupTimeout)
		defer cancel()
		return p.sess.Call(cctx, "Input.dispatchKeyEvent", map[string]any{"type": "keyUp", "key": k.key, "code": k.code, "windowsVirtualKeyCode": k.keyCode, "modifiers": mods}, nil)
	}
	if err := down(false); err != nil {
		return err
	}
	end := time.Now().Add(d)
	next := time.Now().Add(holdRepeatDelay)
	for {
		wait := time.Until(next)
		if rest := time.Until(end); rest < wait {
			wait = rest
		}
		t := time.NewTimer(max(wait, 0))
		select {
		case <-ctx.Done():
			t.Stop()
			_ = up()
			return ctx.Err()
		case <-t.C:
		}
		if !time.Now().Before(end) {
			return up()
		}
		if err := down(true); err != nil {
			_ = up()
			return err
		}
		next = time.Now().Add(holdRepeatEvery)
	}
}

// The keyboard's repeat: a held key repeats after holdRepeatDelay, every
// holdRepeatEvery.
const (
	holdRepeatDelay = 500 * time.Millisecond
	holdRepeatEvery = 50 * time.Millisecond
)

// HandleDialog accepts or dismisses the open dialog, answering a prompt
// with text, and waits until it is reported closed.
func (p *Page) HandleDialog(ctx context.Context, accept bool, text string) error {
	p.mu.Lock()
	shut := p.dialogsShut
	p.mu.Unlock()
	params := map[string]any{"accept": accept}
	if text != "" {
		params["promptText"] = text
	}
	if err := p.sess.Call(ctx, "Page.handleJavaScriptDialog", params, nil); err != nil {
		return err
	}
	// Counted, not read from p.dialog: a handler that alerts on every key
	// opens the next dialog as soon as this one closes, and both events
	// may be handled before this wait looks.
	return p.waitUntil(ctx, func() bool { return p.dialogsShut > shut })
}

// SetFiles sets the files of an <input type=file>.
func (p *Page) SetFiles(ctx context.Context, e Elem, files []string) error {
	s := p.SessionFor(e.Sess)
	if s == nil {
		return ErrStale
	}
	return s.Call(ctx, "DOM.setFileInputFiles", map[string]any{"files": files, "backendNodeId": e.Backend}, nil)
}

// AfterDialog waits until the script that opened the dialog HandleDialog
// closed has run on (a round trip to the page's main thread).
func (p *Page) AfterDialog(ctx context.Context) error {
	if p.Dialog() != nil {
		return nil // the script opened another at once: the answer reports it
	}
	// The script may open another dialog at once (a handler that alerts
	// on every key, and keys still queued): that ends the wait, and the
	// answer reports the new dialog.
	actx, stop := p.ActionContext(ctx)
	defer stop()
	if err := p.Run(actx, "0", nil); err != nil && !DialogBlocked(context.Cause(actx)) {
		return err
	}
	return nil
}

// DialogBlocked reports whether err is Chromium refusing a command because
// a JavaScript dialog is open (an action's key event after its own
// handler opened an alert).
func DialogBlocked(err error) bool {
	return err != nil && (errors.Is(err, ErrDialogOpen) || strings.Contains(err.Error(), "JavaScript dialog is open"))
}

// AddInitScript runs src in every document the tab loads from now on,
// before the page's own scripts.
func (p *Page) AddInitScript(ctx context.Context, src string) error {
	return p.sess.Call(ctx, "Page.addScriptToEvaluateOnNewDocument", map[string]any{"source": src}, nil)
}

// Mouse sends one mouse event as a person's mouse makes it: typ is
// mousePressed, mouseReleased or mouseMoved, at (x, y) in CSS pixels;
// button left, middle or right ("" for none); clicks counts a double click.
func (p *Page) Mouse(ctx context.Context, typ string, x, y float64, button string, clicks, modifiers int) error {
	ev := map[string]any{"type": typ, "x": x, "y": y, "modifiers": modifiers}
	if button != "" {
		ev["button"] = button
		ev["clickCount"] = max(clicks, 1)
	}
	return p.sess.Call(ctx, "Input.dispatchMouseEvent", ev, nil)
}

// Key sends one key event as a person's keyboard makes it: typ is keyDown
// or keyUp; key and code as the browser's KeyboardEvent names them; text
// is what a keyDown types ("" for none).
func (p *Page) Key(ctx context.Context, typ, key, code, text string, keyCode, modifiers int) error {
	ev := map[string]any{"type": typ, "key": key, "code": code, "windowsVirtualKeyCode": keyCode, "modifiers": modifiers}
	if typ == "keyDown" && text != "" {
		ev["text"] = text
		ev["unmodifiedText"] = text
	}
	return p.sess.Call(ctx, "Input.dispatchKeyEvent", ev, nil)
}

// FileInputOf is the file input an element stands for: itself, the
// control of a label, or the one file input inside it (a drop zone with
// its input hidden inside); ok is false when there is none.
func (p *Page) FileInputOf(ctx context.Context, e Elem) (Elem, bool) {
	in, ok, err := p.ElemFrom(ctx, e, `function() {
	  const el = this.nodeType === 1 ? this : this.parentElement;
	  const isFile = x => x && x.tagName === 'INPUT' && x.type === 'file';
	  if (isFile(el)) return el;
	  if (el.tagName === 'LABEL' && isFile(el.control)) return el.control;
	  const inside = el.querySelectorAll('input[type=file]');
	  return inside.length === 1 ? inside[0] : null;
	}`)
	return in, ok && err == nil
}

// ElemFrom calls fn (a JavaScript function declaration) on the element in
// browserd's isolated world and returns the element it returns, in the
// same frame; false when it returns none.
func (p *Page) ElemFrom(ctx context.Context, e Elem, fn string, args ...any) (Elem, bool, error) {
	s, obj, err := p.Resolve(ctx, e)
	if err != nil {
		return Elem{}, false, err
	}
	var r evalResult
	err = s.Call(ctx, "Runtime.callFunctionOn", map[string]any{"objectId": obj, "objectGroup": "browserd",
		"functionDeclaration": fn, "arguments": callArgs(args)}, &r)
	if err != nil {
		if isStale(err) {
			return Elem{}, false, ErrStale
		}
		return Elem{}, false, err
	}
	if err := r.decode(nil); err != nil {
		return Elem{}, false, err
	}
	var ro remoteObject
	if json.Unmarshal(r.Result, &ro) != nil || ro.ObjectID == "" || ro.Subtype != "node" {
		return Elem{}, false, nil
	}
	be, err := describe(ctx, s, ro.ObjectID)
	if err != nil {
		return Elem{}, false, err
	}
	return Elem{Sess: e.Sess, Backend: be, Frame: e.Frame}, true, nil
}

// ChooseFiles clicks at (x, y) and answers the file chooser the click
// opens with files, as a person picks them in the dialog (a button that
// clicks a hidden file input). It fails when no file chooser opens within
// wait.
func (p *Page) ChooseFiles(ctx context.Context, x, y float64, files []string, wait time.Duration) error {
	opened := p.sess.Listen("Page.fileChooserOpened")
	defer opened.Close()
	if err := p.sess.Call(ctx, "Page.setInterceptFileChooserDialog", map[string]any{"enabled": true}, nil); err != nil {
		return err
	}
	defer func() {
		p.cleanup(ctx, p.sess, "Page.setInterceptFileChooserDialog", map[string]any{"enabled": false})
	}()
	if err := p.Click(ctx, x, y, ClickOptions{}); err != nil {
		return err
	}
	wctx, cancel := context.WithTimeout(ctx, wait)
	ev, ok := opened.Next(wctx)
	cancel()
	if !ok {
		return ErrNoFileChooser
	}
	var c struct {
		Backend int64  `json:"backendNodeId"`
		Mode    string `json:"mode"`
	}
	if err := ev.Decode(&c); err != nil {
		return err
	}
	if c.Mode == "selectSingle" && len(files) > 1 {
		return fmt.Errorf("the file chooser takes one file, not %d", len(files))
	}
	return p.sess.Call(ctx, "DOM.setFileInputFiles", map[string]any{"files": files, "backendNodeId": c.Backend}, nil)
}

// ErrNoFileChooser: a click meant to open a file chooser opened none.
var ErrNoFileChooser = errors.New("no file chooser opened")
