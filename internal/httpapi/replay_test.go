package httpapi_test

import (
	"strings"
	"testing"

	"github.com/browserd/browserd/internal/httpapi"
)

// TestReplayRequests: POST /api/replay runs a recording's steps through
// the tool in the task named, and refuses, saying what to give, a
// request without a task, a body that is no recording, or one with no
// steps.
func TestReplayRequests(t *testing.T) {
	f := &fakeHandler{}
	h := httpapi.New(f, httpapi.Options{})
	rec := `{"session":"s","task":"rec","entries":[{"type":"action","seq":1,"action":"navigate","args":{"url":"https://example.com/"},"success":true},{"type":"action","seq":2,"action":"snapshot","success":true}]}`
	for _, tt := range []struct{ path, body, want string }{
		{"/api/replay", rec, "task=NAME"},
		{"/api/replay?task=r", `nope`, "not JSON"},
		{"/api/replay?task=r", `{"entries":[]}`, "no steps"},
		{"/api/replay?task=rec", rec, "is the recorded task"},
	} {
		r, m := do(t, h, "POST", tt.path, tt.body)
		if r.Code != 400 || !strings.Contains(m["error"].(string), tt.want) {
			t.Errorf("POST %s %.40s: %d %v, want 400 with %q", tt.path, tt.body, r.Code, m, tt.want)
		}
	}
	r, m := do(t, h, "POST", "/api/replay?task=again&session=s", `{"recording":`+rec+`,"params":{"1":"https://example.org/"}}`)
	if r.Code != 200 || m["passed"] != true {
		t.Fatalf("replay: %d %v", r.Code, m)
	}
	if len(f.got) != 1 || f.got[0].Action != "navigate" || f.got[0].URL != "https://example.org/" || f.got[0].Task != "again" || f.got[0].Session != "s" {
		t.Errorf("the tool got %+v", f.got)
	}
}
