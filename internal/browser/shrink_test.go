package browser

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"testing"
)

func TestShrinkJPEG(t *testing.T) {
	src := image.NewRGBA(image.Rect(0, 0, 1280, 720))
	for y := range 720 {
		for x := range 1280 {
			src.Set(x, y, color.RGBA{uint8(x), uint8(y), 100, 255})
		}
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, src, &jpeg.Options{Quality: 80}); err != nil {
		t.Fatal(err)
	}
	out, err := shrinkJPEG(buf.Bytes(), 640, 50)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(out))
	if err != nil || cfg.Width != 640 || cfg.Height != 360 {
		t.Fatalf("shrunk to %dx%d (%v), want 640x360", cfg.Width, cfg.Height, err)
	}
	if len(out) >= buf.Len() {
		t.Errorf("the thumbnail (%d B) is not smaller than the capture (%d B)", len(out), buf.Len())
	}
	if same, _ := shrinkJPEG(out, 640, 50); !bytes.Equal(same, out) {
		t.Error("a narrow enough JPEG was re-encoded")
	}
}
