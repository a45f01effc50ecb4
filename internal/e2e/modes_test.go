//go:build linux

package e2e

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/browserd/browserd/internal/chromium"
	"github.com/browserd/browserd/internal/tool"
)

// TestMCPStreamableHTTP drives the daemon's /mcp endpoint (stateless
// streamable HTTP) with the go-sdk client.
func TestMCPStreamableHTTP(t *testing.T) {
	t.Parallel() // waits more than it works: run beside another (make test's budget)
	data := t.TempDir()
	addr := freeAddr(t)
	startDaemon(t, data, "--listen", addr)
	c := mcp.NewClient(&mcp.Implementation{Name: "e2e-http", Version: "1"}, nil)
	// Over TCP the daemon wants a bearer token: admin's is in <data>/token.
	if _, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: "http://" + addr + "/mcp"}, nil); err == nil {
		t.Fatal("MCP over HTTP without a token connected")
	}
	sess, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: "http://" + addr + "/mcp",
		HTTPClient: bearerClient(adminToken(t, data))}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	tools, err := sess.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	sort.Strings(names)
	if got := strings.Join(names, ","); got != "browser,list_sessions,session_resume" {
		t.Fatalf("tools/list names = %s, want browser,list_sessions,session_resume", got)
	}
	d := &mcpDriver{sess: sess, data: data}
	for _, s := range scenarios {
		switch s.name {
		case "form", "frames", "dialogs", "screenshot_pdf", "bad_input":
			t.Run(s.name, func(t *testing.T) { s.run(t, d, "http-"+s.name) })
		}
	}
	// A screenshot comes back as MCP image content.
	r := ok(t, d, tool.Input{Action: "screenshot", Task: "http-form"})
	if len(r.Image) < 8 || string(r.Image[1:4]) != "PNG" {
		t.Fatalf("no PNG image content in the screenshot result (%d bytes)", len(r.Image))
	}
}

