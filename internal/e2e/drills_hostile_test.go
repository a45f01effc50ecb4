//go:build linux

package e2e

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/browserd/browserd/internal/engine"
	"github.com/browserd/browserd/internal/tool"
)

// hostilePages serves issue #13's hostile pages. Closing done ends the
// slow page's handlers, so that the server closes at once.
func hostilePages(done <-chan struct{}) http.Handler {
	mux := http.NewServeMux()
	page := func(path, body string) {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, body)
		})
	}
	page("/loop", `<!doctype html><title>Loop</title><h1>Busy forever</h1><script>while(true){}</script>`)
	page("/spin", `<!doctype html><title>Spin</title><h1>Spins on a click</h1><button onclick="for(;;);">Spin</button>`)
	// A 256 MB string copied again and again: the renderer reaches its
	// heap limit and dies within seconds.
	page("/hog", `<!doctype html><title>Hog</title><h1>Eats memory</h1><script>let a=[], s='x'.repeat(1<<28);for(let i=0;;i++){let t=i+s;t.charCodeAt(9);a.push(t)}</script>`)
	page("/alert", `<!doctype html><title>Alert</title><h1>Alert on load</h1><script>alert('hi from the page')</script>`)
	page("/console", `<!doctype html><title>Console</title><h1>Chatty</h1><script>for(let i=0;i<50000;i++)console.log('line '+i)</script>`)
	var frames strings.Builder
	frames.WriteString(`<!doctype html><title>Frames</title><h1>Two hundred frames</h1>`)
	for i := range 200 {
		fmt.Fprintf(&frames, `<iframe width="40" height="20" srcdoc="<p>frame %d</p>"></iframe>`, i)
	}
	page("/frames", frames.String())
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		t := time.NewTimer(20 * time.Second)
		defer t.Stop()
		select {
		case <-t.C:
			fmt.Fprint(w, `<!doctype html><title>Slow</title><h1>Finally</h1>`)
		case <-r.Context().Done():
		case <-done:
		}
	})
	return mux
}

