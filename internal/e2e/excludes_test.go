//go:build linux

package e2e

import (
	"strings"
	"testing"

	"github.com/browserd/browserd/internal/tool"
)

// TestExcludedCookieDomainsPerProfileAndSession is source 000's cookie domain filtering, per
// profile and per session (issue 17 point 10): a profile logged in to two
// sites whose list excludes one of them comes back logged in to the other
// only; a session's own list (launch's excludeCookieDomains) keeps those
// cookies out of a state_load.
func TestExcludedCookieDomainsPerProfileAndSession(t *testing.T) {
	t.Parallel() // its own daemon or engine: waits more than it works, beside others (make test's budget)
	data := t.TempDir()
	startDaemon(t, data)
	do := socketDo(t, data)
	api := socketAPI(t, data)
	no := false
	must := func(in tool.Input) tool.Result {
		t.Helper()
		in.Snapshot = &no
		r := do(in)
		if !r.Success {
			t.Fatalf("%s: %s", in.Action, r.Error)
		}
		return r
	}
	status := func(profile, url string) string {
		t.Helper()
		must(tool.Input{Action: "navigate", Profile: profile, URL: url})
		return text(must(tool.Input{Action: "evaluate", Profile: profile, Expression: "document.getElementById('status').textContent"}))
	}
	// "sso" is the main site (127.0.0.1), the app is the other one
	// (localhost): the profile logs in to both.
	for _, u := range []string{site.URL("/login"), site.OtherURL("/login")} {
		must(tool.Input{Action: "navigate", Profile: "ex", URL: u})
		must(tool.Input{Action: "type", Profile: "ex", Selector: "#username", Text: "alice"})
		must(tool.Input{Action: "type", Profile: "ex", Selector: "#password", Text: "pw"})
		must(tool.Input{Action: "click", Profile: "ex", Role: "button", Name: "Log in"})
	}
	if s := status("ex", site.OtherURL("/account")); !strings.Contains(s, "Logged in as alice") {
		t.Fatalf("not logged in to the app: %q", s)
	}

	// The profile's list, over the API.
	var got struct {
		Domains []string `json:"domains"`
	}
	if code, raw := api.call("GET", "/api/profiles/ex/exclude-cookie-domains", nil, &got); code != 200 || len(got.Domains) != 0 {
		t.Fatalf("GET before any: %d %s", code, raw)
	}
	if code, raw := api.call("PUT", "/api/profiles/ex/exclude-cookie-domains", map[string]any{"domains": []string{"not a domain"}}, nil); code != 400 || !strings.Contains(string(raw), "not a domain") {
		t.Errorf("PUT with a bad domain: %d %s, want 400 naming it", code, raw)
	}
	if code, raw := api.call("PUT", "/api/profiles/ex/exclude-cookie-domains", map[string]any{"domains": []string{".LOCALHOST"}}, &got); code != 200 || len(got.Domains) != 1 || got.Domains[0] != "localhost" {
		t.Fatalf("PUT: %d %s", code, raw)
	}
	// The profile's browser ends; when it starts again, the app's
	// cookies are not put back, the SSO site's are.
	must(tool.Input{Action: "close", Profile: "ex"})
	if s := status("ex", site.OtherURL("/account")); !strings.Contains(s, "Not logged in") {
		t.Errorf("the excluded app's login came back: %q", s)
	}
	if s := status("ex", site.URL("/account")); !strings.Contains(s, "Logged in as alice") {
		t.Errorf("the login of the site that is not excluded is lost: %q", s)
	}

	// The session's list: launch's excludeCookieDomains keeps those
	// cookies out of a state_load (and out of its resumes).
	st := `{"cookies":[` +
		`{"name":"keep","value":"1","domain":"127.0.0.1","path":"/","expires":-1,"httpOnly":false,"secure":false,"sameSite":"Lax"},` +
		`{"name":"drop","value":"1","domain":"localhost","path":"/","expires":-1,"httpOnly":false,"secure":false,"sameSite":"Lax"}],"origins":[]}`
	r := must(tool.Input{Action: "launch", Session: "exs", ExcludeCookieDomains: []string{"localhost"}})
	if !strings.Contains(strings.Join(r.Notes, " "), "excluded cookie domains") {
		t.Errorf("launch does not say what it excluded: %v", r.Notes)
	}
	r = must(tool.Input{Action: "state_load", Session: "exs", State: []byte(st)})
	if !strings.Contains(strings.Join(r.Notes, " "), "1 cookies of excluded domains were left out") {
		t.Errorf("state_load does not say it left a cookie out: %v", r.Notes)
	}
	saved := must(tool.Input{Action: "state_save", Session: "exs"})
	if !strings.Contains(string(saved.State), `"keep"`) || strings.Contains(string(saved.State), `"drop"`) {
		t.Errorf("the session's cookies after a state_load with localhost excluded: %s", saved.State)
	}
	if r := do(tool.Input{Action: "launch", Session: "bad", ExcludeCookieDomains: []string{"exa mple.com"}}); r.Success || !strings.Contains(r.Error, "excludeCookieDomains") {
		t.Errorf("launch with a bad domain: %+v", r)
	}
}
