package backend

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/browserd/browserd/internal/sealkey"
	"github.com/browserd/browserd/internal/store/sqlite"
)

func TestOpen(t *testing.T) {
	dir := t.TempDir()
	box, err := sealkey.Load(filepath.Join(dir, "secret.key"))
	if err != nil {
		t.Fatal(err)
	}
	st, err := Open(t.Context(), filepath.Join(dir, "browserd.db"), box)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := st.(*sqlite.Store); !ok {
		t.Errorf("Open(a path) = %T, want *sqlite.Store", st)
	}
	st.Close()
	if n, err := SealedRows("postgres://u@127.0.0.1/db"); n != 0 || err != nil {
		t.Errorf("SealedRows(a URL) = %d, %v", n, err)
	}
	if _, err := os.Stat("postgres:"); err == nil {
		t.Fatal("a folder named postgres: exists here before the test")
	}
	// A URL goes to PostgreSQL, never to a SQLite file named after it.
	_, err = Open(context.Background(), "postgres://u@127.0.0.1:1/db?sslmode=disable&connect_timeout=2", box)
	if err == nil {
		t.Fatal("Open of a URL nothing listens at succeeded")
	}
	if !strings.HasPrefix(err.Error(), "postgres store: ") {
		t.Errorf("Open(a URL) = %v, want the PostgreSQL store's error", err)
	}
	if _, serr := os.Stat("postgres:"); serr == nil {
		os.RemoveAll("postgres:")
		t.Error("Open made a SQLite file for a PostgreSQL URL")
	}
}
