package takeover

import (
	"testing"

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
