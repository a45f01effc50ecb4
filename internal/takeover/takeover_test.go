package takeover

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/browserd/browserd/internal/sessions"
)

// TestFrontTab: a person sees the default task's front tab first, else
// the first task's by name that has one.
func TestFrontTab(t *testing.T) {
	s := &sessions.Session{Tasks: map[string]*sessions.Task{}}
	if frontTab(s) != nil {
		t.Fatal("a session without tabs has a front tab")
	}
	b1, a1 := &sessions.Tab{ID: "t2"}, &sessions.Tab{ID: "t1"}
	s.Tasks["b"] = &sessions.Task{Name: "b", Active: b1}
	s.Tasks["a"] = &sessions.Task{Name: "a", Active: a1}
	s.Tasks["c"] = &sessions.Task{Name: "c"}
	if got := frontTab(s); got != a1 {
		t.Fatalf("front tab %v, want task a's", got)
	}
	d := &sessions.Tab{ID: "t3"}
	s.Tasks["default"] = &sessions.Task{Name: "default", Active: d}
	if got := frontTab(s); got != d {
		t.Fatalf("front tab %v, want the default task's", got)
	}
}

// TestPersonGate: a held tab lets reads through and fails the rest at
// once, but for a wait with human, which waits for the hand-back.
func TestPersonGate(t *testing.T) {
	d := &Desk{Registry: &sessions.Registry{}}
	tb := &sessions.Tab{ID: "t1"}
	ctx := context.Background()
	if err := d.PersonGate(ctx, tb, "click", false); err != nil {
		t.Fatalf("nobody holds it: %v", err)
	}
	tb.Held = &sessions.Hold{Who: "ann", Since: time.Now()}
	if err := d.PersonGate(ctx, tb, "snapshot", false); err != nil {
		t.Fatalf("a read: %v", err)
	}
	if err := d.PersonGate(ctx, tb, "click", false); err == nil || !strings.Contains(err.Error(), "a person (ann) controls tab t1") {
		t.Fatalf("a click: %v", err)
	}
	short, cancel := context.WithTimeout(ctx, 150*time.Millisecond)
	defer cancel()
	if err := d.PersonGate(short, tb, "wait", true); err == nil || !strings.Contains(err.Error(), "still controls") {
		t.Fatalf("a wait nobody ends: %v", err)
	}
	go func() {
		time.Sleep(50 * time.Millisecond)
		d.Mu.Lock()
		tb.Held, tb.HandedBack = nil, &sessions.Handback{}
		d.Mu.Unlock()
	}()
	if err := d.PersonGate(ctx, tb, "wait", true); err != nil {
		t.Fatalf("a wait for the hand-back: %v", err)
	}
	if d.TakeHandBack(tb) == nil || d.TakeHandBack(tb) != nil {
		t.Fatal("the hand-back is not told exactly once")
	}
}
