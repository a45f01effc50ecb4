// Package engine carries out the browser tool's actions: each call goes
// through one pipeline (call.run: session, task, browser, tab, action,
// answer), and each action on a tab is declared once (tabActions). The
// page-level work is internal/act's; the rooms the engine wires around one
// registry (assemble) keep the rest: internal/browsers (Chromium),
// internal/recovery (captures, resume), internal/profiles (saved logins),
// internal/leases (several nodes), internal/idle (the janitor) and
// internal/takeover (a person's hold). docs/design.md maps them.
//
// Concurrency: tasks run in parallel; the actions of one task run one at a
// time, in arrival order. A tab belongs to exactly one task; a ref belongs to
// the tab whose snapshot showed it.
package engine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/browserd/browserd/internal/admission"
	"github.com/browserd/browserd/internal/atrest"
	"github.com/browserd/browserd/internal/browser"
	"github.com/browserd/browserd/internal/browsers"
	"github.com/browserd/browserd/internal/chromium"
	"github.com/browserd/browserd/internal/clientcerts"
	"github.com/browserd/browserd/internal/cluster"
	"github.com/browserd/browserd/internal/config"
	"github.com/browserd/browserd/internal/egress"
	"github.com/browserd/browserd/internal/idle"
	"github.com/browserd/browserd/internal/leases"
	"github.com/browserd/browserd/internal/logincheck"
	"github.com/browserd/browserd/internal/metrics"
	"github.com/browserd/browserd/internal/ownersecrets"
	"github.com/browserd/browserd/internal/profiles"
	"github.com/browserd/browserd/internal/recovery"
	"github.com/browserd/browserd/internal/sealkey"
	"github.com/browserd/browserd/internal/sessionproxy"
	"github.com/browserd/browserd/internal/sessions"
	"github.com/browserd/browserd/internal/status"
	"github.com/browserd/browserd/internal/store/backend"
	"github.com/browserd/browserd/internal/takeover"
	"github.com/browserd/browserd/internal/traces"
)

// Engine is safe for concurrent use. New starts its janitor goroutine;
// Close stops it and the browser.
type Engine struct {
	*sessions.Registry
	*browsers.Pool
	*recovery.Recovery
	*profiles.Keeper
	*leases.Holder
	*idle.Janitor
	*takeover.Desk
	*logincheck.Checker
	*admission.Gate
	*sessionproxy.Proxies
	*clientcerts.Certs
	*traces.Traces
	*status.Board
	*ownersecrets.Vault
}

// Option configures an engine.
type Option func(*Engine)

// WithResolver makes the guard look host names up with r (tests map names
// to internal addresses with it).
func WithResolver(r egress.Resolver) Option { return func(e *Engine) { e.Resolver = r } }

// WithoutProxy launches Chromium without the egress proxy. It exists only
// to measure the proxy's cost (see docs/benchmarks.md); never use it to
// serve agents: pages could then reach internal addresses.
func WithoutProxy() Option { return func(e *Engine) { e.NoProxy = true } }

