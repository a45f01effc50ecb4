// Package daemon runs browserd's long-lived server process: it owns the data
// directory (lock, pid file, Unix socket), serves the HTTP API and MCP on the
// socket and optionally on TCP, and closes the engine when it stops.
//
// Lifecycle of Run, in order: create <data> (0700) → lock <data>/browserd.lock
// (one daemon per data directory) → write browserd.pid → listen on
// browserd.sock (0600), cfg.Listen and cfg.MetricsListen → serve until ctx
// ends → shut HTTP down (bounded by ShutdownTimeout) → close the engine →
// remove the socket and pid file → release the lock. A step that fails
// undoes the ones before it.
//
// Metrics (package metrics) are served at /metrics to admin — over the
// socket, or over TCP with admin's token — and, when cfg.MetricsListen is
// set, without a token on that address, which serves nothing else. They
// are the engine's Set when it has one (Metrics() *metrics.Set), else a
// Set of the daemon's own; an engine that is a metrics.Source gives the
// gauges of sessions, tabs and Chromium.
package daemon

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/browserd/browserd/internal/auth"
	"github.com/browserd/browserd/internal/cdpproxy"
	"github.com/browserd/browserd/internal/cluster"
	"github.com/browserd/browserd/internal/computer"
	"github.com/browserd/browserd/internal/config"
	"github.com/browserd/browserd/internal/engine"
	"github.com/browserd/browserd/internal/filelock"
	"github.com/browserd/browserd/internal/files"
	"github.com/browserd/browserd/internal/httpapi"
	"github.com/browserd/browserd/internal/live"
	"github.com/browserd/browserd/internal/mcpserver"
	"github.com/browserd/browserd/internal/metrics"
	"github.com/browserd/browserd/internal/tool"
)

// Engine carries out the browser tool's actions. Run owns it: Run closes it
// before returning, whether serving ended or never started.
type Engine interface {
	tool.Handler
	// Close closes every page and browser; ctx bounds how long it may take.
	Close(ctx context.Context) error
}

// Timeouts of the shutdown steps.
const (
	// ShutdownTimeout bounds waiting for in-flight HTTP requests.
	ShutdownTimeout = 5 * time.Second
	// EngineCloseTimeout bounds closing the engine's browsers.
	EngineCloseTimeout = 8 * time.Second
)

// Files in the data directory. internal/client reads the lock and pid file
// by the same names.
const (
	lockFile   = "browserd.lock"
	pidFile    = "browserd.pid"
	socketFile = "browserd.sock"
	// tokenFile holds admin's bearer token (0600), made on first start.
	tokenFile = "token"
)

// RunningError is returned by Run when another daemon holds the data
// directory's lock.
type RunningError struct {
	PID  int // 0 when the other daemon has not written its pid yet
	Data string
}

func (e *RunningError) Error() string {
	who := "another browserd"
	if e.PID > 0 {
		who = fmt.Sprintf("another browserd (pid %d)", e.PID)
	}
	return fmt.Sprintf("%s is already running for %s; stop it with: browserd stop --data %s", who, e.Data, e.Data)
}

// Version is browserd's version as built: the module version, or "devel".
func Version() string { return config.Version() }

// Run serves eng until ctx ends, then shuts down in order (see the package
// doc). It returns nil after a clean shutdown caused by ctx; cfg must be
// resolved (config.Resolve). log may be nil.
func Run(ctx context.Context, cfg config.Config, eng Engine, log *slog.Logger) (err error) {
	made := false
	err = RunWith(ctx, cfg, func() (Engine, error) { made = true; return eng, nil }, log)
	if !made { // refused before serving: the engine is still ours to close
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), EngineCloseTimeout)
		defer cancel()
		if cerr := eng.Close(cctx); cerr != nil {
			err = errors.Join(err, fmt.Errorf("close the engine: %w", cerr))
		}
	}
	return err
}

