package replay

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/browserd/browserd/internal/codegen"
	"github.com/browserd/browserd/internal/recording"
	"github.com/browserd/browserd/internal/tool"
)

// fakePage answers calls as a page with some buttons would: a click on a
// role and name it has succeeds, others fail.
type fakePage struct {
	buttons map[string]bool
	url     string
	calls   []tool.Input
}

func (f *fakePage) Do(_ context.Context, in tool.Input) (tool.Result, error) {
	f.calls = append(f.calls, in)
	res := tool.Result{Action: in.Action, URL: f.url, Success: true}
	switch in.Action {
	case "navigate":
		f.url = in.URL
		res.URL = in.URL
	case "click":
		if !f.buttons[in.Name] {
			res.Success, res.Error = false, "no element with role \"button\" and name \""+in.Name+"\""
		}
	case "snapshot":
		res.Content = "- button \"Go\" [ref=e1]"
	}
	return res, nil
}

func entries(t *testing.T) recording.Export {
	t.Helper()
	ok, bad := true, false
	args := func(s string) map[string]any {
		var m map[string]any
		json.Unmarshal([]byte(s), &m)
		return m
	}
	return recording.Export{Session: "s", Task: "rec", Entries: []recording.Entry{
		{Type: "action", Seq: 1, Name: "navigate", Args: args(`{"url":"http://x.test/"}`), OK: &ok, URL: "http://x.test/"},
		{Type: "action", Seq: 2, Name: "snapshot", OK: &ok, URL: "http://x.test/"},
		{Type: "action", Seq: 3, Name: "type", Args: args(`{"ref":"e2","text":"mugs"}`), OK: &ok, URL: "http://x.test/", Locator: &recording.Locator{Role: "searchbox", Name: "Search"}},
		{Type: "action", Seq: 4, Name: "click", Args: args(`{"ref":"e7"}`), OK: &bad},
		{Type: "action", Seq: 5, Name: "click", Args: args(`{"ref":"e3"}`), OK: &ok, URL: "http://x.test/", Frame: "000005.jpg", Locator: &recording.Locator{Role: "button", Name: "Go"}},
		{Type: "action", Seq: 6, Name: "wait", Args: args(`{"text":"Results for mugs"}`), OK: &ok, URL: "http://x.test/"},
	}}
}

func TestRunPassesAndStops(t *testing.T) {
	x := entries(t)
	page := &fakePage{buttons: map[string]bool{"Go": true}}
	rep, err := Run(context.Background(), page, x, Options{Task: "again", Params: map[string]string{"mugs": "plates"}})
	if err != nil || !rep.Passed || len(rep.Steps) != 4 {
		t.Fatalf("replay: %v %+v", err, rep)
	}
	// The failed click and the snapshot are not replayed; targets by role
	// and name; the typed text and the wait follow the param.
	var sent []string
	for _, c := range page.calls {
		b, _ := json.Marshal(c)
		sent = append(sent, string(b))
	}
	got := strings.Join(sent, "\n")
	for _, want := range []string{`"action":"type","task":"again","role":"searchbox","name":"Search","text":"plates"`, `"action":"click","task":"again","role":"button","name":"Go"`, `"text":"Results for plates"`} {
		if !strings.Contains(got, want) {
			t.Errorf("no call with %s in\n%s", want, got)
		}
	}
	if strings.Contains(got, `"ref"`) {
		t.Errorf("a replayed call names a ref:\n%s", got)
	}

	page = &fakePage{buttons: map[string]bool{"Search": true}}
	rep, err = Run(context.Background(), page, x, Options{Task: "changed", FrameURL: func(seq int) string { return "frame-" + string(rune('0'+seq)) }})
	if err != nil || rep.Passed || rep.Failed == nil {
		t.Fatalf("replay of a changed page: %v %+v", err, rep)
	}
	f := rep.Failed
	if f.Seq != 5 || !strings.Contains(f.Why, `"Go"`) || f.Expected.Frame != "frame-5" || f.Expected.Target != `button "Go"` || f.Actual.Page == "" {
		t.Errorf("failure: %+v", f)
	}
}

