//go:build linux

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/browserd/browserd/internal/engine"
	"github.com/browserd/browserd/internal/storagestate"
	"github.com/browserd/browserd/internal/tool"
)

// login logs the default task of a profile in to the test site and returns
// the sessionStorage value the account page set.
func login(t *testing.T, data string, extra ...string) (tabid string) {
	t.Helper()
	for _, args := range [][]string{
		{"open", site.URL("/login")},
		{"type", "--selector", "#username", "alice"},
		{"type", "--selector", "#password", "pw"},
		{"click", "--role", "button", "--name", "Log in"},
	} {
		if r := cli(t, data, append(extra, args...)...); !r.Success {
			t.Fatalf("%v: %s", args, r.Error)
		}
	}
	r := cli(t, data, append(extra, "extract", "--selector", "#status")...)
	if !strings.Contains(r.Content, "Logged in as alice") {
		t.Fatalf("login did not work:\n%s", r.Content)
	}
	return evalText(t, data, append(extra, "eval", "sessionStorage.getItem('tabid')")...)
}

// evalText runs eval and returns its value without the envelope.
func evalText(t *testing.T, data string, args ...string) string {
	t.Helper()
	r := cli(t, data, args...)
	if !r.Success {
		t.Fatalf("%v: %s", args, r.Error)
	}
	return text(r)
}

// account opens the account page and reports what it shows.
func account(t *testing.T, data string, extra ...string) (status, ls, ss string) {
	t.Helper()
	if r := cli(t, data, append(extra, "open", site.URL("/account"))...); !r.Success {
		t.Fatal(r.Error)
	}
	status = evalText(t, data, append(extra, "eval", "document.getElementById('status').textContent")...)
	ls = evalText(t, data, append(extra, "eval", "localStorage.getItem('acct')")...)
	ss = evalText(t, data, append(extra, "eval", "sessionStorage.getItem('tabid')")...)
	return
}

// TestLoginSurvivesRestart: session-only cookies (the login), persistent
// cookies, localStorage and sessionStorage come back after a clean stop
// and after a SIGKILL of the daemon (from the last save); another profile
// never sees them.
func TestLoginSurvivesRestart(t *testing.T) {
	t.Parallel() // waits more than it works: run beside another (make test's budget)
	for _, how := range []string{"stop", "kill"} {
		t.Run(how, func(t *testing.T) {
			data := t.TempDir()
			d := startDaemon(t, data)
			tabid := login(t, data)
			if tabid == "" || tabid == "null" {
				t.Fatalf("no sessionStorage value: %q", tabid)
			}
			if how == "kill" {
				// The saver writes dirty profiles once a second: wait for a
				// save that follows the last action, then kill.
				stateFile := filepath.Join(data, "profiles", "admin", "default.state")
				after := time.Now()
				time.Sleep(20 * time.Millisecond) // mtime granularity
				evalText(t, data, "eval", "1")    // an action after 'after': the next save follows it
				for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(100 * time.Millisecond) {
					if st, err := os.Stat(stateFile); err == nil && st.ModTime().After(after) {
						break
					}
					if time.Now().After(deadline) {
						t.Fatal("the profile state was not saved within 15 s")
					}
				}
				_ = d.Process.Signal(syscall.SIGKILL)
			} else {
				stopDaemon(t, data)
			}
			_, _ = d.Process.Wait()
			waitNoChromium(t, data)
			// The state at rest is encrypted: no cookie value in clear.
			b, err := os.ReadFile(filepath.Join(data, "profiles", "admin", "default.state"))
			if err != nil {
				t.Fatalf("no saved state: %v", err)
			}
			if strings.Contains(string(b), "sid") || strings.Contains(string(b), tabid) {
				t.Fatal("the saved state is not encrypted")
			}
			if how == "stop" {
				// So is what Chromium keeps in the profile folder: after a
				// clean stop its cookie database and site storage are sealed.
				dir := filepath.Join(data, "profiles", "admin", "default")
				for _, gone := range []string{"Default/Cookies", "Default/Local Storage", "Default/Session Storage"} {
					if _, err := os.Lstat(filepath.Join(dir, gone)); err == nil {
						t.Errorf("%s is on disk in the clear after a clean stop", gone)
					}
				}
				if _, err := os.Stat(filepath.Join(dir, "credentials.sealed")); err != nil {
					t.Errorf("no sealed credentials in the profile: %v", err)
				}
				needle := []byte(strings.Trim(tabid, `"`))
				filepath.WalkDir(dir, func(p string, de os.DirEntry, err error) error {
					if err == nil && de.Type().IsRegular() {
						if b, _ := os.ReadFile(p); bytes.Contains(b, needle) {
							t.Errorf("%s holds the tab's sessionStorage value in the clear", p)
						}
					}
					return nil
				})
			}

			startDaemon(t, data)
			status, ls, ss := account(t, data)
			if !strings.Contains(status, "Logged in as alice") {
				t.Fatalf("after %s: %q, want logged in", how, status)
			}
			if !strings.Contains(ls, "alice") || !strings.Contains(ss, strings.Trim(tabid, `"`)) {
				t.Fatalf("after %s: localStorage %s, sessionStorage %s (was %s)", how, ls, ss, tabid)
			}
			if !strings.Contains(evalText(t, data, "eval", "document.cookie"), "pref=dark") {
				t.Fatal("the persistent cookie is gone")
			}
			// Another profile has its own, empty cookie jar.
			status, _, _ = account(t, data, "--profile", "other")
			if !strings.Contains(status, "Not logged in") {
				t.Fatalf("profile other sees profile default's login: %q", status)
			}
		})
	}
}

