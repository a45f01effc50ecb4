package act

import (
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// truncate cuts s to at most n bytes on a rune boundary, marking the cut.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// htmlWords are the tag and input type names of HTML: a page may name its
// own elements (custom elements) and types, and those names are page text.
var htmlWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a abbr address area article aside audio b bdi bdo blockquote body br button
	canvas caption cite code col colgroup data datalist dd del details dfn dialog div dl dt em embed fieldset
	figcaption figure footer form h1 h2 h3 h4 h5 h6 header hr html i iframe img input ins kbd label legend li
	main map mark menu meter nav object ol optgroup option output p picture pre progress q rp rt ruby s samp
	search section select slot small source span strong sub summary sup table tbody td template textarea tfoot
	th thead time tr track u ul var video wbr svg math
	text search email url tel password number range date time datetime-local month week color checkbox radio
	file submit reset image hidden`) {
		m[w] = true
	}
	return m
}()

// safeWord is a page-supplied tag or input type name as an error may say
// it: an HTML name as it is, any other (a custom element's, a made-up
// type) as "custom", since the page chose it.
func safeWord(s string) string {
	if w := strings.ToLower(s); htmlWords[w] {
		return w
	}
	return "custom"
}

// jsString is s as a JavaScript (and JSON) string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
