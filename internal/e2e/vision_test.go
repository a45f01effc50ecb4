//go:build linux

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/jpeg"
	"image/png"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/browserd/browserd/internal/computer"
	"github.com/browserd/browserd/internal/engine"
	"github.com/browserd/browserd/internal/recording"
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
	has(shot, `textbox "Name" 500,20 `) // a ref with a value: [ref=e3, value="Ada"]
	if _, isAPI := d.(*apiDriver); len(shot.Image) == 0 && !isAPI {
		t.Errorf("annotated screenshot without an image")
	}
	// Options scrolled out of their list get no label (issue 51 point 3:
	// they were drawn below it, over other elements).
	ok(t, d, tool.Input{Action: "evaluate", Task: task, Expression: `(() => { document.body.insertAdjacentHTML('beforeend',
	  '<select multiple size="3" aria-label="People" style="position:absolute;left:700px;top:400px">' +
	  ['Ann', 'Bob', 'Carol', 'Dave', 'Eve', 'Fay'].map(n => '<option>' + n + '</option>').join('') + '</select>'); return 1; })()`})
	listed := ok(t, d, tool.Input{Action: "screenshot", Task: task, Annotate: true, FullPage: &no}).Content
	if !strings.Contains(listed, `option "Ann"`) || strings.Contains(listed, `option "Fay"`) || strings.Contains(listed, `option "Eve"`) {
		t.Errorf("the labels of a list of three showing Ann, Bob and Carol:\n%s", listed)
	}

	// The legend speaks the snapshot's words, not Chromium's internal
	// roles (issue 51 point 3: LabelText, InputTime).
	ok(t, d, tool.Input{Action: "evaluate", Task: task, Expression: `(() => { document.body.insertAdjacentHTML('beforeend',
	  '<label style="position:absolute;left:20px;top:600px">Last reward:</label>' +
	  '<input type="time" aria-label="Start" style="position:absolute;left:300px;top:600px">'); return 1; })()`})
	worded := ok(t, d, tool.Input{Action: "screenshot", Task: task, Annotate: true, FullPage: &no}).Content
	for _, w := range []string{`label "Last reward:" 20,600`, `textbox "Start" 300,600`} {
		if !strings.Contains(worded, w) {
			t.Errorf("the legend does not say %q:\n%s", w, worded)
		}
	}
	if strings.Contains(worded, "LabelText") || strings.Contains(worded, "InputTime") {
		t.Errorf("the legend speaks Chromium's internal roles:\n%s", worded)
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

// computerCall sends one computer action through a front end.
type computerCall func(t *testing.T, body map[string]any) computer.Result

func mcpComputer(d *mcpDriver) computerCall {
	return func(t *testing.T, body map[string]any) computer.Result {
		res, err := d.sess.CallTool(context.Background(), &mcp.CallToolParams{Name: "computer", Arguments: body})
		if err != nil {
			return computer.Result{Error: err.Error()}
		}
		r := computer.Result{Success: !res.IsError}
		for _, c := range res.Content {
			switch c := c.(type) {
			case *mcp.TextContent:
				r.Text = c.Text
				if res.IsError {
					r.Error = strings.TrimPrefix(c.Text, "error: ")
				}
			case *mcp.ImageContent:
				r.Image = c.Data
			}
		}
		return r
	}
}

func apiComputer(d *apiDriver) computerCall {
	return func(t *testing.T, body map[string]any) computer.Result {
		hc := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var dl net.Dialer
			return dl.DialContext(ctx, "unix", filepath.Join(d.data, "browserd.sock"))
		}}}
		b, _ := json.Marshal(body)
		resp, err := hc.Post("http://browserd/api/computer", "application/json", bytes.NewReader(b))
		if err != nil {
			t.Fatalf("POST /api/computer: %v", err)
		}
		defer resp.Body.Close()
		var r computer.Result
		raw, _ := io.ReadAll(resp.Body)
		if err := json.Unmarshal(raw, &r); err != nil || resp.StatusCode != 200 {
			return computer.Result{Error: fmt.Sprintf("%d %s", resp.StatusCode, raw)}
		}
		return r
	}
}

func cliComputer(d *cliDriver) computerCall {
	return func(t *testing.T, body map[string]any) computer.Result {
		b, _ := json.Marshal(body)
		args := append(append([]string{"--json"}, daemonFlags(d.data)...), "computer", string(b))
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		out, _ := exec.CommandContext(ctx, browserdBin(t), args...).Output()
		var r computer.Result
		if err := json.Unmarshal(out, &r); err != nil {
			return computer.Result{Error: fmt.Sprintf("browserd computer: %v: %s", err, out)}
		}
		if r.ScreenshotPath != "" {
			r.Image, _ = os.ReadFile(r.ScreenshotPath)
		}
		return r
	}
}

