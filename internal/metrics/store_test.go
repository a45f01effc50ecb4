package metrics_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/browserd/browserd/internal/auth"
	"github.com/browserd/browserd/internal/metrics"
	"github.com/browserd/browserd/internal/sealkey"
	"github.com/browserd/browserd/internal/store"
	"github.com/browserd/browserd/internal/store/sqlite"
	"github.com/browserd/browserd/internal/store/storetest"
)

// fakeStore fails every call with err.
type fakeStore struct {
	store.Nodes         // nil: the wrapper passes node calls through uncounted
	store.ProfileStates // and profile states
	err                 error
}

func (f *fakeStore) CreateSession(context.Context, store.Session) error { return f.err }
func (f *fakeStore) GetSession(context.Context, string) (store.Session, error) {
	return store.Session{}, f.err
}
func (f *fakeStore) ListSessions(context.Context, string, store.SessionState) ([]store.Session, error) {
	return nil, f.err
}
func (f *fakeStore) SetState(context.Context, string, store.SessionState, string) error { return f.err }
func (f *fakeStore) SaveCapture(context.Context, store.Capture, int) error              { return f.err }
func (f *fakeStore) LatestCapture(context.Context, string) (store.Capture, error) {
	return store.Capture{}, f.err
}
func (f *fakeStore) ListCaptures(context.Context, string) ([]store.CaptureInfo, error) {
	return nil, f.err
}
func (f *fakeStore) GetCapture(context.Context, string, int64) (store.Capture, error) {
	return store.Capture{}, f.err
}
func (f *fakeStore) Recover(context.Context, string, time.Time, time.Duration) ([]store.Session, error) {
	return nil, f.err
}
func (f *fakeStore) AcquireLease(context.Context, string, string, time.Time, time.Duration) (bool, error) {
	return false, f.err
}
func (f *fakeStore) ReleaseLease(context.Context, string, string) error    { return f.err }
func (f *fakeStore) Close() error                                          { return f.err }
func (f *fakeStore) SaveStored(context.Context, store.StoredSession) error { return f.err }
func (f *fakeStore) DeleteStored(context.Context, string, string) error    { return f.err }
func (f *fakeStore) ListStored(context.Context, string) ([]store.StoredSession, error) {
	return nil, f.err
}
func (f *fakeStore) GetStored(context.Context, string, string) (store.StoredSession, error) {
	return store.StoredSession{}, f.err
}

// fakeTokenStore also keeps tokens and secrets, failing with err.
type fakeTokenStore struct{ fakeStore }

func (f *fakeTokenStore) CreateToken(context.Context, auth.Token) error { return f.err }
func (f *fakeTokenStore) TokenByHash(context.Context, string) (auth.Token, error) {
	return auth.Token{}, f.err
}
func (f *fakeTokenStore) ListTokens(context.Context, string) ([]auth.Token, error) { return nil, f.err }
func (f *fakeTokenStore) RevokeToken(context.Context, string) error                { return f.err }

// Secrets too.
func (f *fakeTokenStore) SetSecret(context.Context, store.Secret) error { return f.err }
func (f *fakeTokenStore) GetSecret(context.Context, string, string) (store.Secret, error) {
	return store.Secret{}, f.err
}
func (f *fakeTokenStore) ListSecrets(context.Context, string) ([]store.Secret, error) {
	return nil, f.err
}
func (f *fakeTokenStore) DeleteSecret(context.Context, string, string) error { return f.err }

