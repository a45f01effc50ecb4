//go:build linux

package e2e

import (
	"strings"
	"testing"

	"github.com/browserd/browserd/internal/tool"
)

// TestTimersLookNative: the short-timer bookkeeping browserd adds to every
// document (internal/browser/timers.go) reads as the native setTimeout to
// the page, and a page that rewrites the built-ins it uses still gets its
// timers run.
func TestTimersLookNative(t *testing.T) {
	_, do := newEngine(t, testConfig(t))
	if r := do(tool.Input{Action: "navigate", URL: site.URL("/c/menu-delayed")}); !r.Success {
		t.Fatal(r.Error)
	}
	r := do(tool.Input{Action: "evaluate", Expression: `[Function.prototype.toString.call(setTimeout).includes('[native code]'),
	  setTimeout.name, setTimeout.length, Function.prototype.toString.call(clearTimeout).includes('[native code]')].join()`})
	if !r.Success || !strings.Contains(r.Content, "true,setTimeout,1,true") {
		t.Errorf("setTimeout does not read as native: %s %s", r.Error, r.Content)
	}
	// The key-listener bookkeeping (KeysHeard) reads as native too, and
	// listeners and handlers work through it.
	r = do(tool.Input{Action: "evaluate", Expression: `(() => { const d = Object.getOwnPropertyDescriptor(HTMLElement.prototype, 'onkeydown');
	  const b = document.createElement('b'); let heard = 0; b.addEventListener('keydown', () => heard++); b.onkeydown = () => heard++;
	  b.dispatchEvent(new KeyboardEvent('keydown'));
	  return [Function.prototype.toString.call(EventTarget.prototype.addEventListener).includes('[native code]'), addEventListener.name, addEventListener.length,
	    Function.prototype.toString.call(d.set).includes('[native code]'), d.set.name, heard].join(); })()`})
	if !r.Success || !strings.Contains(r.Content, "true,addEventListener,2,true,set onkeydown,2") {
		t.Errorf("addEventListener or a key handler's setter does not read as native, or does not work: %s %s", r.Error, r.Content)
	}
	// So do the input handler's setter and ResizeObserver's observe
	// (Hearing), and both still work.
	r = do(tool.Input{Action: "evaluate", Expression: `(async () => { const d = Object.getOwnPropertyDescriptor(HTMLElement.prototype, 'oninput');
	  const i = document.createElement('input'); let heard = 0; i.oninput = () => heard++; i.dispatchEvent(new Event('input'));
	  const b = document.createElement('b'); document.body.append(b);
	  const seen = await new Promise(r => { new ResizeObserver(() => r(true)).observe(b); setTimeout(() => r(false), 1000); });
	  b.remove();
	  return [Function.prototype.toString.call(d.set).includes('[native code]'), d.set.name, heard,
	    Function.prototype.toString.call(ResizeObserver.prototype.observe).includes('[native code]'), ResizeObserver.prototype.observe.name, ResizeObserver.prototype.observe.length, seen].join(); })()`})
	if !r.Success || !strings.Contains(r.Content, "true,set oninput,1,true,observe,1,true") {
		t.Errorf("the input handler's setter or ResizeObserver's observe does not read as native, or does not work: %s %s", r.Error, r.Content)
	}
	r = do(tool.Input{Action: "evaluate", Expression: `(async () => { Map.prototype.set = null; Map.prototype.delete = null; Reflect.apply = null;
	  Function.prototype.apply = null; performance.now = () => { throw new Error('x'); };
	  return await new Promise(res => { setTimeout(() => res('ran'), 20); const id = setTimeout(() => res('cleared one ran'), 5); clearTimeout(id); }); })()`})
	if !r.Success || !strings.Contains(r.Content, "ran") || strings.Contains(r.Content, "cleared") {
		t.Errorf("a page that rewrites built-ins lost its timers: %s %s", r.Error, r.Content)
	}
}
