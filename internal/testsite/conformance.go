package testsite

import (
	"bytes"
	"fmt"
	"html"
	"io/fs"
	"net/http"
	"sort"
	"strings"
)

// ConformancePages lists the names of the conformance corpus's pages
// (served at /c/NAME), sorted.
func ConformancePages() []string { return pageNames(conformanceFS, "conformance") }

// pageNames lists the names of the .html files in dir of fsys, without
// the suffix, sorted.
func pageNames(fsys fs.FS, dir string) []string {
	ents, _ := fs.ReadDir(fsys, dir)
	var out []string
	for _, e := range ents {
		if name, ok := strings.CutSuffix(e.Name(), ".html"); ok {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

func conformanceIndex(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	var b strings.Builder
	b.WriteString("<!doctype html><title>Conformance corpus</title><h1>Conformance corpus</h1><ul>")
	for _, n := range ConformancePages() {
		fmt.Fprintf(&b, `<li><a href="/c/%s">%s</a></li>`, html.EscapeString(n), html.EscapeString(n))
	}
	b.WriteString("</ul>")
	_, _ = w.Write([]byte(b.String()))
}

// conformancePage serves a page of the corpus; "{{other}}" in it becomes
// the other site's origin (http://localhost:PORT2), for cross-site frames.
func (s *Site) conformancePage(w http.ResponseWriter, r *http.Request) {
	body, err := conformanceFS.ReadFile("conformance/" + r.PathValue("name") + ".html")
	if err != nil {
		http.NotFound(w, r)
		return
	}
	body = bytes.ReplaceAll(body, []byte("{{other}}"), []byte(strings.TrimSuffix(s.OtherURL("/"), "/")))
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write(body)
}
