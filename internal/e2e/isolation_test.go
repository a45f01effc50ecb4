//go:build linux

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/browserd/browserd/internal/tool"
)

// TestIsolatedWorld: a page that rewrites the built-ins browserd's helpers
// could lean on (String.prototype.includes/indexOf/trim, JSON.stringify,
// Array.prototype.filter, Object.entries, getBoundingClientRect,
// querySelector, elementFromPoint, getComputedStyle) cannot bend what
// wait, extract, click, type, select, upload, snapshot and the state
// capture report: they run in browserd's isolated world. The page's final
// state is read with evaluate, in the page's own world.
func TestIsolatedWorld(t *testing.T) {
	cfg := testConfig(t)
	e, _ := newEngine(t, cfg)
	d := &engineDriver{e: e, data: cfg.Data}
	const task = "hostile"
	up := filepath.Join(cfg.Data, "uploads")
	if err := os.MkdirAll(up, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(up, "note.txt"), []byte("hi"), 0o600); err != nil {
		t.Fatal(err)
	}
	s := nav(t, d, task, site.URL("/c/hostile")).Content
	// snapshot: the controls are there, with refs
	name, color, file, goBtn := ref(t, s, "textbox", "Name"), ref(t, s, "combobox", "Color"), ref(t, s, "button", "File"), ref(t, s, "button", "Go")

	// wait: text that is absent is not "found" because includes lies
	bad(t, d, tool.Input{Action: "wait", Task: task, Text: "words that are nowhere", Timeout: 600}, "timed out")
	ok(t, d, tool.Input{Action: "wait", Task: task, Text: "Nothing to see", Timeout: 2000})
	ok(t, d, tool.Input{Action: "wait", Task: task, Selector: "#go", Timeout: 2000})
	bad(t, d, tool.Input{Action: "wait", Task: task, TextGone: "Nothing to see", Timeout: 600}, "timed out")

	// extract: the real text, not the forged trim()
	r := ok(t, d, tool.Input{Action: "extract", Task: task})
	contains(t, r.Content, "Nothing to see here.")
	if strings.Contains(r.Content, "forged") {
		t.Errorf("extract returned the page's forged text: %q", r.Content)
	}

	// type, select, upload, click: the hit test and the value checks hold
	ok(t, d, tool.Input{Action: "type", Task: task, Ref: name, Text: "Ann"})
	ok(t, d, tool.Input{Action: "select", Task: task, Ref: color, Value: "Green"})
	ok(t, d, tool.Input{Action: "upload", Task: task, Ref: file, Files: []string{"note.txt"}})
	ok(t, d, tool.Input{Action: "click", Task: task, Ref: goBtn})
	r = ok(t, d, tool.Input{Action: "evaluate", Task: task, Expression: `[document.getElementById('name').value, document.getElementById('color').value,
		document.getElementById('file').files[0] ? document.getElementById('file').files[0].name : '', document.getElementById('out').textContent].join('|')`})
	contains(t, r.Content, "Ann|g|note.txt|clicked Ann")

	// the state capture reads the real storage
	r = ok(t, d, tool.Input{Action: "state_save", Task: task})
	if !strings.Contains(string(r.State), `"hostile-key"`) || !strings.Contains(string(r.State), `"real-value"`) {
		t.Errorf("state_save lost the page's localStorage: %s", r.State)
	}
}
