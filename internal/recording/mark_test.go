package recording

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"testing"
)

type fixedViewport float64

func (v fixedViewport) Viewport(context.Context) (float64, float64, error) {
	return float64(v), float64(v) * 10 / 16, nil
}

// TestMarkFrame: a step at a point of a 1280 px viewport shows the point
// on its 640 px frame, scaled: red on the ring around it, the page's own
// colour between the ring and the dot, nothing moved elsewhere.
func TestMarkFrame(t *testing.T) {
	white := image.NewRGBA(image.Rect(0, 0, 640, 400))
	draw.Draw(white, white.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, white, &jpeg.Options{Quality: 90}); err != nil {
		t.Fatal(err)
	}
	out := markFrame(t.Context(), fixedViewport(1280), buf.Bytes(), 640, 400, 90)
	img, err := jpeg.Decode(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	red := func(x, y int) bool {
		r, g, b, _ := img.At(x, y).RGBA()
		return r>>8 > 150 && g>>8 < 120 && b>>8 < 150
	}
	for _, p := range []image.Point{{328, 200}, {311, 200}, {320, 191}, {320, 208}, {320, 200}} {
		if !red(p.X, p.Y) {
			t.Errorf("no mark at %v: %v", p, img.At(p.X, p.Y))
		}
	}
	for _, p := range []image.Point{{324, 200}, {100, 100}, {345, 200}} {
		if red(p.X, p.Y) {
			t.Errorf("a mark at %v, off the ring", p)
		}
	}
	if x, y, ok := pointOf(map[string]any{"x": 640.0, "y": 400.0, "ref": "e1"}); !ok || x != 640 || y != 400 {
		t.Errorf("pointOf = %v, %v, %v", x, y, ok)
	}
	if _, _, ok := pointOf(map[string]any{"ref": "e1"}); ok {
		t.Error("a step at a ref has a point")
	}
}