// New returns an engine and starts its guard (the egress proxy). No browser
// starts until the first action.
func New(cfg config.Config, log *slog.Logger, opts ...Option) (*Engine, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	e := assemble(&sessions.Registry{
		Cfg: cfg, Log: log, VerifyPatch: os.Getenv("BROWSERD_VERIFY_PATCH") == "1",
		Guard: egress.Policy{
			AllowHosts:   cfg.AllowHosts,
			AllowPrivate: cfg.AllowPrivate,
			BlockHosts:   cfg.BlockHosts,
			OnlyHosts:    cfg.OnlyHosts,
		},
		Sessions: map[string]*sessions.Session{},
		Slots:    map[string]*sessions.Slot{},
		Dirty:    map[*sessions.Session]bool{},
		Repairs:  map[string]string{},
		Tabs:     map[sessions.TabKey]*sessions.Tab{},
		Stop:     make(chan struct{}),
		CapWake:  make(chan struct{}, 1),
	})
	for _, o := range opts {
		o(e)
	}
	if e.Counters == nil {
		e.Counters = metrics.New()
	}
	if err := e.Guard.Validate(); err != nil {
		return nil, err
	}
	rehydrate, err := e.openStore(cfg, log)
	if err != nil {
		return nil, err
	}
	upstream, from, err := cfg.Upstream()
	if err != nil {
		e.Store.Close()
		return nil, err
	}
	if upstream != nil && e.NoProxy {
		log.Warn("the upstream proxy is not used: Chromium runs without the egress proxy", "proxy", upstream.String())
		upstream = nil
	}
	proxy, err := egress.New(egress.Options{Policy: e.Guard, Resolver: e.Resolver, Log: log, OnRefuse: e.Counters.GuardRefused, OnForward: e.Counters.Egress, Upstream: upstream})
	if err != nil {
		e.Store.Close()
		return nil, fmt.Errorf("starting the egress guard: %w", err)
	}
	e.Proxy = proxy
	e.StartRecorder(context.Background())
	if upstream != nil {
		// Never the login: its user name at most.
		log.Info("pages' requests go through an upstream proxy once the guard allowed them", "proxy", upstream.String(), "from", from, "login", upstream.Username != "", "bypass", upstream.Bypass)
	}
	if cfg.CDP != "" {
		log.Warn("attached to a browser browserd did not start: every session shares its default context, which cannot be routed through the egress proxy; requests are vetted by CDP Fetch interception instead (tabs and out-of-process frames; no DNS-rebinding protection, and workers are not covered)", "cdp", cfg.CDP)
	}
	pidFiles, _ := filepath.Glob(cfg.Path("run", "chromium*.pid"))
	for _, f := range pidFiles {
		if n, err := chromium.KillLeftovers(f); n > 0 || err != nil {
			log.Warn("killed Chromium left behind by an earlier daemon", "processes", n, "err", err)
		}
	}
	e.start(rehydrate)
	return e, nil
}

// openStore opens the secret key, the data folder and the store, joins
// the cluster and sorts the sessions an earlier run left; it returns those
// to bring back at once (--auto-rehydrate).
func (e *Engine) openStore(cfg config.Config, log *slog.Logger) ([]string, error) {
	keyFile := cmp.Or(cfg.SecretKeyFile, cfg.Path("secret.key"))
	if err := checkKeyPresent(keyFile, cfg); err != nil {
		return nil, err
	}
	box, err := sealkey.Load(keyFile)
	if err != nil {
		return nil, err
	}
	e.Box = box
	if err := os.MkdirAll(cfg.Data, 0o700); err != nil {
		return nil, err
	}
	// The data folder's own id (made on first start) is the node's name
	// unless --node-id gives one, and tells this folder's daemon apart
	// from another under the same name.
	folder, err := recovery.NodeID(cfg.Path("node-id"))
	if err != nil {
		return nil, err
	}
	e.Node = cmp.Or(cfg.NodeID, folder)
	st, err := backend.Open(context.Background(), cmp.Or(cfg.DB, cfg.Path("browserd.db")), box)
	if err != nil {
		return nil, err
	}
	e.Store = e.Counters.WrapStore(st)
	e.Members = cluster.New(cluster.Options{Store: e.Store, Node: e.Node, Instance: folder, Key: box.Derive("cluster"), TTL: e.LeaseTTL(),
		Version: config.Version(), Log: log, OnForward: e.Counters.Forwarded})
	// Beat before recovering: Recover drops this node's leases as an
	// earlier run's, which must not happen while another daemon runs
	// under the same node id.
	if err := e.Members.Beat(context.Background(), cluster.Load{}); err != nil {
		st.Close()
		return nil, err
	}
	rehydrate, err := e.StartRecovery(context.Background())
	if err != nil {
		st.Close()
		return nil, fmt.Errorf("recovering the sessions of the last run: %w", err)
	}
	return rehydrate, nil
}

// start starts the engine's goroutines: the janitor, the heartbeat, the
// saver, and the rehydration of the sessions the last run left.
func (e *Engine) start(rehydrate []string) {
	e.WG.Add(3)
	go func() {
		defer e.WG.Done()
		e.Janitor.Run()
	}()
	go func() {
		defer e.WG.Done()
		e.Heartbeat()
	}()
	go func() {
		defer e.WG.Done()
		e.Saver()
	}()
	if len(rehydrate) > 0 {
		e.WG.Add(1)
		go func() {
			defer e.WG.Done()
			e.RehydrateAll(rehydrate)
		}()
	}
	if e.Cfg.Warm && e.Cfg.CDP == "" {
		e.WG.Add(1)
		go func() {
			defer e.WG.Done()
			e.warm()
		}()
	}
}

