package engine

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/browserd/browserd/internal/config"
	"github.com/browserd/browserd/internal/testsite"
	"github.com/browserd/browserd/internal/tool"
)

func TestSmoke(t *testing.T) {
	site := testsite.Start()
	defer site.Close()
	cfg := config.Default()
	cfg.Data = t.TempDir()
	cfg.AllowHosts = []string{"127.0.0.1", "localhost"}
	if err := cfg.Resolve(); err != nil {
		t.Fatal(err)
	}
	e, err := New(cfg, slog.New(slog.NewTextHandler(os.Stderr, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close(context.Background())
	ctx := context.Background()
	do := func(in tool.Input) tool.Result {
		t0 := time.Now()
		r, err := e.Do(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("=== %s %v ok=%v err=%s notes=%v (%s)\n%s\n", in.Action, in.URL+in.Ref, r.Success, r.Error, r.Notes, time.Since(t0), r.Content)
		return r
	}
	for _, p := range []string{"/form", "/frames", "/shadow", "/clickable"} {
		do(tool.Input{Action: "navigate", URL: site.URL(p)})
	}
	do(tool.Input{Action: "navigate", URL: site.URL("/console?n=20000"), Snapshot: new(bool)})
	r := do(tool.Input{Action: "console"})
	fmt.Println(len(r.Content))
}
