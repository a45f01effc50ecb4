package httpapi_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/browserd/browserd/internal/tool"
	"github.com/browserd/browserd/internal/tool/tooltest"
)

var update = flag.Bool("update", false, "rewrite openapi.json's ToolInput from tool.Input (TestOpenAPIToolInput)")

// toolInputDescription is the description of openapi.json's ToolInput.
const toolInputDescription = "The browser tool's input, the MCP browser tool's inputSchema: an action and the fields it reads (docs/reference.md's action table, docs/api.md). Generated from tool.Input."

// toolInputKey starts openapi.json's ToolInput schema, at its indentation.
var toolInputKey = regexp.MustCompile(`(?m)^( *)"ToolInput": \{`)

// TestOpenAPIToolInput: the tool input schema of openapi.json
// (components.schemas.ToolInput, the body of POST /api/actions and POST
// /api/sessions/{id}/actions) is the one made from the declarations,
// tool.InputSchema — what MCP's tools/list publishes: its action enum is
// tool.Actions and its properties are tool.Input's JSON fields, with their
// types and descriptions. After a change to tool.Input or tool.Actions,
// regenerate it (the rest of the file is written by hand and left as is):
//
//	go generate ./internal/httpapi
//
// which runs
//
//	go test ./internal/httpapi -run TestOpenAPIToolInput -update
func TestOpenAPIToolInput(t *testing.T) {
	doc, start, end := readToolInput(t)
	want := toolInputSchema(t, toolInputKey.FindSubmatch(doc)[1])
	if *update && !sameJSON(t, doc[start:end], want) {
		doc = slices.Concat(doc[:start], want, doc[end:])
		if !json.Valid(doc) {
			t.Fatal("rewriting openapi.json's ToolInput made it invalid JSON")
		}
		if err := os.WriteFile("openapi.json", doc, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Log("rewrote openapi.json's ToolInput from tool.Input")
		doc, start, end = readToolInput(t)
	}
	const regen = "regenerate it: go generate ./internal/httpapi"

	var got struct {
		Properties map[string]struct {
			Enum []string `json:"enum"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(doc[start:end], &got); err != nil {
		t.Fatalf("openapi.json's ToolInput: %v", err)
	}
	enum := got.Properties["action"].Enum
	if missing, extra := diff(tool.Actions, enum); len(missing)+len(extra) > 0 {
		t.Errorf("openapi.json's ToolInput action enum is not tool.Actions (%s): %s", lacksHas(missing, extra, "actions"), regen)
	}
	fields := slices.Sorted(maps.Keys(tooltest.JSONFields(reflect.TypeFor[tool.Input]())))
	props := slices.Sorted(maps.Keys(got.Properties))
	if missing, extra := diff(fields, props); len(missing)+len(extra) > 0 {
		t.Errorf("openapi.json's ToolInput properties are not tool.Input's JSON fields (%s): %s", lacksHas(missing, extra, "fields"), regen)
	}
	if !sameJSON(t, doc[start:end], want) {
		t.Errorf("openapi.json's ToolInput is not tool.InputSchema() (types, descriptions or enums differ): %s\nhave %s\nwant %s", regen, doc[start:end], want)
	}
}

// diff is what want has and got lacks, and what got has and want lacks.
func diff(want, got []string) (missing, extra []string) {
	for _, w := range want {
		if !slices.Contains(got, w) {
			missing = append(missing, w)
		}
	}
	for _, g := range got {
		if !slices.Contains(want, g) {
			extra = append(extra, g)
		}
	}
	return missing, extra
}

// lacksHas says what a list lacks and what it has that are not what.
func lacksHas(missing, extra []string, what string) string {
	var s []string
	if len(missing) > 0 {
		s = append(s, fmt.Sprintf("it lacks %q", missing))
	}
	if len(extra) > 0 {
		s = append(s, fmt.Sprintf("it has %q, which are not %s", extra, what))
	}
	return strings.Join(s, "; ")
}

// readToolInput reads openapi.json and finds its ToolInput schema, the
// object doc[start:end].
func readToolInput(t *testing.T) (doc []byte, start, end int) {
	t.Helper()
	doc, err := os.ReadFile("openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	locs := toolInputKey.FindAllIndex(doc, -1)
	if len(locs) != 1 {
		t.Fatalf(`openapi.json has %d keys "ToolInput" at the start of a line, want 1 (components.schemas.ToolInput)`, len(locs))
	}
	start = locs[0][1] - 1 // the {
	dec := json.NewDecoder(bytes.NewReader(doc[start:]))
	var obj json.RawMessage
	if err := dec.Decode(&obj); err != nil {
		t.Fatalf("openapi.json's ToolInput: %v", err)
	}
	return doc, start, start + int(dec.InputOffset())
}

// toolInputSchema is tool.InputSchema with toolInputDescription, as JSON
// indented one space a level below a key at indent.
func toolInputSchema(t *testing.T, indent []byte) []byte {
	t.Helper()
	s := tool.InputSchema()
	s.Description = toolInputDescription
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent(string(indent), " ")
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// sameJSON reports whether a and b are the same JSON value.
func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		t.Fatal(err)
	}
	return reflect.DeepEqual(va, vb)
}

// TestOpenAPIEveryRoute: every route the API serves under /api/ (the
// HandleFunc patterns of httpapi.go) has its path and method in
// openapi.json, so a new endpoint fails until it is documented there.
func TestOpenAPIEveryRoute(t *testing.T) {
	src, err := os.ReadFile("httpapi.go")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	routes := regexp.MustCompile(`Handle(?:Func)?\("([A-Z]+) (/api/[^"]*)"`).FindAllStringSubmatch(string(src), -1)
	if len(routes) < 20 {
		t.Fatalf("found %d routes in httpapi.go: the pattern no longer reads it", len(routes))
	}
	for _, r := range routes {
		method, path := strings.ToLower(r[1]), strings.TrimSuffix(r[2], "{$}")
		if _, ok := doc.Paths[path][method]; !ok {
			t.Errorf("%s %s is served but not in openapi.json: add it (paths.%q.%s)", r[1], r[2], path, method)
		}
	}
}
