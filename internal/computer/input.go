// Package computer serves computer-use models — Anthropic's computer
// tool, OpenAI's computer-use actions — from browserd's sessions: each of
// their actions (a click at a point, keys by xdotool name, a scroll of
// the wheel) is translated into calls of the browser tool — clicks,
// mouse steps, keys and scrolls at points of the viewport — so that it
// goes through the engine's one path (the guard, the person gate,
// recordings, the live view, the caller's token), and every action
// answers with a screenshot of the viewport at the display's size, the
// size the model was told, and one line of what happened.
package computer

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Input is one call of the computer tool: exactly the action shape of
// Anthropic's computer_20250124 tool, with computer_20251124's zoom
// region, plus the browser tool's session and task.
type Input struct {
	Action          string    `json:"action" jsonschema:"what to do"`
	Coordinate      []float64 `json:"coordinate,omitempty" jsonschema:"[x, y] in screenshot pixels"`
	StartCoordinate []float64 `json:"start_coordinate,omitempty" jsonschema:"left_click_drag: [x, y] to start from"`
	Text            string    `json:"text,omitempty" jsonschema:"type: text; key: xdotool keys, e.g. Return, ctrl+s"`
	ScrollDirection string    `json:"scroll_direction,omitempty" jsonschema:"up, down, left or right"`
	ScrollAmount    int       `json:"scroll_amount,omitempty" jsonschema:"scroll: wheel clicks"`
	Duration        float64   `json:"duration,omitempty" jsonschema:"wait, hold_key: seconds"`
	Region          []float64 `json:"region,omitempty" jsonschema:"zoom: [x1, y1, x2, y2]"`
	Session         string    `json:"session,omitempty" jsonschema:"browser session id"`
	Task            string    `json:"task,omitempty" jsonschema:"your task name: its own tabs"`

	// scrollPixels: an OpenAI scroll, in pixels rather than wheel clicks.
	scrollPixels int
	// owner is the caller's (auth.Owner), set by Computer.Do: one
	// owner's cursor is not another's, whatever their sessions are named.
	owner string
}

// Actions are the computer tool's actions: computer_20250124's, and
// computer_20251124's zoom.
var Actions = []string{
	"key", "hold_key", "type", "cursor_position", "mouse_move", "left_mouse_down", "left_mouse_up",
	"left_click", "left_click_drag", "right_click", "middle_click", "double_click", "triple_click",
	"scroll", "wait", "screenshot", "zoom",
}

// Directions are scroll's directions.
var Directions = []string{"up", "down", "left", "right"}

// Limits of what a call may ask.
const (
	MaxCoord    = 100_000
	MaxScroll   = 100   // wheel clicks
	MaxDuration = 100.0 // seconds
	MaxText     = 1 << 20
)

// Display is the screen size the model was told: the viewport of the
// sessions the computer tool drives is set to it, so that its
// coordinates need no scaling.
type Display struct{ Width, Height int }

// DefaultDisplay is 1280×800: a size computer-use models are trained on.
var DefaultDisplay = Display{1280, 800}

func (d Display) String() string { return fmt.Sprintf("%dx%d", d.Width, d.Height) }

// ParseDisplay reads WIDTHxHEIGHT (1280x800); "" is DefaultDisplay.
func ParseDisplay(s string) (Display, error) {
	if s == "" {
		return DefaultDisplay, nil
	}
	w, h, ok := strings.Cut(strings.ToLower(strings.TrimSpace(s)), "x")
	wi, err1 := strconv.Atoi(w)
	hi, err2 := strconv.Atoi(h)
	if !ok || err1 != nil || err2 != nil || wi < 100 || hi < 100 || wi > 8192 || hi > 8192 {
		return Display{}, fmt.Errorf("display %q: give WIDTHxHEIGHT in pixels, each 100 to 8192, e.g. 1280x800", s)
	}
	return Display{wi, hi}, nil
}