// TestDrillHostilePages is issue #13's drill with hostile pages: an
// endless loop (on load, after a click, behind a snapshot), a memory hog
// that kills its renderer, an alert on load, a page that answers after
// 20 s, 50,000 console lines and 200 iframes. Each action returns within
// its timeout with a clear error (or succeeds, for the pages that do load),
// another task keeps working meanwhile, and the tab is usable after.
func TestDrillHostilePages(t *testing.T) {
	begun := time.Now()
	done := make(chan struct{})
	srv := httptest.NewServer(hostilePages(done))
	defer srv.Close()
	defer close(done)
	cfg := testConfig(t)
	cfg.AllowHosts = append(cfg.AllowHosts, srv.Listener.Addr().String())
	// The memory hog crashes its tab at 512 MB, in a few seconds whatever
	// the machine's memory: at Chromium's own limit it took 15 s alone and
	// past the navigate's 30 s with the machine busy (a CI run's failure).
	cfg.PageMemoryMB = 512
	e, do := newEngine(t, cfg)
	// The bystander task has its tab before the drill starts.
	if r := do(tool.Input{Action: "navigate", Task: "bystander", URL: site.URL("/form")}); !r.Success {
		t.Fatalf("bystander: %s", r.Error)
	}
	// A page stuck in a script: raising the timeout would not help, and
	// the error says so.
	const stuck = "the page is not responding"
	type step struct {
		in    tool.Input
		check func(*testing.T, tool.Result)
	}
	for _, c := range []struct {
		name  string
		setup []tool.Input // before the hostile steps, not timed
		steps []step       // each timed, with the bystander at work
		after string       // a note of the navigation after the steps
	}{
		{
			name:  "endless loop on load",
			steps: []step{{tool.Input{Action: "navigate", URL: srv.URL + "/loop", Timeout: 2000}, failsWith("timed out after 2s", stuck)}},
		},
		{
			name:  "endless loop after a click",
			setup: []tool.Input{{Action: "navigate", URL: srv.URL + "/spin"}},
			steps: []step{{tool.Input{Action: "click", Role: "button", Name: "Spin", Timeout: 2000}, failsWith("timed out after 2s", stuck)}},
		},
		{
			name: "endless loop behind a snapshot",
			setup: []tool.Input{{Action: "navigate", URL: srv.URL + "/spin"},
				{Action: "evaluate", Expression: "setTimeout(() => { for (;;); }, 50), 1"}},
			steps: []step{
				// The wait itself is a sleep; the page it answers with
				// cannot be read.
				{tool.Input{Action: "wait", Time: 300, Timeout: 2000}, func(t *testing.T, r tool.Result) {
					if !r.Success || !strings.Contains(strings.Join(r.Notes, " "), "no snapshot: reading the page timed out after 2s: "+stuck) {
						t.Fatalf("wait: ok=%v err=%q notes=%q", r.Success, r.Error, r.Notes)
					}
				}},
				{tool.Input{Action: "snapshot", Timeout: 2000}, failsWith("timed out after 2s", stuck)},
				{tool.Input{Action: "evaluate", Expression: "1", Timeout: 2000}, failsWith("timed out after 2s", stuck)},
			},
		},
		{
			name:  "memory hog",
			steps: []step{{tool.Input{Action: "navigate", URL: srv.URL + "/hog", Timeout: 30000}, failsWith("renderer crashed")}},
			// The same tab comes back, without loading the hog again.
			after: "had crashed; its renderer was started again",
		},
		{
			name: "alert on load",
			steps: []step{
				{tool.Input{Action: "navigate", URL: srv.URL + "/alert", Timeout: 5000}, func(t *testing.T, r tool.Result) {
					if !r.Success || r.Dialog == nil || r.Dialog.Type != "alert" || r.Dialog.Message != "hi from the page" {
						t.Fatalf("the alert is not reported as an open dialog: ok=%v dialog=%+v err=%q", r.Success, r.Dialog, r.Error)
					}
				}},
				// The page is blocked until the dialog is answered.
				{tool.Input{Action: "snapshot", Timeout: 5000}, failsWith("dialog is open", "answer it with the dialog action")},
				{tool.Input{Action: "dialog", Accept: new(true), Timeout: 5000}, succeeds("Alert on load")},
			},
		},
		{
			name:  "answers after 20 s",
			setup: []tool.Input{{Action: "navigate", URL: site.URL("/form")}},
			steps: []step{
				{tool.Input{Action: "navigate", URL: srv.URL + "/slow", Timeout: 2000}, failsWith("timed out after 2s", "the site has not answered yet")},
				// The tab shows the page it had, as the error says, and
				// answers at once: the navigation was stopped.
				{tool.Input{Action: "snapshot", Timeout: 5000}, succeeds("Sign up")},
			},
		},
		{
			name: "50,000 console lines",
			steps: []step{
				{tool.Input{Action: "navigate", URL: srv.URL + "/console", Timeout: 20000}, succeeds("Chatty")},
				{tool.Input{Action: "console", Timeout: 5000}, func(t *testing.T, r tool.Result) {
					succeeds("line 49999", "older messages dropped")(t, r)
					if n := strings.Count(r.Content, "line "); n > 1100 {
						t.Errorf("the console answer has %d lines; the buffer should bound it", n)
					}
				}},
			},
		},
		{
			name: "200 iframes",
			steps: []step{
				{tool.Input{Action: "navigate", URL: srv.URL + "/frames", Timeout: 20000}, succeeds("Two hundred frames")},
				{tool.Input{Action: "snapshot", Timeout: 20000}, succeeds("frame 199")},
			},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			task := strings.NewReplacer(" ", "-", ",", "").Replace(c.name)
			for _, in := range c.setup {
				in.Task = task
				if r := do(in); !r.Success {
					t.Fatalf("setup %s: %s", in.Action, r.Error)
				}
			}
			for _, s := range c.steps {
				in := s.in
				in.Task = task
				r := hostileAction(t, e, in)
				s.check(t, r)
			}
			if r := tabUsable(t, e, task); !strings.Contains(strings.Join(r.Notes, " "), c.after) {
				t.Errorf("the navigation after does not note %q: %q", c.after, r.Notes)
			}
		})
	}
	t.Logf("drill took %s", time.Since(begun).Round(time.Millisecond))
}

// succeeds checks that an action succeeded and its answer says each of
// want.
func succeeds(want ...string) func(*testing.T, tool.Result) {
	return func(t *testing.T, r tool.Result) {
		t.Helper()
		if !r.Success {
			t.Fatalf("%s failed: %s", r.Action, r.Error)
		}
		for _, w := range want {
			if !strings.Contains(r.Content, w) {
				t.Fatalf("%s: the answer does not say %q:\n%.600s", r.Action, w, r.Content)
			}
		}
	}
}

// failsWith checks that an action failed with an error that says each of
// want.
func failsWith(want ...string) func(*testing.T, tool.Result) {
	return func(t *testing.T, r tool.Result) {
		t.Helper()
		if r.Success {
			t.Fatalf("%s succeeded; want a failure saying %q", r.Action, want)
		}
		for _, w := range want {
			if !strings.Contains(r.Error, w) {
				t.Fatalf("%s: the error does not say %q: %s", r.Action, w, r.Error)
			}
		}
	}
}

