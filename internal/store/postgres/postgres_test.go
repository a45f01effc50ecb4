package postgres

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	neturl "net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/jackc/pgx/v5"

	"github.com/browserd/browserd/internal/sealkey"
	"github.com/browserd/browserd/internal/storagestate"
	"github.com/browserd/browserd/internal/store"
	"github.com/browserd/browserd/internal/store/storetest"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// serverURL is the test server's URL, from BROWSERD_TEST_POSTGRES; the
// test is skipped without one.
func serverURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv("BROWSERD_TEST_POSTGRES")
	if u == "" {
		t.Skip("BROWSERD_TEST_POSTGRES is not set: `make test` sets it to a throwaway cluster (scripts/ensure-postgres.sh start DIR prints one's URL); or set it to a postgres:// URL of a database the tests may create schemas in")
	}
	return u
}

// freshSchema makes an empty schema, dropped when the test ends, and
// returns the server's URL with search_path set to it: every store the
// test opens with that URL is the same, empty at first.
func freshSchema(t testing.TB) string {
	t.Helper()
	base := serverURL(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("connecting to BROWSERD_TEST_POSTGRES (%s): %v", store.RedactURL(base), err)
	}
	defer conn.Close(ctx)
	b := make([]byte, 6)
	rand.Read(b)
	schema := "browserd_test_" + hex.EncodeToString(b)
	if _, err := conn.Exec(ctx, `CREATE SCHEMA `+schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		conn, err := pgx.Connect(context.Background(), base)
		if err != nil {
			t.Errorf("dropping schema %s: %v", schema, err)
			return
		}
		defer conn.Close(context.Background())
		if _, err := conn.Exec(context.Background(), `DROP SCHEMA `+schema+` CASCADE`); err != nil {
			t.Errorf("dropping schema %s: %v", schema, err)
		}
	})
	return withParam(t, base, "search_path", schema)
}

func withParam(t testing.TB, u, key, value string) string {
	t.Helper()
	p, err := neturl.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	q := p.Query()
	q.Set(key, value)
	p.RawQuery = q.Encode()
	return p.String()
}

func testBox(t testing.TB, name string) *sealkey.Box {
	t.Helper()
	box, err := sealkey.Load(filepath.Join(t.TempDir(), name))
	if err != nil {
		t.Fatal(err)
	}
	return box
}

