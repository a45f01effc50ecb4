package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/browserd/browserd/internal/sealkey"
	"github.com/browserd/browserd/internal/storagestate"
	"github.com/browserd/browserd/internal/store"
	"github.com/browserd/browserd/internal/store/storetest"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func testBox(t testing.TB, dir string) *sealkey.Box {
	t.Helper()
	box, err := sealkey.Load(filepath.Join(dir, "secret.key"))
	if err != nil {
		t.Fatal(err)
	}
	return box
}

func open(t testing.TB, path string, box *sealkey.Box) *Store {
	t.Helper()
	s, err := Open(path, box)
	if err != nil {
		t.Fatalf("Open(%s): %v", path, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		dir := t.TempDir()
		return open(t, filepath.Join(dir, "browserd.db"), testBox(t, dir))
	})
}

func TestReopen(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "data", "browserd.db")
	box := testBox(t, dir)
	s, err := Open(path, box)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	if err := s.CreateSession(ctx, store.Session{ID: "s", Owner: "alice", Profile: "work", CreatedAt: t0}); err != nil {
		t.Fatal(err)
	}
	want := storetest.Full("s", t0.Add(time.Second))
	if err := s.SaveCapture(ctx, want, 10); err != nil {
		t.Fatal(err)
	}
	before, _ := s.GetSession(ctx, "s")
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	for range 2 { // twice: migrations are idempotent
		s = open(t, path, box)
		got, err := s.GetSession(ctx, "s")
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(before, got); d != "" {
			t.Errorf("session after reopening (-before +after):\n%s", d)
		}
		c, err := s.LatestCapture(ctx, "s")
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(want, c, cmpopts.EquateEmpty()); d != "" {
			t.Errorf("capture after reopening (-saved +read):\n%s", d)
		}
		var versions int
		if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM schema_migrations`).Scan(&versions); err != nil {
			t.Fatal(err)
		}
		if versions != len(migrations) {
			t.Errorf("schema_migrations has %d rows, want %d", versions, len(migrations))
		}
		s.Close()
	}

	// Another key cannot open the store, and says what to do.
	other, err := sealkey.Load(filepath.Join(dir, "other.key"))
	if err != nil {
		t.Fatal(err)
	}
	if s, err := Open(path, other); !errors.Is(err, store.ErrWrongKey) || !strings.Contains(err.Error(), "--secret-key-file") {
		if err == nil {
			s.Close()
		}
		t.Errorf("Open under another key = %v, want ErrWrongKey naming --secret-key-file", err)
	}
}

// TestKeyCheck: the key check refuses another key over sealed data, takes
// a new key over a store with nothing sealed, and is written on the first
// open of a store made before it, when the key opens its data.
func TestKeyCheck(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "browserd.db")
	box := testBox(t, dir)
	other, err := sealkey.Load(filepath.Join(dir, "other.key"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()

	// Nothing sealed: a new key is taken, and is then the store's key.
	s := open(t, path, box)
	if err := s.CreateSession(ctx, store.Session{ID: "s"}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = open(t, path, other)
	if err := s.SaveCapture(ctx, storetest.Full("s", t0), 3); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := Open(path, box); !errors.Is(err, store.ErrWrongKey) || !strings.Contains(err.Error(), "with the key given: 1)") {
		t.Fatalf("Open with the first key after the second sealed a capture = %v, want ErrWrongKey", err)
	}

	// A store made before the key check (none in it): the first open
	// checks the key against the sealed rows and writes the check.
	dropCheck := func() {
		t.Helper()
		db, err := sql.Open("sqlite", dsn(path))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if _, err := db.ExecContext(ctx, `DELETE FROM key_check`); err != nil {
			t.Fatal(err)
		}
	}
	dropCheck()
	if _, err := Open(path, box); !errors.Is(err, store.ErrWrongKey) {
		t.Fatalf("Open of a store without a key check, with another key than its data's = %v, want ErrWrongKey", err)
	}
	s = open(t, path, other)
	if _, err := s.LatestCapture(ctx, "s"); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM key_check`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("key_check rows after the first open = %d, %v; want 1", n, err)
	}
	s.Close()
	if _, err := Open(path, box); !errors.Is(err, store.ErrWrongKey) {
		t.Fatalf("Open with another key after the check was written = %v, want ErrWrongKey", err)
	}

	// One damaged row among good ones does not make the key wrong.
	s = open(t, path, other)
	if err := s.SaveCapture(ctx, storetest.Full("s", t0.Add(time.Second)), 3); err != nil {
		t.Fatal(err)
	}
	if err := s.CorruptLatest(ctx, "s"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	dropCheck()
	s = open(t, path, other)
	s.Close()
}

