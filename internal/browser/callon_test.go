package browser

import (
	"errors"
	"testing"
)

// TestCallOnKeepsTheObject: the calls of an action on one element resolve
// it once; after a Release, a release behind CallOn's back, or a new
// document, the next call still reaches the element it names.
func TestCallOnKeepsTheObject(t *testing.T) {
	ctx, _, pg := startTestPage(t)
	if err := pg.Navigate(ctx, `data:text/html,<input id="a" value="one"><input id="b" value="two">`); err != nil {
		t.Fatal(err)
	}
	el, err := pg.Query(ctx, "#a")
	if err != nil {
		t.Fatal(err)
	}
	value := func(e Elem) string {
		t.Helper()
		var v string
		if err := pg.CallOn(ctx, e, `function() { return this.value; }`, &v); err != nil {
			t.Fatalf("CallOn: %v", err)
		}
		return v
	}
	kept := func() int {
		pg.mu.Lock()
		defer pg.mu.Unlock()
		return len(pg.objs)
	}
	if value(el) != "one" || value(el) != "one" || kept() != 1 {
		t.Fatalf("the element is not kept once: %d objects", kept())
	}
	pg.Release(ctx)
	if kept() != 0 || value(el) != "one" {
		t.Fatal("Release does not drop the kept objects, or the element is not resolved again")
	}
	// Released behind CallOn's back: resolved again.
	if err := pg.sess.Call(ctx, "Runtime.releaseObjectGroup", map[string]any{"objectGroup": "browserd"}, nil); err != nil {
		t.Fatal(err)
	}
	if value(el) != "one" {
		t.Fatal("a released object is not resolved again")
	}
	other, err := pg.Query(ctx, "#b")
	if err != nil || value(other) != "two" || kept() != 2 {
		t.Fatalf("another element: %v, %d objects", err, kept())
	}
	// A new document (a new world, whose objects none of the kept ones
	// are): its element is reached. (Whether the old element still
	// answers is Chromium's: a detached node lives until collected.)
	if err := pg.Navigate(ctx, `data:text/html,<input id="a" value="three">`); err != nil {
		t.Fatal(err)
	}
	if el, err = pg.Query(ctx, "#a"); err != nil || value(el) != "three" {
		t.Fatalf("the new document's element: %v", err)
	}
}

// TestFocusThen checks that the function sent with the focus sees the
// element focused, on a kept object and on one resolved for it, and that a
// field the page took out of its document is stale.
func TestFocusThen(t *testing.T) {
	ctx, _, pg := startTestPage(t)
	if err := pg.Navigate(ctx, `data:text/html,<input id="a" value="one"><input id="b" value="two"><div id="c">not focusable</div>`); err != nil {
		t.Fatal(err)
	}
	const seen = `function() { return document.activeElement === this ? this.id + ' focused' : this.id + ' not focused'; }`
	for _, id := range []string{"a", "b"} {
		el, err := pg.Query(ctx, "#"+id)
		if err != nil {
			t.Fatal(err)
		}
		if id == "b" {
			// Kept by an earlier call: the focus and the call go together.
			if err := pg.CallOn(ctx, el, `function() {}`, nil); err != nil {
				t.Fatal(err)
			}
		}
		var got string
		if err := pg.FocusThen(ctx, el, seen, &got); err != nil || got != id+" focused" {
			t.Fatalf("FocusThen on #%s: %q, %v", id, got, err)
		}
	}
	c, err := pg.Query(ctx, "#c")
	if err != nil {
		t.Fatal(err)
	}
	if err := pg.FocusThen(ctx, c, seen, nil); err == nil || errors.Is(err, ErrStale) {
		t.Fatalf("focusing a <div>: %v, want the focus's error", err)
	}
	a, err := pg.Query(ctx, "#a")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pg.Eval(ctx, `document.getElementById('a').remove()`); err != nil {
		t.Fatal(err)
	}
	if err := pg.FocusThen(ctx, a, seen, nil); !errors.Is(err, ErrStale) {
		t.Fatalf("a removed field: %v, want ErrStale", err)
	}
}
