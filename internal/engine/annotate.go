package engine

import (
	"context"
	"regexp"

	"github.com/browserd/browserd/internal/annotate"
	"github.com/browserd/browserd/internal/browser"
	"github.com/browserd/browserd/internal/snapshot"
)

// refInText finds the refs of a snapshot's lines.
var refInText = regexp.MustCompile(`\[ref=(e\d+)[,\]]`)

// annotated is screenshot's annotate: the viewport with the refs of a
// fresh snapshot's actionable elements drawn on it (internal/annotate),
// and their list.
func (c *call) annotated(ctx context.Context) ([]byte, string, error) {
	text, err := c.snapshot(ctx, snapshot.Options{Interactive: true})
	if err != nil {
		return nil, "", err
	}
	var marks []annotate.Mark
	var els []browser.Elem
	refs := c.task.Sess.Refs
	for _, m := range refInText.FindAllStringSubmatch(text, -1) {
		el, err := c.refElem(m[1])
		if err != nil {
			continue
		}
		role, name, _ := refs.LabelOf(m[1])
		marks, els = append(marks, annotate.Mark{Ref: m[1], Role: role, Name: name}), append(els, el)
	}
	return annotate.Shot(ctx, c.tab.Page, marks, els)
}