func TestMigrationsIdempotent(t *testing.T) {
	dir := t.TempDir()
	s := open(t, filepath.Join(dir, "browserd.db"), testBox(t, dir))
	ctx := t.Context()
	for range 3 {
		if err := s.migrate(ctx); err != nil {
			t.Fatalf("migrate again: %v", err)
		}
	}
	for _, table := range []string{"sessions", "session_snapshots", "leases", "owners", "api_tokens", "profiles", "stored_sessions", "tasks", "key_check", "secrets", "schema_migrations"} {
		var n int
		if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?`, table).Scan(&n); err != nil || n != 1 {
			t.Errorf("table %s: %d, %v", table, n, err)
		}
	}
	var mode string
	if err := s.db.QueryRowContext(ctx, `PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode = %q, %v; want wal", mode, err)
	}
	var fk int
	if err := s.db.QueryRowContext(ctx, `PRAGMA foreign_keys`).Scan(&fk); err != nil || fk != 1 {
		t.Errorf("foreign_keys = %d, %v; want 1", fk, err)
	}
}

func TestFileMode(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "browserd.db")
	// A file someone made readable is tightened.
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	s := open(t, path, testBox(t, dir))
	ctx := t.Context()
	if err := s.CreateSession(ctx, store.Session{ID: "s"}); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveCapture(ctx, storetest.Full("s", t0), 3); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		fi, err := os.Stat(p)
		if errors.Is(err, os.ErrNotExist) && p != path {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if m := fi.Mode().Perm(); m != 0o600 {
			t.Errorf("%s has mode %v, want 0600", filepath.Base(p), m)
		}
	}
}

// TestNoPlaintext reads the database files' bytes: no cookie or storage
// value, and no URL (its query and fragment may hold a token), may be
// there unencrypted, while the other listing columns are.
func TestNoPlaintext(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "browserd.db")
	s := open(t, path, testBox(t, dir))
	ctx := t.Context()
	if err := s.CreateSession(ctx, store.Session{ID: "s", Owner: "alice"}); err != nil {
		t.Fatal(err)
	}
	c := storetest.Full("s", t0)
	secretValue := "cookie-value-that-must-not-leak-7c1d"
	c.Cookies = append(c.Cookies, storagestate.Cookie{Name: "auth", Value: secretValue, Domain: "example.com", Path: "/", Expires: -1})
	for i := range 3 {
		c.Taken = t0.Add(time.Duration(i) * time.Second)
		if err := s.SaveCapture(ctx, c, 2); err != nil {
			t.Fatal(err)
		}
	}
	// A profile's login check: its text is often the account's name.
	loginText := "Logged in as Ada-8f3e"
	if err := s.SetProfileLoginCheck(ctx, "alice", "work", &store.LoginCheck{URL: "https://app.example.com/account", Text: loginText}); err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		t.Helper()
		var all []byte
		for _, p := range []string{path, path + "-wal"} {
			b, err := os.ReadFile(p)
			if err != nil && !errors.Is(err, os.ErrNotExist) {
				t.Fatal(err)
			}
			all = append(all, b...)
		}
		for _, v := range []string{secretValue, c.Cookies[0].Value, "eyJhbGciOi.x.y", c.UserAgent, c.Tabs[0].URL, "example.com/app", loginText, c.LoginCheck.Text} {
			if bytes.Contains(all, []byte(v)) {
				t.Errorf("%s: %q is in the database files in the clear", when, v)
			}
		}
		if !bytes.Contains(all, []byte("alice")) {
			t.Errorf("%s: the owner is not in the database files; is the test reading the right files?", when)
		}
	}
	check("before a checkpoint")
	if _, err := s.db.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatal(err)
	}
	check("after a checkpoint")
}

