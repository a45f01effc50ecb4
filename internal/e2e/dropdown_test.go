//go:build linux

package e2e

import (
	"strings"
	"testing"

	"github.com/browserd/browserd/internal/tool"
)

// TestSelectDropdowns: select chooses from dropdowns the page draws
// itself, each in one call, as a person would — a listbox popped up by a
// button, a combobox whose options appear only once its text is typed, and
// react-select's portalled menu — and says what it could not find, with
// the options shown; a plain textbox is refused as before.
func TestSelectDropdowns(t *testing.T) {
	cfg := testConfig(t)
	e, _ := newEngine(t, cfg)
	d := &engineDriver{e: e, data: cfg.Data}
	const task = "dropdowns"
	s := nav(t, d, task, site.URL("/c/dropdowns")).Content
	r := ok(t, d, tool.Input{Action: "select", Task: task, Ref: ref(t, s, "button", "Speed Standard"), Value: "express"})
	contains(t, r.Content, "selected: Express (the page's own dropdown")
	contains(t, r.Content, `button "Speed Express"`)
	ok(t, d, tool.Input{Action: "select", Task: task, Ref: ref(t, s, "combobox", "Country"), Value: "Germany"})
	gift, found := findIn(s, "", "Gift wrap")
	if !found {
		t.Fatalf("no Gift wrap control with a ref:\n%s", s)
	}
	r = bad(t, d, tool.Input{Action: "select", Task: task, Ref: gift, Value: "Gold foil"}, "this dropdown shows no option \"Gold foil\"")
	contains(t, r.Content, "options shown: None, Paper, Ribbon and card")
	// The menu stayed open: the right option is clicked in it.
	ok(t, d, tool.Input{Action: "select", Task: task, Ref: gift, Value: "Ribbon and card"})
	r = ok(t, d, tool.Input{Action: "click", Task: task, Ref: ref(t, s, "button", "Ship")})
	contains(t, r.Content, "shipping Express to Germany, wrap: Ribbon and card")
	// fill chooses in a dropdown that takes no typing, and types into one
	// that does.
	s = nav(t, d, task, site.URL("/c/dropdowns")).Content
	r = ok(t, d, tool.Input{Action: "fill", Task: task, Fields: []tool.Field{
		{Ref: ref(t, s, "button", "Speed Standard"), Value: "Overnight"},
		{Ref: ref(t, s, "combobox", "Country"), Value: "Spain"},
	}})
	contains(t, r.Content, `button "Speed Overnight"`)
	r = ok(t, d, tool.Input{Action: "evaluate", Task: task, Expression: "document.getElementById('country').value"})
	contains(t, r.Content, "Spain")
	// Not a dropdown of any kind.
	s = nav(t, d, task, site.URL("/c/form-validation")).Content
	r = bad(t, d, tool.Input{Action: "select", Task: task, Ref: ref(t, s, "textbox", "Name"), Value: "x"}, "the target is not a dropdown")
	if strings.Contains(r.Content, `value="x"`) {
		t.Fatalf("select typed into a plain textbox:\n%s", r.Content)
	}
}