// RunWith is Run with the engine made by newEngine once the data
// directory's lock is held: an engine recovers the sessions and kills the
// Chromium an earlier daemon left, which must never happen to a daemon
// that still runs.
func RunWith(ctx context.Context, cfg config.Config, newEngine func() (Engine, error), log *slog.Logger) (err error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	var eng Engine
	engineOpen := false
	closeEngine := func() {
		if !engineOpen {
			return
		}
		engineOpen = false
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), EngineCloseTimeout)
		defer cancel()
		if cerr := eng.Close(cctx); cerr != nil {
			log.Error("closing the engine failed", "error", cerr)
			err = errors.Join(err, fmt.Errorf("close the engine: %w", cerr))
		}
	}
	defer closeEngine() // when starting fails before the lock is taken

	lock, err := claimDataDir(cfg.Data)
	if err != nil {
		return err
	}
	defer lock.release()
	// The pid file names this daemon as soon as it holds the lock: one
	// left by a killed daemon must not name another process for long
	// (`browserd stop` checks the pid holds the lock where it can).
	pidPath := cfg.Path(pidFile)
	if err := os.WriteFile(pidPath, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600); err != nil {
		return fmt.Errorf("write the pid file: %w", err)
	}
	defer removeFile(log, pidPath)
	if eng, err = newEngine(); err != nil {
		return fmt.Errorf("set up the browser engine: %w", err)
	}
	engineOpen = true
	defer closeEngine() // before the lock is released
	tokens, err := adminTokens(ctx, cfg, eng)
	if err != nil {
		return err
	}

	sock := cfg.SocketPath()
	unixLn, err := listenUnix(sock)
	if err != nil {
		return err
	}
	defer removeFile(log, sock)
	listeners, metricsLn, dashBase, err := listenTCP(cfg, unixLn)
	if err != nil {
		return err
	}
	set := metricsOf(eng)
	dash := connectEngine(ctx, cfg, eng, listeners, dashBase, log)

	version := Version()
	handlers := make([]http.Handler, len(listeners))
	served := files.New(files.Options{}) // one for all listeners: a link works on each
	for i := range listeners {
		handlers[i] = newMux(eng, tokens, log, version, cfg, dash, set, served)
	}
	srv := startServers(ctx, listeners, handlers, metricsLn, set, log)
	log.Info("browserd started", "pid", os.Getpid(), "version", version, "data", cfg.Data,
		"socket", sock, "listen", cfg.Listen, "metrics_listen", cfg.MetricsListen, "admin_token_file", cfg.Path(tokenFile))

	select {
	case <-ctx.Done():
		// Why (context.Cause): "terminated signal received", or what
		// else ended ctx — a daemon that stops unasked says what did it.
		log.Info("browserd stopping", "cause", context.Cause(ctx).Error())
	case err = <-srv.failed:
		log.Error("browserd stopping: serving failed", "error", err)
	}

	srv.shutdown(ctx, log)
	if dash != nil {
		dash.Close()
	}
	closeEngine()
	log.Info("browserd stopped")
	return err
}

// claimDataDir creates the data directory (0700) and takes its lock, so
// that this daemon is the only one for it.
func claimDataDir(data string) (*dirLock, error) {
	if data == "" {
		return nil, errors.New("no data directory: resolve the config before running the daemon")
	}
	if err := os.MkdirAll(data, 0o700); err != nil {
		return nil, fmt.Errorf("create the data directory: %w", err)
	}
	return lockDataDir(data)
}

// adminTokens is the engine's token store, if it keeps one, with admin's
// token made on first start (<data>/token).
func adminTokens(ctx context.Context, cfg config.Config, eng Engine) (auth.Store, error) {
	tokens := tokensOf(eng)
	if tokens != nil {
		if err := auth.Bootstrap(ctx, tokens, cfg.Path(tokenFile)); err != nil {
			return nil, fmt.Errorf("set up the admin token: %w", err)
		}
	}
	return tokens, nil
}

