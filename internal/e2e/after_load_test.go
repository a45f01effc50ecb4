//go:build linux

package e2e

import (
	"strings"
	"testing"

	"github.com/browserd/browserd/internal/tool"
)

// TestAnswerAfterLoad: the answer to an action that loads a document
// shows what the page did after its load event — at once and on a short
// timer — whether a navigate, a click or a reload loaded it; and the
// snapshot after is the answer, nothing changed. (The suite's
// patched-equals-fresh check compares each with a whole read.) A read
// started at the load event, beside the wait for the load's timers, was
// tried and dropped: what makes an element clickable (a listener, a
// stylesheet) changes without a DOM mutation, which the journal then
// misses (CodeMirror's fold markers in the third-party corpus).
func TestAnswerAfterLoad(t *testing.T) {
	_, do := newEngine(t, testConfig(t))
	check := func(what string, r tool.Result) {
		t.Helper()
		if !r.Success {
			t.Fatalf("%s: %s", what, r.Error)
		}
		for _, want := range []string{`heading "Loaded"`, `button "Late button"`} {
			if !strings.Contains(r.Content, want) {
				t.Errorf("%s: the answer lacks %s:\n%s", what, want, r.Content)
			}
		}
		if strings.Contains(r.Content, `"Loading"`) {
			t.Errorf("%s: the answer shows the heading before the load:\n%s", what, r.Content)
		}
		if s := do(tool.Input{Action: "snapshot"}); !s.Success || !strings.Contains(s.Content, "no changes") && !strings.Contains(s.Content, `button "Late button"`) {
			t.Errorf("%s: the snapshot after: %s %s", what, s.Error, s.Content)
		}
	}
	check("navigate", do(tool.Input{Action: "navigate", URL: site.URL("/after-load")}))
	r := do(tool.Input{Action: "snapshot", Full: true})
	check("click", do(tool.Input{Action: "click", Ref: ref(t, r.Content, "link", "Load it again")}))
	check("reload", do(tool.Input{Action: "reload"}))
}
