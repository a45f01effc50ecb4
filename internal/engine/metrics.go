package engine

import (
	"context"

	"github.com/browserd/browserd/internal/metrics"
)

// WithMetrics makes the engine count into m (internal/metrics) instead of
// a set of its own.
func WithMetrics(m *metrics.Set) Option { return func(e *Engine) { e.Counters = m } }

// Metrics is the engine's metrics set, which the daemon serves at
// /metrics.
func (e *Engine) Metrics() *metrics.Set { return e.Counters }

// Stats is what the engine has now, for the metrics' gauges: sessions by
// state (from the store), open tasks and tabs, and the Chromium processes
// of its browsers with their memory.
func (e *Engine) Stats(ctx context.Context) metrics.Stats {
	st := metrics.Stats{SessionsByState: map[string]int{}}
	if rows, err := e.Store.ListSessions(ctx, "", ""); err == nil {
		for _, r := range rows {
			st.SessionsByState[string(r.State)]++
		}
	}
	var pids []int
	e.Mu.Lock()
	for _, s := range e.Sessions {
		st.Tasks += len(s.Tasks)
	}
	st.Tabs = len(e.Tabs)
	for _, sl := range e.Slots {
		if sl.Br != nil && !sl.Br.Attached() {
			pids = append(pids, sl.Br.PID())
		}
	}
	e.Mu.Unlock()
	st.ChromiumProcesses, st.ChromiumRSSBytes = metrics.GroupUsage(pids...)
	return st
}
