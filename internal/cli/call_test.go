package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/browserd/browserd/internal/tool/tooltest"
)

// TestEveryFieldThroughCLI is issue 26 point 7 through the CLI: every
// example of tooltest (between them, every field of tool.Input) given to
// `browserd call` reaches the daemon as it was written.
func TestEveryFieldThroughCLI(t *testing.T) {
	for _, ex := range tooltest.Examples() {
		sent, _ := json.Marshal(ex)
		d := &fakeDaemon{}
		if code, _, stderr := runWith(t, d, "call", string(sent)); code != 0 {
			t.Errorf("%s: exit %d: %s", ex.Action, code, stderr)
			continue
		}
		if len(d.inputs) != 1 || !tooltest.Same(d.inputs[0], ex) {
			t.Errorf("%s: the daemon got %+v, not\n%s", ex.Action, d.inputs, sent)
		}
	}
}

// TestCallRefusesBadJSON: a call that is not the tool's JSON is refused
// before it is sent, saying what to give instead.
func TestCallRefusesBadJSON(t *testing.T) {
	for _, bad := range []string{`{"action":"click","reff":"e3"}`, `not json`, `{"action":"click","ref":"e3"} {}`, `{"action":"fly"}`} {
		d := &fakeDaemon{}
		code, _, stderr := runWith(t, d, "call", bad)
		if code != 2 || len(d.inputs) != 0 || !strings.Contains(stderr, "call") && !strings.Contains(stderr, "action") {
			t.Errorf("call %s: exit %d, sent %d, stderr %q", bad, code, len(d.inputs), stderr)
		}
	}
}