// TestAttachCDP runs the daemon against a Chromium it did not start: tasks
// get tabs in the attached browser, and stopping the daemon leaves that
// browser running.
func TestAttachCDP(t *testing.T) {
	exe, err := chromium.Find("")
	if err != nil {
		t.Skip(err)
	}
	profile := t.TempDir()
	args := append(chromium.Options{UserDataDir: profile, Width: 1280, Height: 720}.Args(), "--remote-debugging-port=0")
	var kept []string
	for _, a := range args {
		if a != "--remote-debugging-pipe" {
			kept = append(kept, a)
		}
	}
	chrome := exec.Command(exe, kept...)
	if err := chrome.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = chrome.Process.Kill()
		_, _ = chrome.Process.Wait()
		waitNoChromium(t, profile)
	}()
	var ws string
	for deadline := time.Now().Add(15 * time.Second); ws == ""; time.Sleep(50 * time.Millisecond) {
		b, err := os.ReadFile(filepath.Join(profile, "DevToolsActivePort"))
		if lines := strings.Split(strings.TrimSpace(string(b)), "\n"); err == nil && len(lines) == 2 {
			ws = fmt.Sprintf("ws://127.0.0.1:%s%s", lines[0], lines[1])
		}
		if time.Now().After(deadline) {
			t.Fatal("Chromium wrote no DevToolsActivePort")
		}
	}
	data := t.TempDir()
	d := startDaemon(t, data, "--cdp", ws)
	r := cli(t, data, "open", site.URL("/form"))
	if !r.Success {
		t.Fatal(r.Error)
	}
	s := cli(t, data, "--session", "other", "open", site.URL("/spa"))
	if !s.Success {
		t.Fatal(s.Error)
	}
	// Both tasks' pages are tabs of the attached browser.
	port := strings.Split(strings.TrimPrefix(ws, "ws://127.0.0.1:"), "/")[0]
	resp, err := http.Get("http://127.0.0.1:" + port + "/json/list")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	list := string(body)
	for _, p := range []string{"/form", "/spa"} {
		if !strings.Contains(list, site.URL(p)) {
			t.Errorf("attached browser has no tab at %s: %s", p, list)
		}
	}
	// The attached default context is not behind the egress proxy: its
	// requests are vetted over CDP Fetch, so an internal server stays
	// unreachable there too.
	var hits atomic.Int32
	iln, err := net.Listen("tcp", "127.0.0.2:0")
	if err == nil {
		srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) })}
		go srv.Serve(iln)
		defer srv.Close()
		got := evalText(t, data, "eval", fmt.Sprintf("fetch('http://%s/x').then(r => 'reached ' + r.status).catch(e => 'blocked')", iln.Addr()))
		if !strings.Contains(got, "blocked") || hits.Load() != 0 {
			t.Errorf("attached default context reached the internal server: %s, %d hits", got, hits.Load())
		}
		// A route (issue 39) never widens the guard: a request it passes on
		// with changed headers is vetted still, and an answer it makes up
		// dials nothing.
		if r := cli(t, data, "route", fmt.Sprintf("http://%s/**", iln.Addr()), "--header", "X-Extra=1"); !r.Success {
			t.Fatal(r.Error)
		}
		got = evalText(t, data, "eval", fmt.Sprintf("fetch('http://%s/x').then(r => 'reached ' + r.status).catch(e => 'blocked')", iln.Addr()))
		if !strings.Contains(got, "blocked") || hits.Load() != 0 {
			t.Errorf("a route passed a request on to the internal server: %s, %d hits", got, hits.Load())
		}
		if r := cli(t, data, "route", fmt.Sprintf("http://%s/made-up", iln.Addr()), "--body", "made up", "--header", "Access-Control-Allow-Origin=*"); !r.Success {
			t.Fatal(r.Error)
		}
		got = evalText(t, data, "eval", fmt.Sprintf("fetch('http://%s/made-up').then(r => r.text()).catch(e => 'blocked')", iln.Addr()))
		if !strings.Contains(got, "made up") || hits.Load() != 0 {
			t.Errorf("a route's made-up answer: %s, %d hits on the server", got, hits.Load())
		}
	}
	stopDaemon(t, data)
	_, _ = d.Process.Wait()
	if chrome.ProcessState != nil || chrome.Process.Signal(syscall.Signal(0)) != nil {
		t.Fatal("stopping the daemon closed the attached browser")
	}
}

// TestIdleTimeout: an idle task's tabs close, then the browser.
func TestIdleTimeout(t *testing.T) {
	data := t.TempDir()
	startDaemon(t, data, "--idle-timeout", "1s")
	if r := cli(t, data, "open", site.URL("/form")); !r.Success {
		t.Fatal(r.Error)
	}
	if len(chromiumPIDs(data)) == 0 {
		t.Fatal("no Chromium after open")
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		st := cli(t, data, "status")
		if strings.Contains(st.Content, "not running") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("browser still running after the idle timeout:\n%s", st.Content)
		}
		time.Sleep(300 * time.Millisecond)
	}
	waitNoChromium(t, data)
	// The next action starts a browser again.
	if r := cli(t, data, "open", site.URL("/spa")); !r.Success {
		t.Fatal(r.Error)
	}
}

