package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func resolved(t *testing.T, edit func(*Config)) Config {
	t.Helper()
	c := Default()
	c.Data = t.TempDir()
	edit(&c)
	if err := c.Resolve(); err != nil {
		t.Fatal(err)
	}
	return c
}

// A daemon that a command starts is always told where to listen: empty
// (socket only) unless the command was given an address, never serve's
// default by omission.
func TestDaemonArgsAlwaysCarryListen(t *testing.T) {
	for _, tc := range []struct {
		listen string
		want   []string
	}{
		{"", []string{"--listen", ""}},
		{"127.0.0.1:9999", []string{"--listen", "127.0.0.1:9999"}},
		{DefaultListen, []string{"--listen", DefaultListen}},
	} {
		c := resolved(t, func(c *Config) { c.Listen = tc.listen })
		args := c.DaemonArgs()
		i := slices.Index(args, "--listen")
		if i < 0 || i+1 >= len(args) || !slices.Equal(args[i:i+2], tc.want) {
			t.Errorf("listen %q: DaemonArgs %q, want %q in it", tc.listen, args, tc.want)
		}
	}
}

func TestDaemonArgs(t *testing.T) {
	c := resolved(t, func(c *Config) {
		c.Listen = ""
		c.AllowHosts = []string{"10.0.0.5", "localhost:3000"}
		c.Headed = true
		c.IdleTimeout = time.Minute
	})
	want := []string{"--data", c.Data, "--allow-host", "10.0.0.5", "--allow-host", "localhost:3000",
		"--listen", "", "--headed", "--idle-timeout", "1m0s"}
	if diff := cmp.Diff(want, c.DaemonArgs()); diff != "" {
		t.Errorf("DaemonArgs (-want +got):\n%s", diff)
	}
}

