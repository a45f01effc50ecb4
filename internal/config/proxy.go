package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/browserd/browserd/internal/egress"
)

// The environment variables of the --proxy login: the login never comes
// from a command line, where every local user could read it.
const (
	ProxyUsernameEnv = "BROWSERD_PROXY_USERNAME"
	ProxyPasswordEnv = "BROWSERD_PROXY_PASSWORD"
)

// NoProxy is the --proxy value that turns the environment's proxy off.
const NoProxy = "none"

// proxyEnv are the environment variables whose proxy is the default of
// --proxy, in the order they are tried: browserd sends every request of
// a session through one proxy, and most are HTTPS.
var proxyEnv = []string{"HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy", "HTTP_PROXY", "http_proxy"}

// resolveProxy checks --proxy and --proxy-bypass and reads the --proxy
// login from its file or the environment. Calling it again is harmless.
func (c *Config) resolveProxy() error {
	if c.Proxy != "" && c.Proxy != NoProxy {
		u, err := egress.ParseUpstream(c.Proxy)
		if err != nil {
			return fmt.Errorf("--proxy: %v", err)
		}
		if u.HasLogin() {
			return fmt.Errorf("--proxy %s: a login in the URL would show in the process list; put USERNAME:PASSWORD in a file and give --proxy-login-file, or set %s and %s", u, ProxyUsernameEnv, ProxyPasswordEnv)
		}
		if c.CDP != "" {
			return fmt.Errorf("--proxy cannot apply to a browser browserd attaches to (--cdp): its requests do not go through browserd; start that browser with its own --proxy-server")
		}
	}
	for _, b := range c.ProxyBypass {
		if err := egress.CheckBypass(b); err != nil {
			return fmt.Errorf("--proxy-bypass: %v", err)
		}
	}
	user, pass := os.Getenv(ProxyUsernameEnv), os.Getenv(ProxyPasswordEnv)
	if f := c.ProxyLoginFile; f != "" {
		if user != "" || pass != "" {
			return fmt.Errorf("give the --proxy login in --proxy-login-file or in %s and %s, not both", ProxyUsernameEnv, ProxyPasswordEnv)
		}
		abs, err := filepath.Abs(f)
		if err != nil {
			return fmt.Errorf("--proxy-login-file %q: %w", f, err)
		}
		c.ProxyLoginFile = abs
		if user, pass, err = ReadLogin(abs); err != nil {
			return fmt.Errorf("--proxy-login-file: %w", err)
		}
	}
	if (user != "" || pass != "") && (c.Proxy == NoProxy || c.Proxy == "" && envProxy() == "") {
		return fmt.Errorf("a proxy login (--proxy-login-file, %s, %s) needs a proxy: give --proxy URL", ProxyUsernameEnv, ProxyPasswordEnv)
	}
	c.ProxyUsername, c.ProxyPassword = user, pass
	return nil
}

// Upstream is the upstream proxy pages' requests go through after the
// guard: --proxy with its login and --proxy-bypass; else the
// environment's HTTPS_PROXY, ALL_PROXY or HTTP_PROXY (a login in its URL
// taken, as is the custom there, else the file's or the environment's)
// with --proxy-bypass or else NO_PROXY; nil for none (--proxy
// none, or nothing set). from names where it came from, for messages.
// An attached browser (--cdp) never goes through browserd: the
// environment's proxy is not used then.
func (c *Config) Upstream() (u *egress.Upstream, from string, err error) {
	switch {
	case c.Proxy == NoProxy:
		return nil, "", nil
	case c.Proxy != "":
		up, err := egress.ParseUpstream(c.Proxy)
		if err != nil {
			return nil, "", fmt.Errorf("--proxy: %v", err)
		}
		up.Username, up.Password, up.Bypass = c.ProxyUsername, c.ProxyPassword, c.ProxyBypass
		if err := up.Validate(); err != nil {
			return nil, "", fmt.Errorf("--proxy %s: %v", up, err)
		}
		return &up, "--proxy", nil
	case c.CDP != "":
		return nil, "", nil
	}
	if name := envProxy(); name != "" {
		up, err := egress.ParseUpstream(os.Getenv(name))
		if err != nil {
			return nil, "", fmt.Errorf("the environment's %s: %v; correct it, or start browserd with --proxy URL (or --proxy none to go direct)", name, err)
		}
		if !up.HasLogin() {
			up.Username, up.Password = c.ProxyUsername, c.ProxyPassword
		}
		up.Bypass = c.ProxyBypass
		if len(up.Bypass) == 0 {
			up.Bypass = envBypass()
		}
		if err := up.Validate(); err != nil {
			return nil, "", fmt.Errorf("the environment's %s %s: %v; correct it, or start browserd with --proxy URL (or --proxy none to go direct)", name, up, err)
		}
		return &up, name, nil
	}
	return nil, "", nil
}

// envProxy is the first of proxyEnv that is set, "" if none is.
func envProxy() string {
	for _, name := range proxyEnv {
		if strings.TrimSpace(os.Getenv(name)) != "" {
			return name
		}
	}
	return ""
}

// envBypass is NO_PROXY (or no_proxy) as bypass entries; entries that do
// not read as one are left out, as other programs reading it do.
func envBypass() []string {
	raw := os.Getenv("NO_PROXY")
	if raw == "" {
		raw = os.Getenv("no_proxy")
	}
	var out []string
	for _, e := range egress.SplitBypass(raw) {
		if egress.CheckBypass(e) == nil {
			out = append(out, e)
		}
	}
	return out
}

// ReadLogin reads a login file: USERNAME:PASSWORD on its first line (the
// password may hold colons). Its errors never show what the file holds.
func ReadLogin(path string) (user, pass string, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", "", err
	}
	line, _, _ := strings.Cut(string(b), "\n")
	line = strings.TrimRight(line, "\r")
	user, pass, ok := strings.Cut(line, ":")
	if !ok || user == "" {
		return "", "", fmt.Errorf("%s: want USERNAME:PASSWORD on its first line", path)
	}
	return user, pass, nil
}
