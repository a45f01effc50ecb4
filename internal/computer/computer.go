package computer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"math"
	"os"
	"strings"
	"sync"

	"github.com/browserd/browserd/internal/auth"
	"github.com/browserd/browserd/internal/tool"
	"github.com/browserd/browserd/internal/untrusted"
)

// Result is what a computer action answers: one line of what happened
// (page text in it inside an untrusted-content envelope) and the
// screenshot of the viewport after it, at the display's size.
type Result struct {
	Action  string `json:"action"`
	Success bool   `json:"success"`
	Text    string `json:"text"`
	Error   string `json:"error,omitempty"`
	// ScreenshotPath is the PNG's file in the daemon's data folder.
	ScreenshotPath string `json:"screenshotPath,omitempty"`
	// Image is the PNG (base64 in JSON); Width and Height its size.
	Image  []byte `json:"image,omitempty"`
	Width  int    `json:"width,omitempty"`
	Height int    `json:"height,omitempty"`
}

// Computer carries out computer actions with the browser tool (h): a
// session's first action sets its viewport to the display (launch with
// its width and height), and the cursor each session's task left is
// remembered for the actions that use it (left_mouse_down, a click
// without a coordinate, cursor_position). It is safe for concurrent use.
type Computer struct {
	h tool.Handler
	d Display

	mu     sync.Mutex
	cursor map[string]point // by owner, session and task
	sized  map[string]bool  // sessions whose viewport was set, by owner and session
}

// maxCursors bounds the cursors kept (one per session and task).
const maxCursors = 10_000

// New returns a Computer for h, whose screen is d.
func New(h tool.Handler, d Display) *Computer {
	return &Computer{h: h, d: d, cursor: map[string]point{}, sized: map[string]bool{}}
}

// Display is the screen size the computer shows.
func (c *Computer) Display() Display { return c.d }

// Do carries out the actions (one, or the steps of an OpenAI drag) and
// answers with the last one's line and a screenshot. It stops at the
// first that fails; the answer then says why, and shows the screen.
func (c *Computer) Do(ctx context.Context, ins ...Input) Result {
	if len(ins) == 0 {
		return Result{Error: "no computer action"}
	}
	last := ins[len(ins)-1]
	res := Result{Action: last.Action}
	owner := auth.Owner(ctx)
	for i := range ins {
		ins[i].owner = owner
	}
	last.owner = owner
	for _, in := range ins {
		if err := in.Validate(); err != nil {
			res.Error = err.Error()
			return res
		}
	}
	sizing := c.size(ctx, last)
	for _, in := range ins {
		res.Action = in.Action
		line, err := c.step(ctx, in)
		res.Text = line
		if err != nil {
			res.Error = err.Error()
			break
		}
	}
	res.Success = res.Error == ""
	if sizing != nil && res.Success {
		res.Text += " (" + sizing.Error() + "; the next action tries again)"
	}
	text := res.Text
	c.screenshot(ctx, last, &res)
	if sizing == nil && c.offDisplay(res) {
		// The session was sized, and the screen is not the display: the
		// resize was lost. Sized again, and shown as it is then.
		c.unsize(last)
		if err := c.size(ctx, last); err == nil {
			res.Text = text
			c.screenshot(ctx, last, &res)
		}
	}
	return res
}

// key names the cursor of an owner's session's task. Owners name their
// sessions freely ("default", "work"): the owner keeps one's cursor from
// another's.
func key(in Input) string { return in.owner + "\x00" + in.Session + "\x00" + in.Task }

// sessionKey names an owner's session.
func sessionKey(in Input) string { return in.owner + "\x00" + in.Session }

// size sets the viewport of the session to the display, once: launch
// with its width and height creates the session at that size, or sets it
// for the session's tabs. A launch that failed is tried again by the next
// action, and its reason is returned for the answer: a session left at
// another size is never taken as sized.
func (c *Computer) size(ctx context.Context, in Input) error {
	c.mu.Lock()
	done := c.sized[sessionKey(in)]
	c.mu.Unlock()
	if done {
		return nil
	}
	no := false
	res, err := c.h.Do(ctx, tool.Input{Action: "launch", Session: in.Session, Task: in.Task, Width: c.d.Width, Height: c.d.Height, Snapshot: &no})
	if err == nil && !res.Success {
		err = errors.New(res.Error)
	}
	if err != nil {
		return fmt.Errorf("sizing the session to the display failed: %w", err)
	}
	c.mu.Lock()
	if len(c.sized) > maxCursors {
		clear(c.sized)
	}
	c.sized[sessionKey(in)] = true
	c.mu.Unlock()
	return nil
}

