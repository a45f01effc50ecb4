package storetest

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/browserd/browserd/internal/store"
)

// testSecrets: store.Secrets round-trips a secret, replaces it, lists
// an owner's by name without values, keeps owners apart and deletes.
// That the value is sealed at rest is each backend's own test (it reads
// the backend's bytes).
func testSecrets(t *testing.T, st store.Store) {
	ss, ok := st.(store.Secrets)
	if !ok {
		t.Fatalf("%T keeps no secrets (store.Secrets): every backend must, and a wrapper must pass them through", st)
	}
	ctx := t.Context()
	if _, err := ss.GetSecret(ctx, "alice", "PW"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("GetSecret(none) = %v, want ErrNotFound", err)
	}
	if err := ss.DeleteSecret(ctx, "alice", "PW"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("DeleteSecret(none) = %v, want ErrNotFound", err)
	}
	if list, err := ss.ListSecrets(ctx, "alice"); err != nil || len(list) != 0 {
		t.Errorf("ListSecrets(none) = %+v, %v", list, err)
	}

	set, getOK := secretsOf(t, ss)
	long := strings.Repeat("ж", 2048) // 4 KB of two-byte runes
	set(store.Secret{Owner: "alice", Name: "B_PW", Value: "b-first-value", Origins: []string{"https://b.example"}, Updated: t0})
	set(store.Secret{Owner: "alice", Name: "A_PW", Value: "пароль-alice", Updated: t0.Add(time.Minute)})
	set(store.Secret{Owner: "alice", Name: "alpha", Value: long, Updated: t0})
	set(store.Secret{Owner: "alice", Name: "Zeta", Value: "zeta-value", Updated: t0})
	set(store.Secret{Owner: "bob", Name: "A_PW", Value: "bob's own value", Updated: t0})

	want := store.Secret{Owner: "alice", Name: "A_PW", Value: "пароль-alice", Updated: t0.Add(time.Minute)}
	if diff := cmp.Diff(want, getOK("alice", "A_PW")); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	if got := getOK("alice", "alpha"); got.Value != long {
		t.Errorf("a 4 KB value came back as %d bytes", len(got.Value))
	}
	if got := getOK("alice", "B_PW"); got.Value != "b-first-value" || !cmp.Equal(got.Origins, []string{"https://b.example"}) {
		t.Errorf("B_PW = %+v", got)
	}

	// Replacing changes the value, the origins and the time.
	set(store.Secret{Owner: "alice", Name: "B_PW", Value: "b-second-value", Origins: []string{"https://b.example", "http://localhost:8080"}, Updated: t0.Add(2 * time.Minute)})
	want = store.Secret{Owner: "alice", Name: "B_PW", Value: "b-second-value", Origins: []string{"https://b.example", "http://localhost:8080"}, Updated: t0.Add(2 * time.Minute)}
	if diff := cmp.Diff(want, getOK("alice", "B_PW")); diff != "" {
		t.Errorf("after replacing (-want +got):\n%s", diff)
	}
	set(store.Secret{Owner: "alice", Name: "B_PW", Value: "b-third-value", Updated: t0.Add(3 * time.Minute)})
	if got := getOK("alice", "B_PW"); got.Value != "b-third-value" || got.Origins != nil {
		t.Errorf("replaced without origins: %+v, want none left", got)
	}

	testSecretsListed(t, ss)
	testSecretsApart(t, ss)
	testSecretsDeleted(t, ss)

	// No time given: now.
	before := time.Now().Add(-time.Second)
	set(store.Secret{Owner: "alice", Name: "NOW", Value: "now-value"})
	if got := getOK("alice", "NOW"); got.Updated.Before(before) || got.Updated.After(time.Now().Add(time.Second)) {
		t.Errorf("a secret set without a time has Updated %v, want about now", got.Updated)
	}
}

// secretsOf gives testSecrets' steps their way to set and get a secret,
// failing the test on an error.
func secretsOf(t *testing.T, ss store.Secrets) (set func(store.Secret), get func(owner, name string) store.Secret) {
	set = func(s store.Secret) {
		t.Helper()
		if err := ss.SetSecret(t.Context(), s); err != nil {
			t.Fatalf("SetSecret(%s/%s): %v", s.Owner, s.Name, err)
		}
	}
	get = func(owner, name string) store.Secret {
		t.Helper()
		s, err := ss.GetSecret(t.Context(), owner, name)
		if err != nil {
			t.Fatalf("GetSecret(%s/%s): %v", owner, name, err)
		}
		return s
	}
	return set, get
}

// testSecretsListed: a listing is by name (byte order), without values.
func testSecretsListed(t *testing.T, ss store.Secrets) {
	list, err := ss.ListSecrets(t.Context(), "alice")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range list {
		names = append(names, s.Name)
		if s.Value != "" {
			t.Errorf("ListSecrets shows %s's value", s.Name)
		}
		if s.Owner != "alice" {
			t.Errorf("ListSecrets(alice) lists %s's %s", s.Owner, s.Name)
		}
	}
	if want := []string{"A_PW", "B_PW", "Zeta", "alpha"}; !cmp.Equal(names, want) {
		t.Errorf("ListSecrets(alice) names = %q, want %q", names, want)
	}
	if len(list) == 4 && (!list[0].Updated.Equal(t0.Add(time.Minute)) || list[1].Origins != nil || !list[1].Updated.Equal(t0.Add(3*time.Minute))) {
		t.Errorf("ListSecrets(alice) = %+v", list)
	}

}

// testSecretsApart: owners are apart: the same name is another secret,
// and another owner's is not found.
func testSecretsApart(t *testing.T, ss store.Secrets) {
	ctx := t.Context()
	_, getOK := secretsOf(t, ss)
	if got := getOK("bob", "A_PW"); got.Value != "bob's own value" {
		t.Errorf("bob's A_PW = %q", got.Value)
	}
	if _, err := ss.GetSecret(ctx, "carol", "A_PW"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("carol reads another owner's secret: %v", err)
	}
	if err := ss.DeleteSecret(ctx, "carol", "A_PW"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("carol deletes another owner's secret: %v", err)
	}
	if list, err := ss.ListSecrets(ctx, "carol"); err != nil || len(list) != 0 {
		t.Errorf("ListSecrets(carol) = %+v, %v; want none", list, err)
	}
	if list, err := ss.ListSecrets(ctx, "bob"); err != nil || len(list) != 1 || list[0].Name != "A_PW" {
		t.Errorf("ListSecrets(bob) = %+v, %v", list, err)
	}

}

// testSecretsDeleted: a deleted secret is gone, for its owner only.
func testSecretsDeleted(t *testing.T, ss store.Secrets) {
	ctx := t.Context()
	_, getOK := secretsOf(t, ss)
	if err := ss.DeleteSecret(ctx, "alice", "A_PW"); err != nil {
		t.Fatal(err)
	}
	if _, err := ss.GetSecret(ctx, "alice", "A_PW"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("deleted secret still readable: %v", err)
	}
	if err := ss.DeleteSecret(ctx, "alice", "A_PW"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("deleting twice: %v", err)
	}
	if got := getOK("bob", "A_PW"); got.Value != "bob's own value" {
		t.Errorf("deleting alice's A_PW changed bob's: %q", got.Value)
	}
}
