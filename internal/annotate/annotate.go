// Package annotate labels a screenshot with refs (Set-of-Mark): each
// actionable element of the viewport gets its ref (e12) drawn as a small
// label at a corner of its box, outside the box where there is room, so
// that a model working from the image can name what it sees by the same
// refs a snapshot gives — and the list of labels (ref, role, name, box in
// the image's pixels) says the same in text.
//
// The labels are drawn in Go on the captured PNG, in Go's own bold
// monospaced font (golang.org/x/image's gofont, 13 px, 9 px where labels
// crowd): nothing is injected into the page, so the page cannot see, move
// or hide them.
package annotate

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"strings"
	"sync"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gomonobold"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
)

// Mark is one element to label: its ref, role and name (from the
// snapshot) and its box in the image's pixels.
type Mark struct {
	Ref, Role, Name string
	Box             image.Rectangle
}

// Line is how the answer lists the mark: ref, role, name, box x,y w×h.
func (m Mark) Line() string {
	name := ""
	if m.Name != "" {
		name = fmt.Sprintf(" %q", truncate(m.Name, 80))
	}
	b := m.Box
	return fmt.Sprintf("%s %s%s %d,%d %d×%d", m.Ref, m.Role, name, b.Min.X, b.Min.Y, b.Dx(), b.Dy())
}

func truncate(s string, n int) string {
	r := []rune(strings.Join(strings.Fields(s), " "))
	if len(r) <= n {
		return string(r)
	}
	return string(r[:n-1]) + "…"
}

// Visible keeps the marks whose box shows in an image of size bounds
// (clipped to it), at least 2×2 pixels of it.
func Visible(marks []Mark, bounds image.Rectangle) []Mark {
	var out []Mark
	for _, m := range marks {
		m.Box = m.Box.Intersect(bounds)
		if m.Box.Dx() >= 2 && m.Box.Dy() >= 2 {
			out = append(out, m)
		}
	}
	return out
}

// Draw draws each mark's ref on the PNG and returns the new PNG. A label
// goes at a corner of its box — above its top-left corner when there is
// room, else below its bottom-left, above its top-right, inside its
// top-left — the first place that overlaps no label drawn yet; when
// every place does (a crowded toolbar) it is drawn at half size, and
// failing that at the first place.
func Draw(src []byte, marks []Mark) ([]byte, error) {
	img, err := png.Decode(bytes.NewReader(src))
	if err != nil {
		return nil, fmt.Errorf("reading the screenshot: %w", err)
	}
	canvas := image.NewRGBA(img.Bounds())
	draw.Draw(canvas, canvas.Bounds(), img, img.Bounds().Min, draw.Src)
	var placed []image.Rectangle
	for _, m := range marks {
		r, scale := place(m, canvas.Bounds(), placed)
		placed = append(placed, r)
		label(canvas, r, m.Ref, scale)
	}
	var out bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&out, canvas); err != nil {
		return nil, fmt.Errorf("writing the annotated screenshot: %w", err)
	}
	return out.Bytes(), nil
}

// faces are the label font at scale 1 and 2 (9 and 13 px), parsed once.
var faces = sync.OnceValue(func() [3]font.Face {
	var out [3]font.Face
	f, err := opentype.Parse(gomonobold.TTF)
	if err != nil {
		panic(fmt.Sprintf("annotate: Go's own font does not parse: %v", err)) // it is compiled in
	}
	for s, px := range map[int]float64{1: 9, 2: 13} {
		face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: px, DPI: 72, Hinting: font.HintingFull})
		if err != nil {
			panic(fmt.Sprintf("annotate: Go's own font at %v px: %v", px, err))
		}
		out[s] = face
	}
	return out
})

// size is a label's size at scale s (1 or 2): the text in the face of
// that scale, with s+1 pixels of padding and a border around.
func size(text string, s int) image.Point {
	face := faces()[s]
	m := face.Metrics()
	w := font.MeasureString(face, text).Ceil()
	return image.Pt(w+2*(s+1)+2, (m.Ascent+m.Descent).Ceil()+2*s+2)
}

// place picks where m's label goes (see Draw).
func place(m Mark, bounds image.Rectangle, placed []image.Rectangle) (image.Rectangle, int) {
	b := m.Box
	var first image.Rectangle
	for _, s := range []int{2, 1} {
		sz := size(m.Ref, s)
		for i, at := range []image.Point{
			{b.Min.X, b.Min.Y - sz.Y},        // above, left
			{b.Min.X, b.Max.Y},               // below, left
			{b.Max.X - sz.X, b.Min.Y - sz.Y}, // above, right
			{b.Min.X, b.Min.Y},               // inside, top left
		} {
			r := image.Rectangle{Min: at, Max: at.Add(sz)}
			if !r.In(bounds) {
				continue
			}
			if s == 2 && i == 0 || first.Empty() {
				first = r
			}
			if !overlaps(r, placed) {
				return r, s
			}
		}
	}
	if first.Empty() {
		sz := size(m.Ref, 1)
		at := b.Min
		first = image.Rectangle{Min: at, Max: at.Add(sz)}.Intersect(bounds)
	}
	if first.Dy() >= size(m.Ref, 2).Y {
		return first, 2
	}
	return first, 1
}

func overlaps(r image.Rectangle, placed []image.Rectangle) bool {
	for _, p := range placed {
		if r.Overlaps(p) {
			return true
		}
	}
	return false
}

var (
	labelBG     = color.RGBA{255, 214, 0, 255} // yellow: seen on light and dark pages
	labelBorder = color.RGBA{0, 0, 0, 255}
	labelText   = color.RGBA{0, 0, 0, 255}
)

// label draws text in r at scale s.
func label(img *image.RGBA, r image.Rectangle, text string, s int) {
	draw.Draw(img, r, image.NewUniform(labelBorder), image.Point{}, draw.Src)
	draw.Draw(img, r.Inset(1), image.NewUniform(labelBG), image.Point{}, draw.Src)
	face := faces()[s]
	d := font.Drawer{Dst: subImage(img, r.Inset(1)), Src: image.NewUniform(labelText), Face: face,
		Dot: fixed.P(r.Min.X+1+(s+1), r.Min.Y+1+s+face.Metrics().Ascent.Ceil())}
	d.DrawString(text)
}

// subImage is the part r of img, for drawing that must not spill out.
func subImage(img *image.RGBA, r image.Rectangle) *image.RGBA {
	return img.SubImage(r).(*image.RGBA)
}

// List is the answer's list of labels, a line each.
func List(marks []Mark) string {
	var b strings.Builder
	for _, m := range marks {
		b.WriteString(m.Line())
		b.WriteByte('\n')
	}
	return strings.TrimRight(b.String(), "\n")
}
