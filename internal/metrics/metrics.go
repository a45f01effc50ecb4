// Package metrics counts what browserd does, for Prometheus: actions and
// their latency, state captures, session resumes, lease takeovers, the
// egress guard's refusals and the requests it let through, and store errors; and, at
// each scrape, the sessions, tasks, tabs and Chromium processes the engine
// has (through a Source), with the Go runtime and process collectors.
//
// A Set holds its own registry, never Prometheus's global one, so that two
// daemons in one process (tests) do not share counters. Every method of
// *Set may be called on a nil *Set and then does nothing, so callers and
// tests without metrics need no checks. Label values are bounded: action
// names come from tool.Actions, refusal rules from egress.RefusalKinds,
// store operations from the Store methods; anything else is counted as
// "other".
//
// WrapStore counts a store's failures by method; GroupUsage measures the
// Chromium process groups for a Source. The daemon serves a Set's Handler
// at /metrics (admin only) and, with --metrics-listen, without a token on
// an address of its own.
package metrics

import (
	"context"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/browserd/browserd/internal/egress"
	"github.com/browserd/browserd/internal/tool"
)

// Outcomes of what is counted by outcome.
const (
	OK    = "ok"
	Error = "error"
)

// Other is the label value of anything outside a label's fixed list.
const Other = "other"

// Buckets are the histograms' upper bounds in seconds, 5 ms to 60 s: a
// snapshot answers in milliseconds, a navigation in seconds, a wait or a
// handoff in up to a minute.
var Buckets = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60}

// Set is browserd's metrics and the registry that serves them. Make one
// with New; its methods are safe for concurrent use and do nothing on a
// nil *Set.
type Set struct {
	reg *prometheus.Registry

	actions        *prometheus.CounterVec
	actionSeconds  *prometheus.HistogramVec
	captures       *prometheus.CounterVec
	captureSeconds prometheus.Histogram
	resumes        *prometheus.CounterVec
	takeovers      prometheus.Counter
	egress         *prometheus.CounterVec
	forwarded      *prometheus.CounterVec
	refusals       *prometheus.CounterVec
	storeErrors    *prometheus.CounterVec

	state *stateCollector
}

// New returns a Set with every metric registered on a registry of its
// own, with the Go runtime and process collectors. The gauges of sessions,
// tasks, tabs and Chromium read nothing until SetSource gives them a
// Source.
func New() *Set {
	s := &Set{
		reg: prometheus.NewRegistry(),
		actions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "browserd_actions_total",
			Help: "Browser tool actions carried out, by action and outcome (ok or error).",
		}, []string{"action", "outcome"}),
		actionSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "browserd_action_seconds",
			Help:    "How long browser tool actions took, by action.",
			Buckets: Buckets,
		}, []string{"action"}),
		captures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "browserd_captures_total",
			Help: "State captures of sessions, by outcome (ok or error).",
		}, []string{"outcome"}),
		captureSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "browserd_capture_seconds",
			Help:    "How long state captures of sessions took.",
			Buckets: Buckets,
		}),
		resumes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "browserd_resumes_total",
			Help: "Sessions brought back after a restart or a browser crash (session_resume, auto-rehydrate), by outcome (ok or error).",
		}, []string{"outcome"}),
		takeovers: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "browserd_lease_takeovers_total",
			Help: "Session leases taken over from another daemon whose lease had expired.",
		}),
		egress: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "browserd_egress_requests_total",
			Help: "Requests and tunnels the egress guard allowed, by outcome: ok when the upstream answered, error when it could not be reached.",
		}, []string{"outcome"}),
		forwarded: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "browserd_forwarded_requests_total",
			Help: "Requests forwarded to the node that runs their session, by kind (action: a tool call; api: a session's API route) and outcome (error: the node could not be reached or failed).",
		}, []string{"kind", "outcome"}),
		refusals: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "browserd_guard_refusals_total",
			Help: "Requests the egress guard refused, by rule.",
		}, []string{"rule"}),
		storeErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "browserd_store_errors_total",
			Help: "Store operations that failed, by operation (not found and conflict are answers, not failures).",
		}, []string{"op"}),
		state: &stateCollector{},
	}
	s.reg.MustRegister(
		s.actions, s.actionSeconds, s.captures, s.captureSeconds, s.resumes, s.takeovers,
		s.egress, s.forwarded, s.refusals, s.storeErrors, s.state,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	// Series whose labels are few and known start at zero, so that rate()
	// and alerts see them before the first event.
	for _, o := range []string{OK, Error} {
		s.captures.WithLabelValues(o)
		s.resumes.WithLabelValues(o)
		s.egress.WithLabelValues(o)
		for _, k := range []string{"action", "api"} {
			s.forwarded.WithLabelValues(k, o)
		}
	}
	for _, r := range egress.RefusalKinds {
		s.refusals.WithLabelValues(r)
	}
	for _, op := range storeOps {
		s.storeErrors.WithLabelValues(op)
	}
	return s
}

// Handler serves the Set's metrics in the Prometheus text format (or
// OpenMetrics, when the scraper asks for it). On a nil *Set it answers
// 404.
func (s *Set) Handler() http.Handler {
	if s == nil {
		return http.NotFoundHandler()
	}
	return promhttp.HandlerFor(s.reg, promhttp.HandlerOpts{Registry: s.reg, EnableOpenMetrics: true})
}

// Registry is the Set's registry, to register more collectors on or to
// gather from in tests; nil on a nil *Set.
func (s *Set) Registry() *prometheus.Registry {
	if s == nil {
		return nil
	}
	return s.reg
}

