package cli

import (
	"encoding/base64"
	"os"
	"strconv"
	"strings"

	"github.com/browserd/browserd/internal/config"
	"github.com/browserd/browserd/internal/tool"
)

type statusCmd struct{}

func (c *statusCmd) input() (tool.Input, error) { return tool.Input{Action: "status"}, nil }

// launchCmd starts the browser, and with the environment flags creates
// the session with them. --headed is the daemon's (every browser shows a
// window); --no-headless shows this session's only.
type launchCmd struct {
	Timeout     timeoutFlag `embed:""`
	Headless    *bool       `negatable:"" help:"--no-headless shows this session's browser in a window (needs a display); default: the daemon's --headed."`
	UserAgent   string      `name:"user-agent" placeholder:"UA" help:"User agent the session's pages send and see."`
	Timezone    string      `placeholder:"ZONE" help:"IANA time zone the session's pages see, e.g. Europe/Paris."`
	Locale      string      `placeholder:"TAG" help:"Language the session's pages see (Intl, navigator.language, Accept-Language), e.g. fr-FR."`
	Geolocation string      `placeholder:"LAT,LON[,ACC]" help:"Position navigator.geolocation reports: degrees, and the accuracy in metres."`
	Device      string      `placeholder:"NAME" help:"Emulate a device by Playwright's name (\"iPhone 15\", \"Pixel 7\", \"iPad Pro 11\"): its viewport, scale, touch and user agent."`
	media       `embed:""`
	// The session's upstream proxy (launch's proxy): not --proxy, which
	// is the daemon's for every session.
	Proxy          string `name:"session-proxy" placeholder:"URL" help:"This session's upstream proxy, which its requests go through once the guard allowed them: http://HOST:PORT, https://HOST:PORT or socks5://HOST:PORT (instead of the daemon's --proxy)."`
	ProxyLoginFile string `name:"session-proxy-login-file" placeholder:"PATH" help:"Read the --session-proxy login from this file: USERNAME:PASSWORD on one line (a password is never given on the command line)."`
	ProxyBypass    string `name:"session-proxy-bypass" placeholder:"HOSTS" help:"Hosts that go direct, not through --session-proxy (the guard still applies): HOST, .DOMAIN, *.DOMAIN, HOST:PORT, IP or CIDR, separated by commas."`
	// Client certificates, read from files; a PKCS#12 passphrase from
	// the environment, never the command line.
	ClientCert []string `name:"client-cert" sep:"none" placeholder:"ORIGIN=CERT,KEY[,CA]" help:"Present this client certificate to the https ORIGIN when it asks: PEM files of the certificate (chain), its key, and optionally the CA of the site's own certificate; repeatable. Kept with the profile."`
	ClientPFX  []string `name:"client-pfx" sep:"none" placeholder:"ORIGIN=FILE[,CA]" help:"Like --client-cert, from a PKCS#12 file; its passphrase from BROWSERD_CLIENT_PFX_PASSPHRASE."`
	// The login check (launch's loginCheck): the profile's (the folder's
	// session's with --user-data-dir).
	LoginCheckURL      string `name:"login-check-url" placeholder:"URL" help:"Check that the profile is still logged in: open this page — now, when its browser starts and when it is resumed — and look for --login-check-text or --login-check-selector."`
	LoginCheckText     string `name:"login-check-text" placeholder:"TEXT" help:"What the --login-check-url page shows only when logged in, e.g. the account's name (case and spacing aside)."`
	LoginCheckSelector string `name:"login-check-selector" placeholder:"CSS" help:"A CSS selector that matches an element of the --login-check-url page only when logged in (instead of --login-check-text)."`
	LoginCheckName     string `name:"login-check-name" placeholder:"NAME" help:"What to call the site in the check's answers (default: the URL's host)."`
	NoLoginCheck       bool   `name:"no-login-check" help:"Remove the profile's login check."`
}

func (c *launchCmd) input() (tool.Input, error) {
	in := tool.Input{Action: "launch", Timeout: c.Timeout.Timeout, Headless: c.Headless,
		UserAgent: c.UserAgent, Timezone: c.Timezone, Locale: c.Locale, Device: c.Device,
		ColorScheme: c.ColorScheme, ReducedMotion: c.ReducedMotion, ForcedColors: c.ForcedColors}
	if c.Geolocation != "" {
		g, err := parseGeolocation(c.Geolocation)
		if err != nil {
			return tool.Input{}, err
		}
		in.Geolocation = g
	}
	p, err := c.proxy()
	if err != nil {
		return tool.Input{}, err
	}
	in.Proxy = p
	if in.ClientCertificates, err = c.clientCerts(); err != nil {
		return tool.Input{}, err
	}
	lc, err := c.loginCheck()
	if err != nil {
		return tool.Input{}, err
	}
	in.LoginCheck = lc
	return in, nil
}

