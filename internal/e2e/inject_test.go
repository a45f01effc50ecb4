//go:build linux

package e2e

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// apiClient calls the daemon's HTTP API, over TCP with a token or over
// the Unix socket (as admin) when token is "".
type apiClient struct {
	t     *testing.T
	base  string
	hc    *http.Client
	token string
}

func tcpAPI(t *testing.T, addr, token string) *apiClient {
	return &apiClient{t: t, base: "http://" + addr, hc: &http.Client{Timeout: 90 * time.Second}, token: token}
}

func socketAPI(t *testing.T, data string) *apiClient {
	sock := filepath.Join(data, "browserd.sock")
	tr := &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", sock)
	}}
	t.Cleanup(tr.CloseIdleConnections)
	return &apiClient{t: t, base: "http://browserd", hc: &http.Client{Transport: tr, Timeout: 90 * time.Second}}
}

// call sends body (JSON-encoded unless []byte) and decodes the answer into
// out (if not nil); it returns the status and the raw answer.
func (a *apiClient) call(method, path string, body, out any) (int, []byte) {
	a.t.Helper()
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case []byte:
		r = bytes.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			a.t.Fatal(err)
		}
		r = bytes.NewReader(j)
	}
	req, err := http.NewRequest(method, a.base+path, r)
	if err != nil {
		a.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if a.token != "" {
		req.Header.Set("Authorization", "Bearer "+a.token)
	}
	resp, err := a.hc.Do(req)
	if err != nil {
		a.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if out != nil && len(data) > 0 && resp.Header.Get("Content-Type") == "application/json" {
		if err := json.Unmarshal(data, out); err != nil {
			a.t.Fatalf("%s %s: decoding %s: %v", method, path, data, err)
		}
	}
	return resp.StatusCode, data
}

// expect fails the test unless the call answers want.
func (a *apiClient) expect(want int, method, path string, body, out any) []byte {
	a.t.Helper()
	got, data := a.call(method, path, body, out)
	if got != want {
		a.t.Fatalf("%s %s: %d %s, want %d", method, path, got, data, want)
	}
	return data
}

type created struct {
	ID                   string   `json:"id"`
	State                string   `json:"state"`
	AuthenticatedDomains []string `json:"authenticatedDomains"`
	PromptHint           string   `json:"promptHint"`
	Dropped              []string `json:"dropped"`
	Notes                []string `json:"notes"`
}

type problem struct {
	Error  string `json:"error"`
	Fields []struct {
		Path    string `json:"path"`
		Message string `json:"message"`
	} `json:"fields"`
}

func (p problem) paths() string {
	var s []string
	for _, f := range p.Fields {
		s = append(s, f.Path)
	}
	return strings.Join(s, ",")
}

// apiAccount navigates a session to the test site's account page over the API
// and returns its status line and localStorage "inj".
func apiAccount(a *apiClient, session string) (status, acct string) {
	a.t.Helper()
	var res struct {
		Success bool   `json:"success"`
		Error   string `json:"error"`
		Content string `json:"content"`
	}
	no := false
	a.expect(200, "POST", "/api/sessions/"+session+"/actions", map[string]any{"action": "navigate", "url": site.URL("/account"), "snapshot": no}, &res)
	if !res.Success {
		a.t.Fatalf("navigate in %s: %s", session, res.Error)
	}
	a.expect(200, "POST", "/api/sessions/"+session+"/actions", map[string]any{"action": "evaluate",
		"expression": `JSON.stringify([(document.getElementById('status')||{}).textContent||'', localStorage.getItem('inj')||'', document.cookie])`}, &res)
	if !res.Success {
		a.t.Fatalf("evaluate in %s: %s", session, res.Error)
	}
	// The result is wrapped: the JSON string is on a line of its own.
	var got []string
	for _, line := range strings.Split(res.Content, "\n") {
		var s string
		if strings.HasPrefix(line, `"[`) && json.Unmarshal([]byte(line), &s) == nil && json.Unmarshal([]byte(s), &got) == nil {
			break
		}
	}
	if len(got) != 3 {
		a.t.Fatalf("evaluate in %s: no result in %q", session, res.Content)
	}
	if strings.Contains(got[2], "sid=") {
		a.t.Errorf("the HttpOnly sid cookie is visible to the page in %s: %q", session, got[2])
	}
	return got[0], got[1]
}

// loginState is a storageState logged in to the test site as user with a
// session-only HttpOnly cookie and localStorage.
func loginState(t *testing.T, user string) map[string]any {
	u, _ := url.Parse(site.URL("/"))
	return map[string]any{
		"cookies": []map[string]any{{"name": "sid", "value": siteLogin(t, user), "domain": u.Hostname(), "path": "/",
			"expires": -1, "httpOnly": true, "secure": false, "sameSite": "Lax"}},
		"origins": []map[string]any{{"origin": strings.TrimSuffix(site.URL("/"), "/"),
			"localStorage": []map[string]any{{"name": "inj", "value": user + "-ls"}}}},
	}
}

// TestInjection is issue 6's "done when" over the HTTP API of a real
// daemon: inline and reference injection, owner isolation, token
// revocation, field-level refusals, the profile archive and the MCP side.
func TestInjection(t *testing.T) {
	t.Parallel() // waits more than it works: run beside another (make test's budget)
	data := t.TempDir()
	addr := freeAddr(t)
	startDaemon(t, data, "--listen", addr)
	admin := socketAPI(t, data)
	var tokA, tokB struct {
		ID    string `json:"id"`
		Token string `json:"token"`
	}
	admin.expect(201, "POST", "/api/tokens", map[string]string{"owner": "alice"}, &tokA)
	admin.expect(201, "POST", "/api/tokens", map[string]string{"owner": "bob"}, &tokB)
	alice, bob := tcpAPI(t, addr, tokA.Token), tcpAPI(t, addr, tokB.Token)
	host, _ := url.Parse(site.URL("/"))

	// Inline: a session-only HttpOnly cookie and localStorage.
	var c created
	alice.expect(201, "POST", "/api/sessions", map[string]any{"name": "inl",
		"browserSession": map[string]any{"type": "inline", "storageState": loginState(t, "alice")}}, &c)
	if c.ID != "inl" || c.State != "active" || strings.Join(c.AuthenticatedDomains, ",") != host.Hostname() ||
		!strings.Contains(c.PromptHint, "## Browser Session") || !strings.Contains(c.PromptHint, "- "+host.Hostname()) {
		t.Fatalf("created: %+v", c)
	}
	if status, acct := apiAccount(alice, "inl"); status != "Logged in as alice" || acct != "alice-ls" {
		t.Fatalf("inline injection: status %q, localStorage %q", status, acct)
	}
	// A page the session visits sets a cookie for its own domain: the hint
	// lists it apart, as data, and never as the login to navigate to.
	other, _ := url.Parse(site.OtherURL("/"))
	var nres struct {
		Success bool   `json:"success"`
		Error   string `json:"error"`
	}
	alice.expect(200, "POST", "/api/sessions/inl/actions", map[string]any{"action": "navigate", "url": site.OtherURL("/cookies/set?name=track&value=1&maxAge=3600"), "snapshot": false}, &nres)
	if !nres.Success {
		t.Fatalf("navigate to the other site: %s", nres.Error)
	}
	var lh struct {
		PromptHint string `json:"promptHint"`
	}
	alice.expect(200, "GET", "/api/sessions/inl/hint", nil, &lh)
	if !strings.Contains(lh.PromptHint, "- "+host.Hostname()+"\n") || strings.Contains(lh.PromptHint, "- "+other.Hostname()) ||
		strings.Contains(lh.PromptHint, "https://"+other.Hostname()) || !strings.Contains(lh.PromptHint, "visited pages set (not stored logins; the pages chose these domains): "+other.Hostname()) {
		t.Fatalf("the live hint names a page-set cookie domain as a login:\n%s", lh.PromptHint)
	}
	apiAccount(alice, "inl") // back on the logged-in site, whose storage the capture below keeps
	// The same name again: taken.
	alice.expect(409, "POST", "/api/sessions", map[string]any{"name": "inl"}, nil)

	// Reference: store the live session, then inject it into a new one.
	var stored struct {
		ID      string   `json:"id"`
		Name    string   `json:"name"`
		Cookies int      `json:"cookieCount"`
		Domains []string `json:"domains"`
	}
	alice.expect(201, "POST", "/api/sessions/inl/capture", map[string]any{"name": "alice-login"}, &stored)
	if stored.Name != "alice-login" || stored.Cookies < 1 || !strings.HasPrefix(stored.ID, "ss_") {
		t.Fatalf("captured: %+v", stored)
	}
	list := alice.expect(200, "GET", "/api/stored-sessions", nil, nil)
	if !strings.Contains(string(list), stored.ID) || strings.Contains(string(list), siteLoginValuePrefix) {
		t.Fatalf("stored-sessions listing: %s", list)
	}
	var ref created
	alice.expect(201, "POST", "/api/sandboxes", map[string]any{"flavor": "agent-ready", "name": "ref",
		"browserSession": map[string]any{"type": "reference", "sessionId": stored.ID}}, &ref)
	if status, acct := apiAccount(alice, "ref"); status != "Logged in as alice" || acct != "alice-ls" {
		t.Fatalf("reference injection: status %q, localStorage %q", status, acct)
	}
	stateJSON := alice.expect(200, "GET", "/api/stored-sessions/"+stored.ID+"/state", nil, nil)
	if !strings.Contains(string(stateJSON), `"sid"`) {
		t.Fatalf("stored state has no sid cookie: %s", stateJSON)
	}
	if live := alice.expect(200, "GET", "/api/sessions/ref/state", nil, nil); !strings.Contains(string(live), `"sid"`) {
		t.Fatalf("session state export has no sid cookie: %s", live)
	}

	// Owner isolation: bob sees none of it, and cannot inject it.
	for _, p := range []struct{ method, path string }{
		{"GET", "/api/sessions/inl"}, {"GET", "/api/sessions/inl/state"}, {"DELETE", "/api/sessions/inl"},
		{"POST", "/api/sessions/inl/capture"}, {"POST", "/api/sessions/inl/resume"},
		{"GET", "/api/stored-sessions/" + stored.ID}, {"GET", "/api/stored-sessions/" + stored.ID + "/state"},
		{"GET", "/api/stored-sessions/" + stored.ID + "/profile"}, {"DELETE", "/api/stored-sessions/" + stored.ID},
	} {
		bob.expect(404, p.method, p.path, nil, nil)
	}
	bob.expect(404, "POST", "/api/sessions/inl/actions", map[string]any{"action": "snapshot"}, nil)
	bob.expect(404, "POST", "/api/sessions", map[string]any{"browserSession": map[string]any{"type": "reference", "sessionId": stored.ID}}, nil)
	if l := bob.expect(200, "GET", "/api/sessions?state=all", nil, nil); strings.Contains(string(l), `"inl"`) || strings.Contains(string(l), `"ref"`) {
		t.Fatalf("bob lists alice's sessions: %s", l)
	}
	if l := bob.expect(200, "GET", "/api/stored-sessions", nil, nil); strings.Contains(string(l), stored.ID) {
		t.Fatalf("bob lists alice's stored sessions: %s", l)
	}
	// Bob's own "inl" is another session, not logged in.
	bob.expect(201, "POST", "/api/sessions", map[string]any{"name": "inl"}, nil)
	if status, acct := apiAccount(bob, "inl"); strings.Contains(status, "Logged in") || acct != "" {
		t.Fatalf("bob's inl sees alice's login: %q %q", status, acct)
	}
	// The tool over /api/actions is scoped too: tab ids count per session,
	// and bob's t1 is his own tab, not alice's t1.
	var res struct {
		Success bool   `json:"success"`
		Error   string `json:"error"`
		Content string `json:"content"`
	}
	bob.expect(200, "POST", "/api/actions", map[string]any{"action": "evaluate", "session": "inl", "tab": "t1", "expression": "document.body.innerText"}, &res)
	if !res.Success || strings.Contains(res.Content, "Logged in") {
		t.Fatalf("bob's tab t1 is not his own: %v %s\n%s", res.Success, res.Error, res.Content)
	}
	// Revoked: refused at once.
	admin.expect(204, "DELETE", "/api/tokens/"+tokB.ID, nil, nil)
	bob.expect(401, "GET", "/api/sessions", nil, nil)

	// Refusals with field paths.
	var p problem
	bad := map[string]any{"cookies": []map[string]any{{"name": "a", "value": "b"}}}
	alice.expect(400, "POST", "/api/sessions", map[string]any{"browserSession": map[string]any{"type": "inline", "storageState": bad}}, &p)
	if p.paths() != "browserSession.storageState.cookies[0].domain" {
		t.Fatalf("malformed: %+v", p)
	}
	expired := loginState(t, "alice")
	expired["cookies"].([]map[string]any)[0]["expires"] = float64(time.Now().Add(-time.Hour).Unix())
	p = problem{}
	alice.expect(422, "POST", "/api/sessions", map[string]any{"browserSession": map[string]any{"type": "inline", "storageState": expired}}, &p)
	if p.paths() != "browserSession.storageState.cookies[0]" || !strings.Contains(p.Fields[0].Message, `"sid"`) {
		t.Fatalf("expired: %+v", p)
	}
	p = problem{}
	alice.expect(422, "POST", "/api/sessions", map[string]any{"allowedDomains": []string{"example.com"},
		"browserSession": map[string]any{"type": "inline", "storageState": loginState(t, "alice")}}, &p)
	if p.paths() != "browserSession.storageState.cookies[0],browserSession.storageState.origins[0]" {
		t.Fatalf("foreign: %+v", p)
	}
	c = created{}
	alice.expect(201, "POST", "/api/sessions", map[string]any{"name": "filtered", "allowedDomains": []string{"example.com"}, "domainPolicy": "filter",
		"browserSession": map[string]any{"type": "inline", "storageState": loginState(t, "alice")}}, &c)
	if len(c.Dropped) != 2 || len(c.AuthenticatedDomains) != 0 {
		t.Fatalf("filtered: %+v", c)
	}
	if status, _ := apiAccount(alice, "filtered"); strings.Contains(status, "Logged in") {
		t.Fatalf("a filtered-out cookie logged the session in: %q", status)
	}
	alice.expect(400, "POST", "/api/sessions", []byte(`{"browserSession": {"type": "inline", "storageState": [1]`), nil)
	alice.expect(400, "POST", "/api/sessions", map[string]any{"browserSession": map[string]any{"type": "magic"}}, nil)
	alice.expect(400, "POST", "/api/sessions", map[string]any{"name": "no/slash"}, nil)
	alice.expect(400, "POST", "/api/sessions", map[string]any{"domainPolicy": "maybe", "allowedDomains": []string{"x.test"},
		"browserSession": map[string]any{"type": "inline", "storageState": loginState(t, "alice")}}, nil)
	alice.expect(404, "POST", "/api/sessions", map[string]any{"browserSession": map[string]any{"type": "reference", "sessionId": "ss_nope"}}, nil)
	alice.expect(422, "POST", "/api/stored-sessions", map[string]any{"name": "old", "storageState": loginState(t, "alice"), "expiresAt": time.Now().Add(-time.Minute)}, nil)
	huge := bytes.Repeat([]byte(" "), 34<<20)
	alice.expect(413, "POST", "/api/sessions", huge, nil)
	tcpAPI(t, addr, "").expect(401, "GET", "/api/sessions", nil, nil)

	// A stored session as a Chrome profile archive.
	arch := alice.expect(200, "GET", "/api/stored-sessions/"+stored.ID+"/profile", nil, nil)
	names := tarNames(t, arch)
	for _, want := range []string{"profile/Default/Cookies", "profile/Default/Preferences", "profile/Local State", "profile/Default/Local Storage/leveldb/CURRENT"} {
		if !strings.Contains(names, want+"\n") {
			t.Fatalf("profile archive lacks %s:\n%s", want, names)
		}
	}

	// MCP over HTTP as alice: launch with storedSession, and the prompt.
	cl := mcp.NewClient(&mcp.Implementation{Name: "e2e-inject", Version: "1"}, nil)
	sess, err := cl.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: "http://" + addr + "/mcp", HTTPClient: bearerClient(tokA.Token)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	r, err := sess.CallTool(context.Background(), &mcp.CallToolParams{Name: "browser", Arguments: map[string]any{"action": "launch", "session": "viamcp", "storedSession": stored.ID}})
	if err != nil || r.IsError {
		t.Fatalf("launch with storedSession: %v %+v", err, r)
	}
	if txt := r.Content[0].(*mcp.TextContent).Text; !strings.Contains(txt, "- "+host.Hostname()) {
		t.Fatalf("launch did not name the authenticated domain: %s", txt)
	}
	if status, _ := apiAccount(alice, "viamcp"); status != "Logged in as alice" {
		t.Fatalf("launch with storedSession: %q", status)
	}
	pr, err := sess.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "session_context", Arguments: map[string]string{"stored_session": stored.ID}})
	if err != nil || len(pr.Messages) != 1 || !strings.Contains(pr.Messages[0].Content.(*mcp.TextContent).Text, host.Hostname()) {
		t.Fatalf("session_context prompt: %v %+v", err, pr)
	}
	// Deleting closes: the session is gone from the live list.
	alice.expect(204, "DELETE", "/api/sessions/inl", nil, nil)
	var info struct {
		State string `json:"state"`
	}
	alice.expect(200, "GET", "/api/sessions/inl", nil, &info)
	if info.State != "closed" {
		t.Fatalf("deleted session is %q", info.State)
	}
	alice.expect(404, "GET", "/api/sessions/inl/state", nil, nil)
	alice.expect(204, "DELETE", "/api/stored-sessions/"+stored.ID, nil, nil)
	// Files are the owner's own: admin's saved state is not alice's to load.
	var sres struct {
		Success bool   `json:"success"`
		Error   string `json:"error"`
		Path    string `json:"path"`
	}
	admin.expect(200, "POST", "/api/actions", map[string]any{"action": "state_save", "session": "adm", "path": "adm.json"}, &sres)
	if !sres.Success {
		t.Fatalf("admin state_save: %s", sres.Error)
	}
	alice.expect(200, "POST", "/api/actions", map[string]any{"action": "state_load", "session": "ref", "path": "adm.json"}, &sres)
	if sres.Success || !strings.Contains(sres.Error, "no state file") {
		t.Fatalf("alice loaded admin's saved state: %+v", sres)
	}
	// The prompt over stdio (browserd mcp, as admin), for admin's stored session.
	var adminStored struct {
		ID string `json:"id"`
	}
	admin.expect(201, "POST", "/api/stored-sessions", map[string]any{"name": "adm", "storageState": loginState(t, "admin")}, &adminStored)
	var hint struct {
		PromptHint string `json:"promptHint"`
	}
	admin.expect(200, "GET", "/api/stored-sessions/"+adminStored.ID+"/hint", nil, &hint)
	if !strings.Contains(hint.PromptHint, "- "+host.Hostname()) {
		t.Fatalf("stored-session hint: %q", hint.PromptHint)
	}
	alice.expect(404, "GET", "/api/stored-sessions/"+adminStored.ID+"/hint", nil, nil)
	stdio, err := mcp.NewClient(&mcp.Implementation{Name: "e2e-stdio", Version: "1"}, nil).Connect(context.Background(),
		&mcp.CommandTransport{Command: exec.Command(browserdBin(t), append([]string{"mcp"}, daemonFlags(data)...)...)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	pr, err = stdio.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "session_context", Arguments: map[string]string{"stored_session": adminStored.ID}})
	stdio.Close()
	if err != nil || len(pr.Messages) != 1 || pr.Messages[0].Content.(*mcp.TextContent).Text != hint.PromptHint {
		t.Fatalf("session_context over stdio: %v %+v", err, pr)
	}
	admin.expect(400, "POST", "/api/tokens", map[string]string{"owner": ".."}, nil)
	admin.expect(400, "POST", "/api/tokens", map[string]string{"owner": "Alice"}, nil)
	alice.expect(404, "GET", "/api/stored-sessions/"+stored.ID, nil, nil)
}

// siteLoginValuePrefix never appears in a listing: session ids of the test
// site are long hex strings; the listing must not carry cookie values.
const siteLoginValuePrefix = `"value"`

func tarNames(t *testing.T, arch []byte) string {
	t.Helper()
	gz, err := gzip.NewReader(bytes.NewReader(arch))
	if err != nil {
		t.Fatalf("profile archive is not gzip: %v", err)
	}
	tr := tar.NewReader(gz)
	var b strings.Builder
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return b.String()
		}
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintln(&b, h.Name)
	}
}