// testComputer drives the canvas page with Anthropic's computer actions
// only (the browser tool opens the page and reads what the page heard).
func testComputer(t *testing.T, d driver, do computerCall, task string, openAI bool) {
	act := func(body map[string]any) computer.Result {
		t.Helper()
		body["task"] = task
		r := do(t, body)
		if !r.Success {
			t.Fatalf("computer %v: %s", body, r.Error)
		}
		cfg, err := png.DecodeConfig(bytes.NewReader(r.Image))
		if err != nil {
			t.Fatalf("computer %v: no screenshot: %v", body, err)
		}
		if body["action"] != "zoom" && (cfg.Width != 1280 || cfg.Height != 800) {
			t.Errorf("computer %v: screenshot %d×%d, want the display's 1280×800", body, cfg.Width, cfg.Height)
		}
		return r
	}
	heard := func(want string) {
		t.Helper()
		r := ok(t, d, tool.Input{Action: "evaluate", Task: task, Expression: "document.getElementById('log').textContent"})
		if !strings.Contains(r.Content, want) {
			t.Errorf("the canvas heard %s, want %q in it", r.Content, want)
		}
	}
	ok(t, d, tool.Input{Action: "navigate", URL: site.URL("/canvas"), Task: task})

	if r := act(map[string]any{"action": "left_click", "coordinate": []int{120, 80}}); !strings.Contains(r.Text, "clicked canvas#board at 120,80") {
		t.Errorf("left_click said %q", r.Text)
	}
	heard("click 120,80")
	act(map[string]any{"action": "left_click_drag", "start_coordinate": []int{10, 10}, "coordinate": []int{200, 150}})
	heard("stroke 10,10 to 200,150")
	act(map[string]any{"action": "mouse_move", "coordinate": []int{20, 200}})
	act(map[string]any{"action": "left_mouse_down"})
	act(map[string]any{"action": "mouse_move", "coordinate": []int{60, 220}})
	act(map[string]any{"action": "left_mouse_up"})
	heard("stroke 20,200 to 60,220")
	if r := act(map[string]any{"action": "cursor_position"}); r.Text != "the cursor is at 60,220" {
		t.Errorf("cursor_position said %q", r.Text)
	}
	act(map[string]any{"action": "double_click", "coordinate": []int{300, 100}})
	heard("dblclick 300,100")
	act(map[string]any{"action": "right_click", "coordinate": []int{300, 120}})
	heard("rightclick 300,120")
	act(map[string]any{"action": "scroll", "coordinate": []int{200, 150}, "scroll_direction": "down", "scroll_amount": 2})
	heard("wheel 0,200")
	// A list 90 px high: a wheel click there moves 0.8 of it, 72 px, not
	// the 100 px that would skip rows (issue 51 point 3).
	for i, want := range []string{"72", "144"} {
		act(map[string]any{"action": "scroll", "coordinate": []int{880, 60}, "scroll_direction": "down", "scroll_amount": 1})
		if r := ok(t, d, tool.Input{Action: "evaluate", Task: task, Expression: "String(document.getElementById('short').scrollTop)"}); !strings.Contains(r.Content, `"`+want+`"`) {
			t.Errorf("after %d wheel clicks over a 90 px list it is scrolled by %s, want %s px", i+1, r.Content, want)
		}
	}
	act(map[string]any{"action": "key", "text": "Escape"})
	heard("key Escape")
	act(map[string]any{"action": "left_click", "coordinate": []int{600, 35}})
	act(map[string]any{"action": "type", "text": "Ada Lovelace"})
	act(map[string]any{"action": "triple_click", "coordinate": []int{600, 35}})
	act(map[string]any{"action": "type", "text": "Bo"})
	if r := ok(t, d, tool.Input{Action: "evaluate", Task: task, Expression: "document.getElementById('name').value"}); !strings.Contains(r.Content, `"Bo"`) {
		t.Errorf("after a triple click and type the field holds %s, want Bo", r.Content)
	}
	z := act(map[string]any{"action": "zoom", "region": []int{500, 100, 600, 140}})
	if cfg, _ := png.DecodeConfig(bytes.NewReader(z.Image)); cfg.Width != 1280 || cfg.Height != 512 {
		t.Errorf("zoom on 100×40 gave %d×%d, want it scaled up to the display's width, 1280×512", cfg.Width, cfg.Height)
	}
	act(map[string]any{"action": "wait", "duration": 0.1})
	if r := do(t, map[string]any{"action": "left_click", "coordinate": []int{2000, 10}, "task": task}); r.Success || !strings.Contains(r.Error, "outside the viewport, which is 1280×800") {
		t.Errorf("a click off the screen: %+v", r.Error)
	}
	if openAI {
		act(map[string]any{"type": "click", "x": 130, "y": 90, "button": "left"})
		heard("click 130,90")
		act(map[string]any{"action": map[string]any{"type": "drag", "path": []map[string]int{{"x": 30, "y": 30}, {"x": 60, "y": 40}, {"x": 90, "y": 60}}}})
		heard("stroke 30,30 to 90,60")
		act(map[string]any{"type": "keypress", "keys": []string{"ESC"}})
	}
}