func TestMismatches(t *testing.T) {
	d := resolved(t, func(c *Config) {
		c.Listen = DefaultListen
		c.AllowHosts = []string{"10.0.0.5", "localhost"}
	})
	daemon := d.Settings()
	for _, tc := range []struct {
		name string
		edit func(*Config)
		want []Mismatch
	}{
		{"nothing given", func(c *Config) { c.Listen = "" }, nil},
		{"same, other order", func(c *Config) {
			c.Listen = DefaultListen
			c.AllowHosts = []string{"localhost", "10.0.0.5", "localhost"}
		}, nil},
		{"a subset still differs", func(c *Config) { c.Listen = ""; c.AllowHosts = []string{"localhost"} },
			[]Mismatch{{Flag: "allow-host", Want: []string{"localhost"}, Have: []string{"10.0.0.5", "localhost"}}}},
		{"another listen address", func(c *Config) { c.Listen = "127.0.0.1:9" },
			[]Mismatch{{Flag: "listen", Want: []string{"127.0.0.1:9"}, Have: []string{DefaultListen}}}},
		{"a switch and a default the daemon keeps", func(c *Config) {
			c.Listen = ""
			c.Headed = true
			c.NavTime = time.Minute
		}, []Mismatch{{Flag: "headed", Switch: true}, {Flag: "nav-timeout", Want: []string{"1m0s"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Default()
			c.Data = d.Data // path settings (upload-dir, db) derive from it
			tc.edit(&c)
			if err := c.Resolve(); err != nil {
				t.Fatal(err)
			}
			got := Mismatches(c.Settings(), daemon)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Mismatches (-want +got):\n%s", diff)
			}
		})
	}
}

// A PostgreSQL --db is passed on to a daemon a command starts as given,
// but reported by Settings with its password masked.
func TestDBURL(t *testing.T) {
	const db = "postgres://browserd:s3cret@db.example:5432/browserd?sslmode=require"
	c := resolved(t, func(c *Config) { c.DB = db })
	if args := c.DaemonArgs(); !slices.Contains(args, db) {
		t.Errorf("DaemonArgs %q: the --db URL is not passed on as given", args)
	}
	for _, s := range c.Settings() {
		if s.Flag == "db" && !slices.Equal(s.Values, []string{"postgres://browserd:xxxxx@db.example:5432/browserd?sslmode=require"}) {
			t.Errorf("Settings' db = %q, want the password masked", s.Values)
		}
	}
	// The same URL given to a command and the daemon is no mismatch.
	if m := Mismatches(c.Settings(), c.Settings()); len(m) != 0 {
		t.Errorf("Mismatches = %+v", m)
	}
	c = Default()
	c.Data = t.TempDir()
	c.DB = "postgres://u:pw@host:port/db"
	if err := c.Resolve(); err == nil || strings.Contains(err.Error(), "pw") {
		t.Errorf("Resolve with a URL that cannot be read = %v; want an error without the password", err)
	}
}

// --metrics-listen is checked, reported and passed on to a daemon a
// command starts.
func TestMetricsListen(t *testing.T) {
	c := resolved(t, func(c *Config) { c.Listen = ""; c.MetricsListen = "127.0.0.1:9465" })
	if args := c.DaemonArgs(); !slices.Contains(args, "--metrics-listen") || !slices.Contains(args, "127.0.0.1:9465") {
		t.Errorf("DaemonArgs %q lack --metrics-listen 127.0.0.1:9465", args)
	}
	if !slices.ContainsFunc(c.Settings(), func(s Setting) bool {
		return s.Flag == "metrics-listen" && slices.Equal(s.Values, []string{"127.0.0.1:9465"})
	}) {
		t.Errorf("Settings %+v lack metrics-listen", c.Settings())
	}
	for _, tc := range []struct{ listen, metrics, want string }{
		{"", "9465", "want HOST:PORT"},
		{DefaultListen, DefaultListen, "is also --listen"},
	} {
		c := Default()
		c.Data = t.TempDir()
		c.Listen, c.MetricsListen = tc.listen, tc.metrics
		if err := c.Resolve(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("--listen %q --metrics-listen %q: %v, want an error saying %q", tc.listen, tc.metrics, err, tc.want)
		}
	}
}

// The session-service token: read from its file, sent to named services
// only, never in Settings (nor in the arguments of a daemon a command
// starts).
func TestSessionServiceToken(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "tok")
	if err := os.WriteFile(file, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	const svc = "http://node2:8765/api/stored-sessions"
	c := resolved(t, func(c *Config) { c.SessionServiceTokenFile = file; c.SessionServiceURLs = []string{svc} })
	if c.SessionServiceToken != "s3cret" {
		t.Fatalf("token %q", c.SessionServiceToken)
	}
	if err := c.Resolve(); err != nil || c.SessionServiceToken != "s3cret" {
		t.Fatalf("second Resolve: %v, token %q", err, c.SessionServiceToken)
	}
	args := strings.Join(c.DaemonArgs(), " ")
	if strings.Contains(args, "s3cret") || !strings.Contains(args, "--session-service-token-file "+file) || !strings.Contains(args, "--session-service-url "+svc) {
		t.Errorf("DaemonArgs %q", args)
	}
	c = resolved(t, func(c *Config) { c.SessionServiceToken = "s3cret"; c.SessionServiceURLs = []string{svc} })
	for _, s := range c.Settings() {
		if slices.Contains(s.Values, "s3cret") || s.Flag == "session-service-token" {
			t.Errorf("Settings report the token: %+v", s)
		}
	}
	for _, tc := range []struct {
		edit func(*Config)
		want string
	}{
		{func(c *Config) { c.SessionServiceToken = "x" }, "needs --session-service-url"},
		{func(c *Config) { c.SessionServiceURLs = []string{"ftp://x/y"} }, "--session-service-url"},
		{func(c *Config) { c.SessionServiceURLs = []string{"http://u:pw@x/y"} }, "credentials"},
		{func(c *Config) {
			c.SessionServiceToken, c.SessionServiceTokenFile, c.SessionServiceURLs = "other", file, []string{svc}
		}, "not both"},
		{func(c *Config) { c.SessionServiceTokenFile = filepath.Join(dir, "missing") }, "--session-service-token-file"},
	} {
		c := Default()
		c.Data = t.TempDir()
		tc.edit(&c)
		if err := c.Resolve(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Resolve: %v, want %q", err, tc.want)
		} else if strings.Contains(err.Error(), "pw") {
			t.Errorf("Resolve shows the password: %v", err)
		}
	}
}

// TestPageMemory: --page-memory is 0 (Chromium's own limit) or at least
// 64 MB, and a daemon a command starts gets it.
func TestPageMemory(t *testing.T) {
	for mb, ok := range map[int]bool{0: true, 64: true, 512: true, 63: false, -1: false} {
		c := Default()
		c.Data = t.TempDir()
		c.PageMemoryMB = mb
		if err := c.Resolve(); (err == nil) != ok {
			t.Errorf("--page-memory %d: %v", mb, err)
		}
	}
	c := Default()
	c.PageMemoryMB = 512
	if args := strings.Join(c.DaemonArgs(), " "); !strings.Contains(args, "--page-memory 512") && !strings.Contains(args, "--page-memory=512") {
		t.Errorf("daemon args without --page-memory: %s", args)
	}
}
