//go:build linux

package e2e

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/browserd/browserd/internal/tool"
)

// A coordinates-only agent on the third-party corpus (issue 37): each
// click, hover, type and drag goes to a point, found as a model finds it
// in the image — the label of the element's ref on an annotated
// screenshot, whose box the answer lists — never to a ref. What it cannot
// do with a point (select an option by value, press a key on an element,
// scroll an element, upload, read) it does as the ref agent does.

// pointTool is browserdTool with the pointer actions at points.
type pointTool struct {
	browserdTool
	points int // actions sent at a point
}

func (p *pointTool) name() string { return "browserd (points)" }

// labelLine is one line of an annotated screenshot's list of labels.
var labelLine = regexp.MustCompile(`(?m)^(e\d+) .* (\d+),(\d+) (\d+)×(\d+)$`)

// pointOf is the middle of ref's label box on an annotated screenshot of
// the viewport; a ref not on it is looked for further down the page,
// with the wheel, as a person scrolls to find it.
func (p *pointTool) pointOf(ref string) (x, y int, err error) {
	no := false
	for range 4 {
		r := p.d.do(p.t, tool.Input{Action: "screenshot", Task: p.task, Annotate: true, FullPage: &no})
		if !r.Success {
			return 0, 0, fmt.Errorf("annotated screenshot: %s", r.Error)
		}
		for _, m := range labelLine.FindAllStringSubmatch(r.Content, -1) {
			if m[1] != ref {
				continue
			}
			n := func(i int) int { v, _ := strconv.Atoi(m[i]); return v }
			return n(2) + n(4)/2, n(3) + n(5)/2, nil
		}
		if s := p.d.do(p.t, tool.Input{Action: "scroll", Task: p.task, Direction: "down", Snapshot: &no}); !s.Success {
			break
		}
	}
	return 0, 0, fmt.Errorf("%s is on no annotated screenshot of the page", ref)
}

func (p *pointTool) at(in tool.Input, ref string) (string, error) {
	x, y, err := p.pointOf(ref)
	if err != nil {
		return "", err
	}
	p.points++
	in.X, in.Y = &x, &y
	return p.do(in)
}

func (p *pointTool) click(ref string, o clickOpts) (string, error) {
	return p.at(tool.Input{Action: "click", Double: o.double, Button: o.button, Modifiers: o.modifiers}, ref)
}
func (p *pointTool) hover(ref string) (string, error) {
	return p.at(tool.Input{Action: "hover"}, ref)
}
func (p *pointTool) typeText(ref, text string, clear, submit bool) (string, error) {
	return p.at(tool.Input{Action: "type", Text: text, Clear: clear, Submit: submit}, ref)
}
func (p *pointTool) drag(ref, to string) (string, error) {
	in := tool.Input{Action: "drag", To: to}
	if tool.LooksLikeRef(to) {
		x, y, err := p.pointOf(to)
		if err != nil {
			return "", err
		}
		in.To = fmt.Sprintf("%d,%d", x, y)
	}
	return p.at(in, ref)
}

// TestConformanceThirdPartyPoints drives the third-party corpus with the
// coordinates-only agent, for docs/conformance.md (make conformance-peers:
// about 4 minutes, kept out of make test's budget); it fails only when it
// finishes far fewer tasks than when the document was written (119).
func TestConformanceThirdPartyPoints(t *testing.T) {
	if os.Getenv("BROWSERD_CONFORMANCE_POINTS") == "" {
		t.Skip("the coordinates-only agent's figures: BROWSERD_CONFORMANCE_POINTS=1 (make conformance-peers)")
	}
	ensureThirdParty(t)
	d := newMCPDriver(t)
	tools := map[int]*pointTool{}
	res := runThirdParty(tpParallel, func(i int) confTool {
		pt := &pointTool{browserdTool: browserdTool{t: t, d: d, task: fmt.Sprintf("tpp%d", i)}}
		tools[i] = pt
		return pt
	})
	passed, points := 0, 0
	var failed []string
	for i, c := range tpTasks {
		r, ran := res[c.key()]
		if !ran {
			continue
		}
		if tl := tools[i]; tl != nil {
			points += tl.points
		}
		if r.pass {
			passed++
		} else {
			failed = append(failed, fmt.Sprintf("%s (%s): %v", c.key(), c.lib, r.err))
		}
	}
	t.Logf("the coordinates-only agent finished %d of %d third-party tasks, with %d actions at points; not finished:\n%s", passed, len(res), points, strings.Join(failed, "\n"))
	writeThirdParty(t, "browserd-points", res)
	if len(res) == len(tpTasks) && passed < 110 {
		t.Errorf("the coordinates-only agent finished %d tasks, 119 when docs/conformance.md was written", passed)
	}
}