// unsize forgets that in's session was sized: the next action sizes it.
func (c *Computer) unsize(in Input) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.sized, sessionKey(in))
}

// offDisplay reports whether res's screenshot is not the display's size
// (a zoom's region aside).
func (c *Computer) offDisplay(res Result) bool {
	return res.Action != "zoom" && res.Width > 0 && (res.Width != c.d.Width || res.Height != c.d.Height)
}

func (c *Computer) cursorOf(in Input) (point, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.cursor[key(in)]
	return p, ok
}

func (c *Computer) moveCursor(in Input, p point) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.cursor) > maxCursors {
		clear(c.cursor)
	}
	c.cursor[key(in)] = p
}

// at is the action's coordinate, else the cursor, else the middle of
// the screen.
func (c *Computer) at(in Input) point {
	if in.Coordinate != nil {
		return pointOf(in.Coordinate)
	}
	if p, ok := c.cursorOf(in); ok {
		return p
	}
	return point{c.d.Width / 2, c.d.Height / 2}
}

// call runs one browser tool call at the session and task of in, without
// a snapshot in its answer; its answer's first line is what happened.
func (c *Computer) call(ctx context.Context, in Input, b tool.Input) (string, error) {
	b.Session, b.Task = in.Session, in.Task
	no := false
	b.Snapshot = &no
	if err := b.Validate(); err != nil {
		return "", err
	}
	res, err := c.h.Do(ctx, b)
	if err != nil {
		return "", err
	}
	if !res.Success {
		return "", fmt.Errorf("%s", res.Error)
	}
	return firstLine(res), nil
}

// firstLine is the first line of what the browser tool said, inside an
// envelope of its own when the answer's was (page text: a button's name).
func firstLine(res tool.Result) string {
	for _, l := range strings.Split(res.Content, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "<<<") || strings.HasPrefix(l, "title: ") || strings.HasPrefix(l, "url: ") {
			continue
		}
		if res.Wrapped {
			return untrusted.New().Wrap(l)
		}
		return l
	}
	return ""
}

func xy(p point) (*int, *int) { x, y := p.X, p.Y; return &x, &y }

// step carries out one computer action with browser tool calls.
func (c *Computer) step(ctx context.Context, in Input) (string, error) {
	p := c.at(in)
	x, y := xy(p)
	click := func(b tool.Input) (string, error) { return c.clickAt(ctx, in, p, b) }
	switch in.Action {
	case "left_click":
		return click(tool.Input{})
	case "right_click":
		return click(tool.Input{Button: "right"})
	case "middle_click":
		return click(tool.Input{Button: "middle"})
	case "double_click":
		return click(tool.Input{Double: true})
	case "triple_click":
		return c.tripleClick(ctx, in, p)
	case "mouse_move":
		c.moveCursor(in, p)
		return c.call(ctx, in, tool.Input{Action: "mouse_move", X: x, Y: y})
	case "left_mouse_down", "left_mouse_up":
		c.moveCursor(in, p)
		return c.call(ctx, in, tool.Input{Action: "mouse_" + strings.TrimPrefix(in.Action, "left_mouse_"), X: x, Y: y})
	case "left_click_drag":
		from := c.at(Input{Session: in.Session, Task: in.Task, Coordinate: in.StartCoordinate})
		fx, fy := xy(from)
		c.moveCursor(in, p)
		return c.call(ctx, in, tool.Input{Action: "drag", X: fx, Y: fy, To: fmt.Sprintf("%d,%d", p.X, p.Y)})
	case "scroll":
		// Pixels when the model gave them (OpenAI's scroll_x and
		// scroll_y), else wheel clicks: 100 px each, less over a scroll box
		// smaller than that (tool.Input.Clicks).
		s := tool.Input{Action: "scroll", X: x, Y: y, Direction: in.ScrollDirection, Amount: in.scrollPixels}
		if s.Amount == 0 {
			s.Clicks = max(in.ScrollAmount, 1)
		}
		c.moveCursor(in, p)
		return c.call(ctx, in, s)
	case "key", "hold_key":
		return c.pressKeys(ctx, in)
	case "type":
		return c.typeText(ctx, in)
	case "cursor_position":
		return fmt.Sprintf("the cursor is at %d,%d", p.X, p.Y), nil
	case "wait":
		ms := int(in.Duration * 1000)
		if ms == 0 {
			ms = 1000
		}
		if _, err := c.call(ctx, in, tool.Input{Action: "wait", Time: ms}); err != nil {
			return "", err
		}
		return fmt.Sprintf("waited %gs", float64(ms)/1000), nil
	case "screenshot":
		return "screenshot", nil
	case "zoom":
		r := in.Region
		return fmt.Sprintf("zoomed on %.0f,%.0f to %.0f,%.0f", r[0], r[1], r[2], r[3]), nil
	}
	return "", fmt.Errorf("computer action %q is not implemented", in.Action)
}

