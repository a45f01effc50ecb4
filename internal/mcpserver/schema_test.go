package mcpserver

import (
	"encoding/json"
	"testing"
)

// TestInputSchemaTakesState: launch's and state_load's inline storageState
// is an object in the published schema (json.RawMessage published as an
// array of bytes refused it).
func TestInputSchemaTakesState(t *testing.T) {
	rs, err := inputSchema(nil).Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	var in map[string]any
	if err := json.Unmarshal([]byte(`{"action":"state_load","state":{"cookies":[{"name":"sid","value":"1","domain":"example.com","path":"/"}],"origins":[]}}`), &in); err != nil {
		t.Fatal(err)
	}
	if err := rs.Validate(in); err != nil {
		t.Errorf("an inline storageState is refused by the schema: %v", err)
	}
	in["state"] = []any{1, 2}
	if err := rs.Validate(in); err == nil {
		t.Error("the schema takes an array for state")
	}
}
