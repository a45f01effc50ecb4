package annotate

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"math"

	"github.com/browserd/browserd/internal/browser"
)

// Shot is pg's viewport with marks drawn on it — els are their elements,
// whose boxes are read now and put in the image's pixels (a device pixel
// ratio other than 1 scales them) — and the list of the labels drawn:
// those of the elements that show in the viewport.
func Shot(ctx context.Context, pg *browser.Page, marks []Mark, els []browser.Elem) ([]byte, string, error) {
	boxes := pg.Clipped(ctx, els, pg.Boxes(ctx, els))
	vw, _, err := pg.Viewport(ctx)
	if err != nil {
		return nil, "", err
	}
	shot, err := pg.Screenshot(ctx, false, nil)
	if err != nil {
		return nil, "", err
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(shot))
	if err != nil {
		return nil, "", fmt.Errorf("reading the screenshot: %w", err)
	}
	scale := 1.0
	if vw > 0 {
		scale = float64(cfg.Width) / vw
	}
	for i := range marks {
		b := boxes[i]
		marks[i].Box = image.Rect(int(math.Floor(b.X*scale)), int(math.Floor(b.Y*scale)), int(math.Ceil((b.X+b.W)*scale)), int(math.Ceil((b.Y+b.H)*scale)))
	}
	marks = Visible(marks, image.Rect(0, 0, cfg.Width, cfg.Height))
	out, err := Draw(shot, marks)
	if err != nil {
		return nil, "", err
	}
	if len(marks) == 0 {
		return out, "no actionable element shows in the viewport", nil
	}
	return out, fmt.Sprintf("%d labels (ref role \"name\" x,y w×h in the image's pixels):\n%s", len(marks), List(marks)), nil
}