// clientCerts reads the --client-cert and --client-pfx files.
func (c *launchCmd) clientCerts() ([]tool.ClientCertificate, error) {
	var out []tool.ClientCertificate
	read := func(flag, path string) (string, error) {
		b, err := os.ReadFile(path)
		if err != nil {
			return "", usagef("%s: %v", flag, err)
		}
		return string(b), nil
	}
	for _, v := range c.ClientCert {
		origin, files, _ := strings.Cut(v, "=")
		f := strings.Split(files, ",")
		if origin == "" || len(f) < 2 || len(f) > 3 {
			return nil, usagef("--client-cert takes ORIGIN=CERT,KEY[,CA] (PEM files), e.g. https://intranet.example.com=me.crt,me.key — not %q", v)
		}
		cc := tool.ClientCertificate{Origin: origin}
		var err error
		if cc.Cert, err = read("--client-cert", f[0]); err != nil {
			return nil, err
		}
		if cc.Key, err = read("--client-cert", f[1]); err != nil {
			return nil, err
		}
		if len(f) == 3 {
			if cc.CA, err = read("--client-cert", f[2]); err != nil {
				return nil, err
			}
		}
		out = append(out, cc)
	}
	for _, v := range c.ClientPFX {
		origin, files, _ := strings.Cut(v, "=")
		f := strings.Split(files, ",")
		if origin == "" || len(f) < 1 || len(f) > 2 || f[0] == "" {
			return nil, usagef("--client-pfx takes ORIGIN=FILE[,CA], e.g. https://pay.example.com=me.p12 — not %q", v)
		}
		b, err := os.ReadFile(f[0])
		if err != nil {
			return nil, usagef("--client-pfx: %v", err)
		}
		cc := tool.ClientCertificate{Origin: origin, PFX: base64.StdEncoding.EncodeToString(b), Passphrase: os.Getenv("BROWSERD_CLIENT_PFX_PASSPHRASE")}
		if len(f) == 2 {
			if cc.CA, err = read("--client-pfx", f[1]); err != nil {
				return nil, err
			}
		}
		out = append(out, cc)
	}
	return out, nil
}

// loginCheck is the login check the flags give: {} with
// --no-login-check; nil when none is given.
func (c *launchCmd) loginCheck() (*tool.LoginCheck, error) {
	lc := &tool.LoginCheck{URL: c.LoginCheckURL, Text: c.LoginCheckText, Selector: c.LoginCheckSelector, Name: c.LoginCheckName}
	if c.NoLoginCheck {
		if *lc != (tool.LoginCheck{}) {
			return nil, usagef("--no-login-check removes the login check: give it without the other --login-check flags")
		}
		return lc, nil
	}
	if *lc == (tool.LoginCheck{}) {
		return nil, nil
	}
	if c.LoginCheckURL == "" {
		return nil, usagef("--login-check-text, --login-check-selector and --login-check-name go with --login-check-url URL: the page that shows whether the session is logged in")
	}
	return lc, nil // checked with the rest of the call (tool.CheckLoginCheck)
}

// proxy is the session's proxy the flags give, its login read from its
// file; nil when none is given.
func (c *launchCmd) proxy() (*tool.Proxy, error) {
	if c.Proxy == "" {
		if c.ProxyLoginFile != "" || c.ProxyBypass != "" {
			return nil, usagef("--session-proxy-login-file and --session-proxy-bypass go with --session-proxy URL: the session's proxy")
		}
		return nil, nil
	}
	p := &tool.Proxy{Server: c.Proxy, Bypass: c.ProxyBypass}
	if strings.Contains(c.Proxy, "@") {
		return nil, usagef("--session-proxy: give the login in --session-proxy-login-file, not in the URL, where every local user could read it")
	}
	if c.ProxyLoginFile != "" {
		u, pw, err := config.ReadLogin(c.ProxyLoginFile)
		if err != nil {
			return nil, usagef("--session-proxy-login-file: %v", err)
		}
		p.Username, p.Password = u, pw
	}
	return p, nil
}

// parseGeolocation reads LAT,LON[,ACC].
func parseGeolocation(s string) (*tool.Geolocation, error) {
	parts := strings.Split(s, ",")
	if len(parts) < 2 || len(parts) > 3 {
		return nil, usagef("--geolocation %q: want LAT,LON or LAT,LON,ACCURACY, e.g. 48.8566,2.3522", s)
	}
	var v [3]float64
	for i, p := range parts {
		f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil {
			return nil, usagef("--geolocation %q: %q is not a number; want LAT,LON[,ACCURACY] in degrees and metres", s, p)
		}
		v[i] = f
	}
	return &tool.Geolocation{Latitude: v[0], Longitude: v[1], Accuracy: v[2]}, nil
}

type closeCmd struct{}

func (c *closeCmd) input() (tool.Input, error) { return tool.Input{Action: "close"}, nil }

type taskEndCmd struct{}

func (c *taskEndCmd) input() (tool.Input, error) { return tool.Input{Action: "task_end"}, nil }
