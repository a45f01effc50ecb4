package redact

import (
	"encoding/json"
	"fmt"
	"html"
	"net/url"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// FuzzRedact: whatever the text, what String leaves of it (the pieces
// between marks) holds no run of 4 characters of the secret in any case
// (a shorter secret: not the whole value), also when the secret is in
// the text URL-, JSON- or HTML-escaped.
func FuzzRedact(f *testing.F) {
	f.Add("Hunter2-Sekrit-99", "pw=HUNTER2-SEKRIT-9 and hunter2%2Dsek")
	f.Add("p@ss w&rd\"1", `{"v":"p@ss w\u0026rd\"1"}`)
	f.Add("ключ🔑", "КЛЮЧ %D0%BA%D0%BB")
	f.Add("471", "pin 471")
	f.Add("ab+c d", "ab%2Bc+d &amp; \\x41")
	f.Fuzz(func(t *testing.T, secret, text string) {
		if secret == "" || len(secret) > 64 || len(text) > 4096 {
			return
		}
		r := New(map[string]string{"S": secret})
		check := func(in string) {
			out := r.String(in)
			for _, piece := range strings.Split(out, "<secret S>") {
				if run := leftRun(secret, piece); run != "" {
					t.Fatalf("secret %q: String(%q) = %q keeps the run %q", secret, in, out, run)
				}
			}
		}
		check(text)
		half := len(text) / 2
		for k, enc := range encodings {
			if k == upper && utf8.RuneCountInString(secret) < Run {
				continue // a short secret is replaced in its own case only
			}
			in := text[:half] + " " + enc(secret) + " " + text[half:]
			out := r.String(in)
			for _, piece := range strings.Split(out, "<secret S>") {
				if run := leftRun(secret, decoders[k](piece)); run != "" {
					t.Fatalf("secret %q: String(%q) = %q keeps %q, encoded", secret, in, out, run)
				}
			}
		}
	})
}

// decoders undo encodings, leniently: a text one cannot decode is left
// as it is.
var decoders = []func(string) string{
	func(s string) string { return orSame(s, url.QueryUnescape) },
	func(s string) string { return orSame(s, url.PathUnescape) },
	html.UnescapeString,
	func(s string) string {
		return orSame(s, func(s string) (string, error) {
			var u string
			err := json.Unmarshal([]byte(`"`+s+`"`), &u)
			return u, err
		})
	},
	func(s string) string { return orSame(s, url.QueryUnescape) },
}

func orSame(s string, dec func(string) (string, error)) string {
	if u, err := dec(s); err == nil {
		return u
	}
	return s
}

// upper is the encoding that changes the letter case.
const upper = 4

var encodings = []func(string) string{
	url.QueryEscape, url.PathEscape, html.EscapeString,
	func(s string) string { b, _ := json.Marshal(s); return string(b[1 : len(b)-1]) },
	func(s string) string { return strings.ToUpper(url.QueryEscape(s)) },
}

// windows are the runs of the secret String must replace: its
// 4-character windows with a letter or a digit (all of them if none has
// one); a shorter secret whole.
func windows(secret string) []string {
	rs := []rune(secret)
	if len(rs) < Run {
		return []string{secret}
	}
	var all, alnum []string
	for i := 0; i+Run <= len(rs); i++ {
		w := string(rs[i : i+Run])
		all = append(all, w)
		if strings.IndexFunc(w, func(c rune) bool { return unicode.IsLetter(c) || unicode.IsDigit(c) }) >= 0 {
			alnum = append(alnum, w)
		}
	}
	if len(alnum) == 0 {
		return all
	}
	return alnum
}

// leftRun is a run of the secret that piece holds, "" if none.
func leftRun(secret, piece string) string {
	ws, n := windows(secret), Run
	short := utf8.RuneCountInString(secret) < Run
	if short {
		ws, n = []string{string([]rune(secret))}, utf8.RuneCountInString(secret)
	}
	rs := []rune(piece)
	for i := 0; i+n <= len(rs); i++ {
		p := string(rs[i : i+n])
		for _, w := range ws {
			if short && p == w || !short && strings.EqualFold(p, w) {
				return p
			}
		}
	}
	return ""
}

// BenchmarkRedact: a 200 KB snapshot with three secrets, one of them
// shown in part once.
func BenchmarkRedact(b *testing.B) {
	var sb strings.Builder
	for i := 0; sb.Len() < 200<<10; i++ {
		fmt.Fprintf(&sb, "  - listitem [ref=e%d]:\n    - link \"Product %d — a sturdy widget, 20%% off & free shipping\" [ref=e%d]\n    - text: \"$%d.99\"\n", 2*i, i, 2*i+1, i%500)
		if i == 1000 {
			sb.WriteString("    - textbox \"Password\" [ref=e9999]: HUNTER2-SEKRIT-9\n")
		}
	}
	text := sb.String()
	r := New(map[string]string{"PW": "Hunter2-Sekrit-99", "TOKEN": "ghp_x8Kq2LmZ0vY7tRw3", "PIN": "4711"})
	if out := r.String(text); !strings.Contains(out, "<secret PW>") {
		b.Fatal("the secret was not found")
	}
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		r.String(text)
	}
}

// FuzzKnown: a text the agent wrote comes back as it is, whatever the
// secret and however the text is made of its runs (issue 47: redaction
// answers no questions).
func FuzzKnown(f *testing.F) {
	f.Add("hunter2-sekrit-991", "q=hunt+ter2+zzzz+%2Dsek+HUNTER2-SEKRIT-991")
	f.Add("4821", "0000 4821 9999")
	f.Add("p@ss w&rd", "p%40ss+w%26rd &amp; p@ss")
	f.Fuzz(func(t *testing.T, secret, text string) {
		if secret == "" || len(secret) > 64 || len(text) > 4096 {
			return
		}
		known := &Known{}
		known.Add(text)
		r := NewEntries([]Entry{{Name: "S", Value: secret, Runs: true}}, known)
		if got := r.String(text); got != text {
			t.Fatalf("secret %q: the agent wrote %q and got back %q", secret, text, got)
		}
	})
}
