// Package routes holds a session's and a task's routes — the route
// action's requests that browserd answers itself: made up, aborted,
// delayed, or passed on with changed headers — and matches a request's URL
// to them (browser.Router). The tab's side, Fetch interception, is
// internal/browser's (route.go); the action is Do.
package routes

import (
	"fmt"
	"regexp"
	"strings"
)

// Pattern is a route's url: a glob as Playwright's (`**` any characters,
// `*` any but `/`, `{a,b}` either, `\` escapes the next character, any
// other character itself, `?` too), or a regular expression written
// /…/ (flag i: case-insensitive; RE2's syntax, which has no look-around).
type Pattern struct {
	Text string
	re   *regexp.Regexp
}

// MaxPattern bounds a pattern's length.
const MaxPattern = 2048

// Compile checks a pattern and makes it ready to match.
func Compile(text string) (Pattern, error) {
	if text == "" {
		return Pattern{}, fmt.Errorf("route needs url: a glob such as **/api/** or a regular expression such as /\\/api\\/items$/")
	}
	if len(text) > MaxPattern {
		return Pattern{}, fmt.Errorf("route url is %d bytes long; at most %d", len(text), MaxPattern)
	}
	var expr string
	if src, flags, ok := regexpLiteral(text); ok {
		prefix := ""
		for _, f := range flags {
			switch f {
			case 'i':
				prefix = "(?i)"
			case 'g', 'u', 'y':
				// no effect on whether a URL matches
			default:
				return Pattern{}, fmt.Errorf("route url %s: flag %q is not supported; use i (case-insensitive) or none", text, f)
			}
		}
		expr = prefix + src
	} else {
		var err error
		if expr, err = globToRegexp(text); err != nil {
			return Pattern{}, err
		}
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return Pattern{}, fmt.Errorf("route url %s is not a regular expression Go's RE2 takes (no look-around, no back-references): %w", text, err)
	}
	return Pattern{Text: text, re: re}, nil
}

// Match reports whether the URL matches the pattern.
func (p Pattern) Match(url string) bool { return p.re != nil && p.re.MatchString(url) }

// regexpLiteral splits /src/flags.
func regexpLiteral(s string) (src, flags string, ok bool) {
	if len(s) < 2 || s[0] != '/' {
		return "", "", false
	}
	end := strings.LastIndexByte(s, '/')
	if end <= 0 {
		return "", "", false
	}
	flags = s[end+1:]
	if strings.ContainsFunc(flags, func(r rune) bool { return r < 'a' || r > 'z' }) {
		return "", "", false // a path such as /api/v1/x, not /src/flags
	}
	return s[1:end], flags, true
}

// globToRegexp is Playwright's globToRegexPattern in Go.
func globToRegexp(glob string) (string, error) {
	var b strings.Builder
	b.WriteString("^")
	inGroup := false
	for i := 0; i < len(glob); i++ {
		c := glob[i]
		switch {
		case c == '\\' && i+1 < len(glob):
			i++
			b.WriteString(regexp.QuoteMeta(glob[i : i+1]))
		case c == '*':
			before := byte(0)
			if i > 0 {
				before = glob[i-1]
			}
			stars := 1
			for i+1 < len(glob) && glob[i+1] == '*' {
				stars++
				i++
			}
			switch {
			case stars == 1:
				b.WriteString("([^/]*)")
			case i+1 < len(glob) && glob[i+1] == '/':
				if before == '/' {
					b.WriteString("((.+/)|)")
				} else {
					b.WriteString("(.*/)")
				}
				i++
			default:
				b.WriteString("(.*)")
			}
		case c == '{':
			if inGroup {
				return "", fmt.Errorf("route url %q: a '{' inside {…} is not supported", glob)
			}
			inGroup = true
			b.WriteString("(")
		case c == '}':
			if !inGroup {
				return "", fmt.Errorf("route url %q: a '}' without its '{'; write \\} for the character", glob)
			}
			inGroup = false
			b.WriteString(")")
		case c == ',' && inGroup:
			b.WriteString("|")
		default:
			b.WriteString(regexp.QuoteMeta(glob[i : i+1]))
		}
	}
	if inGroup {
		return "", fmt.Errorf("route url %q: a '{' without its '}'", glob)
	}
	b.WriteString("$")
	return b.String(), nil
}
