package act

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/browserd/browserd/internal/browser"
	"github.com/browserd/browserd/internal/tool"
)

// Screenshot saves a PNG of the tab at path: its whole page unless the
// input asks for the viewport (fullPage false), the element the input
// names, or — annotate — the viewport with its refs drawn on.
func (c *Tab) Screenshot(ctx context.Context, path string) error {
	var el *browser.Elem
	if c.In.Ref != "" || c.In.Selector != "" || c.In.Role != "" {
		x, err := c.Target(ctx)
		if err != nil {
			return err
		}
		el = &x
	}
	png, list, err := []byte(nil), "", error(nil)
	if c.In.Annotate {
		png, list, err = c.Annotated(ctx)
	} else {
		png, err = c.Page.Screenshot(ctx, c.In.FullPage == nil || *c.In.FullPage, el)
	}
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, png, 0o600); err != nil {
		return fmt.Errorf("saving screenshot: %w", err)
	}
	c.Res.ScreenshotPath = path
	c.Res.Image = png
	c.Res.Content = fmt.Sprintf("screenshot saved to %s (%d bytes)", path, len(png))
	if list != "" {
		c.Res.Content += "\n\n" + list
	}
	return nil
}

// PDF saves the page as PDF at path.
func (c *Tab) PDF(ctx context.Context, path string) error {
	b, err := c.Page.PDF(ctx)
	if err != nil {
		if strings.Contains(err.Error(), "PrintToPDF is not implemented") {
			return tool.Fail("pdf needs a headless browser; this one is headed")
		}
		return err
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		return fmt.Errorf("saving pdf: %w", err)
	}
	c.Res.Path = path
	c.Res.Content = fmt.Sprintf("pdf saved to %s (%d bytes)", path, len(b))
	return nil
}
