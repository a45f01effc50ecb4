package browser

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestSettleCountsFromTheInput: the quiet counts its two frames from the
// frame the input landed in, not from the mark — taken here long before
// the input — so what a click or a key sets off two animation frames
// later (a transition started with nested requestAnimationFrames) is in
// the page when Settle returns, also when browserd was busy between the
// input and the wait; and what a page draws when it scrolls, frames after
// the wheel turned (a virtual list), is there too.
func TestSettleCountsFromTheInput(t *testing.T) {
	ctx, _, pg := startTestPage(t)
	const page = `data:text/html,<button id="b" style="position:fixed;left:10px;top:10px;width:100px;height:40px">go</button>` +
		`<input id="i" style="position:fixed;left:10px;top:80px"><p id="out">none</p><script>` +
		`const later = f => requestAnimationFrame(() => requestAnimationFrame(f));` +
		`const out = s => { document.getElementById('out').textContent = s; };` +
		`document.getElementById('b').addEventListener('click', () => later(() => out('clicked')));` +
		`document.getElementById('i').addEventListener('keyup', e => later(() => out('typed ' + e.target.value)));` +
		`addEventListener('scroll', () => later(() => out('scrolled to ' + Math.round(scrollY))));` +
		`</script><div style="height:5000px"></div>`
	if err := pg.Navigate(ctx, page); err != nil {
		t.Fatal(err)
	}
	shown := func() string {
		t.Helper()
		s, err := pg.Eval(ctx, `document.getElementById('out').textContent`)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	for i := range 3 {
		m := pg.Mark(ctx)
		time.Sleep(100 * time.Millisecond) // frames pass between the mark and the input
		if err := pg.Click(ctx, 60, 30, ClickOptions{}); err != nil {
			t.Fatal(err)
		}
		if i == 2 {
			time.Sleep(40 * time.Millisecond) // and between the input and the wait
		}
		if err := pg.Settle(ctx, m); err != nil {
			t.Fatal(err)
		}
		if got := shown(); got != `"clicked"` && got != "clicked" {
			t.Fatalf("click %d: the change two frames after the click is not in the page when Settle returns: %s", i, got)
		}
		if _, err := pg.Eval(ctx, `document.getElementById('out').textContent = 'none'`); err != nil {
			t.Fatal(err)
		}
	}
	el, err := pg.Query(ctx, "#i")
	if err != nil {
		t.Fatal(err)
	}
	if err := pg.Focus(ctx, el); err != nil {
		t.Fatal(err)
	}
	m := pg.Mark(ctx)
	time.Sleep(100 * time.Millisecond)
	if err := pg.TypeKeys(ctx, "abc"); err != nil {
		t.Fatal(err)
	}
	if err := pg.Settle(ctx, m); err != nil {
		t.Fatal(err)
	}
	if got := shown(); got != `"typed abc"` && got != "typed abc" {
		t.Fatalf("the change two frames after the last key is not in the page when Settle returns: %s", got)
	}
	m = pg.Mark(ctx)
	time.Sleep(100 * time.Millisecond)
	if err := pg.Wheel(ctx, 400, 300, 0, 400); err != nil {
		t.Fatal(err)
	}
	if err := pg.Settle(ctx, m); err != nil {
		t.Fatal(err)
	}
	var y float64
	if s, err := pg.Eval(ctx, `Math.round(scrollY)`); err != nil || s == "0" {
		t.Fatalf("the wheel did not scroll the page: %s, %v", s, err)
	} else if _, err := fmt.Sscan(s, &y); err != nil {
		t.Fatal(err)
	}
	if got := shown(); !strings.Contains(got, fmt.Sprintf("scrolled to %d", int(y))) {
		t.Fatalf("what the page drew two frames after its last scroll (to %d) is not in it when Settle returns: %s", int(y), got)
	}
}
