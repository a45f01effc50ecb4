package tooltest

import (
	"reflect"
	"testing"

	"github.com/browserd/browserd/internal/tool"
)

// TestExamplesCoverEveryField: every field of tool.Input is set by some
// example, and every example passes the tool's own validation.
func TestExamplesCoverEveryField(t *testing.T) {
	set := map[string]bool{}
	for _, in := range Examples() {
		if err := in.Validate(); err != nil {
			t.Errorf("example %s is refused: %v", in.Action, err)
		}
		v := reflect.ValueOf(in)
		for i := range v.NumField() {
			if !v.Field(i).IsZero() {
				set[v.Type().Field(i).Name] = true
			}
		}
	}
	ty := reflect.TypeOf(tool.Input{})
	for i := range ty.NumField() {
		if ty.Field(i).Tag.Get("json") == "-" {
			continue // set inside the daemon (a replay's NoCache), never by a front end
		}
		if name := ty.Field(i).Name; !set[name] {
			t.Errorf("no example sets tool.Input.%s: add one to Examples, so that every front end is tested with it", name)
		}
	}
}
