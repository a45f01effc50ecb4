package cdpproxy

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/browserd/browserd/internal/cdp"
	"github.com/browserd/browserd/internal/cdpfilter"
)

// fakeTask is the part of a task check uses.
type fakeTask struct{ ctx string }

func (f fakeTask) Conn() *cdp.Conn                         { return nil }
func (f fakeTask) ContextID() string                       { return f.ctx }
func (f fakeTask) Pages(context.Context) ([]string, error) { return nil, nil }
func (f fakeTask) NewPage(context.Context, string) (string, error) {
	return "", errors.New("no")
}
func (f fakeTask) CheckURL(_ context.Context, u string) error {
	if !strings.HasPrefix(u, "https://") {
		return errors.New("refused: " + u)
	}
	return nil
}
func (f fakeTask) NewContext(context.Context) (string, error)   { return "", errors.New("no") }
func (f fakeTask) DisposeContext(context.Context, string) error { return nil }
func (f fakeTask) UploadPath(p string) (string, error) {
	if filepath.Dir(p) != "/up" {
		return "", errors.New("not in /up")
	}
	return p, nil
}
func (f fakeTask) Release()                     {}
func (f fakeTask) Record(context.Context, Step) {}
func (f fakeTask) HeldBy(string) string         { return "" }

func testClient(ctxID string) *client {
	c := newClient(fakeTask{ctx: ctxID}, nil, nil)
	c.contexts["MINE"] = true
	return c
}

func TestCheck(t *testing.T) {
	ctx := context.Background()
	c := testClient("SESSION")
	check := func(method, params string) (map[string]any, error) {
		b, err := c.check(ctx, command{Method: method, Params: json.RawMessage(params)}, cdpfilter.For(method, strings.HasPrefix(method, "Storage")))
		if err != nil {
			return nil, err
		}
		var m map[string]any
		return m, json.Unmarshal(b, &m)
	}
	if _, err := check("Page.navigate", `{"url":"file:///etc/passwd"}`); err == nil {
		t.Error("a file: navigation went through")
	}
	if _, err := check("Page.navigate", `{"url":"https://a.example/"}`); err != nil {
		t.Errorf("a web navigation: %v", err)
	}
	if m, err := check("Storage.getCookies", `{}`); err != nil || m["browserContextId"] != "SESSION" {
		t.Errorf("no context named: %v %v, want the session's", m, err)
	}
	if _, err := check("Storage.getCookies", `{"browserContextId":"OTHER"}`); err == nil {
		t.Error("another session's context went through")
	}
	if _, err := check("Storage.getCookies", `{"browserContextId":"MINE"}`); err != nil {
		t.Errorf("a context of the client's: %v", err)
	}
	if _, err := check("DOM.setFileInputFiles", `{"files":["/etc/passwd"],"nodeId":1}`); err == nil {
		t.Error("a file outside the upload folder went through")
	}
	if _, err := check("DOM.setFileInputFiles", `{"files":["/up/a.txt"],"nodeId":1}`); err != nil {
		t.Errorf("a file in the upload folder: %v", err)
	}
	if _, err := check("Page.navigate", `[1]`); err == nil {
		t.Error("params that are not an object went through")
	}
	// A profile's browser: its default context, named by no id.
	c = testClient("")
	if m, err := check("Storage.getCookies", `{}`); err != nil || m["browserContextId"] != nil {
		t.Errorf("a profile's context: %v %v", m, err)
	}
}

// FuzzCheck: whatever params a client sends, the checks answer or refuse,
// never panic, and a navigation they pass is one the task allowed.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{`{"url":"https://a/"}`, `{"files":["/up/a",1,null]}`, `{"browserContextId":7}`, `null`, `[]`, `{"url":{}}`} {
		f.Add("Page.navigate", s)
		f.Add("DOM.setFileInputFiles", s)
		f.Add("Storage.setCookies", s)
	}
	f.Fuzz(func(t *testing.T, method, params string) {
		c := testClient("S")
		rule := cdpfilter.For(method, false)
		b, err := c.check(context.Background(), command{Method: method, Params: json.RawMessage(params)}, rule)
		if err != nil || rule.URL == "" {
			return
		}
		var m map[string]any
		if json.Unmarshal(b, &m) != nil {
			t.Fatalf("check passed params it cannot read back: %s", b)
		}
		if u, _ := m[rule.URL].(string); !strings.HasPrefix(u, "https://") {
			t.Fatalf("check passed a URL the task refuses: %q", u)
		}
	})
}

func TestOutboxKeepsOrderAndDrainsOnClose(t *testing.T) {
	o := newOutbox()
	for _, s := range []string{"a", "b", "c"} {
		o.push([]byte(s))
	}
	o.close()
	o.push([]byte("late"))
	var got []string
	o.drain(context.Background(), func(b []byte) error { got = append(got, string(b)); return nil })
	if strings.Join(got, "") != "abc" {
		t.Errorf("drained %q, want a, b, c and nothing pushed after close", got)
	}
}
