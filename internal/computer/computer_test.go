package computer

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"

	"github.com/browserd/browserd/internal/auth"
	"github.com/browserd/browserd/internal/tool"
)

// recorder is a browser tool that records the calls it gets and answers
// each as the engine would, without a browser.
type recorder struct{ calls []string }

func (r *recorder) Do(_ context.Context, in tool.Input) (tool.Result, error) {
	s := in.Action
	if in.X != nil {
		s += fmt.Sprintf(" %d,%d", *in.X, *in.Y)
	}
	for _, f := range []struct{ k, v string }{{"to", in.To}, {"key", in.Key}, {"text", in.Text}, {"button", in.Button}, {"dir", in.Direction}} {
		if f.v != "" {
			s += " " + f.k + "=" + f.v
		}
	}
	if in.Amount > 0 {
		s += fmt.Sprintf(" amount=%d", in.Amount)
	}
	if in.Clicks > 0 {
		s += fmt.Sprintf(" clicks=%d", in.Clicks)
	}
	if in.Double {
		s += " double"
	}
	if len(in.Modifiers) > 0 {
		s += " mods=" + strings.Join(in.Modifiers, "+")
	}
	if in.Width > 0 {
		s += fmt.Sprintf(" %dx%d", in.Width, in.Height)
	}
	if in.Time > 0 {
		s += fmt.Sprintf(" time=%d", in.Time)
	}
	if in.Action != "screenshot" {
		r.calls = append(r.calls, s)
	}
	return tool.Result{Action: in.Action, Success: true, Content: "did " + in.Action}, nil
}

// TestTranslation: each computer action becomes the browser tool calls
// that do it (the first call of a session sets its viewport).
func TestTranslation(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{`{"action":"left_click","coordinate":[120,80]}`, []string{"click 120,80"}},
		{`{"action":"left_click","coordinate":[120.4,79.6],"text":"shift"}`, []string{"click 120,80 mods=Shift"}},
		{`{"action":"right_click","coordinate":[1,2]}`, []string{"click 1,2 button=right"}},
		{`{"action":"middle_click","coordinate":[1,2]}`, []string{"click 1,2 button=middle"}},
		{`{"action":"double_click","coordinate":[1,2]}`, []string{"click 1,2 double"}},
		{`{"action":"triple_click","coordinate":[1,2]}`, []string{"mouse_down 1,2", "mouse_up 1,2", "mouse_down 1,2", "mouse_up 1,2", "mouse_down 1,2", "mouse_up 1,2"}},
		{`{"action":"mouse_move","coordinate":[5,6]}`, []string{"mouse_move 5,6"}},
		{`{"action":"left_click_drag","start_coordinate":[10,10],"coordinate":[200,150]}`, []string{"drag 10,10 to=200,150"}},
		{`{"action":"scroll","coordinate":[300,200],"scroll_direction":"down","scroll_amount":3}`, []string{"scroll 300,200 dir=down clicks=3"}},
		{`{"action":"key","text":"ctrl+s"}`, []string{"press key=Control+s"}},
		{`{"action":"key","text":"Return"}`, []string{"press key=Enter"}},
		{`{"action":"key","text":"ctrl+a BackSpace"}`, []string{"press key=Control+a", "press key=Backspace"}},
		{`{"action":"type","text":"hello\nworld"}`, []string{"type text=hello", "press key=Enter", "type text=world"}},
		{`{"action":"wait","duration":0.5}`, []string{"wait time=500"}},
		{`{"action":"hold_key","text":"shift","duration":1}`, []string{"press key=Shift time=1000"}},
		{`{"action":"screenshot"}`, nil},
		{`{"action":"zoom","region":[0,0,100,50]}`, nil},
		// OpenAI's actions.
		{`{"type":"click","x":10,"y":20,"button":"right"}`, []string{"click 10,20 button=right"}},
		{`{"action":{"type":"double_click","x":10,"y":20}}`, []string{"click 10,20 double"}},
		{`{"type":"drag","path":[{"x":1,"y":2},{"x":5,"y":6},{"x":9,"y":9}]}`, []string{"mouse_down 1,2", "mouse_move 5,6", "mouse_move 9,9", "mouse_up 9,9"}},
		{`{"type":"keypress","keys":["CTRL","S"]}`, []string{"press key=Control+s"}},
		{`{"type":"scroll","x":5,"y":6,"scroll_x":0,"scroll_y":-250}`, []string{"scroll 5,6 dir=up amount=250"}},
		{`{"type":"move","x":5,"y":6}`, []string{"mouse_move 5,6"}},
		{`{"type":"type","text":"hi"}`, []string{"type text=hi"}},
		{`{"type":"wait"}`, []string{"wait time=1000"}},
	} {
		ins, err := Decode([]byte(c.in))
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		r := &recorder{}
		res := New(r, DefaultDisplay).Do(context.Background(), ins...)
		if !res.Success {
			t.Errorf("%s: %s", c.in, res.Error)
		}
		want := append([]string{"launch 1280x800"}, c.want...)
		if strings.Join(r.calls, "; ") != strings.Join(want, "; ") {
			t.Errorf("%s\n got %q\nwant %q", c.in, r.calls, want)
		}
	}
}