// warm starts the default profile's browser as the daemon starts (--warm),
// so that the first call finds it running: a client that starts the
// daemon (browserd mcp) asks for it, and the agent's first call comes
// while Chromium starts. It gives up when the daemon closes.
func (e *Engine) warm() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stopped := make(chan struct{})
	defer close(stopped)
	go func() { // ends with warm
		select {
		case <-e.Stop:
			cancel()
		case <-stopped:
		}
	}()
	start := time.Now()
	if err := e.Pool.Warm(ctx, e.NewSession("default", "default")); err != nil {
		if ctx.Err() == nil {
			e.Log.Warn("the default profile's browser did not start ahead of the first call (--warm); the first call starts it", "err", err)
		}
		return
	}
	e.Log.Info("the default profile's browser started ahead of the first call (--warm)", "took", time.Since(start).Round(time.Millisecond))
}

// assemble wires the engine's rooms around the registry they share.
func assemble(reg *sessions.Registry) *Engine {
	e := &Engine{Registry: reg}
	e.Pool = &browsers.Pool{Registry: reg, Hooks: e}
	e.Recovery = &recovery.Recovery{Registry: reg, Rooms: e}
	e.Keeper = &profiles.Keeper{Registry: reg, Pool: e.Pool, Recovery: e.Recovery}
	e.Holder = &leases.Holder{Registry: reg, Recovery: e.Recovery}
	e.Janitor = &idle.Janitor{Registry: reg, Pool: e.Pool, Recovery: e.Recovery}
	e.Desk = &takeover.Desk{Registry: reg, Waker: e.Recovery}
	e.Checker = &logincheck.Checker{Registry: reg, Pages: e}
	e.Gate = &admission.Gate{Registry: reg, Owners: e}
	e.Proxies = &sessionproxy.Proxies{Registry: reg, Policies: e.Pool}
	e.Certs = &clientcerts.Certs{Registry: reg}
	e.Traces = &traces.Traces{Registry: reg}
	e.Board = &status.Board{Registry: reg, Lines: e}
	e.Vault = &ownersecrets.Vault{Registry: reg}
	return e
}

// Close closes every tab and the browser, and stops the janitor.
func (e *Engine) Close(ctx context.Context) error {
	e.Mu.Lock()
	if e.Closed {
		e.Mu.Unlock()
		return nil
	}
	var profiles, all []*sessions.Session
	for _, s := range e.Sessions {
		if s.Profile != "" {
			profiles = append(profiles, s)
		}
		all = append(all, s)
	}
	e.Mu.Unlock()
	// Capture every live session: the next start finds them recoverable.
	for _, s := range all {
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		if err := e.CaptureSession(cctx, s); err != nil {
			e.Log.Warn("capturing a session at shutdown failed", "session", s.ID, "err", err)
		}
		cancel()
	}
	// Save every profile's state while its browser still runs.
	for _, s := range profiles {
		sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		if err := e.SaveProfileState(sctx, s); err != nil {
			e.Log.Warn("saving profile state at shutdown failed", "profile", s.Profile, "err", err)
		}
		cancel()
	}
	e.Mu.Lock()
	e.Closed = true
	brs := map[string]*browser.Browser{}
	for _, sl := range e.Slots {
		if sl.Br != nil {
			brs[sl.Key] = sl.Br
			sl.Br = nil
		}
	}
	e.Mu.Unlock()
	close(e.Stop)
	e.WG.Wait()
	var errs []error
	for key, br := range brs {
		errs = append(errs, e.CloseBrowser(ctx, key, br))
	}
	e.Proxy.Close()
	e.Recorder.Close()
	for _, s := range all {
		if s.Stored && !s.Parked {
			if err := e.Store.ReleaseLease(context.WithoutCancel(ctx), s.ID, e.Node); err != nil {
				errs = append(errs, err)
			}
		}
	}
	e.LeaveCluster(context.WithoutCancel(ctx))
	errs = append(errs, e.Store.Close())
	return errors.Join(errs...)
}

