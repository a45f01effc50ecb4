package browser

import (
	"context"
	"strings"
	"testing"

	"github.com/browserd/browserd/internal/snapshot"
)

// TestUnchanged: after a read, Unchanged says the page is as read until
// anything the journal records happens — a DOM change, a value a script
// set without an event — and, while it says so, the journal runs on: the
// next Patch from that read still sees a later change.
func TestUnchanged(t *testing.T) {
	ctx, _, pg := startTestPage(t)
	if err := pg.Navigate(ctx, `data:text/html,<p id="p">before</p><label>Name <input id="i"></label>`); err != nil {
		t.Fatal(err)
	}
	seq := pg.StartJournal(ctx)
	frames, err := pg.AXFrames(ctx)
	if err != nil || seq == 0 {
		t.Fatalf("read: %v (journal %d)", err, seq)
	}
	if !pg.Unchanged(ctx, seq, 1) || !pg.Unchanged(ctx, seq, 1) {
		t.Fatal("a page nothing touched since its read is not unchanged")
	}
	if pg.Unchanged(ctx, seq+1, 1) || pg.Unchanged(ctx, 0, 1) {
		t.Fatal("a journal that does not run says the page is unchanged")
	}
	if err := pg.Run(ctx, `document.getElementById('p').textContent = 'after'`, nil); err != nil {
		t.Fatal(err)
	}
	if pg.Unchanged(ctx, seq, 1) {
		t.Fatal("a changed text is unchanged")
	}
	patched, next, err := pg.Patch(ctx, frames, seq)
	if err != nil {
		t.Fatalf("patch after Unchanged: %v", err)
	}
	if !hasName(patched, "after") {
		t.Fatalf("the patch misses the change Unchanged saw: %+v", patched[0].Nodes)
	}
	if !pg.Unchanged(ctx, next, 1) {
		t.Fatal("the page is not unchanged right after a patch")
	}
	if err := pg.Run(ctx, `document.getElementById('i').value = 'typed by a script'`, nil); err != nil {
		t.Fatal(err)
	}
	if pg.Unchanged(ctx, next, 1) {
		t.Fatal("a value a script set is unchanged")
	}
}

func hasName(frames []snapshot.Frame, name string) bool {
	for _, f := range frames {
		for _, n := range f.Nodes {
			if strings.Contains(n.Name, name) || strings.Contains(n.Value, name) {
				return true
			}
		}
	}
	return false
}

// TestSendStartJournal: the journal sent ahead of a read starts before the
// calls sent after it — a change one of them makes is recorded — and a
// read made meanwhile patches as one made after StartJournal.
func TestSendStartJournal(t *testing.T) {
	ctx, _, pg := startTestPage(t)
	if err := pg.Navigate(ctx, `data:text/html,<p id="p">before</p>`); err != nil {
		t.Fatal(err)
	}
	started := pg.SendStartJournal(ctx)
	frames, err := pg.AXFrames(ctx)
	seq := started()
	if err != nil || seq == 0 {
		t.Fatalf("read: %v (journal %d)", err, seq)
	}
	if !pg.Unchanged(ctx, seq, 1) {
		t.Fatal("a page nothing touched since its read is not unchanged")
	}
	if err := pg.Run(ctx, `document.getElementById('p').textContent = 'after'`, nil); err != nil {
		t.Fatal(err)
	}
	patched, _, err := pg.Patch(ctx, frames, seq)
	if err != nil || !hasName(patched, "after") {
		t.Fatalf("the patch of a read made beside the journal's start: %v, %+v", err, patched)
	}

	// A change sent right after the journal, before its answer: recorded.
	started = pg.SendStartJournal(ctx)
	change := pg.sess.Send(ctx, "Runtime.evaluate", map[string]any{"expression": `document.getElementById('p').textContent = 'later'`})
	seq = started()
	if err := change(nil); err != nil || seq == 0 {
		t.Fatalf("change: %v (journal %d)", err, seq)
	}
	if pg.Unchanged(ctx, seq, 1) {
		t.Fatal("a change sent after the journal's start is not in the journal")
	}
}

