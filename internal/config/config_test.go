package config

import (
	"slices"
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