func TestVisionComputer(t *testing.T) {
	t.Run("mcp", func(t *testing.T) {
		d := newMCPDriver(t, "--computer")
		testComputer(t, d, mcpComputer(d), "computer-mcp", false)
	})
	t.Run("http", func(t *testing.T) {
		d := newAPIDriver(t)
		testComputer(t, d, apiComputer(d), "computer-http", true)
	})
	t.Run("cli", func(t *testing.T) {
		d := newCLIDriver(t)
		testComputer(t, d, cliComputer(d), "computer-cli", false)
	})
}

// BenchmarkAnnotatedScreenshot: a viewport screenshot labelled with refs
// beside a plain one, on the sign-up form and a 200-row table (the
// numbers in docs/benchmarks.md, "Screenshots labelled with refs").
func BenchmarkAnnotatedScreenshot(b *testing.B) {
	e, done := benchEngine(b)
	defer done()
	no := false
	for _, page := range []string{"/form", "/table?rows=200"} {
		must(b, e, tool.Input{Action: "navigate", URL: site.URL(page), Task: "bench"})
		for _, annotate := range []bool{false, true} {
			name := page + "/plain"
			if annotate {
				name = page + "/annotated"
			}
			b.Run(name, func(b *testing.B) {
				var bytes, labels int
				for b.Loop() {
					r := must(b, e, tool.Input{Action: "screenshot", Task: "bench", FullPage: &no, Annotate: annotate})
					bytes = len(r.Image)
					labels = len(regexp.MustCompile(`(?m)^e\d+ `).FindAllString(r.Content, -1))
				}
				b.ReportMetric(float64(bytes), "png-bytes")
				b.ReportMetric(float64(labels), "labels")
			})
		}
	}
}

// TestVisionGuard: the computer tool has no side door — a click at a
// point that follows a link to an internal address is refused by the
// guard, an action the operator turned off is refused under its browser
// name, and the task's recording keeps the point of each action.
func TestVisionGuard(t *testing.T) {
	cfg := testConfig(t)
	cfg.DenyActions = []string{"hover"}
	e, err := engine.New(cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { e.Close(context.Background()); waitNoChromium(t, cfg.Data) }()
	d := &engineDriver{e: e, data: cfg.Data}
	c := computer.New(e, computer.DefaultDisplay)
	ctx := context.Background()
	nav := ok(t, d, tool.Input{Action: "navigate", URL: site.URL("/canvas"), Task: "guard"})
	ok(t, d, tool.Input{Action: "evaluate", Task: "guard", Expression: `(() => { const a = document.createElement('a');
	  a.href = 'http://10.0.0.5/'; a.textContent = 'intranet'; a.style = 'position:absolute;left:800px;top:300px;padding:10px';
	  document.body.append(a); })()`})

	r := c.Do(ctx, computer.Input{Action: "left_click", Coordinate: []float64{810, 310}, Task: "guard"})
	if r.Success || !strings.Contains(r.Error, "the guard refuses") {
		t.Errorf("a click at a link to an internal address: success %v, error %q", r.Success, r.Error)
	}
	if len(r.Image) == 0 {
		t.Errorf("a refused action answers with the screen too")
	}
	// What the operator turned off is refused at a point too; mouse_move
	// is an action of its own.
	hover := tool.Input{Action: "hover", Task: "guard"}
	hover.X, hover.Y = pt(5, 5)
	bad(t, d, hover, `action "hover" is turned off`)
	if r := c.Do(ctx, computer.Input{Action: "mouse_move", Coordinate: []float64{120, 80}, Task: "guard"}); !r.Success {
		t.Errorf("mouse_move: %s", r.Error)
	}
	trace, err := e.Recorder.JSON(nav.Session, "guard")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`"action": "mouse_move"(?s:.*?)"x": 120,\s*"y": 80`).Match(trace) {
		t.Errorf("the recording does not keep the point of mouse_move: %.2000s", trace)
	}
	// The frame of a step at a point shows the point: a red ring around
	// it (the frame is 640 px wide for the 1280 px display: 60,40).
	time.Sleep(recording.FrameDelay + time.Second) // the frame is taken once the tab is left alone
	es, err := e.Recorder.Entries(nav.Session, "guard")
	if err != nil || len(es) == 0 {
		t.Fatalf("entries: %v", err)
	}
	last := es[len(es)-1]
	for i := len(es) - 1; i >= 0; i-- {
		if es[i].Type == "action" {
			last = es[i]
			break
		}
	}
	jpg, err := e.Recorder.Frame(nav.Session, "guard", last.Seq)
	if err != nil {
		t.Fatalf("the frame of %s: %v", last.Name, err)
	}
	img, err := jpeg.Decode(bytes.NewReader(jpg))
	if err != nil {
		t.Fatal(err)
	}
	k := float64(img.Bounds().Dx()) / 1280
	reds := 0
	for y := int(80*k) - 12; y <= int(80*k)+12; y++ {
		for x := int(120*k) - 12; x <= int(120*k)+12; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			if r>>8 > 150 && g>>8 < 120 && b>>8 < 150 {
				reds++
			}
		}
	}
	if reds < 20 {
		t.Errorf("the frame of %s at 120,80 does not show the point (%d red pixels around it)", last.Name, reds)
	}
}
