package act

import (
	"strings"
	"testing"

	"github.com/browserd/browserd/internal/tool"
)

func init() {
	// A canvas that records where the mouse went, with the button state:
	// what a drawing app, a map or a game hears.
	pages["/canvas"] = `<!doctype html><title>canvas</title><style>body{margin:0}</style>
<canvas id=board width=400 height=300 style="position:absolute;left:0;top:0"></canvas>
<input id=field style="position:absolute;left:500px;top:20px;width:200px;height:30px">
<button id=save style="position:absolute;left:500px;top:100px;width:100px;height:40px" onclick="this.textContent='Saved'">Save</button>
<script>const b = document.getElementById('board'), d = document.documentElement.dataset; d.log = '';
for (const t of ['pointerdown', 'pointermove', 'pointerup', 'click', 'dblclick']) b.addEventListener(t, e => d.log += t + ' ' + e.offsetX + ',' + e.offsetY + ' ' + e.buttons + '|');
b.addEventListener('wheel', e => { e.preventDefault(); d.log += 'wheel ' + e.deltaY + '|'; }, {passive: false});</script>
<div style="height:3000px"></div>`
}

func at(x, y int) (*int, *int) { return &x, &y }

// TestPoints: click, hover, drag, type and the mouse steps at a point of
// the viewport, on a canvas (no refs) and on elements.
func TestPoints(t *testing.T) {
	b := startBare(t)
	log := func() string { return b.eval(t, "document.documentElement.dataset.log") }

	t.Run("click on a canvas says what it hit", func(t *testing.T) {
		in := tool.Input{Action: "click"}
		in.X, in.Y = at(120, 80)
		tb, _ := b.open(t, "/canvas", in)
		if err := run(t, tb, (*Tab).Click); err != nil {
			t.Fatal(err)
		}
		if tb.Res.Content != "clicked canvas#board at 120,80" {
			t.Errorf("answer %q", tb.Res.Content)
		}
		if got := log(); !strings.Contains(got, "pointerdown 120,80 1") || !strings.Contains(got, "click 120,80") {
			t.Errorf("the canvas heard %q", got)
		}
	})

	t.Run("a ref at the point is named", func(t *testing.T) {
		tb, refs := b.open(t, "/canvas", tool.Input{Action: "click"})
		save := refs.ref(t, "#save")
		refs.labels[save] = [2]string{"button", "Save"}
		tb.In.X, tb.In.Y = at(550, 120)
		if err := run(t, tb, (*Tab).Click); err != nil {
			t.Fatal(err)
		}
		if want := `clicked button "Save" [ref=` + save + `] at 550,120`; tb.Res.Content != want {
			t.Errorf("answer %q, want %q", tb.Res.Content, want)
		}
	})

	t.Run("outside the viewport", func(t *testing.T) {
		in := tool.Input{Action: "click"}
		in.X, in.Y = at(1300, 80)
		tb, _ := b.open(t, "/canvas", in)
		err := run(t, tb, (*Tab).Click)
		if err == nil || !strings.Contains(err.Error(), "outside the viewport, which is 1280×720") {
			t.Errorf("a point outside: %v", err)
		}
	})

	t.Run("a stroke: down, moves with the button held, up", func(t *testing.T) {
		tb, _ := b.open(t, "/canvas", tool.Input{})
		for _, s := range []struct {
			action string
			x, y   int
		}{{"mouse_down", 10, 10}, {"mouse_move", 50, 30}, {"mouse_move", 90, 50}, {"mouse_up", 90, 50}} {
			tb.In = tool.Input{Action: s.action}
			tb.In.X, tb.In.Y = at(s.x, s.y)
			if err := run(t, tb, (*Tab).Mouse); err != nil {
				t.Fatalf("%s: %v", s.action, err)
			}
		}
		got := log()
		for _, want := range []string{"pointerdown 10,10 1", "pointermove 50,30 1", "pointermove 90,50 1", "pointerup 90,50 0"} {
			if !strings.Contains(got, want) {
				t.Errorf("the canvas heard %q, want %q in it", got, want)
			}
		}
		if !strings.Contains(tb.Res.Content, "released the mouse on canvas#board at 90,50") {
			t.Errorf("mouse_up answered %q", tb.Res.Content)
		}
	})

	t.Run("a wheel at a point goes there only", func(t *testing.T) {
		in := tool.Input{Action: "scroll", Direction: "down", Amount: 200}
		in.X, in.Y = at(100, 100)
		tb, _ := b.open(t, "/canvas", in)
		if err := run(t, tb, (*Tab).Scroll); err != nil {
			t.Fatal(err)
		}
		if got := log(); !strings.Contains(got, "wheel 200") {
			t.Errorf("the canvas heard %q", got)
		}
		if y := b.eval(t, "String(scrollY)"); y != "0" {
			t.Errorf("the canvas took the wheel, yet the page scrolled to %s", y)
		}
		if !strings.HasPrefix(tb.Res.Content, "scrolled at 100,100, over canvas#board") {
			t.Errorf("answer %q", tb.Res.Content)
		}
	})

	t.Run("drag from a point to a point", func(t *testing.T) {
		in := tool.Input{Action: "drag", To: "200,150"}
		in.X, in.Y = at(20, 20)
		tb, _ := b.open(t, "/canvas", in)
		if err := run(t, tb, (*Tab).Drag); err != nil {
			t.Fatal(err)
		}
		got := log()
		if !strings.Contains(got, "pointerdown 20,20 1") || !strings.Contains(got, "pointerup 200,150 0") {
			t.Errorf("the canvas heard %q", got)
		}
		if tb.Res.Content != "dragged canvas#board from 20,20 to 200,150" {
			t.Errorf("answer %q", tb.Res.Content)
		}
	})

	t.Run("type at a point, and where the focus is", func(t *testing.T) {
		in := tool.Input{Action: "type", Text: "Ada"}
		in.X, in.Y = at(600, 35)
		tb, _ := b.open(t, "/canvas", in)
		if err := run(t, tb, (*Tab).Type); err != nil {
			t.Fatal(err)
		}
		tb.In = tool.Input{Action: "type", Text: " L"}
		if err := run(t, tb, (*Tab).Type); err != nil {
			t.Fatal(err)
		}
		if got := b.eval(t, "document.getElementById('field').value"); got != "Ada L" {
			t.Errorf("the field holds %q", got)
		}
	})

	t.Run("the page moved the target: the expected ref is not there", func(t *testing.T) {
		tb, refs := b.open(t, "/canvas", tool.Input{Action: "click"})
		save := refs.ref(t, "#save")
		// The agent saw Save at 550,120; the page moved it since.
		b.eval(t, "(document.getElementById('save').style.top = '300px', '')")
		tb.In.Ref = save
		tb.In.X, tb.In.Y = at(550, 120)
		err := run(t, tb, (*Tab).Click)
		if err == nil || !strings.Contains(err.Error(), save+" is not at 550,120") || !strings.Contains(err.Error(), "is at 550,320 now") || !strings.Contains(err.Error(), "nothing was pressed") {
			t.Errorf("a click where the ref was: %v", err)
		}
		if got := b.eval(t, "document.getElementById('save').textContent"); got != "Save" {
			t.Errorf("the button was pressed anyway: %q", got)
		}
	})

	t.Run("the page moves the target under the mouse", func(t *testing.T) {
		in := tool.Input{Action: "click"}
		in.X, in.Y = at(550, 120)
		tb, _ := b.open(t, "/canvas", in)
		b.eval(t, "(document.getElementById('save').onpointerdown = e => e.target.style.top = '300px', '')")
		if err := run(t, tb, (*Tab).Click); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(tb.Res.Content, "the element at 550,120 changed during the action: button#save before, ") {
			t.Errorf("answer %q", tb.Res.Content)
		}
	})
}
