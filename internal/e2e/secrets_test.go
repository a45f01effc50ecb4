//go:build linux

package e2e

import (
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/browserd/browserd/internal/tool"
)

// TestSecrets: a secret typed by name reaches the page, and no answer, HAR
// file, recording or file of the data folder shows its value — not the
// field's value in a snapshot, the page's echo of it, the title, an
// evaluate result, the console or the network log; a secret bound to an
// origin is typed nowhere else. Through the HTTP API, MCP and the CLI.
func TestSecrets(t *testing.T) {
	t.Parallel() // its own daemon or engine: waits more than it works, beside others (make test's budget)
	const value = "hunter2-Zq9"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if r.URL.Path == "/echo" {
			fmt.Fprint(w, "ok")
			return
		}
		if r.URL.Path == "/frames" {
			// A srcdoc frame has its page's origin (its location says
			// "null"); a sandboxed one has none.
			fmt.Fprint(w, `<!doctype html><title>Frames</title>
<iframe srcdoc="<label>Framed password <input></label>"></iframe>
<iframe sandbox srcdoc="<label>Sandboxed password <input></label>"></iframe>`)
			return
		}
		fmt.Fprint(w, `<!doctype html><title>Sign in</title><h1>Sign in</h1>
<label>Password <input id=pw oninput="document.getElementById('echo').textContent = 'You typed ' + this.value;
  document.title = 'Hi ' + this.value; console.log('pw=' + this.value)"></label>
<button onclick="fetch('/echo?pw=' + encodeURIComponent(document.getElementById('pw').value), {method: 'POST', body: JSON.stringify({password: document.getElementById('pw').value})}); document.getElementById('sent').textContent = 'sent'">Send</button>
<p id=echo></p><p id=sent></p>`)
	}))
	defer srv.Close()
	origin := srv.URL // http://127.0.0.1:PORT
	data := t.TempDir()
	addr := freeAddr(t)
	startDaemon(t, data, "--listen", addr)
	admin := tcpAPI(t, addr, adminToken(t, data))
	var tok struct {
		Token string `json:"token"`
	}
	admin.expect(201, "POST", "/api/tokens", map[string]string{"owner": "alice"}, &tok)
	alice := tcpAPI(t, addr, tok.Token)
	alice.expect(200, "PUT", "/api/secrets/SHOP_PW", map[string]any{"value": value, "origins": []string{origin}}, nil)

	var res tool.Result
	call := func(in map[string]any) tool.Result {
		t.Helper()
		in["session"] = "s"
		res = tool.Result{}
		alice.expect(200, "POST", "/api/actions", in, &res)
		for _, s := range append(append([]string{res.Content, res.Error, res.Title, res.URL}, res.Notes...), res.Details...) {
			if strings.Contains(s, value) {
				t.Fatalf("%v answered with the secret's value: %+v", in["action"], res)
			}
		}
		return res
	}
	call(map[string]any{"action": "navigate", "url": origin + "/"})
	r := call(map[string]any{"action": "type", "role": "textbox", "name": "Password", "secret": "SHOP_PW"})
	if !r.Success || !strings.Contains(r.Content, "You typed <secret SHOP_PW>") {
		t.Fatalf("type secret: ok=%v err=%q %s", r.Success, r.Error, r.Content)
	}
	for _, in := range []map[string]any{
		{"action": "snapshot"},
		{"action": "evaluate", "expression": "document.getElementById('pw').value + ' ' + document.title"},
		{"action": "console"},
		{"action": "click", "role": "button", "name": "Send"},
		{"action": "wait", "text": "sent"},
		{"action": "network"},
	} {
		if r := call(in); !r.Success || !strings.Contains(r.Content, "<secret SHOP_PW>") && in["action"] != "click" && in["action"] != "wait" {
			t.Errorf("%v: ok=%v err=%q, no <secret SHOP_PW> in %s", in["action"], r.Success, r.Error, r.Content)
		}
	}
	if r := call(map[string]any{"action": "evaluate", "expression": holdsValue("pw", value)}); !strings.Contains(r.Content, "true") {
		t.Errorf("the page does not hold the secret's value: %s", r.Content)
	}
	call(map[string]any{"action": "network", "path": "s.har"})
	// Bound to its origin: the same server under another name is another
	// origin.
	call(map[string]any{"action": "navigate", "url": strings.Replace(origin, "127.0.0.1", "localhost", 1) + "/"})
	if r := call(map[string]any{"action": "type", "role": "textbox", "name": "Password", "secret": "SHOP_PW"}); r.Success || !strings.Contains(r.Error, "typed only on "+origin) {
		t.Errorf("a secret typed on another origin: ok=%v err=%q", r.Success, r.Error)
	}
	// Issue 47 point 5: a srcdoc frame of the bound origin takes it (it
	// was refused); a sandboxed one does not.
	call(map[string]any{"action": "navigate", "url": origin + "/frames", "snapshot": false})
	fr := call(map[string]any{"action": "snapshot"}).Content
	if r := call(map[string]any{"action": "type", "ref": ref(t, fr, "textbox", "Framed password"), "secret": "SHOP_PW"}); !r.Success {
		t.Errorf("a secret typed in a srcdoc frame of its origin: %q", r.Error)
	}
	if r := call(map[string]any{"action": "type", "ref": ref(t, fr, "textbox", "Sandboxed password"), "secret": "SHOP_PW"}); r.Success || !strings.Contains(r.Error, "typed only on "+origin) {
		t.Errorf("a secret typed in a sandboxed frame: ok=%v err=%q", r.Success, r.Error)
	}
	if r := call(map[string]any{"action": "type", "role": "textbox", "name": "Password", "secret": "NOPE"}); r.Success || !strings.Contains(r.Error, "browserd secret set NOPE") {
		t.Errorf("an unknown secret: ok=%v err=%q", r.Success, r.Error)
	}
	// The CLI types it too (admin's own secret, set from stdin).
	set := cliCmd(t, data, "secret", "set", "ADMIN_PW")
	set.Stdin = strings.NewReader(value + "\n")
	if out, err := set.CombinedOutput(); err != nil {
		t.Fatalf("browserd secret set: %v %s", err, out)
	}
	cli(t, data, "open", origin+"/")
	if r := cli(t, data, "type", "--role", "textbox", "--name", "Password", "--secret", "ADMIN_PW"); !r.Success || strings.Contains(r.Content, value) || !strings.Contains(r.Content, "<secret ADMIN_PW>") {
		t.Errorf("CLI type --secret: ok=%v err=%q %s", r.Success, r.Error, r.Content)
	}
	// MCP: fill takes a secret in place of a value.
	m := newMCPDriver(t)
	mset := cliCmd(t, m.dataDir(), "secret", "set", "MCP_PW")
	mset.Stdin = strings.NewReader(value)
	if out, err := mset.CombinedOutput(); err != nil {
		t.Fatalf("browserd secret set: %v %s", err, out)
	}
	ok(t, m, tool.Input{Action: "navigate", Task: "m", URL: origin + "/"})
	snap := ok(t, m, tool.Input{Action: "snapshot", Task: "m"})
	if r := ok(t, m, tool.Input{Action: "fill", Task: "m", Fields: []tool.Field{{Ref: ref(t, snap.Content, "textbox", "Password"), Secret: "MCP_PW"}}}); strings.Contains(r.Content, value) || !strings.Contains(r.Content, "<secret MCP_PW>") {
		t.Errorf("MCP fill with a secret: %s", r.Content)
	}
	// Nothing in the data folder holds the value: the store, HAR files,
	// recordings.
	filepath.WalkDir(data, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.Contains(p, "/profiles/") || strings.Contains(p, "/folders/") {
			return nil
		}
		if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), value) {
			t.Errorf("%s holds the secret's value", p)
		}
		return nil
	})
}

// cliCmd is a browserd command line for the daemon of data, to run with
// its own stdin.
func cliCmd(t *testing.T, data string, args ...string) *exec.Cmd {
	return exec.Command(browserdBin(t), append(daemonFlags(data), args...)...)
}
