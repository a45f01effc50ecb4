package computer

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// publishedSamples are computer actions as Claude emits them; each must
// pass the published schema, and this package must take it.
var publishedSamples = []string{
	`{"action":"screenshot"}`,
	`{"action":"left_click","coordinate":[120,80]}`,
	`{"action":"left_click","coordinate":[120,80],"text":"shift"}`,
	`{"action":"right_click","coordinate":[1,2]}`,
	`{"action":"middle_click","coordinate":[1,2]}`,
	`{"action":"double_click","coordinate":[1,2]}`,
	`{"action":"triple_click","coordinate":[1,2]}`,
	`{"action":"mouse_move","coordinate":[5,6]}`,
	`{"action":"left_mouse_down"}`,
	`{"action":"left_mouse_up"}`,
	`{"action":"left_click_drag","start_coordinate":[10,10],"coordinate":[200,150]}`,
	`{"action":"scroll","coordinate":[300,200],"scroll_direction":"down","scroll_amount":3}`,
	`{"action":"key","text":"ctrl+s"}`,
	`{"action":"hold_key","text":"shift","duration":1}`,
	`{"action":"type","text":"hello\nworld"}`,
	`{"action":"cursor_position"}`,
	`{"action":"wait","duration":0.5}`,
}

// TestPublishedSchema checks the computer tool's input against the one
// Anthropic's computer_20250124 publishes, as @ai-sdk/anthropic carries
// it (a zod schema): the same actions (and zoom, computer_20251124's),
// the same fields, and the samples valid for both. It installs the
// package with npm, as the third-party corpus does, and is skipped,
// saying so, without npm or the registry.
func TestPublishedSchema(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no npm install")
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skip("no npm: the published schema is not checked")
	}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	install := exec.CommandContext(ctx, npm, "install", "--no-audit", "--no-fund", "--silent", "@ai-sdk/anthropic@2.0.112", "@ai-sdk/provider-utils@3.0.44", "zod@4.6.7")
	install.Dir = dir
	if out, err := install.CombinedOutput(); err != nil {
		t.Skipf("npm install @ai-sdk/anthropic: %v: the published schema is not checked\n%s", err, out)
	}
	script := `import { anthropic } from '@ai-sdk/anthropic';
import { safeValidateTypes, asSchema } from '@ai-sdk/provider-utils';
const t = anthropic.tools.computer_20250124({ displayWidthPx: 1280, displayHeightPx: 800 });
const js = await asSchema(t.inputSchema).jsonSchema;
const samples = JSON.parse(process.argv[2]);
const valid = [];
for (const s of samples) valid.push((await safeValidateTypes({ value: JSON.parse(s), schema: t.inputSchema })).success);
console.log(JSON.stringify({ properties: Object.keys(js.properties), actions: js.properties.action.enum, directions: js.properties.scroll_direction.enum, valid }));`
	if err := os.WriteFile(filepath.Join(dir, "check.mjs"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	samples, _ := json.Marshal(publishedSamples)
	run := exec.CommandContext(ctx, "node", "check.mjs", string(samples))
	run.Dir = dir
	out, err := run.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	var got struct {
		Properties, Actions, Directions []string
		Valid                           []bool
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	ours := slices.DeleteFunc(slices.Clone(Actions), func(a string) bool { return a == "zoom" })
	if !sameSet(ours, got.Actions) {
		t.Errorf("actions: ours %v, published %v", ours, got.Actions)
	}
	if !sameSet(Directions, got.Directions) {
		t.Errorf("scroll directions: ours %v, published %v", Directions, got.Directions)
	}
	var fields []string
	for f := range reflect.TypeFor[Input]().Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name != "" && name != "-" && name != "session" && name != "task" && name != "region" {
			fields = append(fields, name)
		}
	}
	if !sameSet(fields, got.Properties) {
		t.Errorf("fields: ours %v, published %v", fields, got.Properties)
	}
	for i, s := range publishedSamples {
		if !got.Valid[i] {
			t.Errorf("the published schema refuses %s", s)
		}
		ins, err := Decode([]byte(s))
		if err == nil {
			err = ins[0].Validate()
		}
		if err != nil {
			t.Errorf("%s: %v", s, err)
		}
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}
