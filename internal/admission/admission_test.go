package admission

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/browserd/browserd/internal/auth"
	"github.com/browserd/browserd/internal/config"
	"github.com/browserd/browserd/internal/policy"
	"github.com/browserd/browserd/internal/redact"
	"github.com/browserd/browserd/internal/sessions"
	"github.com/browserd/browserd/internal/tool"
)

// noOwners: no secrets, no tokens.
type noOwners struct{}

func (noOwners) Redactor(context.Context, string) *redact.Redactor { return nil }
func (noOwners) Tokens() auth.Store                                { return nil }

func gate(t *testing.T, flagPolicy string, deny ...string) *Gate {
	t.Helper()
	cfg := config.Default()
	cfg.Policy, cfg.DenyActions, cfg.Data = flagPolicy, deny, t.TempDir()
	if err := cfg.Resolve(); err != nil {
		t.Fatal(err)
	}
	return &Gate{Registry: &sessions.Registry{Cfg: cfg, Log: slog.New(slog.DiscardHandler)}, Owners: noOwners{}}
}

// TestAdmit: a call's policy decides (its token's, else the daemon's
// default); --deny-actions holds whatever the token's policy says; a
// denied call names the policy and the rule.
func TestAdmit(t *testing.T) {
	e := gate(t, `{"deny":["evaluate"]}`, "pdf")
	ctx := context.Background()
	pol := e.PolicyOf(ctx)
	if err := e.Admit(ctx, "admin", tool.Input{Action: "evaluate"}, pol); err == nil || !strings.Contains(err.Error(), `daemon default; rule: deny "evaluate"`) {
		t.Fatalf("evaluate under the default: %v", err)
	}
	tok := policy.With(ctx, policy.MustParse(`{"deny":["upload"]}`).Named("token tk_1"))
	pol = e.PolicyOf(tok)
	if err := e.Admit(tok, "bob", tool.Input{Action: "evaluate"}, pol); err != nil {
		t.Fatalf("the token's policy replaces the default: %v", err)
	}
	if err := e.Admit(tok, "bob", tool.Input{Action: "upload"}, pol); err == nil || !strings.Contains(err.Error(), `token tk_1; rule: deny "upload"`) {
		t.Fatalf("upload under the token's policy: %v", err)
	}
	if err := e.Admit(tok, "bob", tool.Input{Action: "pdf"}, pol); err == nil || !strings.Contains(err.Error(), "--deny-actions") {
		t.Fatalf("--deny-actions under a token's policy: %v", err)
	}
	if !strings.Contains(e.PolicyStatus(ctx), `policy (daemon default): deny evaluate, pdf`) {
		t.Fatalf("status: %s", e.PolicyStatus(ctx))
	}
}

// TestConfirm: a confirm rule holds the call until a person of the same
// owner answers; another owner cannot; a timeout denies.
func TestConfirm(t *testing.T) {
	e := gate(t, "")
	bob := auth.WithOwner(context.Background(), "bob")
	pol := policy.MustParse(`{"confirm":["upload"],"confirmTimeout":"1s"}`).Named("token tk_2")
	in := tool.Input{Action: "upload", Session: "s", Tab: "t1", Files: []string{"cv.pdf"}}

	done := make(chan error, 1)
	go func() { done <- e.Admit(bob, "bob", in, pol) }()
	var p []policy.Pending
	for deadline := time.Now().Add(5 * time.Second); len(p) == 0 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		p = e.PendingConfirms(bob)
	}
	if len(p) != 1 || p[0].Action != "upload" || p[0].Rule != `confirm "upload"` || p[0].Policy != "token tk_2" || !strings.Contains(p[0].Args, `"cv.pdf"`) {
		t.Fatalf("pending: %+v", p)
	}
	alice := auth.WithOwner(context.Background(), "alice")
	if len(e.PendingConfirms(alice)) != 0 || e.AnswerConfirm(alice, p[0].ID, true, "alice") == nil {
		t.Fatal("another owner sees or answers bob's call")
	}
	if err := e.AnswerConfirm(bob, p[0].ID, true, "a person"); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("an approved call: %v", err)
	}
	if e.AnswerConfirm(bob, p[0].ID, false, "a person") == nil {
		t.Fatal("a call answered twice")
	}

	go func() { done <- e.Admit(bob, "bob", in, pol) }()
	for deadline := time.Now().Add(5 * time.Second); len(e.PendingConfirms(bob)) == 0 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	_ = e.AnswerConfirm(bob, e.PendingConfirms(bob)[0].ID, false, "a person")
	if err := <-done; err == nil || !strings.Contains(err.Error(), "refused by a person") {
		t.Fatalf("a denied call: %v", err)
	}

	if err := e.Admit(bob, "bob", in, pol); err == nil || !strings.Contains(err.Error(), "nobody approved it within 1s") {
		t.Fatalf("a call nobody answers: %v", err)
	}
	if len(e.PendingConfirms(bob)) != 0 {
		t.Fatal("a timed-out call is still pending")
	}
}

// TestConfirmArgs: what the dashboard shows of a call leaves credentials
// out and redacts secrets' values.
func TestConfirmArgs(t *testing.T) {
	in := tool.Input{Action: "launch", URL: "https://x.test/?pw=Hunter2-Sekrit", Text: "Hunter2-Sekrit",
		HTTPCredentials: []tool.HTTPCredential{{Origin: "https://x.test", Username: "u", Password: "pw-in-the-clear"}},
		Fields:          []tool.Field{{Ref: "e1", Value: "Hunter2-Sekrit"}}}
	got := confirmArgs(in, nil)
	if strings.Contains(got, "pw-in-the-clear") {
		t.Fatalf("credentials shown: %s", got)
	}
	got = confirmArgs(in, redact.New(map[string]string{"PW": "Hunter2-Sekrit"}))
	if strings.Contains(got, "Hunter2-Sekrit") {
		t.Fatalf("a secret's value shown: %s", got)
	}
}
