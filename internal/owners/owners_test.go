package owners

import (
	"context"
	"testing"

	"github.com/browserd/browserd/internal/auth"
	"github.com/browserd/browserd/internal/browsers"
	"github.com/browserd/browserd/internal/config"
	"github.com/browserd/browserd/internal/sessions"
	"github.com/browserd/browserd/internal/tool"
)

// checks are the daemon's, as the engine has them.
func checks(reg *sessions.Registry) Checks {
	return struct {
		*sessions.Registry
		*browsers.Pool
	}{reg, &browsers.Pool{Registry: reg}}
}

func TestFor(t *testing.T) {
	e := checks(&sessions.Registry{})
	bob := auth.WithOwner(context.Background(), "bob")
	in := tool.Input{Action: "navigate"}
	if _, err := For(bob, e, &in); err != nil || in.Profile != "bob~default" || in.Session != "" {
		t.Fatalf("bob's default: %+v %v", in, err)
	}
	in = tool.Input{Action: "snapshot", Session: "s1"}
	if _, err := For(bob, e, &in); err != nil || in.Session != "bob~s1" || in.Profile != "" {
		t.Fatalf("bob's session: %+v %v", in, err)
	}
	in = tool.Input{Action: "list_sessions"}
	if _, err := For(bob, e, &in); err != nil || in.Profile != "" {
		t.Fatalf("list_sessions got a profile: %+v %v", in, err)
	}
	// Nobody spells another owner's name.
	for _, in := range []tool.Input{{Action: "snapshot", Session: "admin~x"}, {Action: "snapshot", Profile: "bob~work"}, {Action: "snapshot", Session: ".."}} {
		if _, err := For(context.Background(), e, &in); err == nil {
			t.Errorf("For accepted %+v", in)
		}
	}
	// Admin's names stay bare.
	in = tool.Input{Action: "snapshot", Session: "s1"}
	if _, err := For(context.Background(), e, &in); err != nil || in.Session != "s1" {
		t.Fatalf("admin's session: %+v %v", in, err)
	}
	// An attached browser serves admin only.
	e = checks(&sessions.Registry{Cfg: config.Config{CDP: "ws://127.0.0.1:9222/devtools/browser/x"}})
	in = tool.Input{Action: "snapshot"}
	if _, err := For(bob, e, &in); err == nil {
		t.Fatal("bob was served on an attached browser")
	}
}

func TestUnqualify(t *testing.T) {
	r := tool.Result{Action: "status", Session: "bob~s1", Error: "session \"bob~s1\" is busy", Content: "session bob~s1",
		Notes: []string{"bob~s1 resumed"}, Details: []string{"profile bob~work repaired"}, Path: "/d/owners/bob/states/s1.json",
		Sessions: []tool.SessionInfo{{ID: "bob~s1", Profile: "bob~work"}}}
	Unqualify("bob", &r)
	if r.Session != "s1" || r.Error != `session "s1" is busy` || r.Content != "session s1" || r.Notes[0] != "s1 resumed" ||
		r.Details[0] != "profile work repaired" || r.Sessions[0].ID != "s1" || r.Sessions[0].Profile != "work" {
		t.Fatalf("unqualified: %+v", r)
	}
	// Page text is left alone.
	r = tool.Result{Action: "snapshot", Content: "text bob~s1"}
	Unqualify("bob", &r)
	if r.Content != "text bob~s1" {
		t.Fatalf("page text changed: %q", r.Content)
	}
}
