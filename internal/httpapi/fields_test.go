package httpapi_test

import (
	"encoding/json"
	"testing"

	"github.com/browserd/browserd/internal/httpapi"
	"github.com/browserd/browserd/internal/tool/tooltest"
)

// TestEveryFieldOverHTTP is issue 26 point 7 over the HTTP API: every
// example of tooltest (between them, every field of tool.Input) sent to
// POST /api/actions reaches the handler as it was sent.
func TestEveryFieldOverHTTP(t *testing.T) {
	f := &fakeHandler{}
	h := httpapi.New(f, httpapi.Options{})
	for _, ex := range tooltest.Examples() {
		sent, _ := json.Marshal(ex)
		rec, m := do(t, h, "POST", "/api/actions", string(sent))
		if rec.Code != 200 || m["success"] != true {
			t.Errorf("%s: %d %v", ex.Action, rec.Code, m)
			continue
		}
		if got := f.got[len(f.got)-1]; !tooltest.Same(got, ex) {
			g, _ := json.Marshal(got)
			t.Errorf("%s: the handler got\n%s\nnot\n%s", ex.Action, g, sent)
		}
	}
}
