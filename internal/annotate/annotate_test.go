package annotate

import (
	"bytes"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"testing"
)

func blank(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(img, img.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func decode(t *testing.T, b []byte) image.Image {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return img
}

func white(c color.Color) bool {
	r, g, b, _ := c.RGBA()
	return r == 0xffff && g == 0xffff && b == 0xffff
}

// TestLabelsOutsideTheirBox: a label goes above its box's top-left corner
// and leaves the box as it was; a second box beside the first gets its
// own place; the list says each label's box.
func TestLabelsOutsideTheirBox(t *testing.T) {
	marks := []Mark{
		{Ref: "e4", Role: "button", Name: "Save", Box: image.Rect(100, 100, 180, 124)},
		{Ref: "e12", Role: "link", Name: "Home", Box: image.Rect(104, 100, 200, 124)},
	}
	out, err := Draw(blank(t, 400, 300), marks)
	if err != nil {
		t.Fatal(err)
	}
	img := decode(t, out)
	for y := 100; y < 124; y++ {
		for x := 100; x < 200; x++ {
			if !white(img.At(x, y)) {
				t.Fatalf("the label covers the box it labels at %d,%d", x, y)
			}
		}
	}
	if white(img.At(101, 95)) {
		t.Errorf("no label above e4's top-left corner")
	}
	r0, _ := place(marks[0], img.Bounds(), nil)
	r1, _ := place(marks[1], img.Bounds(), []image.Rectangle{r0})
	if r0.Overlaps(r1) {
		t.Errorf("labels overlap: %v %v", r0, r1)
	}
	if got, want := List(marks), "e4 button \"Save\" 100,100 80×24\ne12 link \"Home\" 104,100 96×24"; got != want {
		t.Errorf("list %q, want %q", got, want)
	}
}

// TestCrowdedLabelsShrink: when no place at full size is free, the label
// is drawn at half size.
func TestCrowdedLabelsShrink(t *testing.T) {
	m := Mark{Ref: "e1", Box: image.Rect(50, 50, 60, 60)}
	full, half := size("e1", 2), size("e1", 1)
	b := m.Box
	fulls := []image.Point{{b.Min.X, b.Min.Y - full.Y}, {b.Min.X, b.Max.Y}, {b.Max.X - full.X, b.Min.Y - full.Y}, {b.Min.X, b.Min.Y}}
	halves := []image.Point{{b.Min.X, b.Min.Y - half.Y}, {b.Min.X, b.Max.Y}, {b.Max.X - half.X, b.Min.Y - half.Y}, {b.Min.X, b.Min.Y}}
	// Taken: a strip of every full-size place that its half-size place
	// leaves free (neighbours' labels).
	var placed []image.Rectangle
	for i := range fulls {
		r, h := image.Rectangle{Min: fulls[i], Max: fulls[i].Add(full)}, image.Rectangle{Min: halves[i], Max: halves[i].Add(half)}
		if h.Min.X > r.Min.X {
			placed = append(placed, image.Rect(r.Min.X, r.Min.Y, h.Min.X, r.Max.Y))
		} else {
			placed = append(placed, image.Rect(h.Max.X, r.Min.Y, r.Max.X, r.Max.Y))
		}
	}
	r, s := place(m, image.Rect(0, 0, 400, 300), placed)
	if s != 1 || overlaps(r, placed) {
		t.Errorf("crowded label at scale %d in %v, overlapping %v", s, r, overlaps(r, placed))
	}
}

func TestVisible(t *testing.T) {
	got := Visible([]Mark{{Ref: "e1", Box: image.Rect(-10, -10, 20, 20)}, {Ref: "e2", Box: image.Rect(500, 500, 520, 520)}}, image.Rect(0, 0, 400, 300))
	if len(got) != 1 || got[0].Box != image.Rect(0, 0, 20, 20) {
		t.Errorf("visible %v", got)
	}
}

// TestLabelsReadable: a full-size label's text is a real font's 13 px,
// not a 5-pixel bitmap (issue 51 point 5), and its ink is inside it.
func TestLabelsReadable(t *testing.T) {
	sz := size("e12", 2)
	if sz.Y < 15 || sz.X < 25 {
		t.Fatalf("a full-size label is %v: too small to read", sz)
	}
	img := image.NewRGBA(image.Rect(0, 0, 100, 40))
	r := image.Rectangle{Min: image.Pt(10, 10), Max: image.Pt(10, 10).Add(sz)}
	label(img, r, "e12", 2)
	ink := 0
	for y := 0; y < 40; y++ {
		for x := 0; x < 100; x++ {
			c := img.RGBAAt(x, y)
			if !image.Pt(x, y).In(r) && c.A != 0 {
				t.Fatalf("the label drew outside its box at %d,%d", x, y)
			}
			if image.Pt(x, y).In(r.Inset(2)) && c.R < 100 && c.G < 100 {
				ink++
			}
		}
	}
	if ink < 40 {
		t.Fatalf("the label's text has %d dark pixels: nothing legible was drawn", ink)
	}
}
