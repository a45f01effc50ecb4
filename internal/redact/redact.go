// Package redact replaces an owner's secrets, wherever they appear in what
// browserd answers or writes (snapshots, the page's echo, titles, URLs,
// evaluate results, console, the network log, HAR files, recordings), with
// `<secret NAME>`.
//
// The whole value always, and, for an entry with Runs (a secret a call
// typed: Cache.Typed), every run of 4 or more consecutive characters of
// it, replaced whole, in any letter case (Unicode simple case
// folding, as strings.EqualFold) — so a page that logs, fetches or shows a
// field's value while it is typed (all but its last characters), or shows
// it upper-cased by CSS, gives nothing away. The run is recognised as
// typed and in the encodings a page or a request carries it in, mixed and
// nested up to two levels deep: URL escaping (%xx, UTF-8 sequences
// included, and + for a space), JSON and JavaScript string escapes (\uXXXX
// with surrogate pairs, \xHH, \n, \" …) and HTML character references
// (&amp;, &#39;, &#x27;, every named one). In base64 (standard or URL
// alphabet, padded or not, at any alignment) a run of 5 or more bytes of a
// secret is replaced (6 base64 characters: fewer would hit random base64
// too often).
//
// Not recognised: a value a page transforms otherwise — hashed, hex,
// reversed, spaced out, Unicode-normalised, or a case change that changes
// its length (ß upper-cased is SS) — and runs of 3 characters or fewer. A
// run made only of characters that are neither letters nor digits
// ("----") is not redacted, unless the whole secret is made of them. A
// secret shorter than 4 characters is replaced only whole and in its own
// letter case (in the same encodings): its runs would hit ordinary text.
// The price of the class is that ordinary text that shares a 4-character
// run with a secret is replaced too ("Summer2024" as a password redacts
// "summer" and "2024" wherever a page says them): keep secrets random.
//
// What the agent wrote itself is left as it is (Known): otherwise the
// marks would tell an agent which strings it chose are runs of a secret.
//
// It costs about 3 ms of CPU on a 200 KB answer (BenchmarkRedact,
// docs/benchmarks.md), and nothing for an owner without secrets.
package redact

import (
	"encoding/base64"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/browserd/browserd/internal/tool"
)

const (
	// Run is the shortest run of a secret's characters that is replaced.
	Run = 4
	// base64Run is the shortest run of base64 characters replaced.
	base64Run = 6
)

// Redactor replaces secrets' values. The nil Redactor replaces nothing.
// It is safe for concurrent use.
type Redactor struct {
	secrets []secret
	tables  []*table
	// escapes: a secret holds a character that begins an escape.
	escapes bool
	// known is what the agent itself wrote (see Known); nil for none.
	known *Known
}

// scan appends the hits of every table in v.
func (r *Redactor) scan(v *view, hits []hit) []hit {
	for _, t := range r.tables {
		hits = t.scan(v, hits)
	}
	return hits
}

type secret struct {
	name, mark string
	runes      int
}

// New returns a Redactor for the secrets (name → value), each replaced
// whole and by its runs; nil when there are none.
func New(secrets map[string]string) *Redactor {
	var es []Entry
	for name, v := range secrets {
		es = append(es, Entry{Name: name, Value: v, Runs: true})
	}
	return NewEntries(es, nil)
}

// Entry is one value to replace with `<secret Name>`: whole (in any case
// and the encodings the package says), and, with Runs, every run of Run
// characters of it too. Several entries may share a name (a secret's
// value typed before it was changed, and its value now).
type Entry struct {
	Name, Value string
	Runs        bool
}

// NewEntries returns a Redactor for the entries that leaves alone what
// known explains (nil: nothing); nil when no entry has a value.
func NewEntries(entries []Entry, known *Known) *Redactor {
	es := make([]Entry, 0, len(entries))
	for _, e := range entries {
		if e.Value != "" {
			es = append(es, e)
		}
	}
	if len(es) == 0 {
		return nil
	}
	sort.Slice(es, func(i, j int) bool {
		if es[i].Name != es[j].Name {
			return es[i].Name < es[j].Name
		}
		return es[i].Value < es[j].Value
	})
	r := &Redactor{known: known}
	byKey := map[[2]int]*table{} // (k, fold) → table
	tableFor := func(k int, fold bool) *table {
		f := 0
		if fold {
			f = 1
		}
		t := byKey[[2]int{k, f}]
		if t == nil {
			t = newTable(k, fold)
			byKey[[2]int{k, f}] = t
			r.tables = append(r.tables, t)
		}
		return t
	}
	for i, e := range es {
		v := e.Value
		rs := []rune(v)
		r.escapes = r.escapes || strings.ContainsAny(v, "%\\&")
		r.secrets = append(r.secrets, secret{name: e.Name, mark: "<secret " + e.Name + ">", runes: len(rs)})
		if len(rs) < Run {
			tableFor(len(rs), false).add(i, rs, false, true)
		} else {
			tableFor(Run, true).add(i, rs, true, e.Runs)
		}
		for _, b64 := range base64Forms(v) {
			tableFor(base64Run, false).add(i, []rune(b64), false, e.Runs)
		}
	}
	return r
}

