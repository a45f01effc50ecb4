package engine

import (
	"testing"

	"github.com/browserd/browserd/internal/tool"
)

// answeredEarlier are the actions run answers before it reaches a tab.
var answeredEarlier = map[string]bool{
	"status": true, "list_sessions": true, "session_resume": true, // sessionless
	"close": true, "task_end": true, "tabs": true, // taskOnly
	"launch": true, "state_save": true, "state_load": true, // with the browser
}

// TestEveryActionDeclared: every action of the tool is declared once —
// answered before a tab is picked, or in tabActions — and nothing else is
// declared.
func TestEveryActionDeclared(t *testing.T) {
	for _, a := range tool.Actions {
		_, onTab := tabActions[a]
		if onTab == answeredEarlier[a] {
			t.Errorf("action %q: declared in tabActions %v, answered earlier %v; want exactly one", a, onTab, answeredEarlier[a])
		}
	}
	known := map[string]bool{}
	for _, a := range tool.Actions {
		known[a] = true
	}
	for a := range tabActions {
		if !known[a] {
			t.Errorf("tabActions declares %q, which the tool does not have", a)
		}
	}
}