// TestCursor: left_mouse_down and up act where the last action left the
// mouse; cursor_position says where that is.
func TestCursor(t *testing.T) {
	r := &recorder{}
	c := New(r, DefaultDisplay)
	ctx := context.Background()
	for _, in := range []Input{
		{Action: "mouse_move", Coordinate: []float64{40, 50}},
		{Action: "left_mouse_down"},
		{Action: "mouse_move", Coordinate: []float64{60, 70}},
		{Action: "left_mouse_up"},
	} {
		if res := c.Do(ctx, in); !res.Success {
			t.Fatal(res.Error)
		}
	}
	if got := strings.Join(r.calls[1:], "; "); got != "mouse_move 40,50; mouse_down 40,50; mouse_move 60,70; mouse_up 60,70" {
		t.Errorf("calls %s", got)
	}
	if res := c.Do(ctx, Input{Action: "cursor_position"}); res.Text != "the cursor is at 60,70" {
		t.Errorf("cursor_position: %q", res.Text)
	}
	// Another task has its own.
	if res := c.Do(ctx, Input{Action: "cursor_position", Task: "other"}); res.Text != "the cursor is at 640,400" {
		t.Errorf("another task's cursor_position: %q", res.Text)
	}
	// Another owner's session of the same name has its own (issue 47.3:
	// bob's cursor_position answered alice's last click).
	bob := auth.WithOwner(ctx, "bob")
	r.calls = nil
	if res := c.Do(bob, Input{Action: "cursor_position"}); res.Text != "the cursor is at 640,400" {
		t.Errorf("another owner's cursor_position: %q", res.Text)
	}
	// Its first action sets its own session's viewport.
	if len(r.calls) != 1 || !strings.HasPrefix(r.calls[0], "launch") {
		t.Errorf("another owner's session was not sized: %v", r.calls)
	}
	if res := c.Do(bob, Input{Action: "left_mouse_down"}); !res.Success || !strings.Contains(r.calls[len(r.calls)-1], "mouse_down 640,400") {
		t.Errorf("another owner's left_mouse_down pressed at %v", r.calls)
	}
}