// TestReviewGrace (issue #17 point 11): an ended task's tabs are for a
// person to review: the idle timer that ends an agent's tabs leaves them
// (and their browser) be; status lists them with their age.
func TestReviewGrace(t *testing.T) {
	t.Parallel() // its own daemon; waits for idle timers (make test's budget)
	data := t.TempDir()
	startDaemon(t, data, "--idle-timeout", "1s", "--review-grace", "0")
	api := socketAPI(t, data)
	var res struct {
		Success bool   `json:"success"`
		Error   string `json:"error"`
		Content string `json:"content"`
	}
	// The review task is ended as soon as its page is there: with a 1 s
	// idle timeout, a loaded machine's second navigate (seconds) would
	// let it go idle first, and the reaper close it as any idle task.
	navigate := func(task string) {
		api.expect(200, "POST", "/api/actions", map[string]any{"action": "navigate", "session": "s", "task": task, "url": site.URL("/form"), "snapshot": false}, &res)
		if !res.Success {
			t.Fatal(res.Error)
		}
	}
	navigate("review")
	api.expect(200, "POST", "/api/actions", map[string]any{"action": "task_end", "session": "s", "task": "review"}, &res)
	if !res.Success || !strings.Contains(res.Content, "until a person closes them") {
		t.Fatalf("task_end: %+v", res)
	}
	navigate("work")
	// The working task goes idle and closes; the review tab stays.
	deadline := time.Now().Add(15 * time.Second)
	for {
		api.expect(200, "POST", "/api/actions", map[string]any{"action": "status"}, &res)
		if !strings.Contains(res.Content, "task work") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the idle task is still open:\n%s", res.Content)
		}
		time.Sleep(300 * time.Millisecond)
	}
	time.Sleep(2 * time.Second) // several more reaper rounds
	api.expect(200, "POST", "/api/actions", map[string]any{"action": "status"}, &res)
	if !strings.Contains(res.Content, "task review (ended; left for review") || strings.Contains(res.Content, "not running") {
		t.Fatalf("the review tab did not stay:\n%s", res.Content)
	}
	if len(chromiumPIDs(data)) == 0 {
		t.Fatal("the browser closed under a review tab")
	}
	// After a restart the review tab comes back with the session, still
	// for review.
	stopDaemon(t, data)
	waitNoChromium(t, data)
	startDaemon(t, data, "--idle-timeout", "1s", "--review-grace", "0")
	api = socketAPI(t, data)
	api.expect(200, "POST", "/api/actions", map[string]any{"action": "session_resume", "session": "s"}, &res)
	if !res.Success {
		t.Fatalf("resume: %s", res.Error)
	}
	api.expect(200, "POST", "/api/actions", map[string]any{"action": "status"}, &res)
	if !strings.Contains(res.Content, "task review (ended; left for review") {
		t.Fatalf("the review tab did not come back for review:\n%s", res.Content)
	}
}

// TestCloseEndsBrowser (issue #17 point 3): close ends what it started —
// when the last session of a browser closes, the browser exits at once,
// not after the idle timeout, and says so; while another session lives
// in it, it stays.
func TestCloseEndsBrowser(t *testing.T) {
	t.Parallel() // its own daemon or engine: waits more than it works, beside others (make test's budget)
	data := t.TempDir()
	startDaemon(t, data)
	if r := cli(t, data, "open", site.URL("/form")); !r.Success {
		t.Fatal(r.Error)
	}
	if r := cli(t, data, "close"); !r.Success || !strings.Contains(r.Content, "the browser exited") {
		t.Fatalf("close of the profile's last session: %+v", r)
	}
	waitNoChromium(t, data)
	if st := cli(t, data, "status"); !strings.Contains(st.Content, "not running") {
		t.Fatalf("status after close:\n%s", st.Content)
	}
	// Two ephemeral sessions share a browser: it exits with the second.
	api := socketAPI(t, data)
	var res struct {
		Success bool   `json:"success"`
		Error   string `json:"error"`
		Content string `json:"content"`
	}
	for _, s := range []string{"one", "two"} {
		api.expect(200, "POST", "/api/actions", map[string]any{"action": "navigate", "session": s, "url": site.URL("/spa"), "snapshot": false}, &res)
		if !res.Success {
			t.Fatal(res.Error)
		}
	}
	api.expect(200, "POST", "/api/actions", map[string]any{"action": "close", "session": "one"}, &res)
	if !res.Success || strings.Contains(res.Content, "exited") {
		t.Fatalf("closing one of two sessions: %+v", res)
	}
	api.expect(200, "POST", "/api/actions", map[string]any{"action": "snapshot", "session": "two"}, &res)
	if !res.Success {
		t.Fatalf("the other session after the first closed: %s", res.Error)
	}
	api.expect(204, "DELETE", "/api/sessions/two", nil, nil)
	waitNoChromium(t, data)
	// The next action starts a browser again.
	if r := cli(t, data, "open", site.URL("/spa")); !r.Success {
		t.Fatal(r.Error)
	}
}

