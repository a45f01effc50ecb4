//go:build linux

package e2e

import (
	"encoding/base64"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/browserd/browserd/internal/tool"
)

// TestDrillSecretRuns (issue 36 #2): a page whose input handler logs,
// fetches and shows every prefix of the field's value, as a strength
// meter does on every key — so every prefix of the secret (all but its
// last character too) is in the console, the
// network log and its request bodies, and, upper-cased by CSS, in the page
// text — gives no run of 4 characters of the secret, in any letter case,
// URL-, JSON- or HTML-escaped or in base64, to console, network (the list
// and a request whole), the HAR (the answer and the file on disk),
// snapshot, extract, evaluate or the recording (JSON and HTML).
func TestDrillSecretRuns(t *testing.T) {
	const value = "Hqx7Zvk-Jwp9-Fyb3"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if strings.HasPrefix(r.URL.Path, "/check") {
			io.Copy(io.Discard, r.Body)
			fmt.Fprint(w, `{"available": true}`)
			return
		}
		fmt.Fprint(w, `<!doctype html><title>Sign up</title><h1>Sign up</h1>
<label>Password <input id=pw oninput="for (let k = 4; k <= this.value.length; k++) report(this.value.slice(0, k))"></label>
<script>
// What a strength meter or an availability check does on each key, done
// here for every prefix of the value (a secret arrives in one input event).
function report(v) {
  console.log('so far ' + v.slice(0, -1));
  console.log('strength of ' + v); console.warn('weak: ' + v); console.error('pw=' + encodeURIComponent(v));
  document.getElementById('echo').textContent = v; document.title = 'Sign up ' + v.slice(0, -1);
  fetch('/check/' + encodeURIComponent(v) + '?pw=' + encodeURIComponent(v) + '&b=' + btoa(v),
    {method: 'POST', headers: {'Content-Type': 'application/json', 'X-Check': btoa(v)}, body: JSON.stringify({password: v, html: '&lt;' + v})});
}
</script>
<p>Echo: <span id=echo style="text-transform: uppercase"></span></p>`)
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
	alice.expect(200, "PUT", "/api/secrets/SIGNUP_PW", map[string]any{"value": value, "origins": []string{srv.URL}}, nil)

	call := func(in map[string]any) tool.Result {
		t.Helper()
		in["session"] = "s"
		var res tool.Result
		alice.expect(200, "POST", "/api/actions", in, &res)
		text := strings.Join(append(append([]string{res.Content, res.Error, res.Title, res.URL}, res.Notes...), res.Details...), "\n")
		where := fmt.Sprint(in["action"])
		for _, k := range []string{"request", "path", "redact"} {
			if v, ok := in[k]; ok {
				where += fmt.Sprintf(" %s=%v", k, v)
			}
		}
		noRunOf(t, value, where, text)
		return res
	}
	call(map[string]any{"action": "navigate", "url": srv.URL + "/"})
	if r := call(map[string]any{"action": "type", "role": "textbox", "name": "Password", "secret": "SIGNUP_PW"}); !r.Success {
		t.Fatalf("type secret: %s", r.Error)
	}
	if r := call(map[string]any{"action": "evaluate", "expression": holdsValue("pw", value)}); !strings.Contains(r.Content, "true") {
		t.Fatalf("the page does not hold the secret: %s", r.Content)
	}
	call(map[string]any{"action": "wait", "time": 500}) // the last fetches end
	call(map[string]any{"action": "snapshot", "full": true})
	call(map[string]any{"action": "extract"})
	call(map[string]any{"action": "evaluate", "expression": "document.getElementById('echo').textContent + ' ' + getComputedStyle(document.getElementById('echo')).textTransform"})
	call(map[string]any{"action": "console"})
	list := call(map[string]any{"action": "network"})
	ids := regexp.MustCompile(`(?m)^\s*(r\d+)\b.*POST`).FindAllStringSubmatch(list.Content, -1)
	if len(ids) < 2 {
		t.Fatalf("want a POST for every prefix, the network log lists %d:\n%s", len(ids), list.Content)
	}
	for _, id := range []string{ids[len(ids)-2][1], ids[len(ids)-1][1]} { // all but the last character, and all
		if r := call(map[string]any{"action": "network", "request": id}); !strings.Contains(r.Content, "password") {
			t.Errorf("network %s shows no body: %s", id, r.Content)
		}
		call(map[string]any{"action": "network", "request": id, "redact": false})
	}
	for _, redact := range []bool{true, false} {
		r := call(map[string]any{"action": "network", "path": fmt.Sprintf("runs-%v.har", redact), "redact": redact})
		b, err := os.ReadFile(r.Path)
		if err != nil {
			t.Fatalf("the HAR file: %v (%+v)", err, r)
		}
		noRunOf(t, value, "the HAR file on disk", string(b))
	}
	status, b := alice.call("GET", "/api/sessions/s/har", nil, nil)
	if status != 200 {
		t.Fatalf("GET har: %d %s", status, b)
	}
	noRunOf(t, value, "GET /api/sessions/s/har", string(b))
	status, b = alice.call("GET", "/api/sessions/s", nil, nil)
	if status != 200 || !strings.Contains(string(b), "Sign up") {
		t.Fatalf("GET session: %d %s", status, b)
	}
	noRunOf(t, value, "GET /api/sessions/s", string(b))
	for _, q := range []string{"", "?format=html"} {
		status, b := alice.call("GET", "/api/sessions/s/trace"+q, nil, nil)
		if status != 200 || !strings.Contains(string(b), "check") {
			t.Fatalf("GET trace%s: %d %.300s", q, status, b)
		}
		// the frames (JPEG in base64) left out: their letters are noise
		frames := regexp.MustCompile(`data:image/jpeg;base64,[A-Za-z0-9+/=]+`)
		noRunOf(t, value, "the recording"+q, frames.ReplaceAllString(string(b), "data:image/jpeg;base64,"))
	}
}

