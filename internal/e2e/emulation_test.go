//go:build linux

package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/browserd/browserd/internal/browser"
	"github.com/browserd/browserd/internal/inject"
	"github.com/browserd/browserd/internal/tool"
)

// envOf reads what the session's page sees: user agent, time zone and the
// position navigator.geolocation reports.
func envOf(t *testing.T, do func(tool.Input) tool.Result, session string) []any {
	t.Helper()
	return evalArray(t, do, session, `new Promise(res => {
		const base = [navigator.userAgent, Intl.DateTimeFormat().resolvedOptions().timeZone];
		navigator.geolocation.getCurrentPosition(p => res(JSON.stringify([...base, p.coords.latitude, p.coords.longitude])),
			e => res(JSON.stringify([...base, 'error: ' + e.message])), {timeout: 5000});
	})`)
}

// evalArray evaluates expression, a promise of a JSON array as a string,
// in the session's page and returns the array.
func evalArray(t *testing.T, do func(tool.Input) tool.Result, session, expression string) []any {
	t.Helper()
	r := do(tool.Input{Action: "evaluate", Session: session, Expression: expression})
	if !r.Success {
		t.Fatalf("evaluate in %s: %s", session, r.Error)
	}
	for _, line := range strings.Split(r.Content, "\n") {
		var s string
		var got []any
		if strings.HasPrefix(line, `"[`) && json.Unmarshal([]byte(line), &s) == nil && json.Unmarshal([]byte(s), &got) == nil {
			return got
		}
	}
	t.Fatalf("no result in %q", r.Content)
	return nil
}

// TestEmulationSurvivesRestart: a session created with a user agent, a
// time zone and a position shows them to its pages, and again after the
// daemon restarts and the session is resumed from its capture.
func TestEmulationSurvivesRestart(t *testing.T) {
	cfg := testConfig(t)
	emu := browser.Emulation{UserAgent: "browserd-e2e/1.0 (emulated)", Timezone: "Asia/Tokyo",
		Geolocation: &browser.Geolocation{Latitude: 35.6812, Longitude: 139.7671, Accuracy: 20}}
	want := `["browserd-e2e/1.0 (emulated)","Asia/Tokyo",35.6812,139.7671]`
	check := func(do func(tool.Input) tool.Result, when string) {
		t.Helper()
		got, _ := json.Marshal(envOf(t, do, "emu"))
		if string(got) != want {
			t.Fatalf("%s: the page sees %s, want %s", when, got, want)
		}
	}
	e1, do1 := newEngine(t, cfg)
	if _, err := e1.Inject(context.Background(), inject.Request{Session: "emu", Emulation: emu}); err != nil {
		t.Fatal(err)
	}
	if r := do1(tool.Input{Action: "navigate", Session: "emu", URL: site.URL("/account"), Snapshot: new(bool)}); !r.Success {
		t.Fatal(r.Error)
	}
	check(do1, "after creation")
	// A second tab opened later gets the same environment.
	if r := do1(tool.Input{Action: "tab_new", Session: "emu", URL: site.URL("/form"), Snapshot: new(bool)}); !r.Success {
		t.Fatal(r.Error)
	}
	check(do1, "in a new tab")
	if err := e1.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, do2 := newEngine(t, cfg)
	if r := do2(tool.Input{Action: "session_resume", Session: "emu"}); !r.Success {
		t.Fatalf("resume: %s", r.Error)
	}
	check(do2, "after the restart")
	// Bad settings are refused by field.
	_, err := e1.Inject(context.Background(), inject.Request{Session: "bad", Emulation: browser.Emulation{Timezone: "../etc", Geolocation: &browser.Geolocation{Latitude: 91}}})
	var ie *inject.Error
	if !errorAs(err, &ie) || ie.Kind != inject.Malformed || len(ie.Fields) != 2 {
		t.Fatalf("bad emulation: %v", err)
	}
}

func errorAs(err error, target any) bool { return errors.As(err, target) }
