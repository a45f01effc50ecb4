package redact

import (
	"html"
	"sync"
	"unicode/utf8"
)

// view is a text as runes, each with the bytes [start, end) of the
// original text it stands for: the text itself (rawView), or the text
// with one layer of escapes decoded (decode), so a run found in a view is
// replaced in the text whole, escapes and all. A space is kept as +, as
// in secrets' patterns: URL escaping writes one for the other, and a +
// can be either.
type view struct {
	r          []rune
	start, end []int32
	// escapes: a rune may begin an escape (% \ &), so decoding may
	// change the view; at are those runes' indexes.
	escapes bool
	at      []int32
	fold    []rune // r folded, made on first use
}

// gap stands between the parts of a decoded view that are kept: no
// secret's window holds it.
const gap rune = -1

// around is how many runes around an escape a decoded view keeps: a
// window that holds a decoded rune (up to 6 runes), and at the next level
// an escape that holds one (up to 34: &CounterClockwiseContourIntegral;).
const around = 40

var views = sync.Pool{New: func() any { return new(view) }}

// rawView is s as a view (put it back with free). A text of 1 GiB or more
// is not read: its offsets would not fit.
func rawView(s string) *view {
	v := views.Get().(*view)
	v.reset(len(s))
	for i := 0; i < len(s); {
		c, size := rune(s[i]), 1
		if c >= utf8.RuneSelf {
			c, size = utf8.DecodeRuneInString(s[i:])
		} else if c == '%' || c == '\\' || c == '&' {
			v.escapes = true
			v.at = append(v.at, int32(len(v.r)))
		} else if c == ' ' {
			c = '+'
		}
		v.r = append(v.r, c)
		v.start = append(v.start, int32(i))
		v.end = append(v.end, int32(i+size))
		i += size
	}
	return v
}

func (v *view) reset(n int) {
	if cap(v.r) < n {
		v.r, v.start, v.end = make([]rune, 0, n), make([]int32, 0, n), make([]int32, 0, n)
	}
	v.r, v.start, v.end, v.fold, v.escapes, v.at = v.r[:0], v.start[:0], v.end[:0], v.fold[:0], false, v.at[:0]
}

func (v *view) free() {
	if cap(v.r) <= 4<<20 {
		views.Put(v)
	}
}

func (v *view) folded() []rune {
	if len(v.fold) != len(v.r) {
		if cap(v.fold) < len(v.r) {
			v.fold = make([]rune, len(v.r))
		}
		v.fold = v.fold[:len(v.r)]
		for i, c := range v.r {
			v.fold[i] = foldRune(c)
		}
	}
	return v.fold
}

func (v *view) add(c rune, start, end int32) {
	switch c {
	case '%', '\\', '&':
		v.escapes = true
		v.at = append(v.at, int32(len(v.r)))
	case ' ':
		c = '+'
	}
	v.r = append(v.r, c)
	v.start = append(v.start, start)
	v.end = append(v.end, end)
}

// The families of escapes decode decodes.
const (
	urlEscapes uint8 = 1 << iota
	jsEscapes
	htmlRefs
	allEscapes = urlEscapes | jsEscapes | htmlRefs
)