// Validate checks what can be checked without a browser; the error says
// what to send instead.
func (in *Input) Validate() error {
	if !slices.Contains(Actions, in.Action) {
		return fmt.Errorf("computer action %q: use one of %s", in.Action, strings.Join(Actions, ", "))
	}
	for _, c := range [][]float64{in.Coordinate, in.StartCoordinate} {
		if c == nil {
			continue
		}
		if len(c) != 2 || !coord(c[0]) || !coord(c[1]) {
			return fmt.Errorf("%s: a coordinate is [x, y], pixels of the screenshot, 0 or more, not %v", in.Action, c)
		}
	}
	need := func(ok bool, what string) error {
		if !ok {
			return fmt.Errorf("%s needs %s", in.Action, what)
		}
		return nil
	}
	var err error
	switch in.Action {
	case "mouse_move":
		err = need(in.Coordinate != nil, `coordinate: [x, y]`)
	case "left_click_drag":
		err = need(in.Coordinate != nil, `coordinate: [x, y], where the drag ends (start_coordinate: where it starts)`)
	case "key", "hold_key", "type":
		err = need(in.Text != "", `text: `+map[string]string{"type": "what to type", "key": "keys by xdotool name, e.g. Return or ctrl+s", "hold_key": "the key to hold, e.g. shift"}[in.Action])
	case "scroll":
		err = need(slices.Contains(Directions, in.ScrollDirection), `scroll_direction: up, down, left or right`)
	case "zoom":
		r := in.Region
		err = need(len(r) == 4 && coord(r[0]) && coord(r[1]) && coord(r[2]) && coord(r[3]) && r[2] > r[0] && r[3] > r[1], `region: [x1, y1, x2, y2], the top-left and bottom-right corners of a part of the screen`)
	}
	if err != nil {
		return err
	}
	if in.ScrollAmount < 0 || in.ScrollAmount > MaxScroll {
		return fmt.Errorf("scroll_amount is wheel clicks, 0 to %d", MaxScroll)
	}
	if !(in.Duration >= 0 && in.Duration <= MaxDuration) {
		return fmt.Errorf("duration is seconds, 0 to %v", MaxDuration)
	}
	if len(in.Text) > MaxText {
		return fmt.Errorf("text is at most %d bytes", MaxText)
	}
	return nil
}

func coord(v float64) bool { return v >= 0 && v <= MaxCoord && !math.IsNaN(v) }

// point is a coordinate rounded to whole pixels.
type point struct{ X, Y int }

func pointOf(c []float64) point {
	return point{int(math.Round(c[0])), int(math.Round(c[1]))}
}

// Decode reads a request body of POST /api/computer: an Anthropic
// computer action ({"action": "left_click", "coordinate": [x, y]}), or
// an OpenAI computer-use action, flat ({"type": "click", "x": …}) or as
// a computer_call's action ({"action": {"type": "click", …}}), with
// session and task beside it. An OpenAI action may become several
// (a drag along a path).
func Decode(body []byte) ([]Input, error) {
	var probe struct {
		Action  json.RawMessage `json:"action"`
		Type    string          `json:"type"`
		Session string          `json:"session"`
		Task    string          `json:"task"`
	}
	if err := json.Unmarshal(body, &probe); err != nil {
		return nil, fmt.Errorf("the body is not a computer action: %v", err)
	}
	switch {
	case probe.Type != "":
		return fromOpenAI(body, probe.Session, probe.Task)
	case len(probe.Action) > 0 && probe.Action[0] == '{':
		return fromOpenAI(probe.Action, probe.Session, probe.Task)
	}
	var in Input
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return nil, fmt.Errorf("the body is not a computer action (Anthropic's {\"action\":\"left_click\",\"coordinate\":[x,y]} or OpenAI's {\"type\":\"click\",\"x\":…,\"y\":…}): %v", err)
	}
	return []Input{in}, nil
}

// openAIAction is an OpenAI computer-use action.
type openAIAction struct {
	Type   string   `json:"type"`
	X      *float64 `json:"x"`
	Y      *float64 `json:"y"`
	Button string   `json:"button"`
	Path   []struct {
		X float64 `json:"x"`
		Y float64 `json:"y"`
	} `json:"path"`
	Keys    []string `json:"keys"`
	ScrollX float64  `json:"scroll_x"`
	ScrollY float64  `json:"scroll_y"`
	Text    string   `json:"text"`
	Ms      float64  `json:"ms"`
}

