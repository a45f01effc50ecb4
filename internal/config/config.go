// Package config holds the daemon's settings: one struct whose kong tags give
// every setting its flag, its BROWSERD_* environment twin and its default, so
// that the CLI, the daemon and the tests read settings the same way.
package config

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/browserd/browserd/internal/computer"
	"github.com/browserd/browserd/internal/egress"
	"github.com/browserd/browserd/internal/policy"
	"github.com/browserd/browserd/internal/sessionservice"
	"github.com/browserd/browserd/internal/store"
	"github.com/browserd/browserd/internal/tool"
)

// Config is every daemon setting. The zero value is not usable; build one with
// Default or let kong fill it from flags and the environment.
type Config struct {
	Data          string   `name:"data" env:"BROWSERD_DATA" help:"Data directory (default: ~/.local/share/browserd or XDG_DATA_HOME/browserd; macOS ~/Library/Application Support/browserd; Windows %LocalAppData%\\browserd)." placeholder:"DIR"`
	Chromium      string   `name:"chromium" env:"BROWSERD_CHROMIUM" help:"Chromium binary (default Debian's /usr/lib/chromium/chromium, then /usr/bin/chromium, then chromium or google-chrome on PATH)." placeholder:"PATH"`
	HeadlessShell bool     `name:"headless-shell" env:"BROWSERD_HEADLESS_SHELL" help:"Run headless browsers on Chromium's headless shell when it is installed (Debian's chromium-headless-shell): about half the start time, with differences (docs/reference.md#which-chromium). Headed ones and a caller's --user-data-dir folder keep Chromium."`
	PageMemoryMB  int      `name:"page-memory" env:"BROWSERD_PAGE_MEMORY" help:"The most memory a page's scripts may hold, in MB (V8's heap: --js-flags=--max-old-space-size): a page that wants more crashes its tab, which the next action reloads, sooner and with less of the machine's memory; 0 keeps Chromium's own limit." placeholder:"MB"`
	AllowHosts    []string `name:"allow-host" env:"BROWSERD_ALLOW_HOSTS" sep:"," help:"Let pages reach this loopback/private HOST[:PORT] (repeatable)." placeholder:"HOST[:PORT]"`

	AllowPrivate         bool     `name:"allow-private" env:"BROWSERD_ALLOW_PRIVATE" help:"Let pages reach every private, loopback and link-local address (the guard stays on for --block-host and --only-hosts)."`
	BlockHosts           []string `name:"block-host" env:"BROWSERD_BLOCK_HOSTS" sep:"," help:"Never let pages reach HOST[:PORT] or *.DOMAIN (repeatable)." placeholder:"HOST"`
	OnlyHosts            []string `name:"only-hosts" env:"BROWSERD_ONLY_HOSTS" sep:"," help:"Allow-list mode: pages may reach only these HOST[:PORT] or *.DOMAIN entries." placeholder:"HOST"`
	DenyActions          []string `name:"deny-actions" env:"BROWSERD_DENY_ACTIONS" sep:"," help:"Remove these actions from the browser tool, e.g. evaluate,pdf." placeholder:"ACTION"`
	Policy               string   `name:"default-policy" env:"BROWSERD_DEFAULT_POLICY" help:"Default policy of what agents may do, for tokens without one and the Unix socket: a JSON object or a file, e.g. {\"deny\":[\"evaluate\"],\"confirm\":[\"upload\"],\"hosts\":[\"example.com\"]} (docs/security.md)." placeholder:"FILE|JSON"`
	ExcludeCookieDomains []string `name:"exclude-cookie-domains" env:"BROWSERD_EXCLUDE_COOKIE_DOMAINS" sep:"," help:"Never restore saved cookies of these domains (and their subdomains) into a profile." placeholder:"DOMAIN"`
	NoWrap               bool     `name:"no-wrap" env:"BROWSERD_NO_WRAP" help:"Do not wrap page content in the untrusted-content envelope (for trusted use only)."`
	Codegen              bool     `name:"codegen" env:"BROWSERD_CODEGEN" help:"Answer every action with the Playwright line that does the same (codegen: true asks for it per call)."`
	Record               string   `name:"record" env:"BROWSERD_RECORD" default:"on" enum:"on,off" help:"Record each task's actions with a small frame of the page after each (on), for the dashboard's timeline and GET /api/sessions/{id}/trace; off records nothing."`

	// Listen has no kong default: `browserd serve` listens on DefaultListen
	// unless --listen (or BROWSERD_LISTEN) is given, while a daemon that a
	// command starts serves its Unix socket only unless the command was
	// given --listen (see DaemonArgs), so that daemons of several data
	// directories never fight over one port.
	Listen      string        `name:"listen" env:"BROWSERD_LISTEN" help:"HTTP listen address for the API and MCP; empty: Unix socket only. Default: 127.0.0.1:8765 for serve, none for a daemon another command starts." placeholder:"ADDR"`
	Headed      bool          `name:"headed" env:"BROWSERD_HEADED" help:"Show the browser window."`
	CDP         string        `name:"cdp" env:"BROWSERD_CDP" help:"Attach to a running browser at this ws:// URL instead of launching one." placeholder:"WS_URL"`
	IdleTimeout time.Duration `name:"idle-timeout" env:"BROWSERD_IDLE_TIMEOUT" default:"5m" help:"Close idle tasks' pages, and the browser when nothing is left, after this long."`
	ReviewGrace time.Duration `name:"review-grace" env:"BROWSERD_REVIEW_GRACE" default:"1h" help:"Keep the tabs of a task that ended (task_end) open this long for a person to review, and the tabs a resume brought back that nobody uses; 0: until closed."`
	ActionTime  time.Duration `name:"action-timeout" env:"BROWSERD_ACTION_TIMEOUT" default:"10s" help:"Default timeout of an action."`
	NavTime     time.Duration `name:"nav-timeout" env:"BROWSERD_NAV_TIMEOUT" default:"30s" help:"Default timeout of a navigation."`
	Width       int           `name:"viewport-width" env:"BROWSERD_VIEWPORT_WIDTH" default:"1280" help:"Viewport width."`
	Height      int           `name:"viewport-height" env:"BROWSERD_VIEWPORT_HEIGHT" default:"720" help:"Viewport height."`
	// Display is the screen computer-use models are told (POST
	// /api/computer, the MCP computer tool); Computer offers that tool
	// over MCP (it is left out otherwise: the tools/list budget).
	Display   string `name:"display" env:"BROWSERD_DISPLAY" default:"1280x800" help:"The screen size computer-use models are told, WIDTHxHEIGHT: the computer tool (POST /api/computer, MCP with --computer) sets a session's viewport to it." placeholder:"WxH"`
	Computer  bool   `name:"computer" env:"BROWSERD_COMPUTER" help:"Offer the MCP computer tool (Anthropic's computer-use action shape) beside browser."`
	UploadDir string `name:"upload-dir" env:"BROWSERD_UPLOAD_DIR" help:"Folder uploads are taken from (default <data>/uploads)." placeholder:"DIR"`
	// UserDataRoots are the folders in which admin may name a Chromium
	// user-data-dir to run a session on (userDataDir, --user-data-dir,
	// AGENT_BROWSER_PROFILE); another owner's is <data>/owners/NAME/folders.
	UserDataRoots []string `name:"user-data-root" env:"BROWSERD_USER_DATA_ROOTS" sep:"," help:"Folder inside which callers may name a Chromium user-data-dir to run a session on (userDataDir, --user-data-dir, AGENT_BROWSER_PROFILE); repeatable (default <data>/folders)." placeholder:"DIR"`
	LogLevel      string   `name:"log-level" env:"BROWSERD_LOG_LEVEL" default:"info" enum:"debug,info,warn,error" help:"Log level."`

	DB               string        `name:"db" env:"BROWSERD_DB" help:"The store: a SQLite file (default <data>/browserd.db), or a postgres:// URL of a PostgreSQL database that several daemons share (give them all one --secret-key-file; the password is best in PGPASSWORD or ~/.pgpass)." placeholder:"PATH|URL"`
	SecretKeyFile    string        `name:"secret-key-file" env:"BROWSERD_SECRET_KEY_FILE" help:"AES-256 key that encrypts captures and saved states (default <data>/secret.key, made on first start); every daemon sharing a store needs the same one." placeholder:"PATH"`
	SnapshotInterval time.Duration `name:"snapshot-interval" env:"BROWSERD_SNAPSHOT_INTERVAL" default:"1s" help:"Capture a session's state within this long of a change (an action, or cookies and storage its pages change on their own), coalescing the changes meanwhile (0: after every action; 30s is the seed's)."`
	MaxSessionAge    time.Duration `name:"max-session-age" env:"BROWSERD_MAX_SESSION_AGE" default:"24h" help:"At start-up, a session left active whose last capture is older than this becomes stale instead of recoverable."`
	AutoRehydrate    bool          `name:"auto-rehydrate" env:"BROWSERD_AUTO_REHYDRATE" help:"At start-up, bring back every recoverable session without waiting for session_resume."`
	// Warm starts the default profile's browser with the daemon, for the
	// client that started it (browserd mcp): not a setting a running
	// daemon is compared on (see DaemonArgs).
	Warm                bool `name:"warm" env:"BROWSERD_WARM" help:"Start the default profile's browser as the daemon starts, before the first call needs it (browserd mcp asks for it when it starts a daemon); closed after --idle-timeout unused."`
	MaxSessionSnapshots int  `name:"max-session-snapshots" env:"BROWSERD_MAX_SESSION_SNAPSHOTS" default:"10" help:"Captures kept per session."`
	NoCapture           bool `name:"no-capture" env:"BROWSERD_NO_CAPTURE" help:"Take no state captures: sessions cannot be recovered after a restart or crash."`

	// Several nodes on one store (docs/cluster.md).
	NodeID       string        `name:"node-id" env:"BROWSERD_NODE_ID" help:"This daemon's name among the nodes sharing a store (default: the host name and a suffix kept in <data>/node-id)." placeholder:"NAME"`
	AdvertiseURL string        `name:"advertise-url" env:"BROWSERD_ADVERTISE_URL" help:"The URL other nodes reach this daemon's API at, e.g. http://10.0.0.5:8765 (default: http://<--listen>, or the host name's when --listen is a wildcard address)." placeholder:"URL"`
	LeaseTTL     time.Duration `name:"lease-ttl" env:"BROWSERD_LEASE_TTL" default:"15s" help:"How long a node's hold on its sessions outlives its last heartbeat: another node takes a dead node's sessions over after this long."`

	// An upstream proxy for pages' requests, after the guard
	// (internal/egress): the daemon's --proxy, or the environment's
	// HTTPS_PROXY, ALL_PROXY or HTTP_PROXY. Its login never comes from a
	// command line: --proxy-login-file, or the environment
	// (ProxyEnvUsername, ProxyEnvPassword), read by Resolve.
	Proxy          string   `name:"proxy" env:"BROWSERD_PROXY" help:"Send pages' requests through this upstream proxy once the guard allowed them: http://HOST:PORT, https://HOST:PORT or socks5://HOST:PORT; none to go direct (default: HTTPS_PROXY, ALL_PROXY or HTTP_PROXY from the environment). No login in the URL: see --proxy-login-file." placeholder:"URL"`
	ProxyLoginFile string   `name:"proxy-login-file" env:"BROWSERD_PROXY_LOGIN_FILE" help:"Read the --proxy login from this file, USERNAME:PASSWORD on one line (or set BROWSERD_PROXY_USERNAME and BROWSERD_PROXY_PASSWORD)." placeholder:"PATH"`
	ProxyBypass    []string `name:"proxy-bypass" env:"BROWSERD_PROXY_BYPASS" sep:"," help:"Hosts that go direct, not through --proxy (the guard still applies): HOST, .DOMAIN, *.DOMAIN, HOST:PORT, IP, CIDR, <local> or * (default with a proxy from the environment: NO_PROXY); loopback always goes direct." placeholder:"HOST"`
	// ProxyUsername and ProxyPassword are the --proxy login, read by
	// Resolve from --proxy-login-file or the environment; never flags.
	ProxyUsername string `kong:"-"`
	ProxyPassword string `kong:"-"`

	NotifyURL string `name:"notify-url" env:"BROWSERD_NOTIFY_URL" help:"POST a JSON note here when an agent asks a person for help (handoff), with the tab's live-view URL." placeholder:"URL"`

	// MetricsListen serves /metrics alone, without a token, for a
	// Prometheus scraper; /metrics on Listen and the socket needs admin.
	MetricsListen string `name:"metrics-listen" env:"BROWSERD_METRICS_LISTEN" help:"Also serve Prometheus metrics at /metrics on this HOST:PORT, without a token (for a scraper on a private network); /metrics on --listen needs admin's token." placeholder:"ADDR"`

	// Remote stored sessions (POST /api/sessions with sessionServiceUrl,
	// internal/sessionservice): the token this daemon sends to the session
	// services of SessionServiceURLs, and only to them, when a request
	// gives none. The token is never logged nor reported by Settings, so
	// it is not passed on to a daemon a command starts: give it in the
	// environment or a file.
	SessionServiceToken     string   `name:"session-service-token" env:"BROWSERD_SESSION_SERVICE_TOKEN" help:"Bearer token for the session services of --session-service-url (another browserd's stored sessions, fetched for sessionServiceUrl), used when a request gives none; prefer the environment or --session-service-token-file to a flag." placeholder:"TOKEN"`
	SessionServiceTokenFile string   `name:"session-service-token-file" env:"BROWSERD_SESSION_SERVICE_TOKEN_FILE" help:"Read --session-service-token from this file." placeholder:"PATH"`
	SessionServiceURLs      []string `name:"session-service-url" env:"BROWSERD_SESSION_SERVICE_URLS" sep:"," help:"A session service that --session-service-token is sent to: another browserd's http(s)://HOST:PORT/api/stored-sessions (repeatable); the token goes nowhere else." placeholder:"URL"`

	// defaultPolicy is --default-policy with --deny-actions folded in (Resolve).
	defaultPolicy *policy.Policy
}