func open(t testing.TB, url string, box *sealkey.Box) *Store {
	t.Helper()
	s, err := Open(context.Background(), url, box)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestContract(t *testing.T) {
	serverURL(t)
	storetest.Run(t, func(t *testing.T) store.Store {
		return open(t, freshSchema(t), testBox(t, "secret.key"))
	})
}

func TestReopen(t *testing.T) {
	url := freshSchema(t)
	box := testBox(t, "secret.key")
	ctx := t.Context()
	s := open(t, url, box)
	if err := s.CreateSession(ctx, store.Session{ID: "s", Owner: "alice", Profile: "work", CreatedAt: t0}); err != nil {
		t.Fatal(err)
	}
	want := storetest.Full("s", t0.Add(time.Second))
	if err := s.SaveCapture(ctx, want, 10); err != nil {
		t.Fatal(err)
	}
	before, _ := s.GetSession(ctx, "s")
	s.Close()
	for range 2 {
		s := open(t, url, box)
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
		s.Close()
	}
}

// TestMigrationsIdempotent: migrating again changes nothing, and nodes
// that open a new store at once apply every step once.
func TestMigrationsIdempotent(t *testing.T) {
	url := freshSchema(t)
	box := testBox(t, "secret.key")
	ctx := t.Context()
	const nodes = 6
	var (
		wg   sync.WaitGroup
		errs = make(chan error, nodes)
	)
	for range nodes {
		wg.Go(func() {
			s, err := Open(ctx, url, box)
			if err != nil {
				errs <- err
				return
			}
			s.Close()
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("Open by nodes at once: %v", err)
	}
	s := open(t, url, box)
	for range 3 {
		if err := s.migrate(ctx); err != nil {
			t.Fatalf("migrate again: %v", err)
		}
	}
	var versions []int32
	rows, err := s.pool.Query(ctx, `SELECT version FROM schema_migrations ORDER BY version`)
	if err == nil {
		versions, err = pgx.CollectRows(rows, pgx.RowTo[int32])
	}
	if err != nil {
		t.Fatal(err)
	}
	if want := []int32{1, 2, 3, 4, 5, 6, 7, 8, 9}; !slices.Equal(versions, want) || len(migrations) != len(want) {
		t.Errorf("schema_migrations = %v, want %v (one per step, %d steps)", versions, want, len(migrations))
	}
	for _, table := range []string{"sessions", "session_snapshots", "leases", "owners", "api_tokens", "profiles", "stored_sessions", "tasks", "key_check", "secrets", "schema_migrations"} {
		var ok bool
		if err := s.pool.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, table).Scan(&ok); err != nil || !ok {
			t.Errorf("table %s: %v, %v", table, ok, err)
		}
	}
	var checks int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM key_check`).Scan(&checks); err != nil || checks != 1 {
		t.Errorf("key_check has %d rows (%v), want 1", checks, err)
	}
}

// TestWrongKey: a node with another key than the store's refuses to open
// it, saying what to do — also over a store with nothing sealed yet, and
// when nodes with different keys start at once.
func TestWrongKey(t *testing.T) {
	ctx := t.Context()
	a, b := testBox(t, "a.key"), testBox(t, "b.key")
	url := freshSchema(t)
	s := open(t, url, a)
	check := func(when string) {
		t.Helper()
		s, err := Open(ctx, url, b)
		if err == nil {
			s.Close()
			t.Fatalf("%s: Open with another key succeeded", when)
		}
		if !errors.Is(err, store.ErrWrongKey) || !strings.Contains(err.Error(), "give every node the same --secret-key-file") {
			t.Errorf("%s: Open with another key = %v, want ErrWrongKey saying to give every node the same --secret-key-file", when, err)
		}
	}
	check("empty store")
	if err := s.CreateSession(ctx, store.Session{ID: "s"}); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveCapture(ctx, storetest.Full("s", t0), 3); err != nil {
		t.Fatal(err)
	}
	check("a store with a capture")
	// The right key still opens it.
	open(t, url, a).Close()

	// A key check deleted by hand: the sealed rows decide.
	if _, err := s.pool.Exec(ctx, `DELETE FROM key_check`); err != nil {
		t.Fatal(err)
	}
	check("no key check, a capture sealed with another key")
	open(t, url, a).Close()
	var n int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM key_check`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("key check not written again: %d rows, %v", n, err)
	}

	// Two nodes with different keys open a new store at once: one wins,
	// the other is refused.
	for round := range 5 {
		url := freshSchema(t)
		var (
			wg      sync.WaitGroup
			mu      sync.Mutex
			opened  int
			refused int
		)
		for _, box := range []*sealkey.Box{a, b} {
			wg.Go(func() {
				s, err := Open(ctx, url, box)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil:
					opened++
					s.Close()
				case errors.Is(err, store.ErrWrongKey):
					refused++
				default:
					t.Errorf("round %d: Open: %v", round, err)
				}
			})
		}
		wg.Wait()
		if opened != 1 || refused != 1 {
			t.Errorf("round %d: two keys at once: %d opened, %d refused; want 1 and 1", round, opened, refused)
		}
	}
}

// TestOpenErrors: a bad URL, a server that is not there, a wrong password
// and a missing database each say what to do, and never show the
// password.
func TestOpenErrors(t *testing.T) {
	base := serverURL(t)
	box := testBox(t, "secret.key")
	ctx := t.Context()
	u, err := neturl.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	const pw = "not-the-password-3f9a"
	wrongPW := *u
	wrongPW.User = neturl.UserPassword(u.User.Username(), pw)
	noDB := *u
	noDB.Path = "/browserd_no_such_db"
	for _, tc := range []struct {
		name, url, want string
	}{
		{"not a URL", "mysql://u:" + pw + "@127.0.0.1/db", "not a PostgreSQL URL"},
		{"bad port", "postgres://u:" + pw + "@127.0.0.1:port/db", "cannot read --db"},
		{"bad parameter", "postgres://u:" + pw + "@127.0.0.1/db?sslmode=sometimes", "cannot read --db"},
		{"nothing listening", "postgres://u:" + pw + "@127.0.0.1:1/db?sslmode=disable", "is PostgreSQL running there"},
		{"unknown host", "postgres://u:" + pw + "@no-such-host.invalid/db?sslmode=disable&connect_timeout=5", "check the host name"},
		{"wrong password", wrongPW.String(), "refused the login"},
		{"no database", noDB.String(), "createdb browserd_no_such_db"},
		{"no schema", withParam(t, base, "search_path", "browserd_no_such_schema"), "create the schema that search_path in --db names"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Open(ctx, tc.url, box)
			if err == nil {
				s.Close()
				t.Fatal("Open succeeded")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Open = %v; want it to say %q", err, tc.want)
			}
			if strings.Contains(err.Error(), pw) || (u.User != nil && strings.Contains(err.Error(), ":"+func() string { p, _ := u.User.Password(); return p }()+"@")) {
				t.Errorf("the error shows the password: %v", err)
			}
			t.Log(err)
		})
	}
	if _, err := Open(ctx, base, nil); err == nil {
		t.Error("Open without a box succeeded")
	}
}