// listenTCP opens the TCP listeners that go with the Unix socket's unixLn:
// cfg.Listen's, for the API, after unixLn in listeners — dashBase is then
// its http:// URL, where the dashboard is served — and cfg.MetricsListen's,
// for the metrics alone (nil when not set). When it cannot listen, it
// closes what is open, unixLn included, and the error says which flag to
// change.
func listenTCP(cfg config.Config, unixLn net.Listener) (listeners []net.Listener, metricsLn net.Listener, dashBase string, err error) {
	listeners = []net.Listener{unixLn}
	if cfg.Listen != "" {
		tcpLn, err := net.Listen("tcp", cfg.Listen)
		if err != nil {
			unixLn.Close()
			return nil, nil, "", fmt.Errorf("listen on %s: %w; choose another address with --listen HOST:PORT, or --listen '' for the Unix socket only", cfg.Listen, err)
		}
		listeners = append(listeners, tcpLn)
		dashBase = "http://" + tcpLn.Addr().String()
	}
	if cfg.MetricsListen != "" {
		if metricsLn, err = net.Listen("tcp", cfg.MetricsListen); err != nil {
			for _, ln := range listeners {
				ln.Close()
			}
			return nil, nil, "", fmt.Errorf("listen on %s for metrics: %w; choose another address with --metrics-listen HOST:PORT, or leave it out and scrape /metrics on --listen with admin's token", cfg.MetricsListen, err)
		}
	}
	return listeners, metricsLn, dashBase, nil
}

// connectEngine tells the engine where it is served: it makes the dashboard
// and live view for an engine that has tabs to show, gives the engine the
// dashboard's base URL, and, for a node among others, advertises the URL
// the other nodes reach it at (from the TCP listener, listeners[1], if
// any). It returns the dashboard, nil without one.
func connectEngine(ctx context.Context, cfg config.Config, eng Engine, listeners []net.Listener, dashBase string, log *slog.Logger) *live.Server {
	// The dashboard and live view (internal/live), for engines that have
	// tabs to show.
	var dash *live.Server
	if le, ok := eng.(live.Engine); ok {
		dash = live.New(le, dashBase, log)
	}
	if d, ok := eng.(interface{ SetDashboard(string) }); ok {
		d.SetDashboard(dashBase)
	}
	if cl, ok := eng.(clustered); ok {
		tcp := ""
		if len(listeners) > 1 {
			tcp = listeners[1].Addr().String()
		}
		cl.Advertise(ctx, cfg.AdvertisedURL(tcp))
	}
	return dash
}

// servers are the daemon's HTTP servers, one per listener, each serving in
// a goroutine of its own; failed gets the error of one that stops serving
// before shutdown.
type servers struct {
	wg     sync.WaitGroup
	all    []*http.Server
	failed chan error
}

// startServers serves each of listeners with its handler and metricsLn,
// when set, with the metrics alone; requests' contexts derive from ctx.
func startServers(ctx context.Context, listeners []net.Listener, handlers []http.Handler, metricsLn net.Listener, set *metrics.Set, log *slog.Logger) *servers {
	s := &servers{failed: make(chan error, len(listeners))}
	if metricsLn != nil {
		listeners = append(listeners, metricsLn)
		handlers = append(handlers, metricsMux(set))
	}
	for i, ln := range listeners {
		srv := &http.Server{
			Handler:           handlers[i],
			BaseContext:       func(net.Listener) context.Context { return ctx },
			ReadHeaderTimeout: 10 * time.Second,
			ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		}
		s.all = append(s.all, srv)
		s.wg.Go(func() {
			if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
				s.failed <- fmt.Errorf("serve on %s: %w", ln.Addr(), err)
			}
		})
	}
	return s
}

