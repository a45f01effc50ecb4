//go:build linux

package e2e

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRemoteStoredSession is issue 15 point 6's "done when": daemon B
// creates a session from a stored session that daemon A holds, fetched
// from A's stored-session API (sessionServiceUrl) with A's token — given
// with the request, or B's --session-service-token — and its page is
// logged in; a daemon whose guard refuses loopback refuses the same
// request with the guard's message.
func TestRemoteStoredSession(t *testing.T) {
	// A holds alice's stored session.
	dataA, addrA := t.TempDir(), freeAddr(t)
	startDaemon(t, dataA, "--listen", addrA)
	var tok struct {
		Token string `json:"token"`
	}
	socketAPI(t, dataA).expect(201, "POST", "/api/tokens", map[string]string{"owner": "alice"}, &tok)
	var ss struct {
		ID string `json:"id"`
	}
	tcpAPI(t, addrA, tok.Token).expect(201, "POST", "/api/stored-sessions", map[string]any{"name": "login", "storageState": loginState(t, "alice")}, &ss)
	service := "http://" + addrA + "/api/stored-sessions"
	ref := func(name, id, token string) map[string]any {
		bs := map[string]any{"type": "reference", "sessionId": id, "sessionServiceUrl": service}
		if token != "" {
			bs["sessionServiceToken"] = token
		}
		return map[string]any{"name": name, "browserSession": bs}
	}

	// B allows 127.0.0.1 (as every test daemon) and has A's token, for A
	// only, in a file.
	tokFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokFile, []byte(tok.Token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	dataB := t.TempDir()
	startDaemon(t, dataB, "--session-service-token-file", tokFile, "--session-service-url", service+"/")
	b := socketAPI(t, dataB)
	host, _ := url.Parse(site.URL("/"))
	for _, tc := range []struct{ name, token string }{{"remote-token", tok.Token}, {"remote-daemon", ""}} {
		var c created
		b.expect(201, "POST", "/api/sessions", ref(tc.name, ss.ID, tc.token), &c)
		if c.ID != tc.name || strings.Join(c.AuthenticatedDomains, ",") != host.Hostname() || !strings.Contains(c.PromptHint, "- "+host.Hostname()) {
			t.Fatalf("%s: created %+v", tc.name, c)
		}
		if status, acct := apiAccount(b, tc.name); status != "Logged in as alice" || acct != "alice-ls" {
			t.Fatalf("%s: status %q, localStorage %q", tc.name, status, acct)
		}
		b.expect(204, "DELETE", "/api/sessions/"+tc.name, nil, nil)
	}

	// A's refusals, named.
	var p problem
	b.expect(502, "POST", "/api/sessions", ref("bad-token", ss.ID, "not-a-token"), &p)
	if !strings.Contains(p.Error, "answered 401") || p.paths() != "browserSession.sessionServiceToken" || strings.Contains(p.Error, "not-a-token") {
		t.Fatalf("a wrong token: %+v", p)
	}
	p = problem{}
	b.expect(404, "POST", "/api/sessions", ref("unknown", "ss_nope", ""), &p)
	if !strings.Contains(p.Error, "answered 404") || p.paths() != "browserSession.sessionId" {
		t.Fatalf("an unknown stored session: %+v", p)
	}

	// C allows no internal address: the guard refuses A's loopback URL.
	dataC := t.TempDir()
	startDaemonArgs(t, dataC, "--data", dataC, "--listen", "")
	p = problem{}
	socketAPI(t, dataC).expect(400, "POST", "/api/sessions", ref("refused", ss.ID, tok.Token), &p)
	if !strings.Contains(p.Error, "the guard refuses sessionServiceUrl "+service) || !strings.Contains(p.Error, "loopback") ||
		!strings.Contains(p.Error, "--allow-host "+addrA) || !strings.Contains(p.Error, "--allow-private") || p.paths() != "browserSession.sessionServiceUrl" {
		t.Fatalf("loopback without --allow-host: %+v", p)
	}
}
