package snapshot

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxText is the number of characters a name, value or cell keeps.
const maxText = 200

// iconRune reports a character of a Private Use Area: what icon fonts
// (Font Awesome, Bootstrap Icons) draw their glyphs with, in ::before
// content that Chromium counts into names. It means nothing as text.
func iconRune(r rune) bool {
	return r >= 0xE000 && r <= 0xF8FF || r >= 0xF0000 && r <= 0x10FFFD
}

// norm collapses runs of white space to one space and trims the ends, and
// drops icon-font characters (see iconRune).
func norm(s string) string {
	simple := true
	prevSpace := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			simple = false
			break
		}
		sp := c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
		if sp && (c != ' ' || prevSpace) {
			simple = false
			break
		}
		prevSpace = sp
	}
	if simple && !prevSpace {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		if iconRune(r) {
			continue
		}
		if unicode.IsSpace(r) {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// cut shortens a normalized string to maxText characters plus "…",
// returning the number of characters left out.
func cut(s string) (string, int) {
	if len(s) <= maxText {
		return s, 0
	}
	n := 0
	for i := range s {
		if n == maxText {
			return strings.TrimRight(s[:i], " ") + "…", utf8.RuneCountInString(s[i:])
		}
		n++
	}
	return s, 0
}

// quote renders a name or value: one line, cut, Go-quoted. It returns the
// number of characters cut.
func quote(s string) (string, int) {
	s, n := cut(norm(s))
	return strconv.Quote(s), n
}

// plain renders unquoted text (row cells, "role: text" lines): one line, cut,
// without control characters. It returns the number of characters cut.
func plain(s string) (string, int) {
	s, n := cut(norm(s))
	if strings.IndexFunc(s, unicode.IsControl) < 0 {
		return s, n
	}
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, s), n
}

// truncNote is the note a line ends with when n characters of its names or
// values were cut (more when atLeast): the extract action on the line's ref
// reads them.
func truncNote(n int, atLeast bool, ref string) string {
	if n <= 0 {
		return ""
	}
	more := ""
	if atLeast {
		more = "+"
	}
	target := "extract"
	if ref != "" {
		target = "extract ref=" + ref
	}
	return " [+" + strconv.Itoa(n) + more + " chars: " + target + " to read all]"
}

// joinText joins two pieces of text the way adjacent text nodes read.
func joinText(a, b string) string {
	if a == "" {
		return b
	}
	if b == "" {
		return a
	}
	last, _ := utf8.DecodeLastRuneInString(a)
	first, _ := utf8.DecodeRuneInString(b)
	if unicode.IsSpace(last) || unicode.IsSpace(first) {
		return a + b
	}
	return a + " " + b
}

// shortHref shortens a same-origin URL to its path, query and fragment.
func shortHref(u, origin string) string {
	origin = strings.TrimSuffix(origin, "/")
	if origin == "" || len(u) < len(origin) || !strings.EqualFold(u[:len(origin)], origin) {
		return u
	}
	rest := u[len(origin):]
	switch {
	case rest == "":
		return "/"
	case rest[0] == '/':
		return rest
	case rest[0] == '?' || rest[0] == '#':
		return "/" + rest
	}
	return u
}