// shutdown stops the servers, letting in-flight requests end within
// ShutdownTimeout and then closing their connections, and waits until
// every one has stopped serving.
func (s *servers) shutdown(ctx context.Context, log *slog.Logger) {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ShutdownTimeout)
	for _, srv := range s.all {
		if serr := srv.Shutdown(sctx); serr != nil {
			log.Warn("HTTP shutdown timed out; closing connections", "error", serr)
			srv.Close()
		}
	}
	cancel()
	s.wg.Wait()
}

// newMux routes one listener's requests: the JSON API under /api/, MCP
// streamable HTTP (stateless) at /mcp and the metrics at /metrics (admin
// only).
//
// Over the Unix socket callers act as admin; over TCP every route but
// /api/health needs a bearer token (package auth). Without a token store
// (test engines) TCP callers are refused.
func newMux(eng Engine, tokens auth.Store, log *slog.Logger, version string, cfg config.Config, dash *live.Server, set *metrics.Set, served *files.Registry) http.Handler {
	deny := cfg.DenyActions
	display, err := computer.ParseDisplay(cfg.Display)
	if err != nil {
		display = computer.DefaultDisplay // Check refused it at start-up
	}
	liveBase := ""
	if dash != nil {
		liveBase = dash.Base()
	}
	api := httpapi.New(eng, httpapi.Options{Version: version, Log: log, TempDir: cfg.Path("run"), Settings: cfg.Settings(), LiveBase: liveBase, Files: served, SessionService: cfg.SessionService(), Display: display})
	mux := http.NewServeMux()
	mux.Handle("GET /api/health", api)
	if cl, ok := eng.(clustered); ok {
		// Several nodes on one store (package cluster): a session's routes
		// go to the node that runs it; a request another node signed
		// comes in as the owner it carries, without a token.
		c := cl.Cluster()
		routed := c.Proxy(cl.Route, api)
		mux.Handle("/api/", c.Trust(routed, auth.Require(tokens, routed)))
		mux.Handle("POST "+cluster.DoPath, c.Trust(c.DoHandler(eng), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusForbidden)
			fmt.Fprintf(w, "{\"error\":%q}\n", "this endpoint serves other browserd nodes only")
		})))
		mux.Handle("GET /api/nodes", auth.Require(tokens, adminOnly("the node list", c.NodesHandler())))
	} else {
		mux.Handle("/api/", auth.Require(tokens, api))
	}
	mo := mcpserver.Options{Deny: deny}
	if cfg.Computer {
		mo.Computer = &display
	}
	mux.Handle("/mcp", httpapi.Guard(auth.Require(tokens, mcpserver.HTTPHandlerWith(eng, version, mo))))
	mux.Handle("GET /metrics", httpapi.Guard(auth.Require(tokens, adminOnly("the metrics", set.Handler()))))
	if e, ok := eng.(*engine.Engine); ok {
		// The CDP endpoint (internal/cdpproxy): a task's pages for
		// Playwright, Puppeteer and agent-browser; /json/version for the
		// clients that take http://host:port. ?token= for clients that
		// set no headers.
		h := httpapi.Guard(cdpproxy.TokenFromQuery(auth.Require(tokens, &cdpproxy.Handler{Host: cdpTasks{e}, Log: log})))
		for _, p := range []string{"/cdp", "/cdp/", "GET /json/version", "GET /json/version/"} {
			mux.Handle(p, h)
		}
	}
	if dash != nil {
		// The dashboard signs people in with a cookie of its own; the URL
		// that does it comes from the API, as the caller's owner.
		// Both are a person's: the dashboard approves what confirm rules
		// hold, and a share link hands over control of a tab.
		mux.Handle("POST /api/dashboard", auth.Require(tokens, httpapi.Manages("signing in to the dashboard", dash.SigninURL())))
		share := auth.Require(tokens, httpapi.Manages("a share link of the live view", dash.ShareLinks()))
		mux.Handle("/api/sessions/{id}/live", share)
		mux.Handle("DELETE /api/sessions/{id}/live/{link}", share)
		mux.Handle("/", dash.Handler())
	} else {
		mux.Handle("/", http.NotFoundHandler())
	}
	return mux
}

