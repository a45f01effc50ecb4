package engine

import (
	"testing"
	"time"

	"github.com/browserd/browserd/internal/config"
	"github.com/browserd/browserd/internal/sessions"
	"github.com/browserd/browserd/internal/tool"
)

// TestTimeoutOf pins each action's default timeout, source 001's 30 s for
// wait among them, and that the agent's timeout wins.
func TestTimeoutOf(t *testing.T) {
	e := assemble(&sessions.Registry{Cfg: config.Default()})
	for _, tt := range []struct {
		in   tool.Input
		want time.Duration
	}{
		{tool.Input{Action: "wait", Text: "x"}, 30 * time.Second},
		{tool.Input{Action: "wait", Text: "x", Timeout: 2500}, 2500 * time.Millisecond},
		{tool.Input{Action: "wait", Time: 45_000}, 46 * time.Second}, // never shorter than the sleep
		{tool.Input{Action: "wait", Time: 100, Timeout: 50}, 1100 * time.Millisecond},
		{tool.Input{Action: "navigate", URL: "https://a.example/"}, 30 * time.Second},
		{tool.Input{Action: "reload", Timeout: 2000}, 2 * time.Second},
		{tool.Input{Action: "click", Ref: "e1"}, 10 * time.Second},
		{tool.Input{Action: "click", Ref: "e1", Timeout: 250}, 250 * time.Millisecond},
		{tool.Input{Action: "screenshot", FullPage: new(true)}, 30 * time.Second},
		{tool.Input{Action: "pdf", Timeout: 5000}, 5 * time.Second},
		{tool.Input{Action: "handoff"}, HandoffTime},
		{tool.Input{Action: "handoff", Timeout: 60_000}, time.Minute},
	} {
		if got := e.timeoutOf(tt.in); got != tt.want {
			t.Errorf("timeoutOf(%+v) = %v, want %v", tt.in, got, tt.want)
		}
	}
	if WaitTime != 30*time.Second {
		t.Errorf("wait's default is %v; source 001 says 30 s", WaitTime)
	}
}