// DefaultListen is the TCP address `browserd serve` listens on when no
// --listen is given.
const DefaultListen = "127.0.0.1:8765"

// Default returns the settings `browserd serve` has when nothing is given.
func Default() Config {
	return Config{
		Listen:      DefaultListen,
		IdleTimeout: 5 * time.Minute,
		ReviewGrace: time.Hour,
		Record:      "on",
		ActionTime:  10 * time.Second,
		NavTime:     30 * time.Second,
		Width:       1280,
		Height:      720,
		Display:     "1280x800",
		LogLevel:    "info",

		SnapshotInterval:    time.Second,
		LeaseTTL:            15 * time.Second,
		MaxSessionAge:       24 * time.Hour,
		MaxSessionSnapshots: 10,
	}
}

// Resolve fills the derived defaults (data dir, upload dir) and checks the
// values, naming the flag to fix.
func (c *Config) Resolve() error {
	if c.NotifyURL != "" {
		if u, err := url.Parse(c.NotifyURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("--notify-url %q: want an http:// or https:// URL", c.NotifyURL)
		}
	}
	if err := c.resolveData(); err != nil {
		return err
	}
	if err := c.resolvePaths(); err != nil {
		return err
	}
	if err := c.checkLimits(); err != nil {
		return err
	}
	if err := c.resolvePolicy(); err != nil {
		return err
	}
	if err := c.checkMetricsListen(); err != nil {
		return err
	}
	if err := c.resolveCluster(); err != nil {
		return err
	}
	if err := c.resolveSessionService(); err != nil {
		return err
	}
	if c.CDP != "" && !strings.HasPrefix(c.CDP, "ws://") && !strings.HasPrefix(c.CDP, "wss://") {
		return fmt.Errorf("--cdp %q: want a ws:// URL such as ws://127.0.0.1:9222/devtools/browser/<id>", c.CDP)
	}
	return c.resolveProxy()
}