// fromOpenAI translates an OpenAI computer-use action.
func fromOpenAI(raw []byte, session, task string) ([]Input, error) {
	var a openAIAction
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, fmt.Errorf("the OpenAI computer action is not valid: %v", err)
	}
	base := Input{Session: session, Task: task}
	at := func(action string) ([]Input, error) {
		if a.X == nil || a.Y == nil {
			return nil, fmt.Errorf("OpenAI %s needs x and y", a.Type)
		}
		in := base
		in.Action, in.Coordinate = action, []float64{*a.X, *a.Y}
		return []Input{in}, nil
	}
	switch a.Type {
	case "click":
		switch a.Button {
		case "", "left":
			return at("left_click")
		case "right":
			return at("right_click")
		case "wheel", "middle":
			return at("middle_click")
		}
		return nil, fmt.Errorf("OpenAI click button %q: browserd clicks left, right and wheel (middle); for back and forward use the browser tool's back and forward", a.Button)
	case "double_click":
		return at("double_click")
	case "move":
		return at("mouse_move")
	case "drag":
		return openAIDrag(a, base)
	case "keypress":
		if len(a.Keys) == 0 {
			return nil, fmt.Errorf("OpenAI keypress needs keys, e.g. [\"CTRL\", \"S\"]")
		}
		keys := slices.Clone(a.Keys)
		for i, k := range keys {
			if len(k) == 1 { // OpenAI writes letters in capitals: CTRL+S is ctrl+s
				keys[i] = strings.ToLower(k)
			}
		}
		in := base
		in.Action, in.Text = "key", strings.Join(keys, "+")
		return []Input{in}, nil
	case "scroll":
		return openAIScroll(a, at)
	case "type":
		in := base
		in.Action, in.Text = "type", a.Text
		return []Input{in}, nil
	case "wait":
		in := base
		in.Action, in.Duration = "wait", 1
		if a.Ms > 0 {
			in.Duration = math.Min(a.Ms/1000, MaxDuration)
		}
		return []Input{in}, nil
	case "screenshot":
		in := base
		in.Action = "screenshot"
		return []Input{in}, nil
	}
	return nil, fmt.Errorf("OpenAI computer action %q: browserd takes click, double_click, drag, keypress, move, scroll, type, wait and screenshot", a.Type)
}

// openAIDrag is an OpenAI drag along its path: the left button pressed at
// its first point, moved through the others, released at the last.
func openAIDrag(a openAIAction, base Input) ([]Input, error) {
	if len(a.Path) < 2 || len(a.Path) > 1000 {
		return nil, fmt.Errorf("OpenAI drag needs a path of 2 to 1000 points, {x, y} each")
	}
	var out []Input
	for i, p := range a.Path {
		in := base
		in.Coordinate = []float64{p.X, p.Y}
		switch i {
		case 0:
			in.Action = "left_mouse_down"
		case len(a.Path) - 1:
			out = append(out, Input{Action: "mouse_move", Coordinate: in.Coordinate, Session: base.Session, Task: base.Task})
			in.Action = "left_mouse_up"
		default:
			in.Action = "mouse_move"
		}
		out = append(out, in)
	}
	return out, nil
}

// openAIScroll is an OpenAI scroll at its point: one scroll a direction
// it moves in (at is the action at the point), or, moving nowhere, the
// mouse moved there.
func openAIScroll(a openAIAction, at func(string) ([]Input, error)) ([]Input, error) {
	var out []Input
	for _, s := range []struct {
		d        float64
		pos, neg string
	}{{a.ScrollY, "down", "up"}, {a.ScrollX, "right", "left"}} {
		if s.d == 0 {
			continue
		}
		in, err := at("scroll")
		if err != nil {
			return nil, err
		}
		in[0].ScrollDirection = s.pos
		if s.d < 0 {
			in[0].ScrollDirection = s.neg
		}
		in[0].scrollPixels = int(math.Min(math.Abs(s.d), 1_000_000))
		out = append(out, in[0])
	}
	if len(out) == 0 {
		return at("mouse_move") // a scroll of nothing: the mouse goes there
	}
	return out, nil
}