// TestTasksShareLogin: a login done by one task is seen by another task of
// the same profile, each in its own tab.
func TestTasksShareLogin(t *testing.T) {
	data := t.TempDir()
	startDaemon(t, data)
	login(t, data, "--session", "task1")
	status, _, _ := account(t, data, "--session", "task2")
	if !strings.Contains(status, "Logged in as alice") {
		t.Fatalf("task2 does not see task1's login: %q", status)
	}
	tabs1 := cli(t, data, "--session", "task1", "tabs").Tabs
	tabs2 := cli(t, data, "--session", "task2", "tabs").Tabs
	if len(tabs1) != 1 || len(tabs2) != 1 || tabs1[0].ID == tabs2[0].ID {
		t.Fatalf("tasks share tabs: %+v %+v", tabs1, tabs2)
	}
}

// TestExcludedCookieDomains: cookies of excluded domains are not restored.
func TestExcludedCookieDomains(t *testing.T) {
	data := t.TempDir()
	d := startDaemon(t, data)
	login(t, data)
	stopDaemon(t, data)
	_, _ = d.Process.Wait()
	startDaemon(t, data, "--exclude-cookie-domains", "127.0.0.1")
	status, _, _ := account(t, data)
	if !strings.Contains(status, "Not logged in") {
		t.Fatalf("an excluded domain's session cookie was restored: %q", status)
	}
}

