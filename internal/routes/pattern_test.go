package routes

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/browserd/browserd/internal/browser"
)

// TestPatternMatch: globs as Playwright reads them, and /regexp/.
func TestPatternMatch(t *testing.T) {
	for _, c := range []struct {
		pattern, url string
		want         bool
	}{
		{"**/api/items", "http://127.0.0.1:8080/api/items", true},
		{"**/api/items", "http://127.0.0.1:8080/api/items?x=1", false},
		{"**/api/items*", "http://127.0.0.1:8080/api/items?x=1", true},
		{"**/api/*", "http://h/api/items", true},
		{"**/api/*", "http://h/api/items/3", false},
		{"**/api/**", "http://h/api/items/3", true},
		{"http://h/*.{png,jpg}", "http://h/a.jpg", true},
		{"http://h/*.{png,jpg}", "http://h/a.gif", false},
		{"http://h/a?b", "http://h/a?b", true}, // ? is itself
		{"http://h/a?b", "http://h/axb", false},
		{"http://h/a\\*", "http://h/a*", true},
		{"http://h/a\\*", "http://h/ab", false},
		{"**/*.css", "https://cdn.example/s/x.css", true},
		{"/\\/api\\/items$/", "http://h/api/items", true},
		{"/API/i", "http://h/api/x", true},
		{"/API/", "http://h/api/x", false},
		{"http://h/x.y", "http://h/xzy", false}, // the dot is a dot
	} {
		p, err := Compile(c.pattern)
		if err != nil {
			t.Errorf("%s: %v", c.pattern, err)
			continue
		}
		if got := p.Match(c.url); got != c.want {
			t.Errorf("%s matches %s: %v, want %v", c.pattern, c.url, got, c.want)
		}
	}
}

// TestPatternRefused: what Compile refuses says how to write it.
func TestPatternRefused(t *testing.T) {
	for _, bad := range []string{"", "http://h/{a,{b}}", "http://h/a}", "http://h/{a", "/(?=x)/", "/x/q", strings.Repeat("a", MaxPattern+1)} {
		if _, err := Compile(bad); err == nil {
			t.Errorf("Compile(%.40q) took it", bad)
		}
	}
}

// FuzzGlob: no pattern panics Compile or Match; a glob without special
// characters matches itself and nothing longer.
func FuzzGlob(f *testing.F) {
	for _, s := range []string{"**/api/**", "http://h/*.{png,jpg}", "/a+b/i", "\\", "{", "}", "a\\", "**/", "/**/x", "ä*ö"} {
		f.Add(s, "http://h/api/x")
	}
	f.Fuzz(func(t *testing.T, pattern, url string) {
		p, err := Compile(pattern)
		if err != nil {
			return
		}
		p.Match(url)
		if pattern != "" && utf8.ValidString(pattern) && !strings.ContainsAny(pattern, "*{}\\,") && !strings.HasPrefix(pattern, "/") {
			if !p.Match(pattern) {
				t.Errorf("glob %q does not match itself", pattern)
			}
			if p.Match(pattern + "x") {
				t.Errorf("glob %q matches %q", pattern, pattern+"x")
			}
		}
	})
}

// TestTable: the newest route wins, the task's before the session's; a
// route of the same url replaces the older; unroute takes one or all.
func TestTable(t *testing.T) {
	var task, sess Table
	add := func(tb *Table, pattern, name string) {
		p, err := Compile(pattern)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tb.Add(Route{Pattern: p, Answer: answerNamed(name)}); err != nil {
			t.Fatal(err)
		}
	}
	s := Set{&task, &sess}
	if s.Active() {
		t.Fatal("an empty set is active")
	}
	add(&sess, "**/api/**", "session")
	add(&task, "**/api/items", "task")
	add(&task, "**/api/**", "task-all")
	if a, ok := s.Route("http://h/api/items", "GET", "Fetch"); !ok || a.Name != "task-all" {
		t.Errorf("got %q, want the task's newest", a.Name)
	}
	if n := task.Remove("**/api/**"); n != 1 {
		t.Errorf("removed %d", n)
	}
	if a, _ := s.Route("http://h/api/items", "GET", "Fetch"); a.Name != "task" {
		t.Errorf("got %q", a.Name)
	}
	if a, _ := s.Route("http://h/api/other", "GET", "Fetch"); a.Name != "session" {
		t.Errorf("got %q", a.Name)
	}
	if replaced, _ := task.Add(Route{Pattern: mustCompile(t, "**/api/items"), Answer: answerNamed("again")}); !replaced {
		t.Error("a route of the same url did not replace the older")
	}
	if lines := Lines(&task, &sess); len(lines) != 2 || !strings.Contains(lines[0], "1 served") && !strings.Contains(lines[0], "0 served") {
		t.Errorf("lines %q", lines)
	}
	if task.Remove("") != 1 || sess.Remove("") != 1 || s.Active() {
		t.Error("unroute all left routes")
	}
}

func mustCompile(t *testing.T, s string) Pattern {
	p, err := Compile(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func answerNamed(name string) browser.RouteAnswer {
	return browser.RouteAnswer{Name: name, Status: 200}
}