// resolveData makes the data directory absolute, defaulting it to
// DefaultData's.
func (c *Config) resolveData() error {
	if c.Data == "" {
		home, _ := os.UserHomeDir()
		d, err := DefaultData(runtime.GOOS, os.Getenv, home)
		if err != nil {
			return err
		}
		c.Data = d
	}
	abs, err := filepath.Abs(c.Data)
	if err != nil {
		return fmt.Errorf("--data %q: %w", c.Data, err)
	}
	c.Data = abs
	return nil
}

// DefaultData is the data directory where goos keeps an application's
// data: on Linux XDG_DATA_HOME/browserd, else ~/.local/share/browserd; on
// macOS ~/Library/Application Support/browserd; on Windows
// %LocalAppData%\browserd. getenv reads the environment; home is the
// user's home folder, "" when unknown.
func DefaultData(goos string, getenv func(string) string, home string) (string, error) {
	noHome := errors.New("no --data given and no home directory to default to: give --data DIR")
	switch goos {
	case "windows":
		if d := getenv("LocalAppData"); d != "" {
			return d + `\browserd`, nil
		}
		if home == "" {
			return "", noHome
		}
		return home + `\AppData\Local\browserd`, nil
	case "darwin":
		if home == "" {
			return "", noHome
		}
		return home + "/Library/Application Support/browserd", nil
	default:
		if d := getenv("XDG_DATA_HOME"); d != "" {
			return d + "/browserd", nil
		}
		if home == "" {
			return "", noHome
		}
		return home + "/.local/share/browserd", nil
	}
}

