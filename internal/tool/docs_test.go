package tool_test

import (
	"fmt"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/browserd/browserd/internal/tool"
	"github.com/browserd/browserd/internal/tool/tooltest"
)

// The action table of docs/reference.md (the README's reference, moved
// out by issue 38) is checked against the declarations (issue 27):
// tool.Actions and the JSON fields of tool.Input.

const (
	readme = "../../docs/reference.md"
	// tableHeader starts the action table, after "The `browser` tool
	// takes an `action` and the fields that action reads".
	tableHeader = "| action | what it does | fields |"
)

// valueWords are words the fields column may hold in backticks that are
// neither a field of tool.Input nor a field of one of its nested objects:
// values of a field, say. Each needs a comment saying why it is there;
// there are none today (values are written in the middle column).
var valueWords = map[string]bool{}

// tableRow is a row of the action table.
type tableRow struct {
	line    int      // in docs/reference.md, from 1
	actions string   // the first cell
	fields  string   // the last cell
	names   []string // the first cell's backticked names
}

// backticked is a span of code in Markdown.
var backticked = regexp.MustCompile("`([^`]*)`")

// actionTable reads the rows of docs/reference.md's action table.
func actionTable(t *testing.T) []tableRow {
	t.Helper()
	b, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	start := slices.Index(lines, tableHeader)
	if start < 0 {
		t.Fatalf("%s has no action table: no line %q", readme, tableHeader)
	}
	var rows []tableRow
	for i := start + 2; i < len(lines) && strings.HasPrefix(lines[i], "|"); i++ {
		cells := strings.Split(strings.Trim(lines[i], "|"), "|")
		if len(cells) < 3 {
			t.Errorf("%s:%d: an action table row has %d cells, want 3: action | what it does | fields", readme, i+1, len(cells))
			continue
		}
		r := tableRow{line: i + 1, actions: cells[0], fields: cells[len(cells)-1]}
		for _, m := range backticked.FindAllStringSubmatch(r.actions, -1) {
			r.names = append(r.names, m[1])
		}
		rows = append(rows, r)
	}
	if len(rows) == 0 {
		t.Fatalf("%s: the action table (%q) has no rows", readme, tableHeader)
	}
	return rows
}

// TestReadmeActionTable: every action of tool.Actions has exactly one
// place in the first column of docs/reference.md's action table, that column
// names nothing else, and every field the last column names in backticks
// is a JSON field of tool.Input — `name` — or one with its nested object's
// fields: `fields: [{ref, value}]`, `geolocation: {latitude, …}`.
func TestReadmeActionTable(t *testing.T) {
	rows := actionTable(t)
	inputFields := tooltest.JSONFields(reflect.TypeFor[tool.Input]())
	seen := map[string][]int{}
	for _, r := range rows {
		if rest := strings.Trim(backticked.ReplaceAllString(r.actions, ""), ", "); rest != "" {
			t.Errorf("%s:%d: the action column holds %q besides action names: write each action as `name`, separated by commas", readme, r.line, rest)
		}
		for _, a := range r.names {
			seen[a] = append(seen[a], r.line)
			if !slices.Contains(tool.Actions, a) {
				t.Errorf("%s:%d: the action table names `%s`, which is not an action (tool.Actions in internal/tool/tool.go): fix the name or remove it", readme, r.line, a)
			}
		}
		for _, m := range backticked.FindAllStringSubmatch(r.fields, -1) {
			if err := checkFieldSpan(m[1], inputFields); err != nil {
				t.Errorf("%s:%d: the fields column of %s: %v", readme, r.line, strings.Join(r.names, ", "), err)
			}
		}
	}
	for _, a := range tool.Actions {
		switch lines := seen[a]; len(lines) {
		case 0:
			t.Errorf("action %q (tool.Actions) is not in %s's action table: add a row under %q — | `%s` | what it does | `field`, … (the fields it reads, in backticks) |", a, readme, tableHeader, a)
		case 1:
		default:
			t.Errorf("action %q is in %d rows of %s's action table (lines %v): keep one", a, len(lines), readme, lines)
		}
	}
}

var (
	// fieldSpan is a fields-column span: a field, then maybe its nested
	// object's fields ("fields: [{ref, value}]").
	fieldSpan = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9]*)(?::\s*(.+))?$`)
	word      = regexp.MustCompile(`[A-Za-z][A-Za-z0-9]*`)
)

// checkFieldSpan checks one backticked span of the fields column against
// the JSON fields of tool.Input (and of the object a field holds).
func checkFieldSpan(span string, inputFields map[string]reflect.Type) error {
	if valueWords[span] {
		return nil
	}
	m := fieldSpan.FindStringSubmatch(span)
	if m == nil {
		return fmt.Errorf("`%s` is not written as a field (`name` or `name: {nested, …}`); a value belongs in the middle column (or, with a comment, in valueWords in internal/tool/docs_test.go)", span)
	}
	ty, ok := inputFields[m[1]]
	if !ok {
		return fmt.Errorf("`%s`: %q is not a JSON field of tool.Input (internal/tool/tool.go): fix the name, or add the field", span, m[1])
	}
	if m[2] == "" {
		return nil
	}
	for ty.Kind() == reflect.Pointer || ty.Kind() == reflect.Slice {
		ty = ty.Elem()
	}
	if ty.Kind() != reflect.Struct {
		return fmt.Errorf("`%s`: %s is a %s, not an object with fields of its own", span, m[1], ty)
	}
	nested := tooltest.JSONFields(ty)
	for _, w := range word.FindAllString(m[2], -1) {
		if _, ok := nested[w]; !ok {
			return fmt.Errorf("`%s`: %q is not a JSON field of %s (the objects of %s)", span, w, ty, m[1])
		}
	}
	return nil
}

// TestReadmeNamesEveryField: every JSON field of tool.Input is named in
// backticks somewhere in docs/reference.md — in the action table's fields column
// for the actions that read it, or in the prose for one every action takes
// (`task`, `timeout`).
func TestReadmeNamesEveryField(t *testing.T) {
	b, err := os.ReadFile(readme)
	if err != nil {
		t.Fatal(err)
	}
	named := map[string]bool{}
	for _, m := range backticked.FindAllStringSubmatch(string(b), -1) {
		if f := fieldSpan.FindStringSubmatch(m[1]); f != nil {
			named[f[1]] = true
		}
	}
	for f := range tooltest.JSONFields(reflect.TypeFor[tool.Input]()) {
		if !named[f] {
			t.Errorf("tool.Input's field %q is nowhere in %s: add `%s` to the fields column of the actions that read it in the action table (or to the prose after it, for a field of every call)", f, readme, f)
		}
	}
}

// TestReadmeShort: the README is what a newcomer reads to the end (issue
// 38): the two commands first, under 250 lines; the reference lives in
// docs/reference.md.
func TestReadmeShort(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if n := strings.Count(s, "\n"); n >= 250 {
		t.Errorf("README.md has %d lines: keep it under 250 and move the detail to docs/reference.md", n)
	}
	if i, j := strings.Index(s, "make run"), strings.Index(s, "make test"); i < 0 || j < 0 || i > 200 || j > 400 {
		t.Errorf("README.md does not start with `make run` and `make test`")
	}
}