// holdsValue is an expression true when the field of that id holds
// value, which writes no part of the value: what an agent writes itself
// comes back unredacted (redact.Known).
func holdsValue(id, value string) string {
	sum := 0
	for _, c := range value {
		sum = sum*31%1000003 + int(c)
	}
	return fmt.Sprintf("[...document.getElementById(%q).value].reduce((s, c) => s * 31 %% 1000003 + c.charCodeAt(0), 0) === %d", id, sum)
}

// noRunOf fails when text holds a run of 4 characters of secret in any
// letter case, as is or with its URL, JSON or HTML escapes decoded, or
// the base64 of a run of 6 bytes of it.
func noRunOf(t *testing.T, secret, where, text string) {
	t.Helper()
	forms := []string{text, html.UnescapeString(text), jsonUnescape(text)}
	if u, err := url.QueryUnescape(text); err == nil {
		forms = append(forms, u)
	}
	if u, err := url.PathUnescape(text); err == nil {
		forms = append(forms, u)
	}
	for _, f := range forms {
		f = strings.ToLower(f)
		for i := 0; i+4 <= len(secret); i++ {
			if run := strings.ToLower(secret[i : i+4]); strings.Contains(f, run) {
				t.Errorf("%s holds %q, a run of the secret: %s", where, run, excerpt(f, run))
				return
			}
		}
	}
	for i := 0; i+6 <= len(secret); i += 3 {
		b := base64.StdEncoding.EncodeToString([]byte(secret[i : i+6]))
		if strings.Contains(text, b) {
			t.Errorf("%s holds %q, the base64 of a run of the secret: %s", where, b, excerpt(text, b))
			return
		}
	}
}

func jsonUnescape(s string) string {
	return regexp.MustCompile(`\\u([0-9a-fA-F]{4})`).ReplaceAllStringFunc(s, func(m string) string {
		var r rune
		fmt.Sscanf(m[2:], "%x", &r)
		return string(r)
	})
}

func excerpt(s, sub string) string {
	i := strings.Index(s, sub)
	return s[max(0, i-80):min(len(s), i+len(sub)+80)]
}