// resolvePaths fills the paths that default to a place in the data
// directory — uploads, user-data roots, the store, the secret key — and
// checks the ones given: user-data roots are absolute folders short of the
// whole file system, a PostgreSQL URL reads as one.
func (c *Config) resolvePaths() error {
	if c.UploadDir == "" {
		c.UploadDir = filepath.Join(c.Data, "uploads")
	}
	if len(c.UserDataRoots) == 0 {
		c.UserDataRoots = []string{filepath.Join(c.Data, "folders")}
	}
	for i, r := range c.UserDataRoots {
		abs, err := filepath.Abs(r)
		if err != nil || r == "" {
			return fmt.Errorf("--user-data-root %q: want a folder", r)
		}
		if abs == "/" {
			return fmt.Errorf("--user-data-root /: name a folder that holds user-data-dirs, not the whole file system")
		}
		c.UserDataRoots[i] = abs
	}
	if c.DB == "" {
		c.DB = filepath.Join(c.Data, "browserd.db")
	}
	if store.IsPostgresURL(c.DB) {
		if _, err := url.Parse(c.DB); err != nil {
			return fmt.Errorf("--db: cannot read the PostgreSQL URL %s; want postgres://USER@HOST[:PORT]/DATABASE[?sslmode=…]", store.RedactURL(c.DB))
		}
	}
	if c.SecretKeyFile == "" {
		c.SecretKeyFile = filepath.Join(c.Data, "secret.key")
	}
	return nil
}

