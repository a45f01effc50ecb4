package recording

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"math"
)

// A step the agent took at a point of the viewport (x, y: a click, a
// mouse press, a computer-use action) shows that point on its frame: a
// ring around it and a dot at its middle, so a person reading the
// recording sees where the agent aimed, not only what the page became.

// pointOf is the viewport point (CSS pixels) a step's arguments name.
func pointOf(args map[string]any) (x, y float64, ok bool) {
	x, okx := args["x"].(float64)
	y, oky := args["y"].(float64)
	return x, y, okx && oky
}

// viewporter is what marking a frame needs of its tab.
type viewporter interface {
	Viewport(ctx context.Context) (w, h float64, err error)
}

// markFrame draws the point (x, y), in CSS pixels of pg's viewport, on
// the JPEG frame; the frame as it was when its size or the viewport's
// cannot be read.
func markFrame(ctx context.Context, pg viewporter, frame []byte, x, y float64, quality int) []byte {
	vw, _, err := pg.Viewport(ctx)
	if err != nil || vw <= 0 {
		return frame
	}
	src, err := jpeg.Decode(bytes.NewReader(frame))
	if err != nil {
		return frame
	}
	b := src.Bounds()
	img := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(img, img.Bounds(), src, b.Min, draw.Src)
	k := float64(b.Dx()) / vw
	drawMark(img, x*k, y*k)
	var buf bytes.Buffer
	if jpeg.Encode(&buf, img, &jpeg.Options{Quality: quality}) != nil {
		return frame
	}
	return buf.Bytes()
}

// markColor is the ring's: a red that stands out on most pages.
var markColor = color.RGBA{R: 230, G: 20, B: 60, A: 255}

// drawMark draws a ring of radius 10 and width 3 around (cx, cy), and a
// dot of radius 2.5 at it, clipped to img.
func drawMark(img *image.RGBA, cx, cy float64) {
	const outer, inner, dot = 10.0, 7.0, 2.5
	for py := int(cy - outer - 1); py <= int(cy+outer+1); py++ {
		for px := int(cx - outer - 1); px <= int(cx+outer+1); px++ {
			if !(image.Point{px, py}.In(img.Rect)) {
				continue
			}
			d := math.Hypot(float64(px)+0.5-cx, float64(py)+0.5-cy)
			if (d <= outer && d >= inner) || d <= dot {
				img.SetRGBA(px, py, markColor)
			}
		}
	}
}