// clickAt clicks at p as b says (its button, a double click), with the
// keys in.Text names held down.
func (c *Computer) clickAt(ctx context.Context, in Input, p point, b tool.Input) (string, error) {
	b.Action, b.X, b.Y = "click", &p.X, &p.Y
	if in.Text != "" { // keys held during the click: "shift", "ctrl+shift"
		for _, m := range strings.Split(in.Text, "+") {
			name, ok := modifierNames[strings.ToLower(strings.TrimSpace(m))]
			if !ok {
				return "", fmt.Errorf("%s text %q: give the keys to hold, e.g. shift or ctrl+shift", in.Action, in.Text)
			}
			b.Modifiers = append(b.Modifiers, name)
		}
	}
	c.moveCursor(in, p)
	return c.call(ctx, in, b)
}

// tripleClick presses three times at p, in quick succession: the third
// counts as a triple click (browser.Page.MouseDown).
func (c *Computer) tripleClick(ctx context.Context, in Input, p point) (string, error) {
	x, y := xy(p)
	c.moveCursor(in, p)
	var line string
	for range 3 {
		for _, a := range []string{"mouse_down", "mouse_up"} {
			var err error
			if line, err = c.call(ctx, in, tool.Input{Action: a, X: x, Y: y}); err != nil {
				return "", err
			}
		}
	}
	return fmt.Sprintf("triple-clicked at %d,%d", p.X, p.Y) + tail(line), nil
}

// pressKeys presses the chords in.Text names, one after the other; for
// hold_key, each held down for in.Duration seconds.
func (c *Computer) pressKeys(ctx context.Context, in Input) (string, error) {
	chords, err := Chords(in.Text)
	if err != nil {
		return "", err
	}
	ms := 0
	if in.Action == "hold_key" {
		ms = max(int(in.Duration*1000), 1)
	}
	for _, k := range chords {
		if _, err := c.call(ctx, in, tool.Input{Action: "press", Key: k, Time: ms}); err != nil {
			return "", err
		}
	}
	if in.Action == "hold_key" {
		return fmt.Sprintf("held %s down for %gs", strings.Join(chords, " "), float64(ms)/1000), nil
	}
	return "pressed " + strings.Join(chords, " "), nil
}

func tail(line string) string {
	if line == "" {
		return ""
	}
	return ": " + line
}

// typeText types where the focus is; a newline is Enter, as on a
// keyboard.
func (c *Computer) typeText(ctx context.Context, in Input) (string, error) {
	for i, part := range strings.Split(in.Text, "\n") {
		if i > 0 {
			if _, err := c.call(ctx, in, tool.Input{Action: "press", Key: "Enter"}); err != nil {
				return "", err
			}
		}
		if part == "" {
			continue
		}
		if _, err := c.call(ctx, in, tool.Input{Action: "type", Text: part}); err != nil {
			return "", err
		}
	}
	return fmt.Sprintf("typed %d characters", len([]rune(in.Text))), nil
}

