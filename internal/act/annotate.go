package act

import (
	"context"
	"regexp"

	"github.com/browserd/browserd/internal/annotate"
	"github.com/browserd/browserd/internal/browser"
	"github.com/browserd/browserd/internal/tool"
)

// refInText finds the refs of a snapshot's lines ([ref=e3] or [ref=e3,
// value="…"]).
var refInText = regexp.MustCompile(`\[ref=(e\d+)[,\]]`)

// Annotated is screenshot's annotate: the viewport with the refs of a
// fresh snapshot's actionable elements drawn on it (internal/annotate),
// and the list of the labels drawn.
func (c *Tab) Annotated(ctx context.Context) ([]byte, string, error) {
	if c.Snap == nil {
		return nil, "", tool.Fail("annotate needs the task's snapshot of the tab")
	}
	text, err := c.Snap(ctx)
	if err != nil {
		return nil, "", err
	}
	var marks []annotate.Mark
	var els []browser.Elem
	for _, m := range refInText.FindAllStringSubmatch(text, -1) {
		el, err := c.Refs.Elem(m[1])
		if err != nil {
			continue
		}
		role, name := c.Refs.ShownOf(m[1]) // the snapshot's words
		marks, els = append(marks, annotate.Mark{Ref: m[1], Role: role, Name: name}), append(els, el)
	}
	return annotate.Shot(ctx, c.Page, marks, els)
}
