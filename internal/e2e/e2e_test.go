//go:build linux

// Package e2e runs browserd end to end: real headless Chromium against the
// test site on 127.0.0.1, driven through the engine in process, through an
// MCP client (go-sdk) over stdio and streamable HTTP, and through the CLI.
package e2e

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"

	"github.com/browserd/browserd/internal/config"
	"github.com/browserd/browserd/internal/engine"
	"github.com/browserd/browserd/internal/testsite"
	"github.com/browserd/browserd/internal/tool"
)

var (
	site    *testsite.Site
	verbose = flag.Bool("e2e.verbose", false, "log every call and result")
)

func TestMain(m *testing.M) {
	flag.Parse()
	// Every answer patched from the page's journal of changes is checked
	// against a whole read, in this process and in the daemons it starts —
	// not while benchmarking, which measures the patch alone.
	if b := flag.Lookup("test.bench"); b == nil || b.Value.String() == "" {
		os.Setenv("BROWSERD_VERIFY_PATCH", "1")
	}
	site = testsite.Start()
	code := m.Run()
	site.Close()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

// engineDriver calls the engine in process.
type engineDriver struct {
	e    *engine.Engine
	data string
}

func (d *engineDriver) dataDir() string { return d.data }

func (d *engineDriver) do(t *testing.T, in tool.Input) tool.Result {
	r, err := d.e.Do(context.Background(), in)
	if err != nil {
		t.Fatalf("engine: %v", err)
	}
	if *verbose {
		fmt.Printf("--- %s %s → ok=%v err=%q\n%s\n", in.Action, brief(in), r.Success, r.Error, r.Content)
	}
	return r
}

func testConfig(t testing.TB) config.Config {
	cfg := config.Default()
	cfg.Data = t.TempDir()
	cfg.AllowHosts = []string{"127.0.0.1", "localhost"}
	if err := cfg.Resolve(); err != nil {
		t.Fatal(err)
	}
	return cfg
}

func TestEngine(t *testing.T) {
	before := goleak.IgnoreCurrent()
	cfg := testConfig(t)
	e, err := engine.New(cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	d := &engineDriver{e: e, data: cfg.Data}
	for _, s := range scenarios {
		t.Run(s.name, func(t *testing.T) { s.run(t, d, "eng-"+s.name) })
	}
	if err := e.Close(context.Background()); err != nil {
		t.Errorf("closing the engine: %v", err)
	}
	// Every goroutine the engine started (browser reader, page loops,
	// janitor) has an owner that stopped it.
	goleak.VerifyNone(t, before)
	waitNoChromium(t, cfg.Data)
}
