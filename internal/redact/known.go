package redact

import (
	"strings"
	"sync"
	"unicode/utf8"
)

// Known is what an agent wrote itself — every text of its calls: URLs,
// typed text, keys, values, selectors — so that redaction answers no
// questions. Without it, an agent that may not see a secret could write
// candidate strings where it reads them back (a URL's query, a search box
// that echoes it) and learn from where the marks fall which of them are
// runs of the secret. A stretch of text that a Redactor would replace is
// left as it is when the agent wrote that whole stretch (in any case and
// encoding) in one of its calls: it tells the agent only what it wrote.
//
// What it does not hide: a page that shows the secret itself, when the
// agent writes that very text (all of it) in a call — a guess of the whole
// value, which the site's own form answers too.
//
// The nil Known knows nothing. It is safe for concurrent use.
type Known struct {
	mu    sync.Mutex
	texts []string // normalized (see normalize), oldest first
	size  int
}

// knownMax is how many bytes of normalized text a Known keeps: the
// oldest go first.
const knownMax = 4 << 20

// Add keeps the texts an agent wrote.
func (k *Known) Add(texts ...string) {
	if k == nil {
		return
	}
	var add []string
	for _, t := range texts {
		if t != "" {
			add = append(add, strings.Join(forms(t), "\x00"))
		}
	}
	if len(add) == 0 {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, t := range add {
		if len(t) > knownMax {
			t = t[len(t)-knownMax:]
		}
		k.texts = append(k.texts, t)
		k.size += len(t)
	}
	drop := 0
	for k.size > knownMax && drop < len(k.texts) {
		k.size -= len(k.texts[drop])
		drop++
	}
	k.texts = append([]string(nil), k.texts[drop:]...)
}

// Explains reports whether the agent wrote s, all of it, in one text.
func (k *Known) Explains(s string) bool {
	if k == nil || s == "" {
		return false
	}
	fs := forms(s)
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, t := range k.texts {
		for _, f := range fs {
			if strings.Contains(t, f) {
				return true
			}
		}
	}
	return false
}

// forms are s as the redactor's views may have read it (see view): as
// it is, with each family of escapes decoded, with all of them decoded
// once and twice — each folded (foldRune), a space written as + (as views
// keep it). A stretch is what the agent wrote when a form of it is in a
// form of the agent's text.
func forms(s string) []string {
	rs := []rune(s)
	once := decode(rs, allEscapes)
	out := []string{fold(rs), fold(once), fold(decode(once, allEscapes))}
	for f := urlEscapes; f <= htmlRefs; f <<= 1 {
		out = append(out, fold(decode(rs, f)))
	}
	return out
}

func fold(rs []rune) string {
	var b strings.Builder
	b.Grow(len(rs))
	for _, c := range rs {
		if c == ' ' {
			c = '+'
		}
		b.WriteRune(foldRune(c))
	}
	return b.String()
}

// decode is rs with one layer of the families of escapes decoded; what
// is no escape stays as it is.
func decode(rs []rune, families uint8) []rune {
	out := make([]rune, 0, len(rs))
	for i := 0; i < len(rs); {
		switch rs[i] {
		case '%':
			if families&urlEscapes == 0 {
				break
			}
			var bytes []byte
			j := i
			for j+2 < len(rs) && rs[j] == '%' && isHex(rs[j+1]) && isHex(rs[j+2]) {
				bytes = append(bytes, byte(hexVal(rs[j+1])<<4|hexVal(rs[j+2])))
				j += 3
			}
			if j > i {
				for p := 0; p < len(bytes); {
					r, sz := utf8.DecodeRune(bytes[p:])
					out = append(out, r)
					p += max(sz, 1)
				}
				i = j
				continue
			}
		case '\\':
			if families&jsEscapes == 0 {
				break
			}
			if r, sz := jsEscape(rs[i:]); sz > 0 {
				out = append(out, r)
				i += sz
				continue
			}
		case '&':
			if families&htmlRefs == 0 {
				break
			}
			if r, sz := htmlRef(rs[i:]); sz > 0 {
				out = append(out, r...)
				i += sz
				continue
			}
		}
		out = append(out, rs[i])
		i++
	}
	return out
}
