package engine

import (
	"context"
	"testing"

	"github.com/browserd/browserd/internal/auth"
	"github.com/browserd/browserd/internal/config"
	"github.com/browserd/browserd/internal/httpapi"
	"github.com/browserd/browserd/internal/live"
	"github.com/browserd/browserd/internal/sessions"
	"github.com/browserd/browserd/internal/tool"
)

// The dashboard finds what it needs on the engine (the daemon checks it
// at run time).
var _ live.Engine = (*Engine)(nil)

// The API manages secrets through the engine.
var _ httpapi.SecretStore = (*Engine)(nil)

func TestForOwner(t *testing.T) {
	e := assemble(&sessions.Registry{})
	bob := auth.WithOwner(context.Background(), "bob")
	in := tool.Input{Action: "navigate"}
	if _, err := e.forOwner(bob, &in); err != nil || in.Profile != "bob~default" || in.Session != "" {
		t.Fatalf("bob's default: %+v %v", in, err)
	}
	in = tool.Input{Action: "snapshot", Session: "s1"}
	if _, err := e.forOwner(bob, &in); err != nil || in.Session != "bob~s1" || in.Profile != "" {
		t.Fatalf("bob's session: %+v %v", in, err)
	}
	in = tool.Input{Action: "list_sessions"}
	if _, err := e.forOwner(bob, &in); err != nil || in.Profile != "" {
		t.Fatalf("list_sessions got a profile: %+v %v", in, err)
	}
	// Nobody spells another owner's name.
	for _, in := range []tool.Input{{Action: "snapshot", Session: "admin~x"}, {Action: "snapshot", Profile: "bob~work"}, {Action: "snapshot", Session: ".."}} {
		if _, err := e.forOwner(context.Background(), &in); err == nil {
			t.Errorf("forOwner accepted %+v", in)
		}
	}
	// Admin's names stay bare.
	in = tool.Input{Action: "snapshot", Session: "s1"}
	if _, err := e.forOwner(context.Background(), &in); err != nil || in.Session != "s1" {
		t.Fatalf("admin's session: %+v %v", in, err)
	}
	// An attached browser serves admin only.
	e = assemble(&sessions.Registry{Cfg: config.Config{CDP: "ws://127.0.0.1:9222/devtools/browser/x"}})
	in = tool.Input{Action: "snapshot"}
	if _, err := e.forOwner(bob, &in); err == nil {
		t.Fatal("bob was served on an attached browser")
	}
}

func TestUnqualifyResult(t *testing.T) {
	r := tool.Result{Action: "status", Session: "bob~s1", Error: "session \"bob~s1\" is busy", Content: "session bob~s1",
		Notes: []string{"bob~s1 resumed"}, Details: []string{"profile bob~work repaired"}, Path: "/d/owners/bob/states/s1.json",
		Sessions: []tool.SessionInfo{{ID: "bob~s1", Profile: "bob~work"}}}
	unqualifyResult("bob", &r)
	if r.Session != "s1" || r.Error != `session "s1" is busy` || r.Content != "session s1" || r.Notes[0] != "s1 resumed" ||
		r.Details[0] != "profile work repaired" || r.Sessions[0].ID != "s1" || r.Sessions[0].Profile != "work" {
		t.Fatalf("unqualified: %+v", r)
	}
	// Page text is left alone.
	r = tool.Result{Action: "snapshot", Content: "text bob~s1"}
	unqualifyResult("bob", &r)
	if r.Content != "text bob~s1" {
		t.Fatalf("page text changed: %q", r.Content)
	}
}
