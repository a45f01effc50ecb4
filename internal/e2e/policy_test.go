//go:build linux

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/browserd/browserd/internal/browser"
	"github.com/browserd/browserd/internal/chromium"
	"github.com/browserd/browserd/internal/tool"
)

// TestPolicy (issue 36, points 5 and 6): an owner decides what its agents
// may do. A token created with the CLI carries a policy; through MCP over
// HTTP and the HTTP API its agent is refused evaluate, a navigation
// outside the listed hosts (its own, and one the page makes), a secret the
// policy denies and a state export, each naming the policy and the rule;
// a secret the policy asks a person about is typed once a person approves
// it on the dashboard, and not at all when nobody does. The CLI, over the
// Unix socket, runs under the daemon's default policy (--default-policy).
func TestPolicy(t *testing.T) {
	t.Parallel() // waits more than it works: run beside another (make test's budget)
	const value = "Hunter2-Sekrit-99"
	var (
		mu  sync.Mutex
		got []string // the passwords the form sent
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/got":
			mu.Lock()
			got = append(got, r.URL.Query().Get("pw"))
			mu.Unlock()
			fmt.Fprint(w, `<!doctype html><title>Sent</title><p>Thanks</p>`)
		case "/away":
			fmt.Fprint(w, `<!doctype html><title>Away</title><p>Another host</p><button onclick="this.textContent='pressed'">Far button</button>`)
		case "/framed":
			fmt.Fprintf(w, `<!doctype html><title>Framed</title><p>Own text</p>
<iframe src="http://localhost:%s/away"></iframe><iframe srcdoc="<button>Inner</button>"></iframe>`, strings.TrimPrefix(r.Host, "127.0.0.1:"))
		default:
			port := strings.TrimPrefix(r.Host, "127.0.0.1:")
			fmt.Fprintf(w, `<!doctype html><title>Home</title><a href="http://localhost:%s/away">Away</a>
<button onclick="window.open('http://localhost:%s/away')">Pop</button>
<form action="/got"><label>Password <input name=pw></label><label>PIN <input name=pin></label><button>Send</button></form>`, port, port)
		}
	}))
	defer srv.Close()
	sent := func() []string { mu.Lock(); defer mu.Unlock(); return slices.Clone(got) }
	origin := srv.URL // http://127.0.0.1:PORT
	port := strings.TrimPrefix(origin, "http://127.0.0.1:")

	// The operator's webhook, told when a call waits for approval.
	notes := make(chan map[string]string, 4)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m map[string]string
		_ = json.NewDecoder(r.Body).Decode(&m)
		notes <- m
	}))
	defer hook.Close()
	data := t.TempDir()
	addr := freeAddr(t)
	startDaemon(t, data, "--listen", addr, "--default-policy", `{"deny":["evaluate"]}`, "--notify-url", hook.URL)

	// The owner's token, made with the CLI, with its policy.
	pol := `{"deny":["evaluate","state_save","network.bodies","secret:BANK_PIN","screenshot"],"confirm":["secret:SHOP_PW"],"hosts":["127.0.0.1"],"confirmTimeout":"15s"}`
	out, err := exec.Command(browserdBin(t), "--json", "--data", data, "token", "create", "--owner", "bob", "--label", "shop agent", "--policy", pol).Output()
	if err != nil {
		t.Fatalf("browserd token create --policy: %v %s", err, out)
	}
	var tok struct {
		ID     string          `json:"id"`
		Token  string          `json:"token"`
		Policy json.RawMessage `json:"policy"`
	}
	if err := json.Unmarshal(out, &tok); err != nil || tok.Token == "" || !bytes.Contains(tok.Policy, []byte(`"secret:BANK_PIN"`)) {
		t.Fatalf("token create: %s (%v)", out, err)
	}
	src := "token " + tok.ID
	bob := tcpAPI(t, addr, tok.Token)
	// A person's token of bob's, without a policy, manages; the agent's,
	// with one that does not grant manage, may not (issue 47 #2): not
	// replace or delete the secrets it types, make tokens, sign in to the
	// dashboard where its confirms are approved, or share the live view.
	var ptok struct {
		Token string `json:"token"`
	}
	tcpAPI(t, addr, adminToken(t, data)).expect(201, "POST", "/api/tokens", map[string]string{"owner": "bob"}, &ptok)
	person := tcpAPI(t, addr, ptok.Token)
	person.expect(200, "PUT", "/api/secrets/SHOP_PW", map[string]any{"value": value, "origins": []string{origin}}, nil)
	person.expect(200, "PUT", "/api/secrets/BANK_PIN", map[string]any{"value": "4829", "origins": []string{origin}}, nil)
	for _, door := range []struct{ method, path string }{
		{"PUT", "/api/secrets/SHOP_PW"}, {"DELETE", "/api/secrets/SHOP_PW"}, {"POST", "/api/tokens"},
		{"GET", "/api/tokens"}, {"POST", "/api/dashboard"}, {"POST", "/api/sessions/s/live"},
		{"PUT", "/api/profiles/default/exclude-cookie-domains"},
	} {
		code, body := bob.call(door.method, door.path, map[string]any{"value": "replaced-by-the-agent", "owner": "bob", "domains": []string{"x.example"}}, nil)
		if code != http.StatusForbidden || !strings.Contains(string(body), "grants manage") {
			t.Errorf("%s %s with the agent's token: %d %s, want 403 saying it needs manage", door.method, door.path, code, body)
		}
	}

	call := func(in map[string]any) tool.Result {
		t.Helper()
		in["session"] = "s"
		var res tool.Result
		bob.expect(200, "POST", "/api/actions", in, &res)
		if strings.Contains(res.Content+res.Error+strings.Join(res.Notes, " ")+strings.Join(res.Details, " "), value) {
			t.Fatalf("%v answered with the secret's value: %+v", in["action"], res)
		}
		return res
	}
	refused := func(what string, res tool.Result, rule string) {
		t.Helper()
		if res.Success || !strings.Contains(res.Error, src+"; rule: "+rule) {
			t.Fatalf("%s: success %v, error %q; want a refusal naming %q", what, res.Success, res.Error, src+"; rule: "+rule)
		}
	}

	// The HTTP API.
	if r := call(map[string]any{"action": "navigate", "url": origin + "/"}); !r.Success {
		t.Fatalf("navigate to a listed host: %s", r.Error)
	}
	refused("evaluate", call(map[string]any{"action": "evaluate", "expression": "document.title"}), `deny "evaluate"`)
	refused("navigate outside the hosts", call(map[string]any{"action": "navigate", "url": "http://localhost:" + port + "/away"}), "hosts")
	refused("tab_new outside the hosts", call(map[string]any{"action": "tab_new", "url": "http://localhost:" + port + "/away"}), "hosts")
	r := call(map[string]any{"action": "click", "role": "link", "name": "Away"})
	refused("a link outside the hosts", r, "hosts")
	if !strings.Contains(r.Error, "emptied") || r.URL != "about:blank" {
		t.Fatalf("the page that left the hosts: url %q, error %q", r.URL, r.Error)
	}
	call(map[string]any{"action": "navigate", "url": origin + "/"})
	// A popup the page opens outside the hosts: the agent cannot read it.
	r = call(map[string]any{"action": "click", "role": "button", "name": "Pop"})
	if !r.Success || len(r.Popups) != 1 {
		t.Fatalf("the click that opens a popup: %+v", r)
	}
	if p := r.Popups[0]; strings.Contains(p.URL, "localhost") || p.Title == "Away" {
		t.Fatalf("the answer quoted the popup outside the hosts: %+v", p)
	}
	popup := r.Popups[0].ID
	for _, tb := range call(map[string]any{"action": "tabs"}).Tabs {
		if strings.Contains(tb.URL, "localhost") || tb.Title == "Away" {
			t.Fatalf("tabs quoted the popup outside the hosts: %+v", tb)
		}
	}
	r = call(map[string]any{"action": "snapshot", "tab": popup})
	refused("a popup outside the hosts", r, "hosts")
	if strings.Contains(r.Content, "Another host") || strings.Contains(r.Error, "Another host") {
		t.Fatalf("the popup outside the hosts was read: %+v", r)
	}
	call(map[string]any{"action": "tab_close", "tab": r.Tab})
	call(map[string]any{"action": "tab_switch", "tab": "t1"})
	// A frame of another host in a page of a listed one: not read, not
	// acted on; a frame of the page's own origin is.
	r = call(map[string]any{"action": "navigate", "url": origin + "/framed"})
	if !r.Success || strings.Contains(r.Content, "Another host") || strings.Contains(r.Content, "Far button") || !strings.Contains(r.Content, "Inner") ||
		!strings.Contains(strings.Join(r.Notes, " "), "outside the policy's hosts") {
		t.Fatalf("a page framing another host: %+v", r)
	}
	if r := call(map[string]any{"action": "click", "role": "button", "name": "Far button"}); r.Success {
		t.Fatalf("a click in a frame of another host went through: %+v", r)
	}
	// At a point: the frame of another host is the first thing under the
	// paragraph (an iframe of 300×150 at the page's left).
	if r := call(map[string]any{"action": "click", "x": 60, "y": 120}); r.Success || !strings.Contains(r.Error, "outside the listed hosts") {
		t.Fatalf("a click at a point in a frame of another host: %+v", r)
	}
	if r := call(map[string]any{"action": "scroll", "x": 60, "y": 120, "direction": "down"}); r.Success || !strings.Contains(r.Error, "outside the listed hosts") {
		t.Fatalf("a scroll at a point over a frame of another host: %+v", r)
	}
	call(map[string]any{"action": "navigate", "url": origin + "/"})
	refused("a denied secret", call(map[string]any{"action": "type", "role": "textbox", "name": "PIN", "secret": "BANK_PIN"}), `deny "secret:BANK_PIN"`)
	if code, body := bob.call("GET", "/api/sessions/s/state", nil, nil); code != http.StatusForbidden || !strings.Contains(string(body), `rule: deny \"state_save\"`) {
		t.Fatalf("a state export: %d %s", code, body)
	}
	refused("a request's body", call(map[string]any{"action": "network", "request": "r1"}), `deny "network.bodies"`)
	refused("a HAR file", call(map[string]any{"action": "network", "path": "x.har"}), `deny "network.bodies"`)
	if r := call(map[string]any{"action": "network"}); !r.Success {
		t.Fatalf("the network listing without bodies: %s", r.Error)
	}
	if code, body := bob.call("GET", "/api/sessions/s/har", nil, nil); code != http.StatusForbidden || !strings.Contains(string(body), `rule: deny \"network.bodies\"`) {
		t.Fatalf("GET …/har: %d %s", code, body)
	}
	if r := call(map[string]any{"action": "status"}); !strings.Contains(r.Content, "policy ("+src+"): deny evaluate, state_save, network.bodies, secret:BANK_PIN, screenshot; confirm secret:SHOP_PW; hosts 127.0.0.1") {
		t.Fatalf("status does not show the policy:\n%s", r.Content)
	}
	// Pixels are screenshot's kind: the recording's frames are refused,
	// and its HTML comes without them.
	refused("a screenshot", call(map[string]any{"action": "screenshot"}), `deny "screenshot"`)
	if code, body := bob.call("GET", "/api/sessions/s/trace/frames/1", nil, nil); code != http.StatusForbidden || !strings.Contains(string(body), "screenshot") {
		t.Errorf("a recording's frame with screenshot denied: %d %.200s", code, body)
	}
	if code, body := bob.call("GET", "/api/sessions/s/trace?format=html", nil, nil); code != 200 || bytes.Contains(body, []byte("data:image/jpeg")) {
		t.Errorf("the trace's HTML with screenshot denied: %d, frames inlined %v", code, bytes.Contains(body, []byte("data:image/jpeg")))
	}
	// A person's token is held to the daemon's default, which allows
	// them (a frame may be gone: 404, never 403).
	if code, body := person.call("GET", "/api/sessions/s/trace/frames/1", nil, nil); code == http.StatusForbidden {
		t.Errorf("a recording's frame for a person: %d %.200s", code, body)
	}
	var view struct {
		Source string `json:"source"`
	}
	if bob.expect(200, "GET", "/api/policy", nil, &view); view.Source != src {
		t.Fatalf("GET /api/policy: %+v", view)
	}

	// MCP over HTTP: the token's schema leaves evaluate out, and a call
	// that sends it anyway is refused.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	mc := mcp.NewClient(&mcp.Implementation{Name: "e2e-policy", Version: "1"}, nil)
	ms, err := mc.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://" + addr + "/mcp", HTTPClient: bearerClient(tok.Token)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ms.Close()
	tools, err := ms.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools.Tools {
		if tl.Name == "browser" {
			if b, _ := json.Marshal(tl.InputSchema); bytes.Contains(b, []byte(`"evaluate"`)) || !bytes.Contains(b, []byte(`"navigate"`)) {
				t.Fatalf("the token's schema offers evaluate (or lacks navigate): %s", b)
			}
		}
	}
	mr, err := ms.CallTool(ctx, &mcp.CallToolParams{Name: "browser", Arguments: map[string]any{"action": "evaluate", "session": "s", "expression": "1"}})
	if err != nil {
		t.Fatal(err)
	}
	// The SDK checks arguments against the token's schema first; the
	// engine would refuse it as well (the HTTP API above).
	if text := mcpText(mr); !mr.IsError || !strings.Contains(text, "evaluate does not equal any of") {
		t.Fatalf("evaluate over MCP: error %v, %q", mr.IsError, text)
	}
	mr, err = ms.CallTool(ctx, &mcp.CallToolParams{Name: "browser", Arguments: map[string]any{"action": "type", "session": "s", "role": "textbox", "name": "PIN", "secret": "BANK_PIN"}})
	if err != nil {
		t.Fatal(err)
	}
	if text := mcpText(mr); !mr.IsError || !strings.Contains(text, src+`; rule: deny "secret:BANK_PIN"`) {
		t.Fatalf("a denied secret over MCP: error %v, %q", mr.IsError, text)
	}
	mr, err = ms.CallTool(ctx, &mcp.CallToolParams{Name: "browser", Arguments: map[string]any{"action": "navigate", "session": "s", "url": "http://localhost:" + port + "/away"}})
	if err != nil {
		t.Fatal(err)
	}
	if text := mcpText(mr); !mr.IsError || !strings.Contains(text, src+"; rule: hosts") {
		t.Fatalf("navigate outside the hosts over MCP: error %v, %q", mr.IsError, text)
	}

	// A person approves a secret on the dashboard: the call waits, then
	// types it.
	var signin struct {
		URL string `json:"url"`
	}
	person.expect(200, "POST", "/api/dashboard", nil, &signin)
	viewerDir := t.TempDir()
	br, err := browser.Start(ctx, chromium.Options{UserDataDir: viewerDir, Width: 1024, Height: 768})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { br.Close(context.Background()); waitNoChromium(t, viewerDir) }()
	pg, err := br.NewPage(ctx, "", browser.PageOptions{Width: 1024, Height: 768})
	if err != nil {
		t.Fatal(err)
	}
	if err := pg.Navigate(ctx, signin.URL); err != nil {
		t.Fatal(err)
	}
	waitFor := func(what, expr, want string) string {
		t.Helper()
		var s string
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			s, _ = pg.Eval(ctx, expr)
			var text string
			if json.Unmarshal([]byte(s), &text) == nil {
				s = text
			}
			if strings.Contains(s, want) {
				return s
			}
		}
		t.Fatalf("%s: %q does not contain %q", what, s, want)
		return ""
	}
	waitFor("the dashboard shows bob's policy", "document.body.innerText", src+" (shop agent): deny evaluate")
	typed := make(chan tool.Result, 1)
	go func() {
		var res tool.Result
		bob.call("POST", "/api/actions", map[string]any{"action": "type", "session": "s", "role": "textbox", "name": "Password", "secret": "SHOP_PW", "submit": true}, &res)
		typed <- res
	}()
	page := waitFor("the dashboard shows the call waiting", "document.body.innerText", "Waiting for your approval")
	if !strings.Contains(page, `confirm "secret:SHOP_PW"`) || !strings.Contains(page, `"secret":"SHOP_PW"`) || strings.Contains(page, value) {
		t.Fatalf("the dashboard's pending call:\n%s", page)
	}
	select {
	case r := <-typed:
		t.Fatalf("the call did not wait for the person: %+v", r)
	default:
	}
	select {
	case m := <-notes:
		if m["event"] != "confirm" || m["owner"] != "bob" || m["action"] != "type" || m["rule"] != `confirm "secret:SHOP_PW"` || m["policy"] != src || m["dashboardUrl"] != "http://"+addr+"/" {
			t.Fatalf("the webhook's note: %v", m)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the webhook was not told")
	}
	if _, err := pg.Eval(ctx, "document.querySelector('button.approve').click()"); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-typed:
		if !r.Success {
			t.Fatalf("the approved call: %s", r.Error)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the approved call did not answer")
	}
	for deadline := time.Now().Add(10 * time.Second); len(sent()) == 0 && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
	}
	if s := sent(); len(s) != 1 || s[0] != value {
		t.Fatalf("the form sent %q after the approval, want the secret once", s)
	}

	// Nobody answers: denied after the policy's timeout, nothing typed.
	call(map[string]any{"action": "navigate", "url": origin + "/"})
	r = call(map[string]any{"action": "type", "role": "textbox", "name": "Password", "secret": "SHOP_PW", "submit": true})
	if r.Success || !strings.Contains(r.Error, "nobody approved it within 15s") || !strings.Contains(r.Error, src) {
		t.Fatalf("a call nobody approves: %+v", r)
	}
	if s := sent(); len(s) != 1 {
		t.Fatalf("the form sent %q after a refusal", s)
	}
	waitFor("the dashboard no longer lists the call", "String(document.getElementById('pending').innerText.length)", "0")

	// The CLI, over the Unix socket, runs under the daemon's default.
	cr, _ := runCLI(t, "--data", data, "eval", "1+1")
	if cr.Success || !strings.Contains(cr.Error, `daemon default; rule: deny "evaluate"`) {
		t.Fatalf("eval through the CLI: %+v", cr)
	}
	out, _ = exec.Command(browserdBin(t), "--data", data, "token", "list", "--owner", "bob").Output()
	if !strings.Contains(string(out), tok.ID) || !strings.Contains(string(out), `"hosts":["127.0.0.1"]`) {
		t.Fatalf("token list does not show the policy:\n%s", out)
	}
}

// mcpText is a tool result's text.
func mcpText(r *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}