// screenshot puts the viewport after the action in res (zoom: the part
// of it the region names, at full resolution).
func (c *Computer) screenshot(ctx context.Context, in Input, res *Result) {
	no := false
	shot, err := c.h.Do(ctx, tool.Input{Action: "screenshot", Session: in.Session, Task: in.Task, FullPage: &no})
	if err == nil && !shot.Success {
		err = fmt.Errorf("%s", shot.Error)
	}
	if err != nil {
		res.Text = strings.TrimSpace(res.Text + " (no screenshot: " + err.Error() + ")")
		return
	}
	img := shot.Image
	if len(img) == 0 && shot.ScreenshotPath != "" {
		img, _ = os.ReadFile(shot.ScreenshotPath) // a daemon on this machine
	}
	res.ScreenshotPath, res.Image = shot.ScreenshotPath, img
	if cfg, err := png.DecodeConfig(bytes.NewReader(img)); err == nil {
		res.Width, res.Height = cfg.Width, cfg.Height
		if (cfg.Width != c.d.Width || cfg.Height != c.d.Height) && in.Action != "zoom" {
			res.Text += fmt.Sprintf(" (the screen is %d×%d, not the display's %s: the session was made at another size; use a new session for the computer tool)", cfg.Width, cfg.Height, c.d)
		}
	}
	if in.Action == "zoom" && len(img) > 0 {
		if z, w, h, err := zoom(img, in.Region, c.d); err == nil {
			res.Image, res.Width, res.Height = z, w, h
		} else {
			res.Error, res.Success = err.Error(), false
		}
	}
}

// zoom is the region [x1, y1, x2, y2] (display pixels) of a PNG taken at
// the device's full resolution, scaled up to fill the display d as far as
// its aspect allows — what a model asks zoom for is to see small things
// bigger, not the screenshot's pixels again.
func zoom(b []byte, region []float64, d Display) ([]byte, int, int, error) {
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		return nil, 0, 0, fmt.Errorf("reading the screenshot: %w", err)
	}
	f := 1.0 // device pixels per display pixel
	if d.Width > 0 {
		f = float64(img.Bounds().Dx()) / float64(d.Width)
	}
	r := image.Rect(int(region[0]*f), int(region[1]*f), int(math.Ceil(region[2]*f)), int(math.Ceil(region[3]*f))).Intersect(img.Bounds())
	if r.Empty() {
		return nil, 0, 0, fmt.Errorf("zoom region %v is outside the screen (%s)", region, d)
	}
	s := max(1, min(float64(d.Width)/float64(r.Dx()), float64(d.Height)/float64(r.Dy())))
	w, h := max(1, int(math.Round(float64(r.Dx())*s))), max(1, int(math.Round(float64(r.Dy())*s)))
	out := scaleBilinear(img, r, w, h)
	var buf bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, out); err != nil {
		return nil, 0, 0, err
	}
	return buf.Bytes(), w, h, nil
}

// scaleBilinear draws the part r of src into a new w×h image, each pixel
// mixed from the four nearest of src.
func scaleBilinear(src image.Image, r image.Rectangle, w, h int) *image.RGBA {
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	sx, sy := float64(r.Dx())/float64(w), float64(r.Dy())/float64(h)
	at := func(x, y int) (float64, float64, float64, float64) {
		x, y = min(max(x, r.Min.X), r.Max.X-1), min(max(y, r.Min.Y), r.Max.Y-1)
		cr, cg, cb, ca := src.At(x, y).RGBA()
		return float64(cr), float64(cg), float64(cb), float64(ca)
	}
	for y := range h {
		fy := (float64(y)+0.5)*sy - 0.5 + float64(r.Min.Y)
		y0 := int(math.Floor(fy))
		ty := fy - float64(y0)
		for x := range w {
			fx := (float64(x)+0.5)*sx - 0.5 + float64(r.Min.X)
			x0 := int(math.Floor(fx))
			tx := fx - float64(x0)
			r00, g00, b00, a00 := at(x0, y0)
			r10, g10, b10, a10 := at(x0+1, y0)
			r01, g01, b01, a01 := at(x0, y0+1)
			r11, g11, b11, a11 := at(x0+1, y0+1)
			mix := func(c00, c10, c01, c11 float64) uint8 {
				top := c00 + (c10-c00)*tx
				bot := c01 + (c11-c01)*tx
				return uint8((top + (bot-top)*ty) / 257)
			}
			i := out.PixOffset(x, y)
			out.Pix[i], out.Pix[i+1], out.Pix[i+2], out.Pix[i+3] = mix(r00, r10, r01, r11), mix(g00, g10, g01, g11), mix(b00, b10, b01, b11), mix(a00, a10, a01, a11)
		}
	}
	return out
}
