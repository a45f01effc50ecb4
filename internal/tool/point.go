package tool

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
)

// Points: click, hover, drag, scroll, type and the mouse actions take x
// and y, a point of the viewport in CSS pixels — the pixels of a
// screenshot with fullPage false — in place of a target, for an agent
// that works from a screenshot (a canvas has no refs).

// PointActions are the actions that take x and y.
var PointActions = []string{"click", "hover", "drag", "scroll", "type", "mouse_move", "mouse_down", "mouse_up"}

// MaxCoord bounds x and y (the largest viewport is 8192 pixels).
const MaxCoord = 100_000

// Pointed reports whether the input names a point (x and y).
func (in *Input) Pointed() bool { return in.X != nil && in.Y != nil }

// checkPoint checks x and y: both or neither, not negative, and only on
// an action that takes a point.
func (in *Input) checkPoint() error {
	if in.Annotate && in.Action != "screenshot" {
		return fmt.Errorf("annotate is for screenshot: it labels the viewport's actionable elements with their refs")
	}
	if in.X == nil && in.Y == nil {
		return nil
	}
	if !in.Pointed() {
		return fmt.Errorf("x and y go together: a point of the viewport in CSS pixels, e.g. {\"action\":\"click\",\"x\":480,\"y\":240}")
	}
	if !slices.Contains(PointActions, in.Action) {
		return fmt.Errorf("x and y are a point for %s; %s takes none", joinOr(PointActions), in.Action)
	}
	if *in.X < 0 || *in.Y < 0 || *in.X > MaxCoord || *in.Y > MaxCoord {
		return fmt.Errorf("x and y are CSS pixels of the viewport, 0 or more, not %d,%d", *in.X, *in.Y)
	}
	if in.Selector != "" || in.Role != "" {
		return fmt.Errorf("%s takes a point (x, y) or a target (ref, role+name, selector), not both; a ref with a point is the element you expect there", in.Action)
	}
	return nil
}

// needTargetOrPoint checks that an action names an element or a point.
func (in *Input) needTargetOrPoint() error {
	if in.Pointed() {
		return nil
	}
	if in.Ref == "" && in.Selector == "" && in.Role == "" {
		return fmt.Errorf("%s needs a target: ref (from snapshot), role+name, selector, or a point (x, y)", in.Action)
	}
	return nil
}

func (in *Input) checkMouse() error {
	if !in.Pointed() {
		return fmt.Errorf("%s needs x and y: the point of the viewport in CSS pixels, e.g. {\"action\":%q,\"x\":480,\"y\":240}", in.Action, in.Action)
	}
	return in.checkButtons()
}

// dragPoint is drag's to written as a point of the viewport: "480,240".
var dragPoint = regexp.MustCompile(`^\s*(\d{1,6})\s*,\s*(\d{1,6})\s*$`)

// DragPoint parses drag's to as a point of the viewport in CSS pixels
// ("480,240", no sign: "+120,0" is an offset); ok is false otherwise.
func DragPoint(to string) (x, y int, ok bool) {
	m := dragPoint.FindStringSubmatch(to)
	if m == nil {
		return 0, 0, false
	}
	x, _ = strconv.Atoi(m[1])
	y, _ = strconv.Atoi(m[2])
	return x, y, true
}

func joinOr(s []string) string {
	if len(s) < 2 {
		return fmt.Sprint(s)
	}
	out := ""
	for i, a := range s[:len(s)-1] {
		if i > 0 {
			out += ", "
		}
		out += a
	}
	return out + " and " + s[len(s)-1]
}