func TestRunRefuses(t *testing.T) {
	x := entries(t)
	if _, err := Run(context.Background(), &fakePage{}, x, Options{}); err == nil {
		t.Error("a replay without a task ran")
	}
	if _, err := Run(context.Background(), &fakePage{}, x, Options{Task: "rec"}); err == nil {
		t.Error("a replay into the recorded task ran")
	}
	// A step whose target the recording did not place stops the replay,
	// saying so.
	x.Entries[4].Locator = nil
	rep, err := Run(context.Background(), &fakePage{buttons: map[string]bool{"Go": true}}, x, Options{Task: "t"})
	if err != nil || rep.Failed == nil || !strings.Contains(rep.Failed.Why, "cannot be found again") {
		t.Errorf("replay with an unplaced target: %v %+v", err, rep.Failed)
	}
}

func TestParse(t *testing.T) {
	x := entries(t)
	bare, _ := json.Marshal(x)
	wrapped, _ := json.Marshal(map[string]any{"recording": x, "params": map[string]string{"3": "plates"}})
	for _, b := range [][]byte{bare, wrapped} {
		if req, err := Parse(b); err != nil || len(req.Recording.Entries) != len(x.Entries) {
			t.Errorf("Parse(%.80s): %v", b, err)
		}
	}
	for _, b := range []string{``, `[]`, `{"entries":[]}`, `{"recording":{"entries":[{"type":"console"}]}}`, `{"entries":"x"}`} {
		if _, err := Parse([]byte(b)); err == nil {
			t.Errorf("Parse(%q) took it", b)
		}
	}
	// Issue 47 point 5: a replay has a step cap.
	long := `{"entries":[` + strings.Repeat(`{"type":"action","name":"snapshot"},`, MaxSteps) + `{"type":"action","name":"snapshot"}]}`
	if _, err := Parse([]byte(long)); err == nil || !strings.Contains(err.Error(), "at most 2000") {
		t.Errorf("Parse of %d steps: %v", MaxSteps+1, err)
	}
}

func TestRefLines(t *testing.T) {
	r := refs{}
	content := "<untrusted>\n- main:\n  - button \"Save \\\"all\\\"\" [ref=e4, focused]\n  - image \"Logo\" [ref=e5]\n  - button \"Add\" [ref=e6]\n  - button \"Add\" [ref=e7]\n"
	for _, m := range refLine.FindAllStringSubmatch(content, -1) {
		name := m[2]
		if u, err := unquote(name); err == nil {
			name = u
		}
		k := [2]string{codegen.Role(m[1]), name}
		r[k] = append(r[k], m[3])
	}
	if ref, why := r.find(recording.Locator{Role: "button", Name: `Save "all"`}); ref != "e4" {
		t.Errorf("Save: %q %s", ref, why)
	}
	if ref, _ := r.find(recording.Locator{Role: "img", Name: "Logo"}); ref != "e5" {
		t.Errorf("Logo: %q", ref)
	}
	if _, why := r.find(recording.Locator{Role: "button", Name: "Add"}); !strings.Contains(why, "2 times") {
		t.Errorf("Add: %s", why)
	}
}

func FuzzParse(f *testing.F) {
	b, _ := json.Marshal(map[string]any{"recording": recording.Export{Task: "t", Entries: []recording.Entry{{Type: "action", Name: "click", Args: map[string]any{"ref": "e1"}}}}, "params": map[string]string{"1": "x"}})
	f.Add(b)
	f.Add([]byte(`{"entries":[{"type":"action","action":"wait","args":{"text":"a"}}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		req, err := Parse(b)
		if err != nil {
			return
		}
		page := &fakePage{buttons: map[string]bool{}}
		_, _ = Run(context.Background(), page, req.Recording, Options{Task: "fuzz-replay", Params: req.Params})
	})
}