// checkLimits checks the numbers (capture interval and keeping, viewport,
// timeouts) and that every action --deny-actions names is one.
func (c *Config) checkLimits() error {
	if c.SnapshotInterval < 0 {
		return fmt.Errorf("--snapshot-interval must not be negative (0 captures after every state-changing action; --no-capture turns captures off)")
	}
	if c.MaxSessionAge <= 0 {
		return fmt.Errorf("--max-session-age must be positive, e.g. 24h")
	}
	if c.MaxSessionSnapshots < 1 {
		return fmt.Errorf("--max-session-snapshots must be at least 1, got %d", c.MaxSessionSnapshots)
	}
	if c.PageMemoryMB != 0 && c.PageMemoryMB < 64 {
		return fmt.Errorf("--page-memory %d: give at least 64 (MB), or 0 for Chromium's own limit", c.PageMemoryMB)
	}
	if c.Width <= 0 || c.Height <= 0 {
		return fmt.Errorf("--viewport-width and --viewport-height must be positive, got %dx%d", c.Width, c.Height)
	}
	if _, err := computer.ParseDisplay(c.Display); err != nil {
		return fmt.Errorf("--display: %w", err)
	}
	if c.ActionTime <= 0 || c.NavTime <= 0 {
		return fmt.Errorf("--action-timeout and --nav-timeout must be positive")
	}
	for _, a := range c.DenyActions {
		if !slices.Contains(tool.Actions, a) {
			return fmt.Errorf("--deny-actions %q: not an action; actions are %s", a, strings.Join(tool.Actions, ", "))
		}
	}
	return nil
}