// base64Forms are the base64 characters that only the value's bytes
// decide, at each of the three alignments, in both alphabets.
func base64Forms(v string) []string {
	if len(v) < 5 {
		return nil
	}
	var out []string
	for a := range 3 {
		buf := make([]byte, a+len(v))
		copy(buf[a:], v)
		enc := base64.StdEncoding.EncodeToString(buf)
		from, to := (8*a+5)/6, 8*(a+len(v))/6
		if to-from < base64Run {
			continue
		}
		std := enc[from:to]
		out = append(out, std)
		if u := strings.NewReplacer("+", "-", "/", "_").Replace(std); u != std {
			out = append(out, u)
		}
	}
	return out
}

// String is s with every secret replaced.
func (r *Redactor) String(s string) string {
	if r == nil || s == "" {
		return s
	}
	if len(s) >= 1<<30 {
		return tooLong
	}
	v := rawView(s)
	hits := r.scan(v, nil)
	if v.escapes {
		// Each layer of escapes decoded: all of them, twice (a JSON
		// string in a URL); and, for a secret that holds characters
		// that begin escapes (% \ &), each family alone, which leaves
		// the others as the secret has them.
		d := v.decode(allEscapes)
		if d != nil {
			hits = r.scan(d, hits)
			if d.escapes {
				if d2 := d.decode(allEscapes); d2 != nil {
					hits = r.scan(d2, hits)
					d2.free()
				}
			}
			d.free()
		}
		for f := urlEscapes; f <= htmlRefs && r.escapes; f <<= 1 {
			if d := v.decode(f); d != nil {
				hits = r.scan(d, hits)
				d.free()
			}
		}
	}
	v.free()
	if len(hits) == 0 {
		return s
	}
	return r.replace(s, hits)
}

// replace puts each group of overlapping hits' mark in place of its
// bytes: the mark of the secret with most hits in the group (a shorter
// secret on a tie: a run that is a whole secret is named for it).
func (r *Redactor) replace(s string, hits []hit) string {
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].start != hits[j].start {
			return hits[i].start < hits[j].start
		}
		return hits[i].end > hits[j].end
	})
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	count := make([]int, len(r.secrets))
	for i := 0; i < len(hits); {
		start, end := hits[i].start, hits[i].end
		j := i
		for ; j < len(hits) && hits[j].start < end; j++ {
			end = max(end, hits[j].end)
			count[hits[j].secret]++
		}
		best := -1
		for k := i; k < j; k++ {
			n := hits[k].secret
			if best < 0 || count[n] > count[best] || count[n] == count[best] && r.secrets[n].runes < r.secrets[best].runes {
				best = n
			}
		}
		for k := i; k < j; k++ {
			count[hits[k].secret] = 0
		}
		i = j
		if r.known.Explains(s[start:end]) {
			continue // the agent wrote it itself: it tells nothing
		}
		b.WriteString(s[last:start])
		b.WriteString(r.secrets[best].mark)
		last = end
	}
	b.WriteString(s[last:])
	return b.String()
}

// tooLong stands for a text too long to look for secrets in (1 GiB).
const tooLong = "<text of 1 GiB or more, left out: it was not checked for secrets>"

// Strings replaces secrets in each of ss, in place.
func (r *Redactor) Strings(ss []string) {
	for i := range ss {
		ss[i] = r.String(ss[i])
	}
}

// Result replaces secrets in every text of an answer: what a page wrote
// (title, URL, content, details, dialogs, tabs, downloads, refusals) and
// browserd's own words about it (notes, the error).
func (r *Redactor) Result(res *tool.Result) {
	if r == nil {
		return
	}
	s := r.String
	res.Title, res.URL, res.Content, res.Error = s(res.Title), s(res.URL), s(res.Content), s(res.Error)
	r.Strings(res.Notes)
	r.Strings(res.Details)
	r.Strings(res.Blocked)
	if d := res.Dialog; d != nil {
		d.Message, d.DefaultPrompt = s(d.Message), s(d.DefaultPrompt)
	}
	for _, tabs := range [][]tool.Tab{res.Tabs, res.Popups} {
		for i := range tabs {
			tabs[i].Title, tabs[i].URL = s(tabs[i].Title), s(tabs[i].URL)
		}
	}
	for i := range res.Downloads {
		res.Downloads[i].URL = s(res.Downloads[i].URL)
	}
	for i := range res.Sessions {
		res.Sessions[i].URL = s(res.Sessions[i].URL)
	}
	for i := range res.Captures {
		res.Captures[i].URL, res.Captures[i].Title = s(res.Captures[i].URL), s(res.Captures[i].Title)
	}
}

