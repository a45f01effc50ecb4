// Package redact replaces an owner's secrets, wherever they appear in what
// browserd answers or writes (snapshots, the page's echo, titles, URLs,
// evaluate results, console, the network log, HAR files, recordings), with
// `<secret NAME>`. The value is recognised as typed and in the encodings a
// page or a request carries it in: URL query and path escaping, a JSON
// string, HTML; a value a page transforms otherwise (base64, a hash) is
// not recognised.
package redact

import (
	"encoding/json"
	"html"
	"net/url"
	"sort"
	"strings"

	"github.com/browserd/browserd/internal/tool"
)

// Redactor replaces secrets' values. The nil Redactor replaces nothing.
type Redactor struct {
	r *strings.Replacer
}

// New returns a Redactor for the secrets (name → value); nil when there
// are none.
func New(secrets map[string]string) *Redactor {
	type pair struct{ from, to string }
	var pairs []pair
	seen := map[string]bool{}
	for name, v := range secrets {
		if v == "" {
			continue
		}
		mark := "<secret " + name + ">"
		j, _ := json.Marshal(v)
		for _, form := range []string{v, url.QueryEscape(v), url.PathEscape(v), string(j[1 : len(j)-1]), html.EscapeString(v)} {
			if !seen[form] {
				seen[form] = true
				pairs = append(pairs, pair{form, mark})
			}
		}
	}
	if len(pairs) == 0 {
		return nil
	}
	// Longest first: a value that holds another is replaced whole.
	sort.Slice(pairs, func(i, j int) bool {
		if len(pairs[i].from) != len(pairs[j].from) {
			return len(pairs[i].from) > len(pairs[j].from)
		}
		return pairs[i].from < pairs[j].from
	})
	args := make([]string, 0, 2*len(pairs))
	for _, p := range pairs {
		args = append(args, p.from, p.to)
	}
	return &Redactor{r: strings.NewReplacer(args...)}
}

// String is s with every secret replaced.
func (r *Redactor) String(s string) string {
	if r == nil || s == "" {
		return s
	}
	return r.r.Replace(s)
}

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
