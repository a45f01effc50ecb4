// Package config holds the daemon's settings: one struct whose kong tags give
// every setting its flag, its BROWSERD_* environment twin and its default, so
// that the CLI, the daemon and the tests read settings the same way.
package config

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/browserd/browserd/internal/store"
	"github.com/browserd/browserd/internal/tool"
)

// Config is every daemon setting. The zero value is not usable; build one with
// Default or let kong fill it from flags and the environment.
type Config struct {
	Data       string   `name:"data" env:"BROWSERD_DATA" help:"Data directory (default XDG_DATA_HOME/browserd)." placeholder:"DIR"`
	Chromium   string   `name:"chromium" env:"BROWSERD_CHROMIUM" help:"Chromium binary (default /usr/bin/chromium, then chromium or google-chrome on PATH)." placeholder:"PATH"`
	AllowHosts []string `name:"allow-host" env:"BROWSERD_ALLOW_HOSTS" sep:"," help:"Let pages reach this loopback/private HOST[:PORT] (repeatable)." placeholder:"HOST[:PORT]"`

	AllowPrivate         bool     `name:"allow-private" env:"BROWSERD_ALLOW_PRIVATE" help:"Let pages reach every private, loopback and link-local address (the guard stays on for --block-host and --only-hosts)."`
	BlockHosts           []string `name:"block-host" env:"BROWSERD_BLOCK_HOSTS" sep:"," help:"Never let pages reach HOST[:PORT] or *.DOMAIN (repeatable)." placeholder:"HOST"`
	OnlyHosts            []string `name:"only-hosts" env:"BROWSERD_ONLY_HOSTS" sep:"," help:"Allow-list mode: pages may reach only these HOST[:PORT] or *.DOMAIN entries." placeholder:"HOST"`
	DenyActions          []string `name:"deny-actions" env:"BROWSERD_DENY_ACTIONS" sep:"," help:"Remove these actions from the browser tool, e.g. evaluate,pdf." placeholder:"ACTION"`
	ExcludeCookieDomains []string `name:"exclude-cookie-domains" env:"BROWSERD_EXCLUDE_COOKIE_DOMAINS" sep:"," help:"Never restore saved cookies of these domains (and their subdomains) into a profile." placeholder:"DOMAIN"`
	NoWrap               bool     `name:"no-wrap" env:"BROWSERD_NO_WRAP" help:"Do not wrap page content in the untrusted-content envelope (for trusted use only)."`

	// Listen has no kong default: `browserd serve` listens on DefaultListen
	// unless --listen (or BROWSERD_LISTEN) is given, while a daemon that a
	// command starts serves its Unix socket only unless the command was
	// given --listen (see DaemonArgs), so that daemons of several data
	// directories never fight over one port.
	Listen      string        `name:"listen" env:"BROWSERD_LISTEN" help:"HTTP listen address for the API and MCP; empty: Unix socket only. Default: 127.0.0.1:8765 for serve, none for a daemon another command starts." placeholder:"ADDR"`
	Headed      bool          `name:"headed" env:"BROWSERD_HEADED" help:"Show the browser window."`
	CDP         string        `name:"cdp" env:"BROWSERD_CDP" help:"Attach to a running browser at this ws:// URL instead of launching one." placeholder:"WS_URL"`
	IdleTimeout time.Duration `name:"idle-timeout" env:"BROWSERD_IDLE_TIMEOUT" default:"5m" help:"Close idle tasks' pages, and the browser when nothing is left, after this long."`
	ReviewGrace time.Duration `name:"review-grace" env:"BROWSERD_REVIEW_GRACE" default:"1h" help:"Keep the tabs of a task that ended (task_end) open this long for a person to review; 0: until closed."`
	ActionTime  time.Duration `name:"action-timeout" env:"BROWSERD_ACTION_TIMEOUT" default:"10s" help:"Default timeout of an action."`
	NavTime     time.Duration `name:"nav-timeout" env:"BROWSERD_NAV_TIMEOUT" default:"30s" help:"Default timeout of a navigation."`
	Width       int           `name:"viewport-width" env:"BROWSERD_VIEWPORT_WIDTH" default:"1280" help:"Viewport width."`
	Height      int           `name:"viewport-height" env:"BROWSERD_VIEWPORT_HEIGHT" default:"720" help:"Viewport height."`
	UploadDir   string        `name:"upload-dir" env:"BROWSERD_UPLOAD_DIR" help:"Folder uploads are taken from (default <data>/uploads)." placeholder:"DIR"`
	LogLevel    string        `name:"log-level" env:"BROWSERD_LOG_LEVEL" default:"info" enum:"debug,info,warn,error" help:"Log level."`

	DB                  string        `name:"db" env:"BROWSERD_DB" help:"The store: a SQLite file (default <data>/browserd.db), or a postgres:// URL of a PostgreSQL database that several daemons share (give them all one --secret-key-file; the password is best in PGPASSWORD or ~/.pgpass)." placeholder:"PATH|URL"`
	SecretKeyFile       string        `name:"secret-key-file" env:"BROWSERD_SECRET_KEY_FILE" help:"AES-256 key that encrypts captures and saved states (default <data>/secret.key, made on first start); every daemon sharing a store needs the same one." placeholder:"PATH"`
	SnapshotInterval    time.Duration `name:"snapshot-interval" env:"BROWSERD_SNAPSHOT_INTERVAL" default:"30s" help:"Capture a session's state after state-changing actions, at most this often (0: after every one)."`
	MaxSessionAge       time.Duration `name:"max-session-age" env:"BROWSERD_MAX_SESSION_AGE" default:"24h" help:"At start-up, a session left active whose last capture is older than this becomes stale instead of recoverable."`
	AutoRehydrate       bool          `name:"auto-rehydrate" env:"BROWSERD_AUTO_REHYDRATE" help:"At start-up, bring back every recoverable session without waiting for session_resume."`
	MaxSessionSnapshots int           `name:"max-session-snapshots" env:"BROWSERD_MAX_SESSION_SNAPSHOTS" default:"10" help:"Captures kept per session."`
	NoCapture           bool          `name:"no-capture" env:"BROWSERD_NO_CAPTURE" help:"Take no state captures: sessions cannot be recovered after a restart or crash."`

	NotifyURL string `name:"notify-url" env:"BROWSERD_NOTIFY_URL" help:"POST a JSON note here when an agent asks a person for help (handoff), with the tab's live-view URL." placeholder:"URL"`

	// MetricsListen serves /metrics alone, without a token, for a
	// Prometheus scraper; /metrics on Listen and the socket needs admin.
	MetricsListen string `name:"metrics-listen" env:"BROWSERD_METRICS_LISTEN" help:"Also serve Prometheus metrics at /metrics on this HOST:PORT, without a token (for a scraper on a private network); /metrics on --listen needs admin's token." placeholder:"ADDR"`
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
		ActionTime:  10 * time.Second,
		NavTime:     30 * time.Second,
		Width:       1280,
		Height:      720,
		LogLevel:    "info",

		SnapshotInterval:    30 * time.Second,
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
	if c.Data == "" {
		base := os.Getenv("XDG_DATA_HOME")
		if base == "" {
			home, err := os.UserHomeDir()
			if err != nil {
				return fmt.Errorf("no --data given and no home directory to default to: %w", err)
			}
			base = filepath.Join(home, ".local", "share")
		}
		c.Data = filepath.Join(base, "browserd")
	}
	abs, err := filepath.Abs(c.Data)
	if err != nil {
		return fmt.Errorf("--data %q: %w", c.Data, err)
	}
	c.Data = abs
	if c.UploadDir == "" {
		c.UploadDir = filepath.Join(c.Data, "uploads")
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
	if c.SnapshotInterval < 0 {
		return fmt.Errorf("--snapshot-interval must not be negative (0 captures after every state-changing action; --no-capture turns captures off)")
	}
	if c.MaxSessionAge <= 0 {
		return fmt.Errorf("--max-session-age must be positive, e.g. 24h")
	}
	if c.MaxSessionSnapshots < 1 {
		return fmt.Errorf("--max-session-snapshots must be at least 1, got %d", c.MaxSessionSnapshots)
	}
	if c.Width <= 0 || c.Height <= 0 {
		return fmt.Errorf("--viewport-width and --viewport-height must be positive, got %dx%d", c.Width, c.Height)
	}
	if c.ActionTime <= 0 || c.NavTime <= 0 {
		return fmt.Errorf("--action-timeout and --nav-timeout must be positive")
	}
	for _, a := range c.DenyActions {
		if !slices.Contains(tool.Actions, a) {
			return fmt.Errorf("--deny-actions %q: not an action; actions are %s", a, strings.Join(tool.Actions, ", "))
		}
	}
	if c.MetricsListen != "" {
		if _, _, err := net.SplitHostPort(c.MetricsListen); err != nil {
			return fmt.Errorf("--metrics-listen %q: want HOST:PORT, e.g. 10.0.0.5:9465 (an address only the scraper can reach: it needs no token)", c.MetricsListen)
		}
		if c.MetricsListen == c.Listen {
			return fmt.Errorf("--metrics-listen %s is also --listen: give the metrics an address of their own, or drop --metrics-listen and scrape /metrics on --listen with admin's token", c.MetricsListen)
		}
	}
	if c.CDP != "" && !strings.HasPrefix(c.CDP, "ws://") && !strings.HasPrefix(c.CDP, "wss://") {
		return fmt.Errorf("--cdp %q: want a ws:// URL such as ws://127.0.0.1:9222/devtools/browser/<id>", c.CDP)
	}
	return nil
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
	add(len(c.AllowHosts) > 0, "allow-host", c.AllowHosts...)
	add(len(c.BlockHosts) > 0, "block-host", c.BlockHosts...)
	add(len(c.OnlyHosts) > 0, "only-hosts", c.OnlyHosts...)
	add(len(c.DenyActions) > 0, "deny-actions", c.DenyActions...)
	add(len(c.ExcludeCookieDomains) > 0, "exclude-cookie-domains", c.ExcludeCookieDomains...)
	add(c.AllowPrivate, "allow-private")
	add(c.NoWrap, "no-wrap")
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
	add(c.UploadDir != "" && c.UploadDir != c.Path("uploads"), "upload-dir", c.UploadDir)
	add(c.LogLevel != "" && c.LogLevel != d.LogLevel, "log-level", c.LogLevel)
	add(c.DB != "" && c.DB != c.Path("browserd.db"), "db", db)
	add(c.SecretKeyFile != "" && c.SecretKeyFile != c.Path("secret.key"), "secret-key-file", c.SecretKeyFile)
	add(c.SnapshotInterval != d.SnapshotInterval, "snapshot-interval", c.SnapshotInterval.String())
	add(c.MaxSessionAge != d.MaxSessionAge, "max-session-age", c.MaxSessionAge.String())
	add(c.AutoRehydrate, "auto-rehydrate")
	add(c.MaxSessionSnapshots != d.MaxSessionSnapshots, "max-session-snapshots", fmt.Sprint(c.MaxSessionSnapshots))
	add(c.NoCapture, "no-capture")
	add(c.NotifyURL != "", "notify-url", c.NotifyURL)
	return out
}

// DaemonArgs renders the data directory and Settings as flags, so that a
// client that starts a daemon passes on what it was given. --listen is
// always there: empty (Unix socket only) unless the client was given an
// address, where `browserd serve` alone would listen on DefaultListen.
func (c *Config) DaemonArgs() []string {
	args := []string{"--data", c.Data}
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
