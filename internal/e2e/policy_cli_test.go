//go:build linux

package e2e

import (
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/browserd/browserd/internal/tool"
	"github.com/browserd/browserd/internal/tool/tooltest"
)

// TestPolicyEveryCLICommand (issue 47 point 2): every action's CLI
// command — one example of each action, as the CLI's own flags write it,
// else `browserd call` with its JSON — is refused under a policy that
// allows only status, the socket's default policy here; status answers.
// (The CLI's other commands are the HTTP API's routes, which
// TestPolicyEveryDoor walks.)
func TestPolicyEveryCLICommand(t *testing.T) {
	t.Parallel() // its own daemon: waits more than it works
	data := t.TempDir()
	startDaemon(t, data, "--default-policy", `{"allow":["status"]}`)
	x, y := 10, 20
	// The actions tooltest has no example of, each as small as it goes.
	more := []tool.Input{{Action: "tabs"}, {Action: "tab_new"}, {Action: "tab_close", Tab: "t1"}, {Action: "tab_switch", Tab: "t1"},
		{Action: "pdf"}, {Action: "console"}, {Action: "status"}, {Action: "back"}, {Action: "forward"}, {Action: "reload"},
		{Action: "hover", Ref: "e1"}, {Action: "state_save"}, {Action: "state_load", State: json.RawMessage(`{"cookies":[],"origins":[]}`)},
		{Action: "task_end"}, {Action: "mouse_move", X: &x, Y: &y}, {Action: "mouse_up", X: &x, Y: &y},
		{Action: "close"}, {Action: "extract", Ref: "e1"}}
	run := func(args []string) string {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		out, _ := exec.CommandContext(ctx, browserdBin(t), append(append([]string{"--json"}, daemonFlags(data)...), args...)...).CombinedOutput()
		return string(out)
	}
	seen := map[string]bool{}
	for _, ex := range append(tooltest.Examples(), more...) {
		if seen[ex.Action] {
			continue
		}
		seen[ex.Action] = true
		b, _ := json.Marshal(ex)
		args, err := cliArgs(ex)
		if err != nil {
			args = []string{"call", string(b)}
		}
		out := run(args)
		if strings.Contains(out, "unexpected argument") {
			// An action the CLI has no command of its own for.
			args = []string{"call", string(b)}
			out = run(args)
		}
		var r tool.Result
		_ = json.Unmarshal([]byte(out), &r)
		text := out
		if ex.Action == "status" {
			if !r.Success {
				t.Errorf("status under a policy that allows it: %s", text)
			}
			continue
		}
		if r.Success || !strings.Contains(text, "refused by policy") {
			t.Errorf("browserd %s answered under a policy that allows only status: %.300s", strings.Join(args, " "), text)
		}
	}
	for _, a := range tool.Actions {
		if !seen[a] {
			t.Errorf("action %s has no row: add one to this test's list", a)
		}
	}
}
