//go:build linux

package e2e

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/browserd/browserd/internal/tool"
)

// TestDrillAlertLoop (issue 36 point 7): a page stuck in `for(;;)
// alert(1)` does not trap its tab. navigate, reload, back, forward and
// tab_close leave it — the dialog dismissed, the answer's notes saying
// so — where every other action answers that the dialog blocks the page.
func TestDrillAlertLoop(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><title>Loop %s</title><button onclick="for(;;) alert(1)">Loop</button><button onclick="alert(1)">Once</button>`, r.URL.Query().Get("n"))
	}))
	defer srv.Close()
	_, do := newEngine(t, testConfig(t))
	in := func(in tool.Input) tool.Input { in.Task = "loop"; return in }
	loop := func() {
		t.Helper()
		r := do(in(tool.Input{Action: "click", Role: "button", Name: "Loop"}))
		if r.Dialog == nil {
			t.Fatalf("click Loop: no dialog in the answer: ok=%v err=%q", r.Success, r.Error)
		}
		if r := do(in(tool.Input{Action: "snapshot"})); r.Success || !strings.Contains(r.Error, "dialog action first") {
			t.Fatalf("snapshot under the alert loop: ok=%v err=%q", r.Success, r.Error)
		}
	}
	leave := func(in tool.Input, title string) {
		t.Helper()
		r := do(in)
		if !r.Success || r.Dialog != nil || !strings.Contains(strings.Join(r.Notes, " "), "dismissed") {
			t.Fatalf("%s out of an alert loop: ok=%v err=%q dialog=%v notes=%q", in.Action, r.Success, r.Error, r.Dialog, r.Notes)
		}
		if title != "" && !strings.Contains(r.Title, title) {
			t.Errorf("%s out of an alert loop: on %q, want %q", in.Action, r.Title, title)
		}
	}
	// One alert: dismissed, the page left as it is.
	do(in(tool.Input{Action: "navigate", URL: srv.URL + "/?n=0"}))
	if r := do(in(tool.Input{Action: "click", Role: "button", Name: "Once"})); r.Dialog == nil {
		t.Fatalf("click Once: no dialog in the answer")
	}
	leave(in(tool.Input{Action: "navigate", URL: srv.URL + "/?n=1"}), "Loop 1")
	do(in(tool.Input{Action: "navigate", URL: srv.URL + "/?n=1"}))
	do(in(tool.Input{Action: "navigate", URL: srv.URL + "/?n=2"}))
	loop()
	leave(in(tool.Input{Action: "back"}), "Loop 1")
	loop()
	leave(in(tool.Input{Action: "forward"}), "Loop 2")
	loop()
	leave(in(tool.Input{Action: "reload"}), "Loop 2")
	loop()
	leave(in(tool.Input{Action: "navigate", URL: srv.URL + "/?n=3"}), "Loop 3")
	r := do(in(tool.Input{Action: "tab_new", URL: srv.URL + "/?n=4"}))
	if !r.Success {
		t.Fatalf("tab_new: %s", r.Error)
	}
	loop()
	leave(in(tool.Input{Action: "tab_close"}), "")
	if r := do(in(tool.Input{Action: "snapshot"})); !r.Success || !strings.Contains(r.Title, "Loop 3") {
		t.Errorf("after tab_close, the task's other tab: ok=%v err=%q title=%q", r.Success, r.Error, r.Title)
	}
}