// Action counts one browser tool action that ended, ok or not, after d.
// Names outside tool.Actions count as "other".
func (s *Set) Action(name string, ok bool, d time.Duration) {
	if s == nil {
		return
	}
	name = bound(name, tool.Actions)
	s.actions.WithLabelValues(name, outcome(ok)).Inc()
	s.actionSeconds.WithLabelValues(name).Observe(d.Seconds())
}

// Capture counts one state capture of a session that took d.
func (s *Set) Capture(ok bool, d time.Duration) {
	if s == nil {
		return
	}
	s.captures.WithLabelValues(outcome(ok)).Inc()
	s.captureSeconds.Observe(d.Seconds())
}

// Resume counts one session brought back (or that failed to be).
func (s *Set) Resume(ok bool) {
	if s == nil {
		return
	}
	s.resumes.WithLabelValues(outcome(ok)).Inc()
}

// LeaseTakeover counts one session lease taken over from another daemon.
func (s *Set) LeaseTakeover() {
	if s == nil {
		return
	}
	s.takeovers.Inc()
}

// Egress counts one request or tunnel the egress guard allowed: ok when
// its upstream answered. Its signature is egress.Options.OnForward's.
func (s *Set) Egress(ok bool) {
	if s == nil {
		return
	}
	s.egress.WithLabelValues(outcome(ok)).Inc()
}

// Forwarded counts one request forwarded to another node, by kind
// ("action" or "api"; others count as "other").
func (s *Set) Forwarded(kind string, ok bool) {
	if s == nil {
		return
	}
	s.forwarded.WithLabelValues(bound(kind, []string{"action", "api"}), outcome(ok)).Inc()
}

// GuardRefused counts one request the egress guard refused, by the kind
// of rule (egress.RefusalKinds; others count as "other"). "" counts
// nothing, so that egress.RefusalKind's answer can be passed as it is. Its
// signature is egress.Options.OnRefuse's.
func (s *Set) GuardRefused(rule string) {
	if s == nil || rule == "" {
		return
	}
	s.refusals.WithLabelValues(bound(rule, egress.RefusalKinds)).Inc()
}

// StoreError counts one failed store operation (a Store method's name in
// snake case, see WrapStore; others count as "other").
func (s *Set) StoreError(op string) {
	if s == nil {
		return
	}
	s.storeErrors.WithLabelValues(bound(op, storeOps)).Inc()
}

func outcome(ok bool) string {
	if ok {
		return OK
	}
	return Error
}

// bound is v if the fixed list has it, else Other.
func bound(v string, list []string) string {
	if slices.Contains(list, v) {
		return v
	}
	return Other
}

// Stats is what the engine has at one moment, read at each scrape.
type Stats struct {
	// SessionsByState counts the sessions by state (the store's states:
	// active, recoverable, stale, closed, failed; others count as
	// "other").
	SessionsByState map[string]int
	// Tasks and Tabs are the open tasks and tabs of every session.
	Tasks, Tabs int
	// ChromiumProcesses is the number of Chromium processes running (every
	// browser's, helpers included); ChromiumRSSBytes their resident memory
	// together.
	ChromiumProcesses int
	ChromiumRSSBytes  int64
}

// Source tells what the engine has, at each scrape. Stats should answer
// within ctx (a few seconds) and be safe for concurrent use.
type Source interface {
	Stats(ctx context.Context) Stats
}

// SetSource makes the gauges of sessions, tasks, tabs and Chromium read
// src at each scrape; nil stops them (they are then left out).
func (s *Set) SetSource(src Source) {
	if s == nil {
		return
	}
	s.state.mu.Lock()
	defer s.state.mu.Unlock()
	s.state.src = src
}

// SessionStates are the label values of browserd_sessions, always
// reported (zero when the engine has none), besides "other" when a Source
// names another state.
var SessionStates = []string{"active", "recoverable", "stale", "closed", "failed"}

// StatsTimeout bounds a Source's Stats at each scrape.
const StatsTimeout = 5 * time.Second

var (
	sessionsDesc = prometheus.NewDesc("browserd_sessions", "Sessions by state.", []string{"state"}, nil)
	tasksDesc    = prometheus.NewDesc("browserd_tasks", "Open tasks of every session.", nil, nil)
	tabsDesc     = prometheus.NewDesc("browserd_tabs", "Open tabs of every task.", nil, nil)
	procsDesc    = prometheus.NewDesc("browserd_chromium_processes", "Chromium processes running, helpers included.", nil, nil)
	memDesc      = prometheus.NewDesc("browserd_chromium_memory_bytes", "Resident memory of the Chromium processes together.", nil, nil)
)

// stateCollector asks the Source for its Stats at each scrape.
type stateCollector struct {
	mu  sync.Mutex
	src Source
}

func (c *stateCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{sessionsDesc, tasksDesc, tabsDesc, procsDesc, memDesc} {
		ch <- d
	}
}

func (c *stateCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	src := c.src
	c.mu.Unlock()
	if src == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), StatsTimeout)
	defer cancel()
	st := src.Stats(ctx)
	byState := make(map[string]int, len(SessionStates)+1)
	for _, state := range SessionStates {
		byState[state] = 0
	}
	for state, n := range st.SessionsByState {
		byState[bound(state, SessionStates)] += n
	}
	for state, n := range byState {
		ch <- prometheus.MustNewConstMetric(sessionsDesc, prometheus.GaugeValue, float64(n), state)
	}
	ch <- prometheus.MustNewConstMetric(tasksDesc, prometheus.GaugeValue, float64(st.Tasks))
	ch <- prometheus.MustNewConstMetric(tabsDesc, prometheus.GaugeValue, float64(st.Tabs))
	ch <- prometheus.MustNewConstMetric(procsDesc, prometheus.GaugeValue, float64(st.ChromiumProcesses))
	ch <- prometheus.MustNewConstMetric(memDesc, prometheus.GaugeValue, float64(st.ChromiumRSSBytes))
}
