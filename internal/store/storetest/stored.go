package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/browserd/browserd/internal/auth"
	"github.com/browserd/browserd/internal/policy"
	"github.com/browserd/browserd/internal/storagestate"
	"github.com/browserd/browserd/internal/store"
	"github.com/browserd/browserd/internal/tool"
)

func testStored(t *testing.T, st store.Store) {
	ctx := t.Context()
	state := &storagestate.State{
		Cookies: []storagestate.Cookie{
			{Name: "sid", Value: "s3cret", Domain: ".example.com", Path: "/", Expires: -1, HTTPOnly: true, SameSite: "Lax"},
			{Name: "auth", Value: "x", Domain: "app.example.com", Path: "/", Expires: float64(t0.Add(48 * time.Hour).Unix()), SameSite: "Lax"},
			{Name: "theme", Value: "dark", Domain: "other.test", Path: "/", Expires: float64(t0.Add(time.Hour).Unix()), SameSite: "Lax"},
		},
		Origins: []storagestate.Origin{{Origin: "https://app.example.com", LocalStorage: []storagestate.NameValue{{Name: "k", Value: "привет"}}}},
	}
	a := store.StoredSession{ID: "ss1", Owner: "alice", Name: "work", ExpiresAt: t0.Add(72 * time.Hour), Created: t0, State: state}
	if err := st.SaveStored(ctx, a); err != nil {
		t.Fatal(err)
	}
	if err := st.SaveStored(ctx, store.StoredSession{ID: "ss2", Owner: "bob", Name: "b", Created: t0.Add(time.Second), State: &storagestate.State{}}); err != nil {
		t.Fatal(err)
	}
	if err := st.SaveStored(ctx, a); err == nil {
		t.Fatal("SaveStored with a taken id succeeded")
	}
	got, err := st.GetStored(ctx, "alice", "ss1")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(state, got.State, cmpOpts); diff != "" {
		t.Fatalf("state round trip (-want +got):\n%s", diff)
	}
	wantDomains := []string{"app.example.com", "example.com", "other.test"}
	if got.Name != "work" || got.Cookies != 3 || !cmp.Equal(got.Domains, wantDomains) ||
		!got.AuthExpiry.Equal(t0.Add(48*time.Hour)) || !got.ExpiresAt.Equal(t0.Add(72*time.Hour)) || !got.Created.Equal(t0) {
		t.Fatalf("listing fields: %+v", got)
	}
	// Another owner sees nothing.
	if _, err := st.GetStored(ctx, "bob", "ss1"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("bob reads alice's stored session: %v", err)
	}
	if err := st.DeleteStored(ctx, "bob", "ss1"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("bob deletes alice's stored session: %v", err)
	}
	list, err := st.ListStored(ctx, "alice")
	if err != nil || len(list) != 1 || list[0].ID != "ss1" || list[0].State != nil || list[0].Cookies != 3 {
		t.Fatalf("ListStored(alice) = %+v, %v", list, err)
	}
	if err := st.DeleteStored(ctx, "alice", "ss1"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.GetStored(ctx, "alice", "ss1"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("deleted stored session still readable: %v", err)
	}
}

func testTokens(t *testing.T, st store.Store) {
	ts, ok := st.(auth.Store)
	if !ok {
		t.Skip("backend keeps no tokens")
	}
	ctx := t.Context()
	tok, rec, err := auth.New(ctx, ts, "alice", "laptop")
	if err != nil {
		t.Fatal(err)
	}
	if owner, err := auth.Verify(ctx, ts, tok); err != nil || owner != "alice" {
		t.Fatalf("Verify = %q, %v", owner, err)
	}
	if _, err := auth.Verify(ctx, ts, tok+"x"); !errors.Is(err, auth.ErrUnknown) {
		t.Fatalf("a wrong token verified: %v", err)
	}
	if _, _, err := auth.New(ctx, ts, "bob", ""); err != nil {
		t.Fatal(err)
	}
	list, err := ts.ListTokens(ctx, "alice")
	if err != nil || len(list) != 1 || list[0].ID != rec.ID || list[0].Label != "laptop" {
		t.Fatalf("ListTokens(alice) = %+v, %v", list, err)
	}
	if all, _ := ts.ListTokens(ctx, ""); len(all) != 2 {
		t.Fatalf("ListTokens(all) = %d tokens, want 2", len(all))
	}
	if err := ts.RevokeToken(ctx, rec.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := auth.Verify(ctx, ts, tok); !errors.Is(err, auth.ErrUnknown) {
		t.Fatalf("a revoked token verified: %v", err)
	}
	if err := ts.RevokeToken(ctx, rec.ID); !errors.Is(err, auth.ErrUnknown) {
		t.Fatalf("revoking twice: %v", err)
	}

	// A token keeps its policy; one without has none.
	pol := policy.MustParse(`{"deny":["evaluate","network.bodies"],"confirm":["upload"],"hosts":["example.com"],"confirmTimeout":"30s"}`)
	ptok, prec, err := auth.NewWithPolicy(ctx, ts, "carol", "agent", pol)
	if err != nil {
		t.Fatal(err)
	}
	got, err := auth.VerifyToken(ctx, ts, ptok)
	if err != nil || got.Owner != "carol" || got.Policy.JSON() != pol.JSON() || got.Policy.Source != "token "+prec.ID {
		t.Fatalf("VerifyToken of a token with a policy = %+v (policy %s), %v", got, got.Policy.JSON(), err)
	}
	if d := got.Policy.Decide(tool.Input{Action: "evaluate"}); d.Verdict != policy.Denied {
		t.Fatalf("the stored policy lets evaluate through: %+v", d)
	}
	if list, err := ts.ListTokens(ctx, "carol"); err != nil || len(list) != 1 || list[0].Policy.JSON() != pol.JSON() {
		t.Fatalf("ListTokens(carol) = %+v, %v", list, err)
	}
	if plain, err := auth.VerifyToken(ctx, ts, mustToken(t, ts, "dave")); err != nil || plain.Policy != nil {
		t.Fatalf("a token without a policy: %+v, %v", plain, err)
	}
}

func mustToken(t *testing.T, ts auth.Store, owner string) string {
	t.Helper()
	tok, _, err := auth.New(t.Context(), ts, owner, "")
	if err != nil {
		t.Fatal(err)
	}
	return tok
}