// TestLeaseRaceTwoNodes: two stores (two nodes, two pools) race for the
// leases of the same 20 sessions; each ends held by exactly one, the one
// the store records.
func TestLeaseRaceTwoNodes(t *testing.T) {
	url := freshSchema(t)
	box := testBox(t, "secret.key")
	ctx := t.Context()
	nodes := map[string]*Store{"node-a": open(t, url, box), "node-b": open(t, url, box)}
	const sessions = 20
	for i := range sessions {
		if err := nodes["node-a"].CreateSession(ctx, store.Session{ID: fmt.Sprintf("s%02d", i), CreatedAt: t0}); err != nil {
			t.Fatal(err)
		}
	}
	for round := range 3 {
		now := t0.Add(time.Duration(round) * time.Hour) // every earlier lease expired
		var (
			wg  sync.WaitGroup
			mu  sync.Mutex
			won = map[string][]string{}
		)
		for node, st := range nodes {
			for i := range sessions {
				for range 2 { // two tries per node: renewing one's own lease counts once
					wg.Go(func() {
						id := fmt.Sprintf("s%02d", i)
						ok, err := st.AcquireLease(ctx, id, node, now, time.Minute)
						if err != nil {
							t.Errorf("AcquireLease(%s, %s): %v", id, node, err)
							return
						}
						if ok {
							mu.Lock()
							if !slices.Contains(won[id], node) {
								won[id] = append(won[id], node)
							}
							mu.Unlock()
						}
					})
				}
			}
		}
		wg.Wait()
		for i := range sessions {
			id := fmt.Sprintf("s%02d", i)
			if len(won[id]) != 1 {
				t.Errorf("round %d: session %s held by %v, want exactly one node", round, id, won[id])
				continue
			}
			var holder string
			if err := nodes["node-a"].pool.QueryRow(ctx, `SELECT node FROM leases WHERE session_id = $1`, id).Scan(&holder); err != nil || holder != won[id][0] {
				t.Errorf("round %d: session %s: the store says %q holds it (%v), the race said %s", round, id, holder, err, won[id][0])
			}
		}
	}
}

// TestRecoverTwoNodes: two nodes recover at once; every session left
// active is changed by exactly one of them, as the rule says.
func TestRecoverTwoNodes(t *testing.T) {
	url := freshSchema(t)
	box := testBox(t, "secret.key")
	ctx := t.Context()
	a, b := open(t, url, box), open(t, url, box)
	now := t0.Add(48 * time.Hour)
	const (
		maxAge   = 24 * time.Hour
		sessions = 20
	)
	for round := range 5 {
		want := map[string]store.SessionState{}
		for i := range sessions {
			id := fmt.Sprintf("r%d-s%02d", round, i)
			if err := a.CreateSession(ctx, store.Session{ID: id, CreatedAt: t0.Add(time.Duration(i) * time.Second)}); err != nil {
				t.Fatal(err)
			}
			switch i % 3 {
			case 0:
				want[id] = store.Closed
			case 1:
				want[id] = store.Stale
				if err := a.SaveCapture(ctx, storetest.Full(id, now.Add(-30*time.Hour)), 3); err != nil {
					t.Fatal(err)
				}
			case 2:
				want[id] = store.Recoverable
				if err := a.SaveCapture(ctx, storetest.Full(id, now.Add(-time.Hour)), 3); err != nil {
					t.Fatal(err)
				}
			}
		}
		// One session live on a third node: left alone by both.
		live := fmt.Sprintf("r%d-live", round)
		if err := a.CreateSession(ctx, store.Session{ID: live, CreatedAt: t0}); err != nil {
			t.Fatal(err)
		}
		if ok, err := a.AcquireLease(ctx, live, "node-c", now, time.Minute); err != nil || !ok {
			t.Fatalf("AcquireLease = %v, %v", ok, err)
		}
		var (
			wg      sync.WaitGroup
			start   = make(chan struct{})
			results [2][]store.Session
		)
		for i, st := range []*Store{a, b} {
			wg.Go(func() {
				<-start
				changed, err := st.Recover(ctx, fmt.Sprintf("node-%d", i), now, maxAge)
				if err != nil {
					t.Errorf("Recover on node %d: %v", i, err)
				}
				results[i] = changed
			})
		}
		time.Sleep(10 * time.Millisecond)
		close(start)
		wg.Wait()
		got := map[string]store.SessionState{}
		for _, r := range results {
			for _, s := range r {
				if _, dup := got[s.ID]; dup {
					t.Errorf("round %d: both nodes changed session %s", round, s.ID)
				}
				got[s.ID] = s.State
			}
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("round %d: sessions changed by the two nodes (-want +got):\n%s", round, d)
		}
		t.Logf("round %d: node 0 changed %d sessions, node 1 %d", round, len(results[0]), len(results[1]))
		if s, err := a.GetSession(ctx, live); err != nil || s.State != store.Active {
			t.Errorf("round %d: the live session: %+v, %v", round, s, err)
		}
	}
}

