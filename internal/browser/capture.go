package browser

import (
	"context"
	"encoding/base64"
	"fmt"
	"path/filepath"
	"strings"
	"time"
	"unicode"
)

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
	done, err := p.inFront(ctx)
	if err != nil {
		return nil, err
	}
	err = p.sess.Call(ctx, "Page.captureScreenshot", params, &r)
	done()
	if err != nil {
		return nil, err
	}
	return base64.StdEncoding.DecodeString(r.Data)
}

// Chromium draws only the front tab of a window: a capture of a tab
// behind another (every tab but the last opened, in a session whose tasks
// each have their own) waits for a frame that never comes. A capture
// brings its tab to the front first (inFront) — which changes nothing a
// page sees: every tab's frames run and every tab reads as visible and
// focused — and holds the front until it is done.

// frontWait bounds how long a capture or a new tab waits for another
// capture to let go of the front: one stuck on a page that draws nothing
// (a script that never yields) holds another task's up no longer.
const frontWait = 2 * time.Second

// holdFront takes the browser's front (see inFront) and returns its
// release, or ctx's error. After frontWait it goes on without it.
func (b *Browser) holdFront(ctx context.Context) (func(), error) {
	t := time.NewTimer(frontWait)
	defer t.Stop()
	select {
	case b.front <- struct{}{}:
		return func() { <-b.front }, nil
	case <-t.C:
		return func() {}, nil
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}

// inFront brings the tab to the front of its window and holds it there
// — no other capture, no new tab takes the front — until done is called.
func (p *Page) inFront(ctx context.Context) (done func(), err error) {
	done, err = p.b.holdFront(ctx)
	if err != nil {
		return nil, err
	}
	if err := p.sess.Call(ctx, "Page.bringToFront", nil, nil); err != nil {
		done()
		return nil, err
	}
	return done, nil
}

// Thumbnail is a small JPEG of what the viewport shows: at most width
// pixels wide (shrunk by a whole factor), at JPEG quality q. The capture
// takes the page as it is drawn — no clip or scale, which would make
// Chromium lay the page out again for the capture and leave an
// out-of-process frame's geometry behind for the next click — and is
// shrunk here.
func (p *Page) Thumbnail(ctx context.Context, width, q int) ([]byte, error) {
	var r struct {
		Data string `json:"data"`
	}
	done, err := p.inFront(ctx)
	if err != nil {
		return nil, err
	}
	err = p.sess.Call(ctx, "Page.captureScreenshot", map[string]any{"format": "jpeg", "quality": q, "optimizeForSpeed": true}, &r)
	done()
	if err != nil {
		return nil, err
	}
	b, err := base64.StdEncoding.DecodeString(r.Data)
	if err != nil {
		return nil, err
	}
	return shrinkJPEG(b, width, q)
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