// TestConcurrentTasks: ten tasks of one profile in parallel, each driving
// its own page (navigate, type, select, click, snapshot), never see each
// other's tabs or refs; task_end leaves a task's tab open.
func TestConcurrentTasks(t *testing.T) {
	d := newMCPDriver(t)
	errs := make(chan error, 10)
	refOf := make([]string, 10)
	for i := range 10 {
		go func() {
			errs <- func() error {
				task := fmt.Sprintf("par-%d", i)
				r := d.do(t, tool.Input{Action: "navigate", Task: task, URL: site.URL(fmt.Sprintf("/form?task=%d", i))})
				if !r.Success {
					return fmt.Errorf("%s navigate: %s", task, r.Error)
				}
				name := firstRefIn(r.Content, "textbox", "Name")
				refOf[i] = name
				steps := []tool.Input{
					{Action: "type", Task: task, Ref: name, Text: task},
					{Action: "select", Task: task, Ref: firstRefIn(r.Content, "combobox", "Country"), Value: "France"},
					{Action: "click", Task: task, Ref: firstRefIn(r.Content, "button", "Sign up")},
				}
				var last tool.Result
				for _, in := range steps {
					if last = d.do(t, in); !last.Success {
						return fmt.Errorf("%s %s: %s", task, in.Action, last.Error)
					}
				}
				if !strings.Contains(last.Content, "Signed up: "+task+" ") || !strings.Contains(last.Content, " fr ") {
					return fmt.Errorf("%s: another task's input leaked in:\n%s", task, last.Content)
				}
				tabs := d.do(t, tool.Input{Action: "tabs", Task: task}).Tabs
				if len(tabs) != 1 || !strings.Contains(tabs[0].URL, fmt.Sprintf("task=%d", i)) {
					return fmt.Errorf("%s sees tabs %+v", task, tabs)
				}
				return nil
			}()
		}()
	}
	for range 10 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if t.Failed() {
		return
	}
	// A task cannot use another task's ref.
	r := d.do(t, tool.Input{Action: "click", Task: "par-0", Ref: refOf[1]})
	if r.Success || !strings.Contains(r.Error, "another task") {
		t.Fatalf("task par-0 used par-1's ref: %+v", r.Error)
	}
	// task_end keeps the tab open for review.
	if r := d.do(t, tool.Input{Action: "task_end", Task: "par-0"}); !r.Success {
		t.Fatal(r.Error)
	}
	st := d.do(t, tool.Input{Action: "status"})
	if !strings.Contains(st.Content, "task par-0 (ended; left for review ") {
		t.Fatalf("status after task_end:\n%s", st.Content)
	}
}

func firstRefIn(snap, role, name string) string {
	for _, m := range refLine.FindAllStringSubmatch(snap, -1) {
		if m[1] == role && m[2] == name {
			return m[3]
		}
	}
	return "e0"
}

// adminToken is the admin token the daemon wrote into data.
func adminToken(t *testing.T, data string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(data, "token"))
	if err != nil {
		t.Fatalf("the daemon wrote no admin token: %v", err)
	}
	return strings.TrimSpace(string(b))
}

// bearerClient is an HTTP client that sends token on every request.
func bearerClient(token string) *http.Client {
	return &http.Client{Transport: bearer{token, http.DefaultTransport}}
}

type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}
