package browser

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"
	"unicode"
)

// Eval evaluates the agent's JavaScript expression in the main frame's
// main world — the page's own globals, as the agent asked — awaiting a
// promise, and returns the result as JSON text (or a description for values
// JSON cannot carry). browserd's own scripts use Run instead.
func (p *Page) Eval(ctx context.Context, expr string) (string, error) {
	var r struct {
		Result    remoteObject `json:"result"`
		Exception *struct {
			Text      string       `json:"text"`
			Exception remoteObject `json:"exception"`
		} `json:"exceptionDetails"`
	}
	eval := func(expr string) error {
		r.Exception = nil
		return p.sess.Call(ctx, "Runtime.evaluate", map[string]any{
			"expression": expr, "returnByValue": true, "awaitPromise": true, "userGesture": true,
		}, &r)
	}
	if err := eval(expr); err != nil {
		return "", err
	}
	if r.Exception != nil && strings.Contains(r.Exception.Exception.Description, "await is only valid") {
		// Top-level await: run the expression as an async function's body.
		if err := eval("(async () => (" + expr + "\n))()"); err != nil {
			return "", err
		}
	}
	if r.Exception != nil {
		return "", &ScriptError{Msg: firstNonEmpty(r.Exception.Exception.Description, r.Exception.Text)}
	}
	switch {
	case r.Result.Type == "undefined":
		return "undefined", nil
	case r.Result.Value != nil || r.Result.Subtype == "null":
		b, err := json.Marshal(r.Result.Value)
		if err != nil {
			return fmt.Sprint(r.Result.Value), nil
		}
		return string(b), nil
	}
	return firstNonEmpty(r.Result.Description, r.Result.Type), nil
}

// ScriptError is an exception thrown by page JavaScript; Msg is page
// content.
type ScriptError struct{ Msg string }

func (e *ScriptError) Error() string { return "the page's script threw: " + e.Msg }

// Screenshot captures the viewport, the full page, or the element (when e
// is non-nil) as PNG.
func (p *Page) Screenshot(ctx context.Context, fullPage bool, e *Elem) ([]byte, error) {
	params := map[string]any{"format": "png"}
	switch {
	case e != nil:
		var r struct {
			X, Y, W, H float64
		}
		if _, err := p.aimOnce(ctx, *e, "hover"); err != nil { // scrolled into view; covered or not
			if _, ok := err.(*NotActionableError); !ok {
				return nil, err
			}
		}
		err := p.CallOn(ctx, *e, `function() { const el = this.nodeType === 1 ? this : this.parentElement;
		  const r = el.getBoundingClientRect(); return {X: r.left + scrollX, Y: r.top + scrollY, W: r.width, H: r.height}; }`, &r)
		if err != nil {
			return nil, err
		}
		if r.W == 0 || r.H == 0 {
			return nil, fmt.Errorf("the element has no size to capture")
		}
		params["clip"] = map[string]any{"x": r.X, "y": r.Y, "width": r.W, "height": r.H, "scale": 1}
		params["captureBeyondViewport"] = true
	case fullPage:
		var m struct {
			CSSContentSize struct {
				Width  float64 `json:"width"`
				Height float64 `json:"height"`
			} `json:"cssContentSize"`
		}
		if err := p.sess.Call(ctx, "Page.getLayoutMetrics", nil, &m); err != nil {
			return nil, err
		}
		params["clip"] = map[string]any{"x": 0, "y": 0, "width": m.CSSContentSize.Width, "height": min(m.CSSContentSize.Height, 16384), "scale": 1}
		params["captureBeyondViewport"] = true
	}
	var r struct {
		Data string `json:"data"`
	}
	if err := p.sess.Call(ctx, "Page.captureScreenshot", params, &r); err != nil {
		return nil, err
	}
	return base64.StdEncoding.DecodeString(r.Data)
}

// PDF prints the page to PDF (Chromium must be headless).
func (p *Page) PDF(ctx context.Context) ([]byte, error) {
	var r struct {
		Data string `json:"data"`
	}
	if err := p.sess.Call(ctx, "Page.printToPDF", map[string]any{"printBackground": true}, &r); err != nil {
		return nil, err
	}
	return base64.StdEncoding.DecodeString(r.Data)
}

// SafeFileName turns name into a plain file name (no folders, no leading
// dots, no control characters); fallback is used when nothing is left.
func SafeFileName(name, fallback string) string {
	name = filepath.Base(strings.ReplaceAll(name, "\\", "/"))
	name = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '/' || r == ':' {
			return '_'
		}
		return r
	}, name)
	name = strings.TrimLeft(name, ". ")
	if name == "" {
		name = fallback
	}
	if len(name) > 150 {
		ext := filepath.Ext(name)
		if len(ext) > 20 {
			ext = ""
		}
		name = name[:150-len(ext)] + ext
	}
	return name
}

// Stamp is a file-name-friendly timestamp.
func Stamp(t time.Time) string { return t.Format("20060102-150405.000") }
