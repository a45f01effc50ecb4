package browser

import (
	"bytes"
	"fmt"
	"image"
	"image/jpeg"
)

// shrinkJPEG makes a JPEG at most width pixels wide, shrinking it by the
// smallest whole factor that does (each pixel the mean of a k×k block),
// and encodes it at quality q. One that is narrow enough is kept as is.
func shrinkJPEG(b []byte, width, q int) ([]byte, error) {
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("reading the capture: %w", err)
	}
	if width <= 0 || cfg.Width <= width {
		return b, nil
	}
	img, err := jpeg.Decode(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("reading the capture: %w", err)
	}
	k := (cfg.Width + width - 1) / width
	var out image.Image
	if y, ok := img.(*image.YCbCr); ok {
		out = shrinkYCbCr(y, k)
	} else {
		out = shrinkAny(img, k)
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, out, &jpeg.Options{Quality: q}); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// shrinkYCbCr averages k×k blocks of each plane (JPEG's own layout: no
// conversion to RGB).
func shrinkYCbCr(src *image.YCbCr, k int) *image.YCbCr {
	b := src.Rect
	w, h := b.Dx()/k, b.Dy()/k
	dst := image.NewYCbCr(image.Rect(0, 0, w, h), src.SubsampleRatio)
	plane(dst.Y, dst.YStride, w, h, src.Y, src.YStride, k)
	cw, ch := chromaSize(w, h, src.SubsampleRatio)
	plane(dst.Cb, dst.CStride, cw, ch, src.Cb, src.CStride, k)
	plane(dst.Cr, dst.CStride, cw, ch, src.Cr, src.CStride, k)
	return dst
}

func chromaSize(w, h int, r image.YCbCrSubsampleRatio) (int, int) {
	switch r {
	case image.YCbCrSubsampleRatio422:
		return (w + 1) / 2, h
	case image.YCbCrSubsampleRatio420:
		return (w + 1) / 2, (h + 1) / 2
	case image.YCbCrSubsampleRatio440:
		return w, (h + 1) / 2
	case image.YCbCrSubsampleRatio411:
		return (w + 3) / 4, h
	case image.YCbCrSubsampleRatio410:
		return (w + 3) / 4, (h + 1) / 2
	}
	return w, h
}

// plane writes a w×h plane of means of k×k blocks of src, whose rows are
// long enough (the source's plane is k times larger, less rounding).
func plane(dst []byte, dstride, w, h int, src []byte, sstride, k int) {
	rows := len(src) / sstride
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			sum, n := 0, 0
			for dy := 0; dy < k && y*k+dy < rows; dy++ {
				row := src[(y*k+dy)*sstride:]
				for dx := 0; dx < k && x*k+dx < sstride; dx++ {
					sum += int(row[x*k+dx])
					n++
				}
			}
			if n > 0 {
				dst[y*dstride+x] = byte(sum / n)
			}
		}
	}
}

// shrinkAny shrinks any other image by taking every k-th pixel.
func shrinkAny(src image.Image, k int) image.Image {
	b := src.Bounds()
	dst := image.NewRGBA(image.Rect(0, 0, b.Dx()/k, b.Dy()/k))
	for y := 0; y < dst.Rect.Dy(); y++ {
		for x := 0; x < dst.Rect.Dx(); x++ {
			dst.Set(x, y, src.At(b.Min.X+x*k, b.Min.Y+y*k))
		}
	}
	return dst
}
