package ownersecrets

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/browserd/browserd/internal/auth"
	"github.com/browserd/browserd/internal/metrics"
	"github.com/browserd/browserd/internal/sealkey"
	"github.com/browserd/browserd/internal/sessions"
	"github.com/browserd/browserd/internal/store"
	"github.com/browserd/browserd/internal/store/sqlite"
	"github.com/browserd/browserd/internal/tool"
)

// TestSecrets: the vault keeps each owner's secrets in the store as the
// daemon opens it (wrapped for metrics), checks what it is given, and
// never gives a value back, in an answer, an error or its log.
func TestSecrets(t *testing.T) {
	dir := t.TempDir()
	box, err := sealkey.Load(filepath.Join(dir, "secret.key"))
	if err != nil {
		t.Fatal(err)
	}
	st, err := sqlite.Open(filepath.Join(dir, "browserd.db"), box)
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	e := &Vault{Registry: &sessions.Registry{Store: metrics.New().WrapStore(st), Log: slog.New(slog.NewTextHandler(&log, nil))}}
	t.Cleanup(func() { e.Store.Close() })
	bob := auth.WithOwner(context.Background(), "bob")
	const value = "bobs-password-9c2e"

	got, err := e.SetSecret(bob, "BANK", value, []string{"https://Bank.example:443/", "https://bank.example"})
	if err != nil {
		t.Fatal(err)
	}
	if got.Value != "" || got.Owner != "bob" || got.Name != "BANK" || len(got.Origins) != 1 || got.Origins[0] != "https://bank.example" || got.Updated.IsZero() {
		t.Fatalf("SetSecret = %+v", got)
	}
	if s, err := st.GetSecret(bob, "bob", "BANK"); err != nil || s.Value != value {
		t.Fatalf("the store has bob's BANK as %+v, %v", s, err)
	}
	list, err := e.ListSecrets(bob)
	if err != nil || len(list) != 1 || list[0].Name != "BANK" || list[0].Value != "" {
		t.Fatalf("ListSecrets(bob) = %+v, %v", list, err)
	}
	if list, err := e.ListSecrets(context.Background()); err != nil || len(list) != 0 {
		t.Fatalf("admin lists bob's secrets: %+v, %v", list, err)
	}
	if err := e.DeleteSecret(context.Background(), "BANK"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("admin deletes bob's secret: %v", err)
	}

	// Refusals say what to give, are the caller's (4xx), and never show
	// the value.
	for _, tc := range []struct {
		name, value string
		origins     []string
	}{
		{"1BAD", value, nil},
		{"OK", "abc", nil},
		{"OK", value, []string{"https://bank.example/login"}},
		{"OK", value, []string{"ftp://bank.example"}},
	} {
		_, err := e.SetSecret(bob, tc.name, tc.value, tc.origins)
		var te *tool.Error
		if !errors.As(err, &te) {
			t.Errorf("SetSecret(%q, %v) = %v, want a *tool.Error", tc.name, tc.origins, err)
			continue
		}
		if strings.Contains(err.Error(), value) {
			t.Errorf("the error shows the value: %v", err)
		}
	}
	if err := e.DeleteSecret(bob, "BANK"); err != nil {
		t.Fatal(err)
	}
	if err := e.DeleteSecret(bob, "BANK"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("deleting twice: %v", err)
	}
	if strings.Contains(log.String(), value) {
		t.Errorf("the log shows the value:\n%s", log.String())
	}
	if !strings.Contains(log.String(), "secret=BANK") {
		t.Errorf("the log does not say what was set:\n%s", log.String())
	}
}

// noSecrets is a store that keeps no secrets.
type noSecrets struct{ store.Store }

func TestSecretsUnsupported(t *testing.T) {
	e := &Vault{Registry: &sessions.Registry{Store: noSecrets{}}}
	if _, err := e.SetSecret(context.Background(), "PW", "long-enough", nil); !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("SetSecret on a store without secrets: %v", err)
	}
	if _, err := e.ListSecrets(context.Background()); !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("ListSecrets on a store without secrets: %v", err)
	}
	if err := e.DeleteSecret(context.Background(), "PW"); !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("DeleteSecret on a store without secrets: %v", err)
	}
}
