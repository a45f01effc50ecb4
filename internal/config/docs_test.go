package config

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

// TestReferenceNamesEveryFlag: every daemon setting (a kong flag of
// Config) is in docs/reference.md, the reference the README points to
// (issue 38): a new flag fails this test until it is documented there.
func TestReferenceNamesEveryFlag(t *testing.T) {
	b, err := os.ReadFile("../../docs/reference.md")
	if err != nil {
		t.Fatal(err)
	}
	ref := string(b)
	var walk func(ty reflect.Type)
	walk = func(ty reflect.Type) {
		for f := range ty.Fields() {
			if f.Tag.Get("embed") != "" || (f.Anonymous && f.Type.Kind() == reflect.Struct) {
				walk(f.Type)
				continue
			}
			name := f.Tag.Get("name")
			if name == "" || f.Tag.Get("hidden") != "" || !f.IsExported() {
				continue
			}
			if !strings.Contains(ref, "`--"+name) && !strings.Contains(ref, ", `--"+name) && !strings.Contains(ref, "--"+name+"`") && !strings.Contains(ref, "--"+name+" ") {
				t.Errorf("flag --%s (config.Config.%s) is not in docs/reference.md: add it to the Settings table there", name, f.Name)
			}
		}
	}
	walk(reflect.TypeFor[Config]())
}