// metricsMux serves the metrics alone, to anyone: the handler of
// --metrics-listen, an address meant for a scraper on a private network.
func metricsMux(set *metrics.Set) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", set.Handler())
	mux.Handle("/", http.NotFoundHandler())
	return mux
}

// adminOnly lets only admin's requests through (auth.Require has set the
// owner); others get a 403 JSON error that says how to read what.
func adminOnly(what string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if auth.Owner(r.Context()) != auth.Admin {
			msg := "only admin reads " + what + ": use admin's token (<data>/token)"
			if what == "the metrics" {
				msg += ", or scrape the daemon's --metrics-listen address, which needs none"
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusForbidden)
			fmt.Fprintf(w, "{\"error\":%q}\n", msg)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// clustered is an engine that runs as a node among others on its store
// (package cluster).
type clustered interface {
	Cluster() *cluster.Cluster
	Route(ctx context.Context, owner, session string) (*cluster.Peer, error)
	Advertise(ctx context.Context, url string)
}

// metricsOf is the engine's metrics, when it keeps them, else a Set of the
// daemon's own (the Go runtime and the process, at least); an engine that
// is a metrics.Source feeds its gauges.
func metricsOf(eng Engine) *metrics.Set {
	var set *metrics.Set
	if m, ok := eng.(interface{ Metrics() *metrics.Set }); ok {
		set = m.Metrics()
	}
	if set == nil {
		set = metrics.New()
	}
	if src, ok := eng.(metrics.Source); ok {
		set.SetSource(src)
	}
	return set
}

// tokensOf is the engine's token store, if it keeps one.
func tokensOf(eng Engine) auth.Store {
	if t, ok := eng.(interface{ Tokens() auth.Store }); ok {
		return t.Tokens()
	}
	return nil
}

// listenUnix listens on sock, replacing a stale socket file; the caller holds
// the data directory's lock, so no live daemon can own it.
func listenUnix(sock string) (net.Listener, error) {
	if len(sock) > maxSocketPath {
		return nil, fmt.Errorf("socket path %s is %d bytes, over the %d Unix sockets allow here: use a shorter --data", sock, len(sock), maxSocketPath)
	}
	if err := os.Remove(sock); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("remove the stale socket: %w", err)
	}
	ln, err := net.Listen("unix", sock)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", sock, err)
	}
	if err := ownerOnly(sock); err != nil {
		ln.Close()
		return nil, fmt.Errorf("restrict the socket to its owner: %w", err)
	}
	return ln, nil
}

func removeFile(log *slog.Logger, path string) {
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		log.Warn("could not remove a file at shutdown", "path", path, "error", err)
	}
}

// dirLock is the exclusive flock on <data>/browserd.lock that makes a daemon
// the only one for its data directory. The kernel drops it if the process
// dies, so a crashed daemon never blocks the next one.
type dirLock struct{ f *os.File }

// lockAttempts spaces out retries so that a client probing the lock (see
// client.DaemonPID), which holds it for an instant, never stops a start.
const lockAttempts = 5

func lockDataDir(data string) (*dirLock, error) {
	path := filepath.Join(data, lockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open the lock file: %w", err)
	}
	for attempt := 1; ; attempt++ {
		held, err := filelock.TryLock(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if held {
			return &dirLock{f: f}, nil
		}
		if attempt == lockAttempts {
			f.Close()
			return nil, &RunningError{PID: readPID(data), Data: data}
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (l *dirLock) release() {
	_ = filelock.Unlock(l.f)
	l.f.Close()
}

func readPID(data string) int {
	b, err := os.ReadFile(filepath.Join(data, pidFile))
	if err != nil {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return pid
}