// callAll calls every method of st once; tokens and secrets too when it
// keeps them.
func callAll(st store.Store) {
	ctx := context.Background()
	now := time.Now()
	st.CreateSession(ctx, store.Session{})
	st.GetSession(ctx, "s")
	st.ListSessions(ctx, "", "")
	st.SetState(ctx, "s", store.Closed, "")
	st.SaveCapture(ctx, store.Capture{}, 1)
	st.LatestCapture(ctx, "s")
	st.ListCaptures(ctx, "s")
	st.GetCapture(ctx, "s", 1)
	st.Recover(ctx, "n", now, time.Hour)
	st.AcquireLease(ctx, "s", "n", now, time.Minute)
	st.ReleaseLease(ctx, "s", "n")
	st.SaveStored(ctx, store.StoredSession{})
	st.GetStored(ctx, "o", "id")
	st.ListStored(ctx, "o")
	st.DeleteStored(ctx, "o", "id")
	if ts, ok := st.(auth.Store); ok {
		ts.CreateToken(ctx, auth.Token{})
		ts.TokenByHash(ctx, "h")
		ts.ListTokens(ctx, "")
		ts.RevokeToken(ctx, "id")
	}
	if ss, ok := st.(store.Secrets); ok {
		ss.SetSecret(ctx, store.Secret{})
		ss.GetSecret(ctx, "o", "n")
		ss.ListSecrets(ctx, "o")
		ss.DeleteSecret(ctx, "o", "n")
	}
	st.Close()
}

var storeOps = []string{
	"create_session", "get_session", "list_sessions", "set_state",
	"save_capture", "latest_capture", "list_captures", "get_capture", "recover",
	"acquire_lease", "release_lease", "close",
	"save_stored", "get_stored", "list_stored", "delete_stored",
	"create_token", "token_by_hash", "list_tokens", "revoke_token",
	"set_secret", "get_secret", "list_secrets", "delete_secret",
}

func TestWrapStoreCountsFailures(t *testing.T) {
	s := metrics.New()
	failing := errors.New("disk I/O error")
	inner := &fakeTokenStore{fakeStore{err: failing}}
	st := s.WrapStore(inner)
	if _, ok := st.(auth.Store); !ok {
		t.Fatal("the wrapped store of a token store keeps no tokens")
	}
	if _, ok := st.(store.Secrets); !ok {
		t.Fatal("the wrapped store of a store keeping secrets keeps none")
	}
	callAll(st)
	callAll(st)
	body := scrape(t, s)
	for _, op := range storeOps {
		wantLines(t, body, fmt.Sprintf(`browserd_store_errors_total{op=%q} 2`, op))
	}
	// Errors pass through unchanged.
	if err := st.SetState(context.Background(), "s", store.Closed, ""); err != failing {
		t.Errorf("SetState = %v, want the store's own error", err)
	}
}

// Answers that are not failures are not counted.
func TestWrapStoreSkipsAnswers(t *testing.T) {
	for _, answer := range []error{
		nil,
		store.ErrNotFound,
		fmt.Errorf("session x: %w", store.ErrConflict),
		auth.ErrUnknown,
		context.Canceled,
	} {
		s := metrics.New()
		callAll(s.WrapStore(&fakeTokenStore{fakeStore{err: answer}}))
		body := scrape(t, s)
		for _, op := range storeOps {
			wantLines(t, body, fmt.Sprintf(`browserd_store_errors_total{op=%q} 0`, op))
		}
	}
	// A store without tokens or secrets stays without.
	if _, ok := metrics.New().WrapStore(&fakeStore{}).(auth.Store); ok {
		t.Error("the wrapped store of a store without tokens claims to keep them")
	}
	if _, ok := metrics.New().WrapStore(&fakeStore{}).(store.Secrets); ok {
		t.Error("the wrapped store of a store without secrets claims to keep them")
	}
}

// The wrapped store passes the store contract: it changes nothing but
// the count.
func TestWrapStoreContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store {
		dir := t.TempDir()
		box, err := sealkey.Load(filepath.Join(dir, "secret.key"))
		if err != nil {
			t.Fatal(err)
		}
		st, err := sqlite.Open(filepath.Join(dir, "browserd.db"), box)
		if err != nil {
			t.Fatal(err)
		}
		wrapped := metrics.New().WrapStore(st)
		t.Cleanup(func() { wrapped.Close() })
		return wrapped
	})
}