// TestUnchangedFrames: the journal watches the documents of a page's
// same-origin frames — a change in one, or one loading another document,
// is a change — and a frame it cannot reach (another origin) leaves it
// unable to say the page is unchanged.
func TestUnchangedFrames(t *testing.T) {
	ctx, _, pg := startTestPage(t)
	if err := pg.Navigate(ctx, `data:text/html,<p>top</p><iframe srcdoc="<p id=q>inner</p>"></iframe>`); err != nil {
		t.Fatal(err)
	}
	read := func() (int64, int) {
		t.Helper()
		seq := pg.StartJournal(ctx)
		frames, err := pg.AXFrames(ctx)
		if err != nil || seq == 0 {
			t.Fatalf("read: %v (journal %d)", err, seq)
		}
		return seq, len(frames)
	}
	seq, n := read()
	if n != 2 {
		t.Fatalf("read %d frames, want 2", n)
	}
	if !pg.Unchanged(ctx, seq, n) {
		t.Fatal("a page with a frame, nothing touched since its read, is not unchanged")
	}
	if pg.Unchanged(ctx, seq, 1) || pg.Unchanged(ctx, seq, 3) {
		t.Fatal("a journal that watches another number of frames than the read had says the page is unchanged")
	}
	if err := pg.Run(ctx, `document.querySelector('iframe').contentDocument.getElementById('q').textContent = 'changed'`, nil); err != nil {
		t.Fatal(err)
	}
	if pg.Unchanged(ctx, seq, n) {
		t.Fatal("a text changed in a frame is unchanged")
	}
	seq, n = read()
	if err := pg.Run(ctx, `new Promise(r => { const f = document.querySelector('iframe'); f.onload = r; f.srcdoc = '<p>another document</p>'; })`, nil); err != nil {
		t.Fatal(err)
	}
	if pg.Unchanged(ctx, seq, n) {
		t.Fatal("a frame that loaded another document is unchanged")
	}

	// A frame of another origin: the journal cannot watch it.
	if err := pg.Navigate(ctx, `data:text/html,<p>top</p><iframe src="data:text/html,<p>elsewhere</p>"></iframe>`); err != nil {
		t.Fatal(err)
	}
	seq, n = read()
	if pg.Unchanged(ctx, seq, n) {
		t.Fatal("a page with a frame the journal cannot reach is unchanged")
	}
}

// TestCleanAtSettle: a read patched while a click settles is the page as
// it settled when the settle's last look found its journal clean — and
// not when the page changed after the patch (a timer the click started,
// which the settle waits for), nor for another journal, nor after the
// next action's mark.
func TestCleanAtSettle(t *testing.T) {
	ctx, _, pg := startTestPage(t)
	if err := pg.Navigate(ctx, `data:text/html,<p id="p">before</p>
		<button id="now" onclick="p.textContent='clicked'">now</button>
		<button id="later" onclick="p.textContent='clicked'; setTimeout(() => p.textContent='timer fired', 300)">later</button>`); err != nil {
		t.Fatal(err)
	}
	seq := pg.StartJournal(ctx)
	frames, err := pg.AXFrames(ctx)
	if err != nil || seq == 0 {
		t.Fatalf("read: %v (journal %d)", err, seq)
	}
	click := func(id string) int64 {
		t.Helper()
		el, err := pg.Query(ctx, "#"+id)
		if err != nil {
			t.Fatal(err)
		}
		m, aim, err := pg.MarkAim(ctx, el, "click")
		if err != nil {
			t.Fatal(err)
		}
		if err := pg.Click(ctx, aim.X, aim.Y, ClickOptions{}); err != nil {
			t.Fatal(err)
		}
		var next int64
		sctx := WithMeanwhile(ctx, func(ctx context.Context) {
			var err error
			frames, next, err = pg.Patch(ctx, frames, seq)
			if err != nil {
				t.Errorf("patch while settling: %v", err)
			}
		})
		if err := pg.Settle(sctx, m); err != nil {
			t.Fatal(err)
		}
		seq = next
		return next
	}
	if j := click("now"); !pg.CleanAtSettle(j, 1) {
		t.Error("a click whose change was patched while it settled: not clean at the settle")
	} else if pg.CleanAtSettle(j+1, 1) || pg.CleanAtSettle(j, 2) {
		t.Error("clean at the settle for another journal, or another count of frames")
	}
	if !hasName(frames, "clicked") {
		t.Fatalf("the patch misses the click's change: %+v", frames[0].Nodes)
	}
	if j := click("later"); hasName(frames, "timer fired") {
		t.Error("the patch while the click settled read what its timer did 300 ms later")
	} else if pg.CleanAtSettle(j, 1) {
		t.Error("clean at the settle though the page changed after the patch read it")
	}
	pg.Mark(ctx)
	if pg.CleanAtSettle(seq, 1) {
		t.Error("an action's mark kept the last settle's word")
	}
}
