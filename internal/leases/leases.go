// Package leases is this node's part among several nodes on one store
// (package cluster, docs/cluster.md): it heartbeats its node and renews
// its sessions' leases every third of --lease-ttl (the heartbeat
// goroutine), forwards a call for a session another live node holds to
// that node, lets go of a session whose lease
// another node took (without capturing it: the captures are the new
// holder's now), and with --auto-rehydrate takes over the sessions of
// nodes that died or stopped.
package leases

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/browserd/browserd/internal/cluster"
	"github.com/browserd/browserd/internal/metrics"
	"github.com/browserd/browserd/internal/recovery"
	"github.com/browserd/browserd/internal/sessions"
	"github.com/browserd/browserd/internal/store"
	"github.com/browserd/browserd/internal/tool"
)

// Holder is this daemon among the others on the store: its heartbeat and
// its sessions' leases.
type Holder struct {
	*sessions.Registry
	*recovery.Recovery
}

// LeaseTTL is how long a session's lease lasts unless renewed.
func (e *Holder) LeaseTTL() time.Duration {
	if e.Cfg.LeaseTTL > 0 {
		return e.Cfg.LeaseTTL
	}
	return 15 * time.Second
}

// Cluster is the engine's view of the other nodes; the daemon mounts its
// handlers.
func (e *Holder) Cluster() *cluster.Cluster { return e.Members }

// Advertise publishes the URL other nodes reach this one at ("" : none)
// and beats at once, so that they see it.
func (e *Holder) Advertise(ctx context.Context, url string) {
	e.Members.SetURL(url)
	if err := e.Members.Beat(ctx, e.Load()); err != nil {
		e.Log.Warn("heartbeat failed", "err", err)
	}
}

// Load is what this node's heartbeat tells.
func (e *Holder) Load() cluster.Load {
	var (
		l    cluster.Load
		pids []int
	)
	e.Mu.Lock()
	for _, s := range e.Sessions {
		if s.Stored && !s.Parked {
			l.Sessions++
		}
	}
	l.Tabs = len(e.Tabs)
	for _, sl := range e.Slots {
		if sl.Br != nil && !sl.Br.Attached() {
			pids = append(pids, sl.Br.PID())
		}
	}
	e.Mu.Unlock()
	_, l.ChromiumBytes = metrics.GroupUsage(pids...)
	return l
}

// Heartbeat beats and renews the live sessions' leases every third of the
// lease TTL, until the engine stops; nothing slow runs on it, so that a
// busy node never loses its sessions. With --auto-rehydrate it also runs
// the adopter, which takes over orphaned sessions, woken on every beat.
func (e *Holder) Heartbeat() {
	tick := time.NewTicker(e.Members.Every())
	defer tick.Stop()
	var (
		wake    chan struct{}
		adopter sync.WaitGroup
	)
	if e.Cfg.AutoRehydrate {
		wake = make(chan struct{}, 1)
		adopter.Go(func() {
			for {
				select {
				case <-e.Stop:
					return
				case <-wake:
					e.adoptOrphans()
				}
			}
		})
	}
	defer adopter.Wait()
	for {
		select {
		case <-e.Stop:
			return
		case <-tick.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), e.Members.Every())
		e.renewLeases(ctx)
		if err := e.Members.Beat(ctx, e.Load()); err != nil {
			e.Log.Warn("heartbeat failed", "err", err)
		}
		cancel()
		select {
		case wake <- struct{}{}: // nil without --auto-rehydrate: never
		default:
		}
	}
}

// renewLeases renews the lease of every live session; a session whose
// lease another node holds now is let go.
func (e *Holder) renewLeases(ctx context.Context) {
	var live []*sessions.Session
	e.Mu.Lock()
	for _, s := range e.Sessions {
		if s.Stored && !s.Parked && !s.Closing {
			live = append(live, s)
		}
	}
	e.Mu.Unlock()
	now := time.Now()
	for _, s := range live {
		ok, err := e.Store.AcquireLease(ctx, s.ID, e.Node, now, e.LeaseTTL())
		switch {
		case err != nil:
			e.Log.Warn("renewing a session's lease failed", "session", s.ID, "err", err)
		case !ok:
			e.letGo(s, "another node took its lease over")
		}
	}
}

