package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/browserd/browserd/internal/config"
	"github.com/browserd/browserd/internal/httpapi"
	"github.com/browserd/browserd/internal/tool"
)

// apiCall is one call of the daemon's HTTP API, its body as JSON.
type apiCall struct {
	method, path, body string
}

// fakeAPI is a daemon whose HTTP API records its calls and answers each
// with answer (as JSON into out), or with err.
type fakeAPI struct {
	fakeDaemon
	calls  []apiCall
	answer any
	err    error
}

func (f *fakeAPI) API(_ context.Context, method, path string, body, out any) error {
	b, _ := json.Marshal(body)
	if body == nil {
		b = nil
	}
	f.calls = append(f.calls, apiCall{method, path, string(b)})
	if f.err != nil {
		return f.err
	}
	if out != nil && f.answer != nil {
		a, _ := json.Marshal(f.answer)
		return json.Unmarshal(a, out)
	}
	return nil
}

// runAPI runs args against d with stdin and returns the exit code and
// outputs.
func runAPI(t *testing.T, d *fakeAPI, stdin io.Reader, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	t.Setenv("BROWSERD_DATA", t.TempDir())
	var out, errOut bytes.Buffer
	e := &env{stdin: stdin, stdout: &out, stderr: &errOut, connect: func(_ context.Context, cfg config.Config) (tool.Handler, func(), error) {
		return d, func() {}, nil
	}}
	code = run(context.Background(), args, e)
	return code, out.String(), errOut.String()
}

func TestSecretSet(t *testing.T) {
	for _, tc := range []struct {
		stdin, want string
	}{
		{"hunter2-value\n", "hunter2-value"},
		{"hunter2-value\r\n", "hunter2-value"},
		{"hunter2-value", "hunter2-value"},
		{"two lines\nof it\n\n", "two lines\nof it\n"}, // one newline dropped, no more
		{"  spaces kept  \n", "  spaces kept  "},
	} {
		d := &fakeAPI{answer: httpapi.SecretInfo{Name: "PW", Origins: []string{"https://github.com"}, Updated: time.Now()}}
		code, out, errOut := runAPI(t, d, strings.NewReader(tc.stdin), "secret", "set", "PW", "--origin", "https://GitHub.com:443", "--origin", "https://github.com")
		if code != 0 || len(d.calls) != 1 {
			t.Fatalf("%q: exit %d, %d calls: %s%s", tc.stdin, code, len(d.calls), out, errOut)
		}
		var body httpapi.SecretRequest
		if err := json.Unmarshal([]byte(d.calls[0].body), &body); err != nil || body.Value == nil || *body.Value != tc.want {
			t.Errorf("%q: sent %s, want the value %q", tc.stdin, d.calls[0].body, tc.want)
		}
		if d.calls[0].method != "PUT" || d.calls[0].path != "/api/secrets/PW" || len(body.Origins) != 1 || body.Origins[0] != "https://github.com" {
			t.Errorf("%q: called %+v", tc.stdin, d.calls[0])
		}
		if strings.Contains(out+errOut, strings.TrimSpace(tc.want)) {
			t.Errorf("%q: the output shows the value: %s%s", tc.stdin, out, errOut)
		}
		if !strings.Contains(out, "secret PW kept, typed on https://github.com") {
			t.Errorf("%q: printed %q", tc.stdin, out)
		}
	}

	// Another owner's, as admin.
	d := &fakeAPI{answer: httpapi.SecretInfo{Name: "PW"}}
	if code, out, errOut := runAPI(t, d, strings.NewReader("long-enough"), "secret", "set", "PW", "--owner", "bob"); code != 0 || d.calls[0].path != "/api/secrets/PW?owner=bob" || !strings.Contains(out, "any origin") {
		t.Errorf("--owner bob: exit %d, %+v: %s%s", code, d.calls, out, errOut)
	}

	// Refusals, before the daemon is called; none shows the value.
	for _, tc := range []struct {
		stdin string
		args  []string
		says  string
	}{
		{"", []string{"PW"}, "no value on stdin"},
		{"\n", []string{"PW"}, "no value on stdin"},
		{"abc\n", []string{"PW"}, "at least 4"},
		{strings.Repeat("x", 5000), []string{"PW"}, "over the 4096"},
		{"long-enough", []string{"1PW"}, "start it with a letter"},
		{"long-enough", []string{"PW", "--origin", "https://github.com/login"}, "--origin"},
		{"long-enough", []string{"PW", "--owner", "Bob!"}, "--owner"},
	} {
		d := &fakeAPI{}
		code, out, errOut := runAPI(t, d, strings.NewReader(tc.stdin), append([]string{"secret", "set"}, tc.args...)...)
		if code != exitUsage || len(d.calls) != 0 || !strings.Contains(errOut, tc.says) {
			t.Errorf("%v with %.20q: exit %d, %d calls, %q; want a usage error saying %q", tc.args, tc.stdin, code, len(d.calls), errOut, tc.says)
		}
		if v := strings.TrimSpace(tc.stdin); len(v) > 2 && strings.Contains(out+errOut, v) {
			t.Errorf("%v: the error shows the value: %s", tc.args, errOut)
		}
	}

	// A stdin of nothing at all (no reader) is an empty value too.
	if code, _, errOut := runAPI(t, &fakeAPI{}, nil, "secret", "set", "PW"); code != exitUsage || !strings.Contains(errOut, "no value on stdin") {
		t.Errorf("no stdin: exit %d, %q", code, errOut)
	}
	// The daemon's refusal is the command's.
	d = &fakeAPI{err: fmt.Errorf("browserd daemon refused PUT /api/secrets/PW (HTTP 501): this server keeps no secrets")}
	if code, _, errOut := runAPI(t, d, strings.NewReader("long-enough"), "secret", "set", "PW"); code != exitFailed || !strings.Contains(errOut, "keeps no secrets") {
		t.Errorf("a refusal: exit %d, %q", code, errOut)
	}
}