// decode is v with one layer of escapes of the families decoded — URL escapes (%xx, a
// UTF-8 sequence of them), JSON and JavaScript string
// escapes (\uXXXX and surrogate pairs, \xHH, \n, \" …), HTML character
// references — and, of the rest, only the around runes on each side of
// an escape (a window without a decoded rune was found in v already),
// the parts apart joined by a gap; nil if v has no escape. Put it back
// with free.
func (v *view) decode(families uint8) *view {
	n := len(v.r)
	var d *view
	tail := 0 // v's runes before it are in d, or left out
	literal := func(from, to int) {
		for j := from; j < to; j++ {
			d.add(v.r[j], v.start[j], v.end[j])
		}
	}
	var bytes []byte
	var pct []int // the view index of each byte's %
	next := 0     // v's runes before it are decoded
	for _, e := range v.at {
		i := int(e)
		if i < next {
			continue // inside the escape before
		}
		c := v.r[i]
		// the escape at i, if it is one: its runes, or its bytes (%xx)
		var rs []rune
		size := 0
		bytes, pct = bytes[:0], pct[:0]
		switch {
		case c == '%' && families&urlEscapes != 0:
			j := i
			for j+2 < n && v.r[j] == '%' && isHex(v.r[j+1]) && isHex(v.r[j+2]) {
				bytes = append(bytes, byte(hexVal(v.r[j+1])<<4|hexVal(v.r[j+2])))
				pct = append(pct, j)
				j += 3
			}
			size = j - i
		case c == '\\' && families&jsEscapes != 0:
			if r, sz := jsEscape(v.r[i:]); sz > 0 {
				rs, size = []rune{r}, sz
			}
		case c == '&' && families&htmlRefs != 0:
			rs, size = htmlRef(v.r[i:])
		}
		if size == 0 {
			continue
		}
		if d == nil {
			d = views.Get().(*view)
			d.reset(0)
			tail = max(0, i-around)
		}
		if i-tail > 2*around {
			literal(tail, tail+around)
			d.add(gap, v.start[i], v.start[i])
			tail = i - around
		}
		literal(tail, i)
		if len(bytes) > 0 {
			for p := 0; p < len(bytes); {
				r, sz := utf8.DecodeRune(bytes[p:])
				sz = max(sz, 1) // an invalid byte is RuneError, as in []rune(s)
				d.add(r, v.start[pct[p]], v.end[pct[p+sz-1]+2])
				p += sz
			}
		}
		for _, r := range rs {
			d.add(r, v.start[i], v.end[i+size-1])
		}
		next = i + size
		tail = next
	}
	if d != nil {
		literal(tail, min(n, tail+around))
	}
	return d
}

// jsEscape decodes the JSON or JavaScript escape at the start of rs (a
// backslash): the rune and how many runes it takes, 0 if none.
func jsEscape(rs []rune) (rune, int) {
	if len(rs) < 2 {
		return 0, 0
	}
	switch rs[1] {
	case 'u':
		u, ok := hexRunes(rs[2:], 4)
		if !ok {
			return 0, 0
		}
		if 0xD800 <= u && u < 0xDC00 && len(rs) >= 12 && rs[6] == '\\' && rs[7] == 'u' {
			if lo, ok := hexRunes(rs[8:], 4); ok && 0xDC00 <= lo && lo < 0xE000 {
				return 0x10000 + (u-0xD800)<<10 + (lo - 0xDC00), 12
			}
		}
		return u, 6
	case 'x':
		if u, ok := hexRunes(rs[2:], 2); ok {
			return u, 4
		}
		return 0, 0
	case 'n':
		return '\n', 2
	case 't':
		return '\t', 2
	case 'r':
		return '\r', 2
	case 'b':
		return '\b', 2
	case 'f':
		return '\f', 2
	case 'v':
		return '\v', 2
	case '"', '\\', '/', '\'', '`':
		return rs[1], 2
	}
	return 0, 0
}

// htmlRef decodes the HTML character reference at the start of rs (an
// ampersand): its runes and how many runes it takes, 0 if none.
func htmlRef(rs []rune) ([]rune, int) {
	if len(rs) < 3 {
		return nil, 0
	}
	if rs[1] == '#' {
		i, base := 2, rune(10)
		if rs[i] == 'x' || rs[i] == 'X' {
			i, base = 3, 16
		}
		var u rune
		digits := 0
		for ; i < len(rs) && digits < 8; i, digits = i+1, digits+1 {
			c := rs[i]
			if base == 10 && (c < '0' || c > '9') || base == 16 && !isHex(c) {
				break
			}
			u = min(u*base+hexVal(c), utf8.MaxRune+1)
		}
		if digits == 0 {
			return nil, 0
		}
		if i < len(rs) && rs[i] == ';' {
			i++
		}
		if u > utf8.MaxRune {
			u = utf8.RuneError
		}
		return []rune{u}, i
	}
	i := 1
	for ; i < len(rs) && i <= 33; i++ {
		c := rs[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9') {
			break
		}
	}
	if i == 1 || i >= len(rs) || rs[i] != ';' {
		return nil, 0
	}
	ref := string(rs[:i+1])
	un := html.UnescapeString(ref)
	if un == ref {
		return nil, 0
	}
	return []rune(un), i + 1
}

func hexRunes(rs []rune, n int) (rune, bool) {
	if len(rs) < n {
		return 0, false
	}
	var u rune
	for _, c := range rs[:n] {
		if !isHex(c) {
			return 0, false
		}
		u = u<<4 | hexVal(c)
	}
	return u, true
}

func isHex(c rune) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func hexVal(c rune) rune {
	switch {
	case '0' <= c && c <= '9':
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10
	}
	return 0
}
