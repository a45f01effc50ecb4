//go:build linux

package e2e

import (
	"strings"
	"testing"

	"github.com/browserd/browserd/internal/tool"
)

// TestDateFieldsNamedOnce: a date or time field's parts are named once
// (Chromium joins each part's label and title: "Month Month", "Show date
// picker Show date picker") and takes no ref — the field's ref takes the
// typing, and a part's "Month" must not stand for a "Month" input — and
// month and week inputs say their type —
// Chromium gives them datetime-local's role (issue 51 point 3). Values
// in the input's format are set; other text is typed as keys into the
// parts as a keyboard does (digits, perhaps an A or P); other text is
// refused with the format.
func TestDateFieldsNamedOnce(t *testing.T) {
	cfg := testConfig(t)
	e, _ := newEngine(t, cfg)
	d := &engineDriver{e: e, data: cfg.Data}
	const task = "dates"
	s := nav(t, d, task, site.URL("/c/inputs-datetime")).Content
	for _, w := range []string{"spinbutton \"Month\"", `button "Show date picker" [ref=`, "spinbutton \"Hours\"",
		`textbox "Meeting" [ref=e`, `, type=datetime-local]`, `textbox "Month" [ref=`, `, type=month]`, `, type=week]`} {
		contains(t, s, w)
	}
	for _, bad := range []string{"Month Month", "picker Show", "Hours Hours", `spinbutton "Month" [ref=`} {
		if strings.Contains(s, bad) {
			t.Fatalf("a part named twice (%q):\n%s", bad, s)
		}
	}
	r := ok(t, d, tool.Input{Action: "type", Task: task, Ref: ref(t, s, "textbox", "Month"), Text: "2025-03"})
	contains(t, r.Content, `value="2025-03"`)

	// What a keyboard enters into the parts goes in as keys (issue 51
	// point 3: the computer tool's type refused "06282014"): by ref, from
	// the first part, and where the focus is, as the computer tool types.
	r = ok(t, d, tool.Input{Action: "type", Task: task, Ref: ref(t, s, "textbox", "Day"), Text: "06282014"})
	contains(t, strings.Join(r.Notes, " "), "holds 2014-06-28")
	ok(t, d, tool.Input{Action: "evaluate", Task: task, Expression: "document.querySelector('[aria-label=Start], #start, input[type=time]').focus()"})
	r = ok(t, d, tool.Input{Action: "type", Task: task, Text: "0537P"})
	contains(t, strings.Join(r.Notes, " "), "holds 17:37")
	bad(t, d, tool.Input{Action: "type", Task: task, Ref: ref(t, s, "textbox", "Week"), Text: "soon"}, "type it as YYYY-Www")
	// Separators in another order are refused with the format, not typed
	// as keys into another date.
	bad(t, d, tool.Input{Action: "type", Task: task, Ref: ref(t, s, "textbox", "Day"), Text: "27/11/2026"}, "type it as YYYY-MM-DD")
}