func TestBadInput(t *testing.T) {
	for in, want := range map[string]string{
		`{"action":"fly"}`:                                      "use one of",
		`{"action":"mouse_move"}`:                               "mouse_move needs coordinate",
		`{"action":"left_click","coordinate":[1]}`:              "a coordinate is [x, y]",
		`{"action":"left_click","coordinate":[-1,2]}`:           "a coordinate is [x, y]",
		`{"action":"key"}`:                                      "key needs text",
		`{"action":"key","text":"ctrl+Bogus"}`:                  "unknown key",
		`{"action":"scroll","coordinate":[1,1]}`:                "scroll_direction",
		`{"action":"zoom","region":[10,10,5,5]}`:                "region",
		`{"action":"wait","duration":1000}`:                     "duration is seconds",
		`{"action":"left_click","coordinate":[1,2],"text":"x"}`: "give the keys to hold",
		`{"type":"click","x":1,"y":2,"button":"back"}`:          "back and forward",
		`{"type":"teleport"}`:                                   "OpenAI computer action",
		`{"action":"left_click","bogus":1}`:                     "not a computer action",
	} {
		ins, err := Decode([]byte(in))
		var msg string
		if err != nil {
			msg = err.Error()
		} else if res := New(&recorder{}, DefaultDisplay).Do(context.Background(), ins...); !res.Success {
			msg = res.Error
		}
		if !strings.Contains(msg, want) {
			t.Errorf("%s: %q, want %q in it", in, msg, want)
		}
	}
}

func TestChord(t *testing.T) {
	for in, want := range map[string]string{
		"Return": "Enter", "ctrl+s": "Control+s", "super+shift+t": "Meta+Shift+t", "KP_Enter": "Enter",
		"Page_Down": "PageDown", "ctrl+plus": "Control++", "ctrl++": "Control++", "F5": "F5", "shift": "Shift",
		"alt+Left": "Alt+ArrowLeft", "a": "a", "space": "Space", "ESC": "Escape", "KP_7": "7",
	} {
		got, err := Chord(in)
		if err != nil || got != want {
			t.Errorf("Chord(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

func TestParseDisplay(t *testing.T) {
	if d, err := ParseDisplay("1024x768"); err != nil || d != (Display{1024, 768}) {
		t.Errorf("1024x768: %v %v", d, err)
	}
	for _, bad := range []string{"1024", "x", "50x50", "99999x10", "axb"} {
		if _, err := ParseDisplay(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// FuzzComputerDecode: no body makes Decode or Validate panic.
func FuzzComputerDecode(f *testing.F) {
	f.Add(`{"action":"left_click","coordinate":[1,2]}`)
	f.Add(`{"type":"drag","path":[{"x":1,"y":2},{"x":3,"y":4}]}`)
	f.Add(`{"action":{"type":"scroll","x":1,"y":1,"scroll_y":1e308}}`)
	f.Fuzz(func(t *testing.T, body string) {
		ins, err := Decode([]byte(body))
		if err != nil {
			return
		}
		for _, in := range ins {
			_ = in.Validate()
			_, _ = json.Marshal(in)
		}
	})
}

// TestZoomScalesUp (issue 51 point 3): zoom returns its region scaled up
// to fill the display as far as its aspect allows, not at 1:1 — a 2×1
// region of a red and a blue pixel becomes 1280×640, red on the left half
// and blue on the right.
func TestZoomScalesUp(t *testing.T) {
	src := image.NewRGBA(image.Rect(0, 0, 1280, 800))
	src.Set(10, 10, color.RGBA{255, 0, 0, 255})
	src.Set(11, 10, color.RGBA{0, 0, 255, 255})
	var b bytes.Buffer
	if err := png.Encode(&b, src); err != nil {
		t.Fatal(err)
	}
	z, w, h, err := zoom(b.Bytes(), []float64{10, 10, 12, 11}, Display{1280, 800})
	if err != nil || w != 1280 || h != 640 {
		t.Fatalf("zoom: %d×%d, %v; want 1280×640", w, h, err)
	}
	img, err := png.Decode(bytes.NewReader(z))
	if err != nil {
		t.Fatal(err)
	}
	if r, _, bl, _ := img.At(100, 320).RGBA(); r>>8 < 200 || bl>>8 > 50 {
		t.Errorf("the left half is not red: %v", img.At(100, 320))
	}
	if r, _, bl, _ := img.At(1180, 320).RGBA(); bl>>8 < 200 || r>>8 > 50 {
		t.Errorf("the right half is not blue: %v", img.At(1180, 320))
	}
	if _, _, _, err := zoom(b.Bytes(), []float64{2000, 2000, 2100, 2100}, Display{1280, 800}); err == nil {
		t.Error("a region off the screen was zoomed")
	}
}