func TestSecretListRm(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	d := &fakeAPI{answer: httpapi.SecretList{Secrets: []httpapi.SecretInfo{
		{Name: "ANY", Origins: []string{}, Updated: at},
		{Name: "GITHUB_PW", Origins: []string{"https://github.com", "https://gist.github.com"}, Updated: at},
	}}}
	code, out, errOut := runAPI(t, d, nil, "secret", "list")
	if code != 0 || d.calls[0].method != "GET" || d.calls[0].path != "/api/secrets" {
		t.Fatalf("list: exit %d, %+v: %s", code, d.calls, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "NAME") || !strings.Contains(lines[1], "ANY") || !strings.HasSuffix(lines[1], "any") ||
		!strings.HasSuffix(lines[2], "https://github.com https://gist.github.com") {
		t.Errorf("list printed:\n%s", out)
	}
	code, out, _ = runAPI(t, d, nil, "secret", "list", "--json", "--owner", "bob")
	var l httpapi.SecretList
	if code != 0 || d.calls[1].path != "/api/secrets?owner=bob" || json.Unmarshal([]byte(out), &l) != nil || len(l.Secrets) != 2 {
		t.Errorf("list --json --owner bob: exit %d, %+v: %s", code, d.calls[1], out)
	}
	d = &fakeAPI{answer: httpapi.SecretList{Secrets: []httpapi.SecretInfo{}}}
	if code, _, errOut := runAPI(t, d, nil, "secret", "list"); code != 0 || !strings.Contains(errOut, "no secrets") {
		t.Errorf("an empty list: exit %d, %q", code, errOut)
	}

	d = &fakeAPI{}
	code, out, _ = runAPI(t, d, nil, "secret", "rm", "GITHUB_PW")
	if code != 0 || d.calls[0].method != "DELETE" || d.calls[0].path != "/api/secrets/GITHUB_PW" || !strings.Contains(out, "deleted secret GITHUB_PW") {
		t.Errorf("rm: exit %d, %+v, %q", code, d.calls, out)
	}
	d = &fakeAPI{err: fmt.Errorf(`browserd daemon refused DELETE /api/secrets/X (HTTP 404): no secret "X"`)}
	if code, _, errOut := runAPI(t, d, nil, "secret", "rm", "X"); code != exitFailed || !strings.Contains(errOut, `no secret "X"`) {
		t.Errorf("rm of none: exit %d, %q", code, errOut)
	}
}
