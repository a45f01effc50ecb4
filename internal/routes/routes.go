package routes

import (
	"cmp"
	"context"
	"fmt"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/browserd/browserd/internal/browser"
	"github.com/browserd/browserd/internal/tool"
)

// Route is one route: the requests its pattern matches get its answer.
type Route struct {
	Pattern Pattern
	Answer  browser.RouteAnswer
	// Hits counts the requests it answered (the network log marks each).
	Hits int
}

// Table is a task's or a session's routes, the newest first (it wins
// when two match, as in Playwright). The zero value is empty and ready;
// safe for concurrent use.
type Table struct {
	mu     sync.Mutex
	routes []*Route
}

// MaxRoutes bounds a table.
const MaxRoutes = 100

// Add puts r first, in place of a route with the same url; it says
// whether it replaced one.
func (t *Table) Add(r Route) (replaced bool, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(t.routes)
	t.routes = slices.DeleteFunc(t.routes, func(o *Route) bool { return o.Pattern.Text == r.Pattern.Text })
	replaced = len(t.routes) < n
	if len(t.routes) >= MaxRoutes {
		return false, fmt.Errorf("route: %d routes already; unroute some first", MaxRoutes)
	}
	t.routes = slices.Insert(t.routes, 0, &r)
	return replaced, nil
}

// Remove takes away the route of url ("": every route) and says how many
// it took.
func (t *Table) Remove(url string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(t.routes)
	if url == "" {
		t.routes = nil
		return n
	}
	t.routes = slices.DeleteFunc(t.routes, func(o *Route) bool { return o.Pattern.Text == url })
	return n - len(t.routes)
}

// List is a copy of the routes, newest first.
func (t *Table) List() []Route {
	if t == nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]Route, len(t.routes))
	for i, r := range t.routes {
		out[i] = *r
	}
	return out
}

func (t *Table) len() int {
	if t == nil {
		return 0
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.routes)
}