// TestSecretSealed: a secret's value is nowhere in the database files in
// the clear (its name and owner are), and a sealed value moved to another
// owner's or name's row does not open (store.SecretLabel binds it).
func TestSecretSealed(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "browserd.db")
	s := open(t, path, testBox(t, dir))
	ctx := t.Context()
	const value = "secret-value-that-must-not-leak-41f9"
	for _, name := range []string{"GITHUB_PASSWORD", "OTHER"} {
		if err := s.SetSecret(ctx, store.Secret{Owner: "alice", Name: name, Value: value, Origins: []string{"https://github.com"}}); err != nil {
			t.Fatal(err)
		}
	}
	check := func(when string) {
		t.Helper()
		var all []byte
		for _, p := range []string{path, path + "-wal"} {
			b, err := os.ReadFile(p)
			if err != nil && !errors.Is(err, os.ErrNotExist) {
				t.Fatal(err)
			}
			all = append(all, b...)
		}
		if bytes.Contains(all, []byte(value)) {
			t.Errorf("%s: the secret's value is in the database files in the clear", when)
		}
		if !bytes.Contains(all, []byte("GITHUB_PASSWORD")) {
			t.Errorf("%s: the secret's name is not in the database files; is the test reading the right files?", when)
		}
	}
	check("before a checkpoint")
	if _, err := s.db.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatal(err)
	}
	check("after a checkpoint")
	if got, err := s.GetSecret(ctx, "alice", "GITHUB_PASSWORD"); err != nil || got.Value != value {
		t.Fatalf("GetSecret = %+v, %v", got, err)
	}
	// Another owner's row with alice's sealed value, and alice's row under
	// another name: neither opens.
	if _, err := s.db.ExecContext(ctx, `UPDATE secrets SET owner_id = 'bob' WHERE name = 'GITHUB_PASSWORD'`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetSecret(ctx, "bob", "GITHUB_PASSWORD"); !errors.Is(err, store.ErrCorrupt) {
		t.Errorf("a value moved to bob's row: %v, want ErrCorrupt", err)
	}
	if _, err := s.db.ExecContext(ctx, `UPDATE secrets SET name = 'RENAMED' WHERE name = 'OTHER'`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetSecret(ctx, "alice", "RENAMED"); !errors.Is(err, store.ErrCorrupt) {
		t.Errorf("a value moved to another name: %v, want ErrCorrupt", err)
	}
}

// TestSealsOldURLs: a store of an earlier version kept the listing URL in
// the clear; opening it seals the URL, the listing still shows it, and
// neither the file nor its WAL keeps the old copy.
func TestSealsOldURLs(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "browserd.db")
	box := testBox(t, dir)
	s, err := Open(path, box)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	if err := s.CreateSession(ctx, store.Session{ID: "s", Owner: "alice"}); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveCapture(ctx, storetest.Full("s", t0), 3); err != nil {
		t.Fatal(err)
	}
	// As an earlier version wrote it: the URL in column url, none sealed.
	const old = "https://example.com/reset?token=old-reset-token-5e2a#code=old-oauth-code-9f1b"
	if _, err := s.db.ExecContext(ctx, `UPDATE sessions SET url = ?, url_sealed = NULL`, old); err != nil {
		t.Fatal(err)
	}
	s.Close()

	s = open(t, path, box)
	if got, err := s.GetSession(ctx, "s"); err != nil || got.URL != old {
		t.Fatalf("after reopening: URL %q, %v; want %q", got.URL, err, old)
	}
	var all []byte
	for _, p := range []string{path, path + "-wal"} {
		b, err := os.ReadFile(p)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		all = append(all, b...)
	}
	for _, v := range []string{"old-reset-token-5e2a", "old-oauth-code-9f1b"} {
		if bytes.Contains(all, []byte(v)) {
			t.Errorf("%q is still in the database files in the clear after the URLs were sealed", v)
		}
	}
	var plain int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM sessions WHERE url <> ''`).Scan(&plain); err != nil || plain != 0 {
		t.Errorf("sessions with a URL in the clear: %d, %v", plain, err)
	}
}

// TestCancelWhileLocked: a writer waiting on another process's write lock
// gives up when its context ends, not after the 10 s busy timeout.
func TestCancelWhileLocked(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "browserd.db")
	s := open(t, path, testBox(t, dir))
	ctx := t.Context()
	if err := s.CreateSession(ctx, store.Session{ID: "s"}); err != nil {
		t.Fatal(err)
	}
	// Another "process": its own pool on the same file, holding the lock.
	other, err := sql.Open("sqlite", dsn(path))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	tx, err := other.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `UPDATE sessions SET reason = 'locked' WHERE session_id = 's'`); err != nil {
		t.Fatal(err)
	}

	tctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	err = s.SaveCapture(tctx, storetest.Full("s", t0), 3)
	elapsed := time.Since(start)
	if err == nil {
		t.Fatal("SaveCapture succeeded while another connection held the write lock")
	}
	if elapsed > 3*time.Second {
		t.Errorf("SaveCapture took %v to give up after its deadline (err %v)", elapsed, err)
	}
	t.Logf("gave up after %v: %v", elapsed, err)

	// Readers are not blocked by the writer (WAL).
	if _, err := s.GetSession(ctx, "s"); err != nil {
		t.Errorf("GetSession during another's write: %v", err)
	}
	tx.Rollback()
	if err := s.SaveCapture(ctx, storetest.Full("s", t0), 3); err != nil {
		t.Errorf("SaveCapture after the lock is gone: %v", err)
	}
}

func BenchmarkSaveCapture(b *testing.B) {
	dir := b.TempDir()
	s := open(b, filepath.Join(dir, "browserd.db"), testBox(b, dir))
	ctx := context.Background()
	if err := s.CreateSession(ctx, store.Session{ID: "s"}); err != nil {
		b.Fatal(err)
	}
	c := storetest.Big("s", t0)
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		n++
		c.Taken = t0.Add(time.Duration(n) * time.Millisecond)
		if err := s.SaveCapture(ctx, c, 10); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLatestCapture(b *testing.B) {
	dir := b.TempDir()
	s := open(b, filepath.Join(dir, "browserd.db"), testBox(b, dir))
	ctx := context.Background()
	if err := s.CreateSession(ctx, store.Session{ID: "s"}); err != nil {
		b.Fatal(err)
	}
	c := storetest.Big("s", t0)
	for i := range 10 {
		c.Taken = t0.Add(time.Duration(i) * time.Second)
		if err := s.SaveCapture(ctx, c, 10); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.LatestCapture(ctx, "s"); err != nil {
			b.Fatal(err)
		}
	}
}