// letGo drops a live session whose lease another node took (this node
// stalled past its lease): its tabs close without a capture, which would
// overwrite the new holder's.
func (e *Holder) letGo(s *sessions.Session, why string) {
	e.Mu.Lock()
	if e.Sessions[s.ID] != s {
		e.Mu.Unlock()
		return
	}
	s.Stored = false
	e.Mu.Unlock()
	e.Log.Warn("letting a session go: it runs on another node now", "session", s.ID, "why", why)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if s.Profile == "" {
		e.Discard(ctx, s)
	} else {
		e.CloseSessionTabs(ctx, s)
		e.Mu.Lock()
		if e.Sessions[s.ID] == s {
			delete(e.Sessions, s.ID)
		}
		e.Mu.Unlock()
	}
}

// adoptOrphans resumes, one by one, the active sessions no node holds a
// lease on (their node died, or stopped and handed them over); of nodes
// racing for one, the lease lets exactly one win.
func (e *Holder) adoptOrphans() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	orphans, err := e.Store.Orphans(ctx, time.Now())
	cancel()
	if err != nil {
		e.Log.Warn("listing orphaned sessions failed", "err", err)
		return
	}
	for _, o := range orphans {
		select {
		case <-e.Stop:
			return
		default:
		}
		e.Mu.Lock()
		cur := e.Sessions[o.ID]
		here := cur != nil && cur.Stored && !cur.Parked
		e.Mu.Unlock()
		if here {
			continue // brought back here by a call meanwhile
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		_, rep, err := e.Resume(ctx, o.ID, false)
		cancel()
		if err != nil {
			e.Log.Info("taking over an orphaned session failed (another node may have won it)", "session", o.ID, "err", err)
			continue
		}
		e.Log.Info("took over an orphaned session", "session", o.ID, "tabs", len(rep.Tabs))
	}
}

// route says where a call for session (qualified) goes: nil for here.
// Calls another node forwarded, and sessions live here, are served here.
func (e *Holder) route(ctx context.Context, session string) (*cluster.Peer, error) {
	if session == "" || cluster.Forwarded(ctx) {
		return nil, nil
	}
	e.Mu.Lock()
	s := e.Sessions[session]
	here := s != nil && s.Stored && !s.Parked
	e.Mu.Unlock()
	if here {
		return nil, nil
	}
	return e.Members.Locate(ctx, session)
}

// Route is route for the API's session routes (cluster.Router): owner's
// session by its bare name.
func (e *Holder) Route(ctx context.Context, owner, session string) (*cluster.Peer, error) {
	if err := sessions.CheckName("session", session); err != nil {
		return nil, nil // the API answers it
	}
	return e.route(ctx, sessions.Qualify(owner, session))
}

// forward runs a call on the node that holds its session; done is false
// when the call is to be served here (the session is here or free, or its
// node died and its lease ran out meanwhile).
func (e *Holder) Forward(ctx context.Context, owner string, orig tool.Input, session string) (res tool.Result, done bool) {
	p, err := e.route(ctx, session)
	if err != nil {
		return tool.Result{Action: orig.Action, Error: "finding the node that runs the session: " + err.Error()}, true
	}
	if p == nil {
		return tool.Result{}, false
	}
	res, err = e.Members.Do(ctx, p, owner, orig)
	if errors.Is(err, cluster.ErrServeHere) {
		return tool.Result{}, false
	}
	if err != nil {
		return tool.Result{Action: orig.Action, Error: err.Error()}, true
	}
	return res, true
}

// Nodes lists the nodes on the store (GET /api/nodes, browserd nodes).
func (e *Holder) Nodes(ctx context.Context) ([]cluster.NodeInfo, error) {
	ns, err := e.Members.Nodes(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading the node registry: %w", err)
	}
	return ns, nil
}

// LeaveCluster removes this node from the registry at a clean stop (its
// leases are released with its sessions' final captures).
func (e *Holder) LeaveCluster(ctx context.Context) {
	if err := e.Members.Leave(ctx); err != nil && !errors.Is(err, store.ErrNotFound) {
		e.Log.Warn("leaving the node registry failed", "err", err)
	}
}