// TestRecoverSkipsLocked: a Recover that finds sessions another node's
// Recover holds (here: a transaction holding their rows) changes the
// others, without waiting; the held ones are left to their holder.
func TestRecoverSkipsLocked(t *testing.T) {
	url := freshSchema(t)
	box := testBox(t, "secret.key")
	ctx := t.Context()
	a := open(t, url, box)
	now := t0.Add(48 * time.Hour)
	for i := range 20 {
		id := fmt.Sprintf("s%02d", i)
		if err := a.CreateSession(ctx, store.Session{ID: id, CreatedAt: t0}); err != nil {
			t.Fatal(err)
		}
		if err := a.SaveCapture(ctx, storetest.Full(id, now.Add(-time.Hour)), 3); err != nil {
			t.Fatal(err)
		}
	}
	tx, err := a.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(context.Background())
	if _, err := tx.Exec(ctx, `SELECT 1 FROM sessions WHERE session_id < 's10' FOR UPDATE`); err != nil {
		t.Fatal(err)
	}
	b := open(t, url, box)
	rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	changed, err := b.Recover(rctx, "node-b", now, 24*time.Hour)
	if err != nil {
		t.Fatalf("Recover while another holds half the sessions: %v", err)
	}
	var ids []string
	for _, s := range changed {
		ids = append(ids, s.ID)
	}
	slices.Sort(ids)
	if len(ids) != 10 || ids[0] != "s10" || ids[9] != "s19" {
		t.Errorf("Recover changed %v, want s10…s19 (the sessions nobody held)", ids)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	changed, err = a.Recover(ctx, "node-a", now, 24*time.Hour)
	if err != nil || len(changed) != 10 {
		t.Errorf("Recover once released = %d sessions, %v; want the other 10", len(changed), err)
	}
}

// TestNoPlaintext: no cookie or storage value, and no URL (its query and
// fragment may hold a token), is in the database in the clear, while the
// other listing columns are.
func TestNoPlaintext(t *testing.T) {
	url := freshSchema(t)
	s := open(t, url, testBox(t, "secret.key"))
	ctx := t.Context()
	if err := s.CreateSession(ctx, store.Session{ID: "s", Owner: "alice"}); err != nil {
		t.Fatal(err)
	}
	c := storetest.Full("s", t0)
	secretValue := "cookie-value-that-must-not-leak-7c1d"
	c.Cookies = append(c.Cookies, storagestate.Cookie{Name: "auth", Value: secretValue, Domain: "example.com", Path: "/", Expires: -1})
	if err := s.SaveCapture(ctx, c, 2); err != nil {
		t.Fatal(err)
	}
	st := &storagestate.State{Cookies: []storagestate.Cookie{{Name: "sid", Value: secretValue, Domain: "example.com", Path: "/", Expires: -1}}}
	if err := s.SaveStored(ctx, store.StoredSession{ID: "ss", Owner: "alice", Name: "n", State: st}); err != nil {
		t.Fatal(err)
	}
	// A profile's login check: its text is often the account's name.
	loginText := "Logged in as Ada-8f3e"
	if err := s.SetProfileLoginCheck(ctx, "alice", "work", &store.LoginCheck{URL: "https://app.example.com/account", Text: loginText}); err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{secretValue, c.Cookies[0].Value, "eyJhbGciOi.x.y", c.UserAgent, c.Tabs[0].URL, "example.com/app", loginText} {
		var n int
		err := s.pool.QueryRow(ctx, `SELECT
	(SELECT count(*) FROM session_snapshots WHERE position(convert_to($1, 'UTF8') IN payload) > 0) +
	(SELECT count(*) FROM stored_sessions WHERE position(convert_to($1, 'UTF8') IN payload) > 0) +
	(SELECT count(*) FROM sessions s WHERE strpos(s::text, $1) > 0) +
	(SELECT count(*) FROM stored_sessions s WHERE strpos(s::text, $1) > 0) +
	(SELECT count(*) FROM profiles p WHERE position(convert_to($1, 'UTF8') IN p.login_check) > 0 OR strpos(p::text, $1) > 0)`, v).Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			t.Errorf("%q is in the database in the clear (%d rows)", v, n)
		}
	}
	var owner string
	if err := s.pool.QueryRow(ctx, `SELECT owner FROM sessions WHERE session_id = 's'`).Scan(&owner); err != nil || owner != "alice" {
		t.Errorf("the listing's owner = %q, %v; want alice in the clear", owner, err)
	}
	if got, err := s.GetSession(ctx, "s"); err != nil || got.URL != c.Tabs[0].URL {
		t.Errorf("the listing URL = %q, %v; want %q", got.URL, err, c.Tabs[0].URL)
	}
}

