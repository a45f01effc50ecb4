//go:build linux

package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/browserd/browserd/internal/tool"
)

// pageEnv reads what a session's page sees: user agent, time zone,
// navigator.language, Intl's locale and the position
// navigator.geolocation reports (or its error).
func pageEnv(t *testing.T, d *mcpDriver, session string) []any {
	t.Helper()
	return evalArray(t, func(in tool.Input) tool.Result { return d.do(t, in) }, session, `new Promise(res => {
		const base = [navigator.userAgent, Intl.DateTimeFormat().resolvedOptions().timeZone, navigator.language,
			Intl.DateTimeFormat().resolvedOptions().locale];
		navigator.geolocation.getCurrentPosition(p => res(JSON.stringify([...base, p.coords.latitude, p.coords.longitude, p.coords.accuracy])),
			e => res(JSON.stringify([...base, 'error: ' + e.message])), {timeout: 5000});
	})`)
}

// TestLaunchEnvironment (issue #17 point 4): the browser tool's launch,
// over MCP through `browserd mcp`, creates a session whose pages see the
// user agent, time zone, locale and position it names; a launch on that
// session with other values says they apply only at creation; after close
// a launch applies new ones; headless: false without a display is refused
// clearly and creates nothing. The launch answer carries structuredContent
// (point 7).
func TestLaunchEnvironment(t *testing.T) {
	// The daemon `browserd mcp` starts inherits this environment.
	t.Setenv("DISPLAY", "")
	t.Setenv("WAYLAND_DISPLAY", "")
	d := newMCPDriver(t)

	r := d.do(t, tool.Input{Action: "launch", Session: "visible", Headless: new(false)})
	if r.Success || !strings.Contains(r.Error, "headless: false needs a display: no DISPLAY or WAYLAND_DISPLAY is set for the daemon") {
		t.Fatalf("headless: false without a display: %+v, want the clear error", r)
	}
	if r := d.do(t, tool.Input{Action: "list_sessions", Filter: "all"}); strings.Contains(r.Content, "visible") {
		t.Errorf("the refused launch left a session behind: %s", r.Content)
	}

	args := map[string]any{"action": "launch", "session": "env", "headless": true, "userAgent": "browserd-e2e/2.0 (launch)",
		"timezone": "America/Sao_Paulo", "locale": "fr-FR", "geolocation": map[string]any{"latitude": -23.55, "longitude": -46.63, "accuracy": 30}}
	res, err := d.sess.CallTool(context.Background(), &mcp.CallToolParams{Name: "browser", Arguments: args})
	if err != nil || res.IsError {
		t.Fatalf("launch with an environment: %v %+v", err, res)
	}
	var out struct {
		Action  string `json:"action"`
		Success bool   `json:"success"`
		Content string `json:"content"`
	}
	b, _ := json.Marshal(res.StructuredContent)
	if json.Unmarshal(b, &out) != nil || out.Action != "launch" || !out.Success || out.Content == "" {
		t.Errorf("launch's structuredContent = %s, want action launch, success and the status", b)
	}
	if r := d.do(t, tool.Input{Action: "navigate", Session: "env", URL: site.URL("/account"), Snapshot: new(bool)}); !r.Success {
		t.Fatal(r.Error)
	}
	got, _ := json.Marshal(pageEnv(t, d, "env"))
	if want := `["browserd-e2e/2.0 (launch)","America/Sao_Paulo","fr-FR","fr-FR",-23.55,-46.63,30]`; string(got) != want {
		t.Fatalf("the page sees %s, want %s", got, want)
	}
	// A second tab of the session sees the same.
	if r := d.do(t, tool.Input{Action: "tab_new", Session: "env", URL: site.URL("/form"), Snapshot: new(bool)}); !r.Success {
		t.Fatal(r.Error)
	}
	if got2, _ := json.Marshal(pageEnv(t, d, "env")); string(got2) != string(got) {
		t.Errorf("a new tab sees %s, want %s", got2, got)
	}

	// The session runs: other values are refused clearly, the same pass.
	r = d.do(t, tool.Input{Action: "launch", Session: "env", Timezone: "Europe/Paris", Locale: "fr-FR"})
	if r.Success || !strings.Contains(r.Error, `session "env" already runs, with timezone "America/Sao_Paulo"`) ||
		!strings.Contains(r.Error, "apply only when launch creates the session") || !strings.Contains(r.Error, "close it first") {
		t.Fatalf("launch with another timezone on a running session: %+v", r)
	}
	if r := d.do(t, tool.Input{Action: "launch", Session: "env", UserAgent: "browserd-e2e/2.0 (launch)", Headless: new(true)}); !r.Success {
		t.Fatalf("launch with the session's own values: %s", r.Error)
	}

	// Closed, the session is created again with the new values.
	for range 2 { // its two tabs; the last close ends the session
		if r := d.do(t, tool.Input{Action: "tab_close", Session: "env"}); !r.Success {
			t.Fatal(r.Error)
		}
	}
	if r := d.do(t, tool.Input{Action: "close", Session: "env"}); !r.Success {
		t.Fatal(r.Error)
	}
	if r := d.do(t, tool.Input{Action: "launch", Session: "env", Timezone: "Europe/Paris", Locale: "de-DE"}); !r.Success {
		t.Fatalf("launch after close: %s", r.Error)
	}
	if r := d.do(t, tool.Input{Action: "navigate", Session: "env", URL: site.URL("/account"), Snapshot: new(bool)}); !r.Success {
		t.Fatal(r.Error)
	}
	env := pageEnv(t, d, "env")
	if env[1] != "Europe/Paris" || env[2] != "de-DE" || strings.Contains(env[0].(string), "browserd-e2e") {
		t.Errorf("after close and launch the page sees %v, want Europe/Paris, de-DE and the browser's own user agent", env)
	}
}
