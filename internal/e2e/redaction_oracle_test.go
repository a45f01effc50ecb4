//go:build linux

package e2e

import (
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/browserd/browserd/internal/tool"
)

// TestDrillRedactionOracle (issue 47 #1) is the attack on redaction as an
// oracle, through the HTTP API an agent uses: with a secret it was never
// shown, the agent writes candidate strings where it reads them back — a
// URL's query (every 4-character run of the secret among decoys, every
// 4-digit PIN) and a search box that echoes it — and looks for the marks.
// Before and after the secrets are typed it finds none: no answer marks
// what the agent wrote. A page that shows what was typed still has it
// replaced, a value typed stays replaced after its secret is changed, and
// browserd's own words ("Enter") are not marked.
func TestDrillRedactionOracle(t *testing.T) {
	const pw, pin = "hunter2-sekrit-991", "4821"
	var last atomic.Value // what the last sign-in typed
	last.Store("")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		switch r.URL.Path {
		case "/search":
			fmt.Fprintf(w, `<!doctype html><title>Search</title><form action=/search><input name=q aria-label=Search><button>Go</button></form>
<p>Results for: %s</p>`, html.EscapeString(r.URL.Query().Get("q")))
		case "/login":
			fmt.Fprint(w, `<!doctype html><title>Sign in</title><form action=/welcome method=post>
<label>Password <input name=pw type=password></label><label>PIN <input name=pin></label><button>Sign in</button></form>`)
		case "/welcome":
			r.ParseForm()
			// A careless site: it shows what was typed, then and later.
			last.Store(fmt.Sprintf("Signed in with %s and PIN %s.", r.PostForm.Get("pw"), r.PostForm.Get("pin")))
			fallthrough
		case "/account":
			fmt.Fprintf(w, `<!doctype html><title>Welcome</title><p>%s</p>`, html.EscapeString(last.Load().(string)))
		}
	}))
	defer srv.Close()
	data := t.TempDir()
	addr := freeAddr(t)
	startDaemon(t, data, "--listen", addr)
	admin := tcpAPI(t, addr, adminToken(t, data))
	var tok struct {
		Token string `json:"token"`
	}
	admin.expect(201, "POST", "/api/tokens", map[string]string{"owner": "alice"}, &tok)
	alice := tcpAPI(t, addr, tok.Token)
	for name, v := range map[string]string{"PW": pw, "PIN": pin} {
		alice.expect(200, "PUT", "/api/secrets/"+name, map[string]any{"value": v, "origins": []string{srv.URL}}, nil)
	}
	call := func(in map[string]any) tool.Result {
		t.Helper()
		in["session"] = "s"
		var res tool.Result
		alice.expect(200, "POST", "/api/actions", in, &res)
		return res
	}
	text := func(r tool.Result) string {
		return strings.Join(append(append([]string{r.Content, r.Error, r.Title, r.URL}, r.Notes...), r.Details...), "\n")
	}
	noMark := func(when string, r tool.Result) {
		t.Helper()
		if s := text(r); strings.Contains(s, "<secret") {
			i := strings.Index(s, "<secret")
			t.Errorf("%s: the answer marks what the agent wrote: …%s…", when, s[max(0, i-60):min(len(s), i+60)])
		}
	}
	// The probe: every run of the secret, each beside a decoy, and every
	// PIN — what an attacker's 47 navigations write, in one.
	var probe []string
	for i := 0; i+4 <= len(pw); i++ {
		probe = append(probe, pw[i:i+4], "x"+pw[i:i+3])
	}
	echo := strings.Join(probe, " ") // typed into the search box
	for n := range 10000 {
		probe = append(probe, fmt.Sprintf("%04d", n))
	}
	query := url.QueryEscape(strings.Join(probe, " "))
	attack := func(when string) {
		t.Helper()
		r := call(map[string]any{"action": "navigate", "url": srv.URL + "/search?q=" + query, "snapshot": false})
		if !r.Success {
			t.Fatalf("%s: the probe's navigate: %s", when, r.Error)
		}
		noMark(when+", the probe's navigate", r)
		noMark(when+", the probe's page", call(map[string]any{"action": "extract"}))
		noMark(when+", the tabs", call(map[string]any{"action": "tabs"}))
		r = call(map[string]any{"action": "type", "role": "textbox", "name": "Search", "text": echo})
		noMark(when+", typing into the search box", r)
		r = call(map[string]any{"action": "press", "key": "Enter"})
		if !strings.Contains(text(r)+text(call(map[string]any{"action": "extract"})), "Results for: "+echo[:20]) {
			t.Fatalf("%s: the search page did not echo the query: %s", when, text(r))
		}
		noMark(when+", the search box's echo", r)
		noMark(when+", the echo's snapshot", call(map[string]any{"action": "snapshot", "full": true}))
	}
	attack("before any secret is typed")

	call(map[string]any{"action": "navigate", "url": srv.URL + "/login"})
	for name, field := range map[string]string{"PW": "Password", "PIN": "PIN"} {
		if r := call(map[string]any{"action": "type", "role": "textbox", "name": field, "secret": name}); !r.Success {
			t.Fatalf("type secret %s: %s", name, r.Error)
		}
	}
	r := call(map[string]any{"action": "click", "role": "button", "name": "Sign in"})
	if !r.Success {
		t.Fatalf("sign in: %s", r.Error)
	}
	page := text(call(map[string]any{"action": "extract"}))
	// The PIN is among the 10,000 the probe wrote: a page that shows a
	// value the agent wrote itself shows it as written (what redaction
	// cannot hide: a guess of a whole value; docs/security.md).
	if !strings.Contains(page, "Signed in with <secret PW> and PIN "+pin) {
		t.Errorf("the page that shows what was typed: %s", page)
	}
	noRunOf(t, pw, "the page that shows what was typed", page)

	attack("after the secrets were typed")

	// A value typed stays replaced once its secret changes.
	alice.expect(200, "PUT", "/api/secrets/PW", map[string]any{"value": "another-secret-value", "origins": []string{srv.URL}}, nil)
	call(map[string]any{"action": "navigate", "url": srv.URL + "/account"})
	page = text(call(map[string]any{"action": "extract"}))
	if !strings.Contains(page, "Signed in with <secret PW>") {
		t.Errorf("after the secret changed, the value typed shows: %s", page)
	}
	noRunOf(t, pw, "after the secret changed", page)
}