// TestSecretSealed: a secret's value is nowhere in its row in the clear
// (its name and owner are), and a sealed value moved to another owner's
// or name's row does not open (store.SecretLabel binds it).
func TestSecretSealed(t *testing.T) {
	s := open(t, freshSchema(t), testBox(t, "secret.key"))
	ctx := t.Context()
	const value = "secret-value-that-must-not-leak-41f9"
	for _, name := range []string{"GITHUB_PASSWORD", "OTHER"} {
		if err := s.SetSecret(ctx, store.Secret{Owner: "alice", Name: name, Value: value, Origins: []string{"https://github.com"}}); err != nil {
			t.Fatal(err)
		}
	}
	var clear, named int
	if err := s.pool.QueryRow(ctx, `SELECT
	(SELECT count(*) FROM secrets WHERE position(convert_to($1, 'UTF8') IN value) > 0) +
	(SELECT count(*) FROM secrets s WHERE strpos(s::text, $1) > 0)`, value).Scan(&clear); err != nil {
		t.Fatal(err)
	}
	if clear != 0 {
		t.Errorf("the secret's value is in the database in the clear (%d rows)", clear)
	}
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM secrets s WHERE strpos(s::text, 'GITHUB_PASSWORD') > 0 AND owner_id = 'alice'`).Scan(&named); err != nil || named != 1 {
		t.Errorf("rows naming the secret: %d, %v; want 1 — is the test reading the right table?", named, err)
	}
	if got, err := s.GetSecret(ctx, "alice", "GITHUB_PASSWORD"); err != nil || got.Value != value {
		t.Fatalf("GetSecret = %+v, %v", got, err)
	}
	if _, err := s.pool.Exec(ctx, `UPDATE secrets SET owner_id = 'bob' WHERE name = 'GITHUB_PASSWORD'`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetSecret(ctx, "bob", "GITHUB_PASSWORD"); !errors.Is(err, store.ErrCorrupt) {
		t.Errorf("a value moved to bob's row: %v, want ErrCorrupt", err)
	}
	if _, err := s.pool.Exec(ctx, `UPDATE secrets SET name = 'RENAMED' WHERE name = 'OTHER'`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetSecret(ctx, "alice", "RENAMED"); !errors.Is(err, store.ErrCorrupt) {
		t.Errorf("a value moved to another name: %v, want ErrCorrupt", err)
	}
}

// TestSealsOldURLs: a store of an earlier version kept the listing URL in
// the clear; opening it seals the URL, and the listing still shows it.
func TestSealsOldURLs(t *testing.T) {
	url := freshSchema(t)
	box := testBox(t, "secret.key")
	s := open(t, url, box)
	ctx := t.Context()
	if err := s.CreateSession(ctx, store.Session{ID: "s", Owner: "alice"}); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveCapture(ctx, storetest.Full("s", t0), 3); err != nil {
		t.Fatal(err)
	}
	// As an earlier version wrote it: the URL in column url, none sealed.
	const old = "https://example.com/reset?token=old-reset-token-5e2a#code=old-oauth-code-9f1b"
	if _, err := s.pool.Exec(ctx, `UPDATE sessions SET url = $1, url_sealed = NULL`, old); err != nil {
		t.Fatal(err)
	}
	s = open(t, url, box)
	if got, err := s.GetSession(ctx, "s"); err != nil || got.URL != old {
		t.Fatalf("after reopening: URL %q, %v; want %q", got.URL, err, old)
	}
	var n int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM sessions s WHERE strpos(s::text, 'old-reset-token-5e2a') > 0`).Scan(&n); err != nil || n != 0 {
		t.Errorf("sessions with the URL in the clear: %d, %v", n, err)
	}
}

func BenchmarkSaveCapture(b *testing.B) {
	s := open(b, freshSchema(b), testBox(b, "secret.key"))
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
	s := open(b, freshSchema(b), testBox(b, "secret.key"))
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