// TestStateSaveLoad: our export is Playwright's storageState; loading it
// into a fresh profile logs that profile in.
func TestStateSaveLoad(t *testing.T) {
	data := t.TempDir()
	startDaemon(t, data)
	login(t, data)
	file := filepath.Join(t.TempDir(), "state.json")
	if r := cli(t, data, "state", "save", file); !r.Success {
		t.Fatal(r.Error)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	st, err := storagestate.Parse(b)
	if err != nil {
		t.Fatalf("our export does not parse as storageState: %v", err)
	}
	var doc struct {
		Cookies []map[string]any `json:"cookies"`
	}
	json.Unmarshal(b, &doc)
	var sid map[string]any
	for _, c := range doc.Cookies {
		if c["name"] == "sid" {
			sid = c
		}
	}
	if sid == nil || sid["expires"] != float64(-1) || sid["httpOnly"] != true {
		t.Fatalf("the session cookie is missing or wrong in the export: %v", sid)
	}
	if len(st.Origins) == 0 || len(st.Origins[0].SessionStorage) == 0 {
		t.Fatalf("storage missing from the export: %+v", st.Origins)
	}
	// A fresh profile is not logged in, until the state is loaded.
	status, _, _ := account(t, data, "--profile", "fresh")
	if !strings.Contains(status, "Not logged in") {
		t.Fatalf("a new profile is logged in before loading: %q", status)
	}
	if r := cli(t, data, "--profile", "fresh", "state", "load", file); !r.Success {
		t.Fatal(r.Error)
	}
	status, ls, _ := account(t, data, "--profile", "fresh")
	if !strings.Contains(status, "Logged in as alice") || !strings.Contains(ls, "alice") {
		t.Fatalf("after state load: %q %q", status, ls)
	}
}

// TestPlaywrightFixtureLoads: a storageState written by Playwright loads
// into an ephemeral session, and our export of that session carries it.
func TestPlaywrightFixtureLoads(t *testing.T) {
	fixture, err := os.ReadFile(filepath.Join("..", "storagestate", "testdata", "playwright.json"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(t)
	e, err := engine.New(cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(context.Background())
	d := &engineDriver{e: e, data: cfg.Data}
	ok(t, d, tool.Input{Action: "state_load", Session: "eph", State: fixture})
	r := ok(t, d, tool.Input{Action: "state_save", Session: "eph"})
	st, err := storagestate.Parse(r.State)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, c := range st.Cookies {
		got[c.Name] = c.Value + " " + c.Domain
	}
	if got["sid"] != "abc123 127.0.0.1" || got["pref"] != "dark .example.com" {
		t.Fatalf("cookies after load: %v", got)
	}
	if strings.Contains(r.Content, "abc123") {
		t.Fatal("a cookie value reached the content a model reads")
	}
	// Malformed input gets field-level errors.
	r = d.do(t, tool.Input{Action: "state_load", Session: "eph", State: []byte(`{"cookies":[{"name":"x"}]}`)})
	if r.Success || !strings.Contains(r.Error, "cookies[0].value: missing") {
		t.Fatalf("malformed state: %+v", r.Error)
	}
}

// TestBrokenProfilesRecover: garbage Preferences, a truncated Cookies
// database, a garbage sealed archive of the profile's credentials and a
// lock left by a dead process: each profile launches and comes back logged
// in.
func TestBrokenProfilesRecover(t *testing.T) {
	t.Parallel() // waits more than it works: run beside another (make test's budget)
	host, _ := os.Hostname()
	breakers := map[string]func(dir string) error{
		"garbage preferences": func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "Default", "Preferences"), []byte("{not json at all"), 0o600)
		},
		// A clean stop seals the cookie database; a crash leaves it plain,
		// and newer than the seal: here, cut short.
		"truncated cookies": func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "Default", "Cookies"), []byte("SQLite format 3\x00"+strings.Repeat("\x00", 84)), 0o600)
		},
		"garbage sealed credentials": func(dir string) error {
			return os.WriteFile(filepath.Join(dir, "credentials.sealed"), []byte("not sealed by browserd"), 0o600)
		},
		"stale lock": func(dir string) error {
			_ = os.Remove(filepath.Join(dir, "SingletonLock"))
			return os.Symlink(host+"-999999", filepath.Join(dir, "SingletonLock"))
		},
		"lock from another machine": func(dir string) error {
			_ = os.Remove(filepath.Join(dir, "SingletonLock"))
			return os.Symlink("elsewhere.example-4242", filepath.Join(dir, "SingletonLock"))
		},
	}
	for name, breakIt := range breakers {
		t.Run(name, func(t *testing.T) {
			data := t.TempDir()
			d := startDaemon(t, data)
			login(t, data)
			stopDaemon(t, data)
			_, _ = d.Process.Wait()
			if err := breakIt(filepath.Join(data, "profiles", "admin", "default")); err != nil {
				t.Fatal(err)
			}
			startDaemon(t, data)
			status, ls, _ := account(t, data)
			if !strings.Contains(status, "Logged in as alice") || !strings.Contains(ls, "alice") {
				t.Fatalf("broken profile (%s) did not come back logged in: %q %q", name, status, ls)
			}
		})
	}
}

// TestInlineStateOverMCP: an inline storageState passes the browser tool's
// published schema (it was an array of bytes there, and every MCP client
// was refused) for state_load and launch alike.
func TestInlineStateOverMCP(t *testing.T) {
	fixture, err := os.ReadFile(filepath.Join("..", "storagestate", "testdata", "playwright.json"))
	if err != nil {
		t.Fatal(err)
	}
	d := newMCPDriver(t)
	ok(t, d, tool.Input{Action: "state_load", Session: "inline", State: fixture})
	ok(t, d, tool.Input{Action: "launch", Session: "inline2", State: fixture})
	r := ok(t, d, tool.Input{Action: "state_save", Session: "inline2"})
	if !strings.Contains(string(r.State)+r.Content, "cookies") {
		t.Errorf("state_save after an inline launch: %+v", r)
	}
}