// checkMetricsListen checks that --metrics-listen, when given, is a
// HOST:PORT of its own: it serves the metrics without a token, so it must
// not be the API's address.
func (c *Config) checkMetricsListen() error {
	if c.MetricsListen == "" {
		return nil
	}
	if _, _, err := net.SplitHostPort(c.MetricsListen); err != nil {
		return fmt.Errorf("--metrics-listen %q: want HOST:PORT, e.g. 10.0.0.5:9465 (an address only the scraper can reach: it needs no token)", c.MetricsListen)
	}
	if c.MetricsListen == c.Listen {
		return fmt.Errorf("--metrics-listen %s is also --listen: give the metrics an address of their own, or drop --metrics-listen and scrape /metrics on --listen with admin's token", c.MetricsListen)
	}
	return nil
}

// resolveCluster fills and checks the settings of several nodes on one
// store (docs/cluster.md): the lease TTL, the node id and the URL other
// nodes reach this one at, without a trailing slash.
func (c *Config) resolveCluster() error {
	if c.LeaseTTL == 0 {
		c.LeaseTTL = Default().LeaseTTL
	}
	if c.LeaseTTL < 3*time.Second {
		return fmt.Errorf("--lease-ttl %s is too short: nodes heartbeat every third of it, so give at least 3s (default 15s)", c.LeaseTTL)
	}
	if c.NodeID != "" {
		if err := checkNodeID(c.NodeID); err != nil {
			return err
		}
	}
	if c.AdvertiseURL != "" {
		u, err := url.Parse(c.AdvertiseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.User != nil {
			return fmt.Errorf("--advertise-url %q: want the base URL other nodes reach this daemon at, e.g. http://10.0.0.5:8765", c.AdvertiseURL)
		}
		c.AdvertiseURL = strings.TrimSuffix(c.AdvertiseURL, "/")
	}
	return nil
}

// resolveSessionService reads the session-service token from its file and
// checks that it goes to named services only. Calling it again is harmless.
func (c *Config) resolveSessionService() error {
	for _, s := range c.SessionServiceURLs {
		if _, err := sessionservice.ParseBase(s); err != nil {
			return fmt.Errorf("--session-service-url: %w", err)
		}
	}
	if f := c.SessionServiceTokenFile; f != "" {
		abs, err := filepath.Abs(f)
		if err != nil {
			return fmt.Errorf("--session-service-token-file %q: %w", f, err)
		}
		c.SessionServiceTokenFile = abs
		b, err := os.ReadFile(abs)
		if err != nil {
			return fmt.Errorf("--session-service-token-file: %w", err)
		}
		tok := strings.TrimSpace(string(b))
		if tok == "" {
			return fmt.Errorf("--session-service-token-file %s is empty: put the session service's token in it", abs)
		}
		if c.SessionServiceToken != "" && c.SessionServiceToken != tok {
			return fmt.Errorf("give --session-service-token or --session-service-token-file, not both")
		}
		c.SessionServiceToken = tok
	}
	if c.SessionServiceToken != "" && len(c.SessionServiceURLs) == 0 {
		return fmt.Errorf("--session-service-token needs --session-service-url URL: the session service (another browserd's http(s)://HOST:PORT/api/stored-sessions) it is for; it is sent nowhere else")
	}
	return nil
}

// SessionService is the fetcher of remote stored sessions (sessionServiceUrl)
// that these settings give: it dials only what the egress guard's lists
// allow pages to reach, and sends the session-service token to the
// services of --session-service-url only.
func (c *Config) SessionService() *sessionservice.Fetcher {
	return &sessionservice.Fetcher{
		Policy:   egress.Policy{AllowHosts: c.AllowHosts, AllowPrivate: c.AllowPrivate, BlockHosts: c.BlockHosts, OnlyHosts: c.OnlyHosts},
		Token:    c.SessionServiceToken,
		TokenFor: c.SessionServiceURLs,
	}
}

// Path returns a path inside the data directory.
func (c *Config) Path(elem ...string) string {
	return filepath.Join(append([]string{c.Data}, elem...)...)
}

// SocketPath is the daemon's Unix socket.
func (c *Config) SocketPath() string { return c.Path("browserd.sock") }

// Setting is one daemon setting as its flag (without the dashes) and its
// values: none for a switch such as headed, one per occurrence for a
// repeatable flag such as allow-host.
type Setting struct {
	Flag   string   `json:"flag"`
	Values []string `json:"values,omitempty"`
}

// Settings lists the settings that differ from the defaults, in a fixed
// order, plus listen always: a daemon that a command starts does not listen
// on TCP unless told to, so its listen address is never implied. The data
// directory is not a setting here; DaemonArgs adds it. A password in a
// PostgreSQL --db URL is masked.
func (c *Config) Settings() []Setting { return c.settings(true) }

func (c *Config) settings(redact bool) []Setting {
	d := Default()
	db := c.DB
	if redact && store.IsPostgresURL(db) {
		db = store.RedactURL(db)
	}
	var out []Setting
	add := func(cond bool, flag string, vals ...string) {
		if cond {
			out = append(out, Setting{Flag: flag, Values: vals})
		}
	}
	add(c.Chromium != "", "chromium", c.Chromium)
	add(c.HeadlessShell, "headless-shell")
	add(c.PageMemoryMB != 0, "page-memory", strconv.Itoa(c.PageMemoryMB))
	add(len(c.AllowHosts) > 0, "allow-host", c.AllowHosts...)
	add(len(c.BlockHosts) > 0, "block-host", c.BlockHosts...)
	add(len(c.OnlyHosts) > 0, "only-hosts", c.OnlyHosts...)
	add(len(c.DenyActions) > 0, "deny-actions", c.DenyActions...)
	add(c.Policy != "", "default-policy", c.Policy)
	add(len(c.ExcludeCookieDomains) > 0, "exclude-cookie-domains", c.ExcludeCookieDomains...)
	add(c.AllowPrivate, "allow-private")
	add(c.NoWrap, "no-wrap")
	add(c.Record == "off", "record", c.Record)
	add(c.Codegen, "codegen")
	add(true, "listen", c.Listen)
	add(c.MetricsListen != "", "metrics-listen", c.MetricsListen)
	add(c.Headed, "headed")
	add(c.CDP != "", "cdp", c.CDP)
	add(c.IdleTimeout != d.IdleTimeout, "idle-timeout", c.IdleTimeout.String())
	add(c.ReviewGrace != d.ReviewGrace, "review-grace", c.ReviewGrace.String())
	add(c.ActionTime != d.ActionTime, "action-timeout", c.ActionTime.String())
	add(c.NavTime != d.NavTime, "nav-timeout", c.NavTime.String())
	add(c.Width != d.Width, "viewport-width", fmt.Sprint(c.Width))
	add(c.Height != d.Height, "viewport-height", fmt.Sprint(c.Height))
	add(c.Display != "" && c.Display != d.Display, "display", c.Display)
	add(c.Computer, "computer")
	add(c.UploadDir != "" && c.UploadDir != c.Path("uploads"), "upload-dir", c.UploadDir)
	add(len(c.UserDataRoots) > 0 && !slices.Equal(c.UserDataRoots, []string{c.Path("folders")}), "user-data-root", c.UserDataRoots...)
	add(c.LogLevel != "" && c.LogLevel != d.LogLevel, "log-level", c.LogLevel)
	add(c.DB != "" && c.DB != c.Path("browserd.db"), "db", db)
	add(c.SecretKeyFile != "" && c.SecretKeyFile != c.Path("secret.key"), "secret-key-file", c.SecretKeyFile)
	add(c.SnapshotInterval != d.SnapshotInterval, "snapshot-interval", c.SnapshotInterval.String())
	add(c.MaxSessionAge != d.MaxSessionAge, "max-session-age", c.MaxSessionAge.String())
	add(c.AutoRehydrate, "auto-rehydrate")
	add(c.MaxSessionSnapshots != d.MaxSessionSnapshots, "max-session-snapshots", fmt.Sprint(c.MaxSessionSnapshots))
	add(c.NoCapture, "no-capture")
	add(c.NodeID != "", "node-id", c.NodeID)
	add(c.AdvertiseURL != "", "advertise-url", c.AdvertiseURL)
	add(c.LeaseTTL != 0 && c.LeaseTTL != d.LeaseTTL, "lease-ttl", c.LeaseTTL.String())
	add(c.NotifyURL != "", "notify-url", c.NotifyURL)
	// The login never: it comes from the file, or from the environment a
	// daemon a command starts inherits.
	add(c.Proxy != "", "proxy", c.Proxy)
	add(c.ProxyLoginFile != "", "proxy-login-file", c.ProxyLoginFile)
	add(len(c.ProxyBypass) > 0, "proxy-bypass", c.ProxyBypass...)
	// The token itself never: it would show in /api/health and in the
	// command line of a daemon a command starts.
	add(c.SessionServiceTokenFile != "", "session-service-token-file", c.SessionServiceTokenFile)
	add(len(c.SessionServiceURLs) > 0, "session-service-url", c.SessionServiceURLs...)
	return out
}

// DaemonArgs renders the data directory and Settings as flags, so that a
// client that starts a daemon passes on what it was given. --listen is
// always there: empty (Unix socket only) unless the client was given an
// address, where `browserd serve` alone would listen on DefaultListen.
func (c *Config) DaemonArgs() []string {
	args := []string{"--data", c.Data}
	if c.Warm {
		args = append(args, "--warm")
	}
	for _, s := range c.settings(false) {
		if len(s.Values) == 0 {
			args = append(args, "--"+s.Flag)
		}
		for _, v := range s.Values {
			args = append(args, "--"+s.Flag, v)
		}
	}
	return args
}

// Mismatch is a setting a command asks for that a running daemon does not
// have: Want is what the command gives, Have what the daemon runs with
// (nil: the default, or off for a switch).
type Mismatch struct {
	Flag       string
	Want, Have []string
	Switch     bool // a flag without a value, such as --headed
}

// Mismatches compares the settings a command asks for (want, from its
// Settings) with those a running daemon reports (have, from its Settings)
// and returns each flag the command gives whose values the daemon does not
// run with. Only what the command gives counts: a command without
// --allow-host does not ask the daemon to drop its allowed hosts, and an
// empty --listen (the default of a command) does not ask it to stop
// listening. Repeatable flags compare as sets, so order and repetition do
// not matter.
func Mismatches(want, have []Setting) []Mismatch {
	running := make(map[string][]string, len(have))
	for _, s := range have {
		running[s.Flag] = s.Values
	}
	var out []Mismatch
	for _, s := range want {
		if s.Flag == "listen" && (len(s.Values) == 0 || s.Values[0] == "") {
			continue
		}
		got, ok := running[s.Flag]
		if ok && sameSet(s.Values, got) {
			continue
		}
		m := Mismatch{Flag: s.Flag, Want: s.Values, Switch: len(s.Values) == 0}
		if ok {
			m.Have = got
		}
		out = append(out, m)
	}
	return out
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(slices.Compact(a), slices.Compact(b))
}

// Denied reports whether the operator removed the action with --deny-actions.
func (c *Config) Denied(action string) bool { return slices.Contains(c.DenyActions, action) }

// checkNodeID checks a --node-id: what a host name may hold.
func checkNodeID(id string) error {
	if len(id) > 64 {
		return fmt.Errorf("--node-id %q is longer than 64 characters", id)
	}
	for _, r := range id {
		if !(r == '-' || r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return fmt.Errorf("--node-id %q: use letters, digits, '-', '_' and '.' only", id)
		}
	}
	return nil
}

// AdvertisedURL is where the other nodes reach this daemon: --advertise-url,
// else http://<listen>, with the host name for a wildcard listen address;
// "" when the daemon listens on the Unix socket only.
func (c *Config) AdvertisedURL(listen string) string {
	if c.AdvertiseURL != "" {
		return c.AdvertiseURL
	}
	if listen == "" {
		return ""
	}
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return ""
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		h, err := os.Hostname()
		if err != nil {
			return ""
		}
		host = h
	}
	return "http://" + net.JoinHostPort(host, port)
}