// hit is a run of a secret found at bytes [start, end) of the text.
type hit struct {
	start, end int
	secret     int
}

// table finds the k-character windows of a text that are windows of a
// secret (folded or as written): each window is packed into a key of k
// runes' low bits, rolled along the text; a small bit filter turns most
// windows away before the map; a key that hits is checked rune by rune.
type table struct {
	k      int
	fold   bool
	bits   uint
	mask   uint64
	filter [1 << 10]uint64 // 65,536 bits
	grams  map[uint64][]ref
	pats   [][]rune // the patterns (folded when fold)
	owner  []int    // each pattern's secret
	whole  []bool   // each pattern is found only whole, not by its runs
}

type ref struct{ pat, pos int32 }

func newTable(k int, fold bool) *table {
	bits := uint(64 / k)
	bits = min(bits, 21)
	mask := ^uint64(0)
	if uint(k)*bits < 64 {
		mask = 1<<(uint(k)*bits) - 1
	}
	return &table{k: k, fold: fold, bits: bits, mask: mask, grams: map[uint64][]ref{}}
}

// add adds the windows of secret n's pattern rs: with runs, every one —
// with fold, those without a letter or a digit left out, unless all are;
// without, the first, which a hit then checks the whole pattern from.
func (t *table) add(n int, rs []rune, fold, runs bool) {
	f := make([]rune, len(rs))
	for i, c := range rs {
		if c == ' ' {
			c = '+' // as views keep it
		}
		if fold {
			c = foldRune(c)
		}
		f[i] = c
	}
	rs = f
	p := int32(len(t.pats))
	t.pats = append(t.pats, rs)
	t.owner = append(t.owner, n)
	t.whole = append(t.whole, !runs)
	any := false
	for pass := 0; pass < 2 && !any; pass++ {
		for i := 0; i+t.k <= len(rs); i++ {
			w := rs[i : i+t.k]
			if !runs && i > 0 {
				break
			}
			if pass == 0 && fold && runs && !hasAlnum(w) {
				continue
			}
			any = true
			var key uint64
			for _, c := range w {
				key = t.push(key, c)
			}
			h := filterBit(key)
			t.filter[h>>6] |= 1 << (h & 63)
			t.grams[key] = append(t.grams[key], ref{p, int32(i)})
		}
	}
}

func (t *table) push(key uint64, c rune) uint64 {
	return (key<<t.bits | uint64(c)&(1<<t.bits-1)) & t.mask
}

func filterBit(key uint64) uint64 { return (key * 0x9E3779B97F4A7C15) >> 48 }

func hasAlnum(w []rune) bool {
	for _, c := range w {
		if unicode.IsLetter(c) || unicode.IsDigit(c) {
			return true
		}
	}
	return false
}

// scan appends the hits of the table's windows in v.
func (t *table) scan(v *view, hits []hit) []hit {
	rs := v.r
	if t.fold {
		rs = v.folded()
	}
	var key uint64
	for i, c := range rs {
		key = t.push(key, c)
		if i+1 < t.k {
			continue
		}
		h := filterBit(key)
		if t.filter[h>>6]&(1<<(h&63)) == 0 {
			continue
		}
		from := i + 1 - t.k
		lastSecret := -1
		for _, rf := range t.grams[key] {
			pat, last := t.pats[rf.pat][rf.pos:int(rf.pos)+t.k], i
			if t.whole[rf.pat] {
				// Found only whole: the pattern from here on.
				pat, last = t.pats[rf.pat], from+len(t.pats[rf.pat])-1
				if last >= len(rs) {
					continue
				}
			}
			same := true
			for j, pc := range pat {
				if rs[from+j] != pc {
					same = false
					break
				}
			}
			if n := t.owner[rf.pat]; same && (n != lastSecret || t.whole[rf.pat]) {
				hits = append(hits, hit{start: int(v.start[from]), end: int(v.end[last]), secret: n})
				lastSecret = n
			}
		}
	}
	return hits
}

// foldRune is the smallest rune of c's simple case-folding orbit: two
// runes fold alike exactly when strings.EqualFold says they are equal.
func foldRune(c rune) rune {
	if c < utf8.RuneSelf {
		if 'a' <= c && c <= 'z' {
			c -= 'a' - 'A' // the least of an ASCII letter's orbit (k's has K, K and k)
		}
		return c
	}
	least := c
	for f := unicode.SimpleFold(c); f != c; f = unicode.SimpleFold(f) {
		least = min(least, f)
	}
	return least
}
