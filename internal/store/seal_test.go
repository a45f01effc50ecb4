package store_test

import (
	"bytes"
	"errors"
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

func testBox(t testing.TB) *sealkey.Box {
	t.Helper()
	box, err := sealkey.Load(t.TempDir() + "/secret.key")
	if err != nil {
		t.Fatal(err)
	}
	return box
}

func TestSealCapture(t *testing.T) {
	box := testBox(t)
	want := storetest.Full("s", t0)
	sc, err := store.SealCapture(box, want)
	if err != nil {
		t.Fatal(err)
	}
	if !sc.Taken.Equal(t0) || store.OpenURL(box, "s", sc.URL) != want.Tabs[0].URL {
		t.Fatalf("sealed capture: taken %v url %q", sc.Taken, store.OpenURL(box, "s", sc.URL))
	}
	if bytes.Contains(sc.URL, []byte(want.Tabs[0].URL)) {
		t.Errorf("the listing URL is kept in the clear: %q", sc.URL)
	}
	if got := store.OpenURL(box, "other", sc.URL); got != "" {
		t.Errorf("the listing URL sealed for session s opens as another's: %q", got)
	}
	got, err := store.OpenCapture(box, "s", sc.Taken, sc.Sealed)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got, cmpopts.EquateEmpty()); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	// Sealed for one session, it does not open as another's.
	if _, err := store.OpenCapture(box, "other", sc.Taken, sc.Sealed); !errors.Is(err, store.ErrCorrupt) {
		t.Errorf("another session's capture: %v, want ErrCorrupt", err)
	}
	for _, bad := range []string{"", "null", "{}", `{"v":2}`, `{"v":1} {}`, `{"v":1,"tabs":[{"width":-1}]}`, `{"v":1,"cookies":[{"expires":"x"}]}`, "\x00\x01", `[1,2]`} {
		if _, err := store.DecodeCapture([]byte(bad)); !errors.Is(err, store.ErrCorrupt) {
			t.Errorf("DecodeCapture(%q) = %v, want ErrCorrupt", bad, err)
		}
	}
}

func TestSealStored(t *testing.T) {
	box := testBox(t)
	c := storetest.Full("s", t0)
	ss := store.StoredSession{ID: "st1", Owner: "a", State: &storagestate.State{Cookies: c.Cookies, Origins: c.Origins}}
	sealed, err := store.SealStored(box, &ss)
	if err != nil {
		t.Fatal(err)
	}
	if ss.Created.IsZero() || ss.Cookies != len(ss.State.Cookies) {
		t.Fatalf("listing fields not filled: %+v", ss)
	}
	st, err := store.OpenStored(box, "st1", sealed)
	if err != nil || len(st.Cookies) != len(ss.State.Cookies) {
		t.Fatalf("OpenStored: %v %+v", err, st)
	}
	if _, err := store.OpenStored(box, "st2", sealed); !errors.Is(err, store.ErrCorrupt) {
		t.Errorf("another stored session's seal: %v, want ErrCorrupt", err)
	}
	if _, err := store.SealStored(box, &store.StoredSession{ID: "x"}); err == nil {
		t.Error("a stored session without a state was sealed")
	}
}

func FuzzDecodeCapture(f *testing.F) {
	full, err := store.EncodeCapture(storetest.Full("s", t0))
	if err != nil {
		f.Fatal(err)
	}
	empty, _ := store.EncodeCapture(store.Capture{})
	for _, seed := range [][]byte{full, empty, nil, []byte("null"), []byte("{}"), []byte(`{"v":1,"tabs":null}`),
		[]byte(`{"v":1,"tabs":[{"id":"a","width":1e400}]}`), []byte(`{"v":1,"origins":[{"localStorage":{}}]}`), full[:len(full)/2]} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := store.DecodeCapture(data)
		if err != nil {
			if !errors.Is(err, store.ErrCorrupt) {
				t.Fatalf("error %v is not ErrCorrupt", err)
			}
			return
		}
		// What decodes encodes again and reads back the same.
		again, err := store.EncodeCapture(c)
		if err != nil {
			t.Fatalf("re-encoding a decoded capture: %v", err)
		}
		c2, err := store.DecodeCapture(again)
		if err != nil {
			t.Fatalf("decoding a re-encoded capture: %v", err)
		}
		if d := cmp.Diff(c, c2, cmpopts.EquateEmpty()); d != "" {
			t.Fatalf("round trip (-first +second):\n%s", d)
		}
	})
}
