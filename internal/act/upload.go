package act

import (
	"context"
	"errors"
	"time"

	"github.com/browserd/browserd/internal/browser"
	"github.com/browserd/browserd/internal/tool"
)

// chooserWait is how long upload waits for the file chooser a click on
// its target opens.
const chooserWait = 3 * time.Second

// Upload gives files to the file input the target stands for: the input
// itself, the control of a label, the one file input inside it (a drop
// zone) — or, for a button that opens a file picker by clicking a hidden
// input, the file chooser its click opens, answered as a person picks the
// files in it.
func (c *Tab) Upload(ctx context.Context, el browser.Elem, files []string) error {
	pg := c.Page
	m := pg.Mark(ctx)
	if input, ok := pg.FileInputOf(ctx, el); ok {
		if err := pg.SetFiles(ctx, input, files); err != nil {
			return err
		}
		return pg.Settle(ctx, m)
	}
	aim, err := pg.Aim(ctx, el, "click")
	if err != nil {
		return err
	}
	if err := pg.ChooseFiles(ctx, aim.X, aim.Y, files, chooserWait); err != nil {
		if errors.Is(err, browser.ErrNoFileChooser) {
			return tool.Fail("%s is no file input, and clicking it opened no file picker: give the ref of the file input, or of the button or drop zone that opens the picker", c.elemName())
		}
		return err
	}
	return pg.Settle(ctx, m)
}
