package snapshot

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxText is the number of characters a name, value or cell keeps.
const maxText = 200

// norm collapses runs of white space to one space and trims the ends.
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

// cut shortens a normalized string to maxText characters plus "…".
func cut(s string) string {
	if len(s) <= maxText {
		return s
	}
	n := 0
	for i := range s {
		if n == maxText {
			return strings.TrimRight(s[:i], " ") + "…"
		}
		n++
	}
	return s
}

// quote renders a name or value: one line, cut, Go-quoted.
func quote(s string) string {
	return strconv.Quote(cut(norm(s)))
}

// plain renders unquoted text (row cells, "role: text" lines): one line, cut,
// without control characters.
func plain(s string) string {
	s = cut(norm(s))
	if strings.IndexFunc(s, unicode.IsControl) < 0 {
		return s
	}
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, s)
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