// match is the answer of the newest route that matches url, counted.
func (t *Table) match(url string) (browser.RouteAnswer, bool) {
	if t == nil {
		return browser.RouteAnswer{}, false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, r := range t.routes {
		if r.Pattern.Match(url) {
			r.Hits++
			return r.Answer, true
		}
	}
	return browser.RouteAnswer{}, false
}

// Set is a tab's routes: its task's, then its session's (a browser.Router).
type Set struct{ Task, Session *Table }

// For is the router of a tab of the task whose routes are task, in the
// session whose routes are session.
func For(task, session *Table) browser.Router { return Set{task, session} }

// Active reports whether any route is set.
func (s Set) Active() bool { return s.Task.len()+s.Session.len() > 0 }

// Route is the answer of the route that matches url, the task's first.
func (s Set) Route(url, _, _ string) (browser.RouteAnswer, bool) {
	if a, ok := s.Task.match(url); ok {
		return a, true
	}
	return s.Session.match(url)
}

// Tab is a tab the routes apply to, with its task's routes.
type Tab struct {
	Page *browser.Page
	Task *Table
}

// Env is what route and unroute work on: the task's and the session's
// routes, the tabs they apply to (the task's, or with scope session the
// session's), and the file a body is read from (the uploads folder's
// rules: sessions.Registry.UploadFile).
type Env struct {
	Task, Session *Table
	Tabs          []Tab
	File          func(name string) (string, error)
}

// MaxBody bounds a route's body from a file.
const MaxBody = 10 << 20

// Do carries out route or unroute.
func Do(ctx context.Context, in *tool.Input, res *tool.Result, env Env) error {
	table, whose := env.Task, "task's"
	if in.Scope == "session" {
		table, whose = env.Session, "session's"
	}
	if in.Action == "unroute" {
		n := table.Remove(in.URL)
		if err := refresh(ctx, env); err != nil {
			return err
		}
		if n == 0 && in.URL != "" {
			return fmt.Errorf("unroute: the %s routes have none for %s; status lists them", whose, in.URL)
		}
		res.Content = fmt.Sprintf("%d route(s) removed from the %s; %d left", n, whose, table.len())
		return nil
	}
	p, err := Compile(in.URL)
	if err != nil {
		return err
	}
	ans, err := answer(in, env.File)
	if err != nil {
		return err
	}
	replaced, err := table.Add(Route{Pattern: p, Answer: ans})
	if err != nil {
		return err
	}
	if err := refresh(ctx, env); err != nil {
		return err
	}
	verb := "added to"
	if replaced {
		verb = "replaced in"
	}
	res.Content = fmt.Sprintf("route %s %s the %s routes: %s", in.URL, verb, whose, Describe(ans))
	return nil
}

// refresh has every tab intercept its requests while it has routes.
func refresh(ctx context.Context, env Env) error {
	for _, t := range env.Tabs {
		if err := t.Page.SetRouter(ctx, For(t.Task, env.Session)); err != nil && !t.Page.Closed() {
			return fmt.Errorf("routing tab's requests: %w", err)
		}
	}
	return nil
}

// answer is what a route call answers with.
func answer(in *tool.Input, file func(string) (string, error)) (browser.RouteAnswer, error) {
	a := browser.RouteAnswer{Name: in.URL, Delay: time.Duration(in.Delay) * time.Millisecond}
	if in.Fetch {
		a.Fetch, a.Status, a.From, a.To = true, in.Status, in.Text, in.Value
		a.Headers = map[string]string{}
		for k, v := range in.Headers {
			a.Headers[k] = v
		}
		if in.ContentType != "" {
			a.Headers["Content-Type"] = in.ContentType
		}
		return a, nil
	}
	if in.Abort != "" {
		a.Abort = abortReasons[in.Abort]
		return a, nil
	}
	a.Headers = map[string]string{}
	for k, v := range in.Headers {
		a.Headers[k] = v
	}
	if in.Status == 0 && in.Body == "" && in.Path == "" && in.ContentType == "" {
		if len(a.Headers) == 0 && a.Delay == 0 {
			return a, fmt.Errorf("route needs what to do: status, body, path or contentType to answer; abort to fail; headers or delay to pass the request on changed")
		}
		return a, nil // passed on: Headers are the request's
	}
	a.Status = in.Status
	if a.Status == 0 {
		a.Status = http.StatusOK
	}
	a.Body = []byte(in.Body)
	ctype := in.ContentType
	if in.Path != "" {
		path, err := file(in.Path)
		if err != nil {
			return a, fmt.Errorf("route path: %w", err)
		}
		fi, err := os.Stat(path)
		if err != nil {
			return a, fmt.Errorf("route path: %w", err)
		}
		if fi.Size() > MaxBody {
			return a, fmt.Errorf("route path %s is %d bytes; at most %d", in.Path, fi.Size(), MaxBody)
		}
		if a.Body, err = os.ReadFile(path); err != nil {
			return a, fmt.Errorf("route path: %w", err)
		}
		if ctype == "" {
			ctype = mime.TypeByExtension(filepath.Ext(path))
		}
	}
	if ctype == "" && !hasHeader(a.Headers, "content-type") {
		ctype = http.DetectContentType(a.Body)
		if b := strings.TrimSpace(string(a.Body)); strings.HasPrefix(b, "{") || strings.HasPrefix(b, "[") {
			ctype = "application/json"
		}
	}
	if ctype != "" {
		a.Headers["Content-Type"] = ctype
	}
	return a, nil
}

func hasHeader(h map[string]string, name string) bool {
	for k := range h {
		if strings.EqualFold(k, name) {
			return true
		}
	}
	return false
}

// abortReasons are Chromium's network error reasons by Playwright's
// error codes (tool.AbortReasons).
var abortReasons = map[string]string{
	"aborted": "Aborted", "accessdenied": "AccessDenied", "addressunreachable": "AddressUnreachable",
	"blockedbyclient": "BlockedByClient", "blockedbyresponse": "BlockedByResponse",
	"connectionaborted": "ConnectionAborted", "connectionclosed": "ConnectionClosed",
	"connectionfailed": "ConnectionFailed", "connectionrefused": "ConnectionRefused",
	"connectionreset": "ConnectionReset", "internetdisconnected": "InternetDisconnected",
	"namenotresolved": "NameNotResolved", "timedout": "TimedOut", "failed": "Failed",
}

// Describe says what a route does, in a few words.
func Describe(a browser.RouteAnswer) string {
	var s string
	switch {
	case a.Abort != "":
		s = "aborted (" + a.Abort + ")"
	case a.Fetch:
		var what []string
		if a.Status > 0 {
			what = append(what, fmt.Sprintf("status %d", a.Status))
		}
		if len(a.Headers) > 0 {
			what = append(what, fmt.Sprintf("%d headers", len(a.Headers)))
		}
		if a.From != "" {
			what = append(what, fmt.Sprintf("%q replaced", a.From))
		}
		s = "the server's answer, changed: " + cmp.Or(strings.Join(what, ", "), "nothing")
	case a.Status > 0:
		s = fmt.Sprintf("answered %d, %d bytes", a.Status, len(a.Body))
	default:
		s = "passed on with changed headers"
	}
	if a.Delay > 0 {
		s += fmt.Sprintf(", after %s", a.Delay)
	}
	return s
}

// Lines are the routes of a task and a session as status lists them.
func Lines(task, session *Table) []string {
	var out []string
	for _, r := range task.List() {
		out = append(out, fmt.Sprintf("route (task) %s: %s; %d served", r.Pattern.Text, Describe(r.Answer), r.Hits))
	}
	for _, r := range session.List() {
		out = append(out, fmt.Sprintf("route (session) %s: %s; %d served", r.Pattern.Text, Describe(r.Answer), r.Hits))
	}
	return out
}
