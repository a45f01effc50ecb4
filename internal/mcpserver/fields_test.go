package mcpserver_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/browserd/browserd/internal/tool/tooltest"
)

// TestEveryFieldOverMCP is issue 26 point 7 over MCP: every example of
// tooltest (between them, every field of tool.Input) passes the inputSchema
// a client lists and reaches the handler as it was sent.
func TestEveryFieldOverMCP(t *testing.T) {
	f := &fakeHandler{}
	cs := connect(t, f)
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil || len(tools.Tools) == 0 {
		t.Fatalf("tools/list: %v %+v", err, tools)
	}
	raw, _ := json.Marshal(tools.Tools[0].InputSchema)
	var schema jsonschema.Schema
	if err := json.Unmarshal(raw, &schema); err != nil {
		t.Fatal(err)
	}
	rs, err := schema.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, ex := range tooltest.Examples() {
		sent, _ := json.Marshal(ex)
		var args map[string]any
		if err := json.Unmarshal(sent, &args); err != nil {
			t.Fatal(err)
		}
		if err := rs.Validate(args); err != nil {
			t.Errorf("%s: the published schema refuses %s: %v", ex.Action, sent, err)
			continue
		}
		res := call(t, cs, args)
		if res.IsError {
			t.Errorf("%s: %s", ex.Action, text(t, res))
			continue
		}
		f.mu.Lock()
		got := f.inputs[len(f.inputs)-1]
		f.mu.Unlock()
		if !tooltest.Same(got, ex) {
			g, _ := json.Marshal(got)
			t.Errorf("%s: the handler got\n%s\nnot\n%s", ex.Action, g, sent)
		}
	}
}
