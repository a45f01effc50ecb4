//go:build linux

// Package e2e runs browserd end to end: real headless Chromium against the
// test site on 127.0.0.1, driven through the engine in process, through an
// MCP client (go-sdk) over stdio and streamable HTTP, and through the CLI.
package e2e

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"

	bcli "github.com/browserd/browserd/internal/cli"
	"github.com/browserd/browserd/internal/config"
	"github.com/browserd/browserd/internal/engine"
	"github.com/browserd/browserd/internal/testsite"
	"github.com/browserd/browserd/internal/tool"
	"github.com/browserd/browserd/internal/tool/tooltest"
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
	if b := flag.Lookup("test.bench"); (b == nil || b.Value.String() == "") && os.Getenv("BROWSERD_VERIFY_PATCH") == "" {
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
	cli  bool // check that each call's command line sends the call (sameThroughCLI)
}

func (d *engineDriver) dataDir() string { return d.data }

func (d *engineDriver) do(t *testing.T, in tool.Input) tool.Result {
	if d.cli {
		sameThroughCLI(t, in)
	}
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
	d := &engineDriver{e: e, data: cfg.Data, cli: true}
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

// sameThroughCLI checks that the command line a person would type for in
// (cliArgs) sends in itself: every scenario's every call goes through the
// CLI's parsing this way, while TestCLI runs the scenarios whose answers
// the CLI prints in its own ways (cliScenarios) as processes.
func sameThroughCLI(t *testing.T, in tool.Input) {
	t.Helper()
	args, err := cliArgs(in)
	if err != nil {
		return // no command line for it: the scenario expects the error
	}
	got, err := bcli.Input(args)
	if err != nil {
		if in.Validate() != nil {
			return // a call the scenario sends to see it refused
		}
		t.Errorf("browserd %s: %v", strings.Join(args, " "), err)
		return
	}
	want := in
	if want.Profile == "" {
		want.Profile = got.Profile
	}
	if want.Task == "" {
		want.Task = got.Task
	}
	if want.Action == "dialog" && want.Accept == nil {
		yes := true
		want.Accept = &yes // the tool's default, which `dialog accept` says
	}
	if !tooltest.Same(got, want) {
		gj, _ := json.Marshal(got)
		wj, _ := json.Marshal(want)
		t.Errorf("browserd %s sends\n%s\nnot\n%s", strings.Join(args, " "), gj, wj)
	}
}
