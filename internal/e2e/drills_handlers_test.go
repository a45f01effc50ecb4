//go:build linux

package e2e

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/browserd/browserd/internal/tool"
)

// handlerPages serves pages whose input handlers fight the action that
// fires them (issue 26 point 2). Closing done ends the slow endpoint.
func handlerPages(done <-chan struct{}) http.Handler {
	mux := http.NewServeMux()
	page := func(path, title, attrs, after string) {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprintf(w, `<!doctype html><title>%s</title><h1>%s</h1><label>Field <input id=f %s></label>%s`, title, title, attrs, after)
		})
	}
	page("/retype", "Retype", `type=range oninput="this.type='text'"`, "")
	page("/retype-text", "Retype text", `oninput="this.type='range'"`, "")
	page("/remove", "Remove", `oninput="this.remove()"`, "")
	page("/reparent", "Reparent", `oninput="document.body.append(this)"`, "<p>Below</p>")
	page("/steal", "Steal", `oninput="document.getElementById('g').focus()"`, "<label>Other <input id=g></label>")
	page("/sync-xhr", "Sync XHR", `oninput="let x=new XMLHttpRequest();x.open('GET','/slow-api',false);try{x.send()}catch(e){}"`, "")
	page("/alert-in", "Alert", `oninput="alert('typed '+this.value)"`, "")
	page("/microtasks", "Microtasks", `oninput="(function f(){Promise.resolve().then(f)})()"`, "")
	mux.HandleFunc("/slow-api", func(w http.ResponseWriter, r *http.Request) {
		t := time.NewTimer(60 * time.Second)
		defer t.Stop()
		select {
		case <-t.C:
		case <-r.Context().Done():
		case <-done:
		}
		fmt.Fprint(w, "late")
	})
	return mux
}

// TestDrillHostileHandlers is issue 26 point 2's drill: input handlers that
// change the input's type, remove or move it, steal the focus, block on a
// synchronous request, open an alert or loop in microtasks. Each type and
// fill answers within its timeout plus 2 s (loosely checked: the machine
// is noisy), and the tab is usable after.
func TestDrillHostileHandlers(t *testing.T) {
	done := make(chan struct{})
	srv := httptest.NewServer(handlerPages(done))
	defer srv.Close()
	defer close(done)
	cfg := testConfig(t)
	cfg.AllowHosts = append(cfg.AllowHosts, srv.Listener.Addr().String())
	e, do := newEngine(t, cfg)
	for _, path := range []string{"/retype", "/retype-text", "/remove", "/reparent", "/steal", "/sync-xhr", "/alert-in", "/microtasks"} {
		actions := []string{"type", "fill"}
		if path == "/retype" || path == "/sync-xhr" || path == "/microtasks" {
			// The page hangs however it is typed into: once is enough.
			actions = actions[:1]
		}
		for _, action := range actions {
			t.Run(path[1:]+"-"+action, func(t *testing.T) {
				task := path[1:] + "-" + action
				if r := do(tool.Input{Action: "navigate", Task: task, URL: srv.URL + path}); !r.Success {
					t.Fatalf("navigate: %s", r.Error)
				}
				role := "textbox"
				if path == "/retype" {
					role = "slider"
				}
				in := tool.Input{Action: action, Task: task, Role: role, Name: "Field", Text: "42", Timeout: 2000}
				if action == "fill" {
					snap := do(tool.Input{Action: "snapshot", Task: task})
					ref := ref(t, snap.Content, role, "Field")
					in = tool.Input{Action: action, Task: task, Fields: []tool.Field{{Ref: ref, Value: "42"}}, Timeout: 2000}
				}
				start := time.Now()
				r := hostileAction(t, e, in)
				took := time.Since(start)
				t.Logf("%s %s: %s ok=%v err=%q notes=%q", action, path, took.Round(time.Millisecond), r.Success, r.Error, r.Notes)
				if took > 2*time.Second+2*time.Second+3*time.Second {
					t.Errorf("%s took %s; its timeout is 2s", action, took)
				}
				// Each key may open another alert: answer them all.
				for n := 0; r.Dialog != nil; n++ {
					if n > 5 {
						t.Fatalf("dialogs keep opening: %+v", r.Dialog)
					}
					r = do(tool.Input{Action: "dialog", Task: task, Accept: new(true), Timeout: 5000})
					if !r.Success {
						t.Fatalf("dialog: %s", r.Error)
					}
				}
				tabUsable(t, e, task)
			})
		}
	}
}

// TestCloseEndsCalls: closing a session (DELETE /api/sessions/…) ends a
// call that a page holds, at once, not at the call's timeout.
func TestCloseEndsCalls(t *testing.T) {
	done := make(chan struct{})
	srv := httptest.NewServer(handlerPages(done))
	defer srv.Close()
	defer close(done)
	cfg := testConfig(t)
	cfg.AllowHosts = append(cfg.AllowHosts, srv.Listener.Addr().String())
	e, do := newEngine(t, cfg)
	nav := do(tool.Input{Action: "navigate", Session: "held", URL: srv.URL + "/sync-xhr"})
	if !nav.Success {
		t.Fatalf("navigate: %s", nav.Error)
	}
	answered := make(chan tool.Result, 1)
	start := time.Now()
	go func() {
		r, err := e.Do(context.Background(), tool.Input{Action: "type", Session: "held", Role: "textbox", Name: "Field", Text: "1", Timeout: 60000})
		if err != nil {
			r = tool.Result{Error: err.Error()}
		}
		answered <- r
	}()
	time.Sleep(1500 * time.Millisecond) // the synchronous request holds the page
	if err := e.CloseSession(context.Background(), nav.Session); err != nil {
		t.Fatalf("closing the session: %v", err)
	}
	closed := time.Since(start)
	select {
	case r := <-answered:
		t.Logf("type answered after %s (close returned after %s): ok=%v err=%q", time.Since(start).Round(time.Millisecond), closed.Round(time.Millisecond), r.Success, r.Error)
		if r.Success || !strings.Contains(r.Error, "the session was closed while type ran") {
			t.Errorf("the held type does not say the session was closed: ok=%v err=%q", r.Success, r.Error)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the held type still runs 30 s after its session was closed")
	}
	if closed > 30*time.Second {
		t.Errorf("closing waited %s for the held call", closed)
	}
}