// sessionFor returns the session the call names, creating it. With no
// session named, it is the profile's (default "default"): the profile's own
// browser, whose logins persist. A named session that does not exist yet is
// ephemeral: an in-memory context of the shared browser. A session that is
// recoverable in the store is resumed (see open).
func (e *Engine) sessionFor(ctx context.Context, c *call) (*sessions.Session, error) {
	in := &c.in
	profile := in.Profile
	if profile == "" && in.Session == "" {
		profile = "default"
	}
	if profile != "" {
		if err := sessions.CheckQualified("profile", profile); err != nil {
			return nil, err
		}
	}
	id := in.Session
	if id == "" {
		id = profile
	}
	if err := sessions.CheckQualified("session", id); err != nil {
		return nil, err
	}
	e.Mu.Lock()
	s := e.Sessions[id]
	if s != nil && s.Resuming != nil {
		// Being brought back (by --auto-rehydrate, or another call): its
		// tabs are not there yet.
		ch := s.Resuming
		e.Mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		e.Mu.Lock()
		s = e.Sessions[id]
	}
	if s != nil && s.Closing {
		e.Mu.Unlock()
		return nil, fail("session %q is being closed; send the call again in a moment", sessions.BareName(id))
	}
	if s != nil {
		if in.Profile != "" && s.Profile != in.Profile {
			e.Mu.Unlock()
			return nil, fmt.Errorf("session %q is not profile %q's session; leave out session to use the profile's", id, in.Profile)
		}
		if in.UserDataDir != "" && s.Dir != in.UserDataDir && s.Stored && !s.Parked {
			where := "in browserd's own browser"
			if s.Dir != "" {
				where = "on folder " + s.Dir
			}
			e.Mu.Unlock()
			return nil, fail("session %q runs %s, not on folder %s: the folder is chosen when a session is created — leave out userDataDir to use the session, or name another session", sessions.BareName(id), where, in.UserDataDir)
		}
		if s.Stored && !s.Parked {
			e.Mu.Unlock()
			if c.inj != nil && c.inj.Fresh {
				return nil, c.inj.Taken(sessions.BareName(id))
			}
			return s, nil
		}
	} else if in.Session != "" && in.Profile != "" && in.Session != in.Profile {
		e.Mu.Unlock()
		return nil, fmt.Errorf("no session %q; a profile's session is named like the profile (%q)", in.Session, in.Profile)
	}
	e.Mu.Unlock()
	return e.open(ctx, c, s, id, profile)
}

func (e *Engine) TaskFor(s *sessions.Session, name string) (*sessions.Task, error) {
	if name == "" {
		name = "default"
	}
	if err := sessions.CheckName("task", name); err != nil {
		return nil, err
	}
	e.Mu.Lock()
	defer e.Mu.Unlock()
	t := s.Tasks[name]
	if t == nil {
		t = &sessions.Task{Name: name, Sess: s}
		s.Tasks[name] = t
	}
	t.LastUsed = time.Now()
	return t, nil
}

// checkKeyPresent refuses to make a new secret key while anything sealed
// with the old one is still in the data folder — captures and stored
// sessions in the store, profiles' saved states and sealed credentials: a
// new key would leave them unreadable and the next saves would replace
// them. Nothing is lost silently: the person puts the key back, or moves
// the folder aside to start afresh.
func checkKeyPresent(keyFile string, cfg config.Config) error {
	if _, err := os.Stat(keyFile); !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	var sealed []string
	if n, err := backend.SealedRows(cmp.Or(cfg.DB, cfg.Path("browserd.db"))); err == nil && n > 0 {
		sealed = append(sealed, fmt.Sprintf("%d captures and stored sessions in the store", n))
	}
	states, _ := filepath.Glob(cfg.Path("profiles", "*", "*.state"))
	creds, _ := filepath.Glob(cfg.Path("profiles", "*", "*", atrest.SealedFile))
	if n := len(states) + len(creds); n > 0 {
		sealed = append(sealed, fmt.Sprintf("%d sealed files of profiles", n))
	}
	if len(sealed) == 0 {
		return nil
	}
	return fmt.Errorf("the secret key %s is missing, but %s were sealed with it: put the key back (or point --secret-key-file at it); to start afresh without them, move the data folder %s aside — browserd makes no new key over them", keyFile, strings.Join(sealed, " and "), cfg.Data)
}

// closePage closes tb's page; a lazy tab has none yet.
func closePage(ctx context.Context, tb *sessions.Tab) error {
	if tb.Page == nil {
		return nil
	}
	return tb.Page.Close(ctx)
}