// hostileAction runs in while the bystander task navigates and reads a
// page, and checks that both return in time and the bystander succeeded.
func hostileAction(t *testing.T, e *engine.Engine, in tool.Input) tool.Result {
	t.Helper()
	bystander := make(chan error, 1)
	go func() {
		bystander <- func() error {
			for _, b := range []tool.Input{
				{Action: "navigate", Task: "bystander", URL: site.URL("/form"), Timeout: 20000},
				{Action: "snapshot", Task: "bystander", Timeout: 20000},
			} {
				r, err := e.Do(context.Background(), b)
				if err != nil {
					return err
				}
				if !r.Success || !strings.Contains(r.Content, "Sign up") {
					return fmt.Errorf("%s: ok=%v err=%q\n%.300s", b.Action, r.Success, r.Error, r.Content)
				}
			}
			return nil
		}()
	}()
	start := time.Now()
	r, err := e.Do(context.Background(), in)
	took := time.Since(start)
	if err != nil {
		t.Fatalf("%s: %v", in.Action, err)
	}
	t.Logf("%s took %s: ok=%v err=%q notes=%q", in.Action, took.Round(time.Millisecond), r.Success, r.Error, r.Notes)
	// Loose: the machine is noisy; what matters is that nothing hangs.
	if bound := time.Duration(in.Timeout)*time.Millisecond + 15*time.Second; took > bound {
		t.Errorf("%s took %s, more than its timeout allows (%s)", in.Action, took.Round(time.Millisecond), bound)
	}
	select {
	case err := <-bystander:
		if err != nil {
			t.Errorf("the bystander task failed meanwhile: %v", err)
		}
	case <-time.After(45 * time.Second):
		t.Fatal("the bystander task hangs")
	}
	return r
}

// tabUsable checks that the task's tab loads and reads a normal page, and
// returns the navigation's result.
func tabUsable(t *testing.T, e *engine.Engine, task string) tool.Result {
	t.Helper()
	start := time.Now()
	nav, err := e.Do(context.Background(), tool.Input{Action: "navigate", Task: task, URL: site.URL("/form"), Timeout: 20000})
	if err != nil || !nav.Success || !strings.Contains(nav.Content, "Sign up") {
		t.Fatalf("the tab is not usable after: %v ok=%v err=%q\n%.300s", err, nav.Success, nav.Error, nav.Content)
	}
	t.Logf("navigate after took %s, notes=%q", time.Since(start).Round(time.Millisecond), nav.Notes)
	r, err := e.Do(context.Background(), tool.Input{Action: "evaluate", Task: task, Expression: "document.title", Timeout: 5000})
	if err != nil || !r.Success || !strings.Contains(r.Content, "Sign up") {
		t.Fatalf("evaluate after: %v ok=%v err=%q\n%.300s", err, r.Success, r.Error, r.Content)
	}
	return nav
}

// TestTimeoutLogsSteps: an action that runs out of time leaves a warning
// with where its time went (its steps), at the daemon's default log level —
// the run that timed out (a busy CI machine) may not come again.
func TestTimeoutLogsSteps(t *testing.T) {
	done := make(chan struct{})
	srv := httptest.NewServer(hostilePages(done))
	defer srv.Close()
	defer close(done)
	cfg := testConfig(t)
	cfg.AllowHosts = append(cfg.AllowHosts, srv.Listener.Addr().String())
	var logs lockedBuffer
	e, err := engine.New(cfg, slog.New(slog.NewJSONHandler(&logs, nil))) // Info
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := e.Close(context.Background()); err != nil {
			t.Errorf("closing the engine: %v", err)
		}
		waitNoChromium(t, cfg.Data)
	})
	do := func(in tool.Input) tool.Result {
		t.Helper()
		r, err := e.Do(context.Background(), in)
		if err != nil {
			t.Fatalf("%s: %v", in.Action, err)
		}
		return r
	}
	if r := do(tool.Input{Action: "navigate", URL: srv.URL + "/spin"}); !r.Success {
		t.Fatal(r.Error)
	}
	if strings.Contains(logs.String(), "steps") {
		t.Errorf("an action that did not time out logged its steps at the info level:\n%s", logs.String())
	}
	if r := do(tool.Input{Action: "click", Role: "button", Name: "Spin", Timeout: 1500}); r.Success || !strings.Contains(r.Error, "timed out") {
		t.Fatalf("click on a page that spins: %+v", r)
	}
	var warned bool
	for _, l := range strings.Split(logs.String(), "\n") {
		if strings.Contains(l, `"msg":"action timed out"`) && strings.Contains(l, `"action":"click"`) && strings.Contains(l, "aimed ") {
			warned = true
		}
	}
	if !warned {
		t.Errorf("no warning with the click's steps (found, aimed …):\n%s", logs.String())
	}
}
