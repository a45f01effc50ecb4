package recording

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/browserd/browserd/internal/browser"
	"github.com/browserd/browserd/internal/sealkey"
)

func TestRecordAndExport(t *testing.T) {
	dir := t.TempDir()
	r := New(Options{Dir: dir}, nil)
	ok := true
	seq, err := r.Record("alice/work", "shop", Entry{Time: time.Now(), Name: "type", OK: &ok,
		Args: map[string]any{"text": "</script><script>alert(1)</script>"}},
		[]Entry{{Type: "console", Level: "error", Text: "boom"}}, []Entry{{Type: "request", Method: "GET", URL: "http://x/"}}, nil)
	if err != nil || seq != 1 {
		t.Fatalf("Record: %d %v", seq, err)
	}
	es, err := r.Entries("alice/work", "shop")
	if err != nil || len(es) != 3 || es[0].Type != "action" || es[1].Of != 1 || es[2].Type != "request" {
		t.Fatalf("Entries: %+v %v", es, err)
	}
	html, err := r.HTML("alice/work", "shop")
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(html, []byte("</script><script>alert(1)")) {
		t.Error("the page's text ends the HTML file's script")
	}
	j, err := r.JSON("alice/work", "shop")
	var x Export
	if err != nil || json.Unmarshal(j, &x) != nil || len(x.Entries) != 3 {
		t.Errorf("JSON: %s %v", j, err)
	}
	if fi, err := os.Stat(filepath.Join(dir, "alice%2Fwork", "shop", "trace.jsonl")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the trace file: %v %v", fi, err)
	}
	r.Close()
	// A new recorder (a restarted daemon) goes on counting.
	r2 := New(Options{Dir: dir}, nil)
	defer r2.Close()
	if seq, _ := r2.Record("alice/work", "shop", Entry{Name: "click"}, nil, nil, nil); seq != 2 {
		t.Errorf("after a restart the next step is %d, want 2", seq)
	}
	if got := r2.Sessions(); len(got) != 1 || got[0] != "alice/work" {
		t.Errorf("Sessions: %v", got)
	}
	r2.DropSession("alice/work")
	if es, _ := r2.Entries("alice/work", "shop"); es != nil {
		t.Errorf("after DropSession: %+v", es)
	}
	var none *Recorder
	none.Close()
	none.DropTask("a", "b")
	if seq, err := none.Record("a", "b", Entry{}, nil, nil, nil); seq != 0 || err != nil {
		t.Error("the nil Recorder recorded")
	}
}

func TestSealed(t *testing.T) {
	dir := t.TempDir()
	box, err := sealkey.Load(filepath.Join(t.TempDir(), "secret.key"))
	if err != nil {
		t.Fatal(err)
	}
	r := New(Options{Dir: dir, Box: box}, nil)
	defer r.Close()
	if _, err := r.Record("s", "t", Entry{Name: "type", Args: map[string]any{"text": "marker-typed-42"}}, nil, nil, nil); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "s", "t", "trace.jsonl"))
	if err != nil || bytes.Contains(b, []byte("marker-typed-42")) || bytes.Contains(b, []byte("type")) {
		t.Fatalf("the trace is readable at rest: %q %v", b, err)
	}
	es, err := r.Entries("s", "t")
	if err != nil || len(es) != 1 || es[0].Args["text"] != "marker-typed-42" {
		t.Fatalf("Entries of a sealed trace: %+v %v", es, err)
	}
}

