package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// clearProxyEnv empties every variable the proxy settings read, so that
// the machine's own do not leak into a test.
func clearProxyEnv(t *testing.T) {
	for _, k := range append(slices.Clone(proxyEnv), "NO_PROXY", "no_proxy", ProxyUsernameEnv, ProxyPasswordEnv) {
		t.Setenv(k, "")
	}
}

// TestProxy: --proxy with its login from a file or the environment,
// never from the URL on the command line; the environment's proxy and
// NO_PROXY as the default; the login in no setting.
func TestProxy(t *testing.T) {
	clearProxyEnv(t)
	dir := t.TempDir()
	login := filepath.Join(dir, "login")
	if err := os.WriteFile(login, []byte("ada:pa:ss\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c := resolved(t, func(c *Config) {
		c.Proxy, c.ProxyLoginFile, c.ProxyBypass = "proxy.corp:3128", login, []string{".corp.example", "10.0.0.0/8"}
	})
	u, from, err := c.Upstream()
	if err != nil || from != "--proxy" || u.String() != "http://proxy.corp:3128" || u.Username != "ada" || u.Password != "pa:ss" || len(u.Bypass) != 2 {
		t.Fatalf("Upstream() = %+v, %q, %v", u, from, err)
	}
	args := strings.Join(c.DaemonArgs(), " ")
	if strings.Contains(args, "pa:ss") || !strings.Contains(args, "--proxy proxy.corp:3128") || !strings.Contains(args, "--proxy-login-file "+login) {
		t.Errorf("DaemonArgs %q", args)
	}

	t.Setenv(ProxyUsernameEnv, "bob")
	t.Setenv(ProxyPasswordEnv, "env-pw")
	c = resolved(t, func(c *Config) { c.Proxy = "socks5://10.0.0.9" })
	if u, _, err := c.Upstream(); err != nil || u.Username != "bob" || u.Password != "env-pw" || u.String() != "socks5://10.0.0.9:1080" {
		t.Errorf("the login from the environment: %+v, %v", u, err)
	}
	for _, s := range c.Settings() {
		if slices.Contains(s.Values, "env-pw") {
			t.Errorf("Settings report the password: %+v", s)
		}
	}

	for _, tc := range []struct {
		edit func(*Config)
		want string
	}{
		{func(c *Config) { c.Proxy = "http://ann:hunter2@proxy:3128" }, "--proxy-login-file"},
		{func(c *Config) { c.Proxy = "ftp://proxy" }, "--proxy"},
		{func(c *Config) { c.Proxy = "proxy:3128"; c.ProxyLoginFile = login }, "not both"},
		{func(c *Config) { c.Proxy = "proxy:3128"; c.CDP = "ws://127.0.0.1:9222/x" }, "--cdp"},
		{func(c *Config) { c.ProxyBypass = []string{"http://x"} }, "--proxy-bypass"},
		{func(c *Config) { c.Proxy = NoProxy }, "needs a proxy"},
	} {
		c := Default()
		c.Data = t.TempDir()
		tc.edit(&c)
		if err := c.Resolve(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Resolve: %v, want %q", err, tc.want)
		} else if strings.Contains(err.Error(), "hunter2") {
			t.Errorf("Resolve shows the password: %v", err)
		}
	}

	// The environment's proxy, its login and NO_PROXY.
	clearProxyEnv(t)
	t.Setenv("https_proxy", "http://carl:url-pw@envproxy:8080")
	t.Setenv("HTTP_PROXY", "http://other:1")
	t.Setenv("NO_PROXY", "localhost,.internal.example, 10.0.0.0/8 ,bad entry/x")
	c = resolved(t, func(c *Config) {})
	u, from, err = c.Upstream()
	if err != nil || from != "https_proxy" || u.String() != "http://envproxy:8080" || u.Username != "carl" || u.Password != "url-pw" ||
		!slices.Equal(u.Bypass, []string{"localhost", ".internal.example", "10.0.0.0/8", "bad"}) {
		t.Errorf("the environment's proxy: %+v, %q, %v", u, from, err)
	}
	for _, s := range c.Settings() {
		if strings.HasPrefix(s.Flag, "proxy") {
			t.Errorf("Settings report the environment's proxy: %+v", s)
		}
	}
	if c := resolved(t, func(c *Config) { c.Proxy = NoProxy }); true {
		if u, _, err := c.Upstream(); u != nil || err != nil {
			t.Errorf("--proxy none: %+v, %v", u, err)
		}
	}
	if c := resolved(t, func(c *Config) { c.CDP = "ws://127.0.0.1:9222/x" }); true {
		if u, _, err := c.Upstream(); u != nil || err != nil {
			t.Errorf("the environment's proxy with --cdp: %+v, %v", u, err)
		}
	}
	t.Setenv("https_proxy", "socks4://x:1")
	c = resolved(t, func(c *Config) {})
	if _, _, err := c.Upstream(); err == nil || !strings.Contains(err.Error(), "https_proxy") || !strings.Contains(err.Error(), "--proxy none") {
		t.Errorf("an environment proxy browserd cannot use: %v", err)
	}
}
