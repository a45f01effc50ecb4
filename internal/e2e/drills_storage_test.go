//go:build linux

package e2e

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/browserd/browserd/internal/engine"
	"github.com/browserd/browserd/internal/tool"
)

// TestDrillStorageFailures: a garbage browserd.db, a missing secret.key
// and a full disk each give a clear error that says what to do, and
// nothing is lost silently (issue #13's drills).
func TestDrillStorageFailures(t *testing.T) {
	t.Run("garbage db", func(t *testing.T) {
		cfg := testConfig(t)
		garbage := bytes.Repeat([]byte("not a database, just garbage "), 200)
		db := cfg.Path("browserd.db")
		if err := os.WriteFile(db, garbage, 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := engine.New(cfg, slog.New(slog.DiscardHandler))
		if err == nil || !strings.Contains(err.Error(), "is not a SQLite database") || !strings.Contains(err.Error(), "move it aside") {
			t.Fatalf("a garbage store: %v", err)
		}
		if b, _ := os.ReadFile(db); !bytes.Equal(b, garbage) {
			t.Error("browserd changed the garbage store file; it must leave it as it is")
		}
	})

	t.Run("missing key", func(t *testing.T) {
		cfg := testConfig(t)
		e, err := engine.New(cfg, slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		r, err := e.Do(context.Background(), tool.Input{Action: "navigate", Session: "keep", URL: site.URL("/form")})
		if err != nil || !r.Success {
			t.Fatalf("navigate: %v %s", err, r.Error)
		}
		e.Close(context.Background()) // captures the session
		waitNoChromium(t, cfg.Data)
		keyFile := cfg.Path("secret.key")
		key, err := os.ReadFile(keyFile)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(keyFile); err != nil {
			t.Fatal(err)
		}
		_, err = engine.New(cfg, slog.New(slog.DiscardHandler))
		if err == nil || !strings.Contains(err.Error(), "is missing") || !strings.Contains(err.Error(), "put the key back") {
			t.Fatalf("a missing key over sealed captures: %v", err)
		}
		if _, err := os.Stat(keyFile); !errors.Is(err, os.ErrNotExist) {
			t.Fatal("browserd made a new key over data sealed with the old one")
		}
		// The key back: the session is there, recoverable.
		if err := os.WriteFile(keyFile, key, 0o600); err != nil {
			t.Fatal(err)
		}
		_, do := newEngine(t, cfg)
		if got := states(do(tool.Input{Action: "list_sessions", Filter: "all"})); got["keep"].State != "recoverable" {
			t.Fatalf("after the key came back, session keep is %+v", got["keep"])
		}
	})

	t.Run("full disk", func(t *testing.T) {
		tiny := filepath.Join(t.TempDir(), "tiny")
		if err := os.MkdirAll(tiny, 0o700); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", tiny).CombinedOutput(); err != nil {
			t.Skipf("cannot mount a small tmpfs to fill (needs root and CAP_SYS_ADMIN): %v %s", err, out)
		}
		t.Cleanup(func() { _ = syscall.Unmount(tiny, syscall.MNT_DETACH) })
		cfg := testConfig(t)
		cfg.DB = filepath.Join(tiny, "browserd.db")
		cfg.SnapshotInterval = 50 * time.Millisecond
		_, do := newEngine(t, cfg)
		const s = "full"
		if r := do(tool.Input{Action: "navigate", Session: s, URL: site.URL("/form")}); !r.Success {
			t.Fatal(r.Error)
		}
		// Fill the disk the store is on.
		filler := filepath.Join(tiny, "filler")
		f, err := os.Create(filler)
		if err != nil {
			t.Fatal(err)
		}
		chunk := make([]byte, 64<<10)
		for {
			if _, err := f.Write(chunk); err != nil {
				break
			}
		}
		f.Close()
		// The session changes; its capture cannot be written: the next
		// actions say so.
		if r := do(tool.Input{Action: "navigate", Session: s, URL: site.URL("/links")}); !r.Success {
			t.Fatalf("an action with the store's disk full: %s", r.Error)
		}
		said := func() string {
			r := do(tool.Input{Action: "tabs", Session: s})
			for _, n := range r.Notes {
				if strings.Contains(n, "could not save this session's state") {
					return n
				}
			}
			return ""
		}
		var note string
		for deadline := time.Now().Add(15 * time.Second); note == "" && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			note = said()
		}
		if note == "" || !strings.Contains(note, "full") || !strings.Contains(note, "free disk space") {
			t.Fatalf("a failing save was not told, or not clearly: %q", note)
		}
		t.Logf("told: %s", note)
		// Space again: the capture is retried and works; the note goes,
		// and the last capture is the new page.
		if err := os.Remove(filler); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(15 * time.Second); note != "" && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			note = said()
		}
		if note != "" {
			t.Fatalf("saves still fail with space free again: %s", note)
		}
		r := do(tool.Input{Action: "list_sessions", Filter: "all"})
		for _, si := range r.Sessions {
			if si.ID == s && !strings.Contains(si.URL, "/links") {
				t.Errorf("the last capture is not the page the session was on: %+v", si)
			}
		}
	})
}