// BenchmarkRecord is what recording costs an action on its own path: the
// entry and its console and request lines encoded, sealed and appended
// (the frame is taken later, off the action's path).
func BenchmarkRecord(b *testing.B) {
	box, err := sealkey.Load(filepath.Join(b.TempDir(), "secret.key"))
	if err != nil {
		b.Fatal(err)
	}
	r := New(Options{Dir: b.TempDir(), Box: box}, nil)
	defer r.Close()
	ok := true
	a := Entry{Time: time.Now(), Name: "click", Tab: "t1", Args: map[string]any{"ref": "e12"}, OK: &ok, MS: 113, AnswerBytes: 106,
		URL: "http://127.0.0.1:8080/table", Title: "Users"}
	reqs := []Entry{{Type: "request", Method: "POST", Status: "200", Kind: "fetch", URL: "http://127.0.0.1:8080/api/users/1000"}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Record("s", "t", a, nil, reqs, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// TestLastSeqFromTheEnd: the step a restarted recorder goes on from is the
// last action's, read from the trace's end whatever the block size —
// with the action's console and request lines after it, more of them
// than a block holds, and a last line cut short — sealed or not.
func TestLastSeqFromTheEnd(t *testing.T) {
	for _, sealed := range []bool{false, true} {
		opts := Options{Dir: t.TempDir()}
		if sealed {
			box, err := sealkey.Load(filepath.Join(t.TempDir(), "secret.key"))
			if err != nil {
				t.Fatal(err)
			}
			opts.Box = box
		}
		r := New(opts, nil)
		var reqs []Entry
		for i := range 40 {
			reqs = append(reqs, Entry{Type: "request", Method: "GET", URL: fmt.Sprintf("http://x/%d", i)})
		}
		for i := range 5 {
			if _, err := r.Record("s", "t", Entry{Name: "click"}, nil, reqs[:i*10], nil); err != nil {
				t.Fatal(err)
			}
		}
		dir := r.folder("s", "t")
		r.Close()
		for _, block := range []int64{1, 7, 100, 1000, 64 << 10} {
			if got := r.lastSeqBlocks(dir, block); got != 5 {
				t.Errorf("sealed %v, blocks of %d: last step %d, want 5", sealed, block, got)
			}
		}
		f, err := os.OpenFile(filepath.Join(dir, "trace.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(`{"type":"action","seq":9`) // a daemon killed mid-line
		f.Close()
		for _, block := range []int64{3, 100, 64 << 10} {
			if got := r.lastSeqBlocks(dir, block); got != 5 {
				t.Errorf("sealed %v, a last line cut short, blocks of %d: last step %d, want 5", sealed, block, got)
			}
		}
		r2 := New(opts, nil)
		if seq, _ := r2.Record("s", "t", Entry{Name: "click"}, nil, nil, nil); seq != 6 {
			t.Errorf("sealed %v: after a restart the next step is %d, want 6", sealed, seq)
		}
		r2.Close()
	}
	if got := New(Options{Dir: t.TempDir()}, nil).lastSeq("/nonexistent"); got != 0 {
		t.Errorf("no trace: %d", got)
	}
}

// A frame waits for its browser to be left alone — FrameDelay after the
// last action begun or recorded on any of its tabs — but no more than
// BusyMax past its own due time; another browser's actions do not hold it.
func TestFrameWaitsForItsBrowser(t *testing.T) {
	r := New(Options{Dir: t.TempDir()}, nil)
	defer r.Close()
	mine, other := &browser.Browser{}, &browser.Browser{}
	due := time.Now()
	j := job{br: mine, due: due}
	if got := r.quietAt(j); !got.Equal(due) {
		t.Errorf("an idle browser: taken at %v, want its due time %v", got.Sub(due), 0)
	}
	r.mu.Lock()
	r.busy[other] = due.Add(time.Second)
	r.busy[mine] = due.Add(-time.Second)
	r.mu.Unlock()
	if got := r.quietAt(j); !got.Equal(due) {
		t.Errorf("only another browser busy: taken %v after due", got.Sub(due))
	}
	r.mu.Lock()
	r.busy[mine] = due.Add(500 * time.Millisecond)
	r.mu.Unlock()
	if got, want := r.quietAt(j), due.Add(500*time.Millisecond+FrameDelay); !got.Equal(want) {
		t.Errorf("an action on another tab after it: taken %v after due, want %v", got.Sub(due), want.Sub(due))
	}
	r.mu.Lock()
	r.busy[mine] = due.Add(time.Hour)
	r.mu.Unlock()
	if got, want := r.quietAt(j), due.Add(BusyMax); !got.Equal(want) {
		t.Errorf("a browser that stays busy: taken %v after due, want BusyMax %v", got.Sub(due), BusyMax)
	}
}

// A frame is not taken while an action runs on its browser — a new tab
// that takes longer than FrameDelay to open was slowed by the frame of
// the tab opened before it — until the action ends and FrameDelay has
// passed, or BusyMax.
func TestFrameWaitsForARunningAction(t *testing.T) {
	r := New(Options{Dir: t.TempDir()}, nil)
	defer r.Close()
	pg := &browser.Page{}
	br := pg.Browser()
	due := time.Now().Add(-time.Second) // its action ended a second ago
	j := job{br: br, due: due}
	r.Begin(pg)
	r.mu.Lock()
	r.busy[br] = due.Add(-time.Second) // the running action began long ago
	r.mu.Unlock()
	if got := r.quietAt(j); !got.After(time.Now()) {
		t.Errorf("an action running on the browser: taken at %v from now, want later", time.Until(got))
	}
	ended := time.Now()
	r.End(pg)
	if got := r.quietAt(j); got.Before(ended.Add(FrameDelay)) {
		t.Errorf("the action just ended: taken %v after its end, want FrameDelay %v", got.Sub(ended), FrameDelay)
	}
	r.mu.Lock()
	running := len(r.running)
	r.mu.Unlock()
	if running != 0 {
		t.Errorf("%d browsers still counted running after End", running)
	}
	r.Begin(pg)
	old := job{br: br, due: time.Now().Add(-BusyMax - time.Second)}
	if got := r.quietAt(old); got.After(time.Now()) {
		t.Errorf("a frame due past BusyMax, an action running: taken %v from now, want at once", time.Until(got))
	}
	r.End(pg)
}
