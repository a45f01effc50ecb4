package e2e

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/browserd/browserd/internal/tool"
)

// Issue 37: agents that work from a screenshot — points in the browser
// tool, screenshots labelled with refs — through MCP, the HTTP API and
// the CLI, on a canvas that hears only points (testsite's /canvas).

// apiDriver sends every call to POST /api/actions of a daemon the test
// started, over its socket.
type apiDriver struct{ data string }

func newAPIDriver(t *testing.T) *apiDriver {
	d := &apiDriver{data: t.TempDir()}
	startDaemon(t, d.data)
	return d
}

func (d *apiDriver) dataDir() string { return d.data }

func (d *apiDriver) do(t *testing.T, in tool.Input) tool.Result {
	raw := postAction(t, d.data, in)
	var r tool.Result
	if err := json.Unmarshal([]byte(raw), &r); err != nil {
		t.Fatalf("api %s: %v: %s", in.Action, err, raw)
	}
	return r
}

func pt(x, y int) (*int, *int) { return &x, &y }

// testPoints drives the canvas page by points only, as a model working
// from screenshots does, and checks what each answer says.
func testPoints(t *testing.T, d driver, task string) {
	r := ok(t, d, tool.Input{Action: "navigate", URL: site.URL("/canvas"), Task: task})
	m := regexp.MustCompile(`button "Save" \[ref=(e\d+)\]`).FindStringSubmatch(r.Content)
	if m == nil {
		t.Fatalf("no Save button in %s", r.Content)
	}
	save := m[1]
	at := func(action string, x, y int, f ...func(*tool.Input)) tool.Input {
		in := tool.Input{Action: action, Task: task}
		in.X, in.Y = pt(x, y)
		for _, f := range f {
			f(&in)
		}
		return in
	}
	has := func(r tool.Result, want ...string) {
		t.Helper()
		for _, w := range want {
			if !strings.Contains(r.Content, w) {
				t.Errorf("%s answered %q, want %q in it", r.Action, r.Content, w)
			}
		}
	}

	has(ok(t, d, at("click", 120, 80)), "clicked canvas#board at 120,80", "click 120,80")
	has(ok(t, d, at("click", 550, 120)), `clicked button "Save" [ref=`+save+`] at 550,120`)
	ok(t, d, at("mouse_down", 10, 10))
	ok(t, d, at("mouse_move", 50, 30))
	ok(t, d, at("mouse_move", 90, 50))
	has(ok(t, d, at("mouse_up", 90, 50)), "released the mouse on canvas#board at 90,50", "stroke 10,10 to 90,50")
	has(ok(t, d, at("drag", 20, 200, func(in *tool.Input) { in.To = "200,250" })), "dragged canvas#board from 20,200 to 200,250", "stroke 20,200 to 200,250")
	ok(t, d, at("type", 600, 35, func(in *tool.Input) { in.Text = "Ada" }))
	if v := ok(t, d, tool.Input{Action: "evaluate", Task: task, Expression: "document.getElementById('name').value"}); !strings.Contains(v.Content, `"Ada"`) {
		t.Errorf("typed at the field's point: %s", v.Content)
	}
	bad(t, d, at("click", 1500, 10), "outside the viewport, which is 1280×720")

	// Set-of-Mark: the Save button's ref is labelled, with its box.
	no := false
	shot := ok(t, d, tool.Input{Action: "screenshot", Task: task, Annotate: true, FullPage: &no})
	has(shot, save+` button "Saved" 500,100 100×40`)
	if _, isAPI := d.(*apiDriver); len(shot.Image) == 0 && !isAPI {
		t.Errorf("annotated screenshot without an image")
	}

	// The page moved Save since the agent looked: a point with the ref
	// it expects there presses nothing and says where the ref is now.
	ok(t, d, tool.Input{Action: "evaluate", Task: task, Expression: "document.getElementById('save').style.top = '300px'"})
	bad(t, d, at("click", 550, 120, func(in *tool.Input) { in.Ref = save }), save+" is not at 550,120")
	if v := ok(t, d, tool.Input{Action: "evaluate", Task: task, Expression: "document.getElementById('save').textContent"}); !strings.Contains(v.Content, `"Saved"`) {
		// The first click at 550,120 pressed it; the refused one did not
		// press what is there now (nothing to see), so it still says Saved.
		t.Errorf("Save says %s", v.Content)
	}
}

func TestVisionPoints(t *testing.T) {
	for name, mk := range map[string]func(*testing.T) driver{
		"mcp":  func(t *testing.T) driver { return newMCPDriver(t) },
		"http": func(t *testing.T) driver { return newAPIDriver(t) },
		"cli":  func(t *testing.T) driver { return newCLIDriver(t) },
	} {
		t.Run(name, func(t *testing.T) { testPoints(t, mk(t), "points-"+name) })
	}
}
