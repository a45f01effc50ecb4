// Package cluster lets several browserd nodes that share one store act as
// one server. PostgreSQL (or a shared SQLite file) is the only source of
// truth and its row locks the only coordination; there is no consensus of
// our own.
//
//   - Registry: every node heartbeats its row in the store's node registry
//     (store.Nodes) every third of --lease-ttl, with its URL and load, and
//     renews the leases of the sessions it runs on the same beat. A node
//     whose heartbeat is older than the TTL is dead.
//   - Routing: a request for a session another live node holds (its lease
//     is unexpired) is forwarded there: a tool call (MCP, POST
//     /api/actions) as POST /api/cluster/do, a session's API route as the
//     same request, streamed. The caller's token is checked once, at the
//     node it called; the forwarded request carries the owner it found,
//     signed with a key every node derives from the shared secret key
//     (secret.Box.Derive), and is never forwarded again.
//   - Failover: when the holder does not answer (kill -9, a lost machine)
//     the request waits until the holder's lease expires and is then
//     served where it arrived, which takes the session over from its last
//     capture (the engine's recovery path). Exactly one node wins a
//     session: taking a lease is a compare-and-set in the store.
//
// The engine owns a Cluster and decides what is local; package daemon
// mounts the handlers.
package cluster

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/browserd/browserd/internal/policy"
	"github.com/browserd/browserd/internal/store"
)

// Headers of a request one node sends another.
const (
	HeaderNode      = "X-Browserd-Node"
	HeaderOwner     = "X-Browserd-Owner"
	HeaderSignature = "X-Browserd-Signature"
	// HeaderPolicy carries the caller's token policy (signed with the
	// rest), when it has one.
	HeaderPolicy = "X-Browserd-Policy"
)

// MaxSkew is how far a signed request's time may be from the receiver's
// clock: the nodes' clocks must agree this well (NTP does).
const MaxSkew = time.Minute

// Options configure a Cluster.
type Options struct {
	Store store.Nodes
	// Node is this daemon's id on leases and in the registry.
	Node string
	// Instance tells this daemon apart from another one heartbeating
	// under the same Node: it names the data folder, so that a daemon
	// restarted on its folder (after a kill -9, with its old heartbeat
	// still fresh) is not taken for another.
	Instance string
	// Key signs requests between nodes; every node derives the same one
	// from the shared secret key.
	Key []byte
	// TTL is --lease-ttl: how long a lease outlives its last renewal; a
	// node silent longer is dead.
	TTL     time.Duration
	Version string
	Log     *slog.Logger
	// OnForward counts a forwarded request: kind "action" or "api",
	// ok false when the peer could not be reached or failed.
	OnForward func(kind string, ok bool)
}

// Cluster is one node's view of the others. Safe for concurrent use.
type Cluster struct {
	st        store.Nodes
	node      string
	instance  string
	key       []byte
	ttl       time.Duration
	version   string
	log       *slog.Logger
	onForward func(kind string, ok bool)
	client    *http.Client
	started   time.Time

	mu    sync.Mutex
	url   string                // advertised; "" until SetURL
	nodes map[string]store.Node // the registry as last read
	read  time.Time             // when nodes was read
}

// New returns a Cluster. It does not write to the store until Beat.
func New(o Options) *Cluster {
	instance := o.Instance
	if instance == "" {
		var r [8]byte
		_, _ = rand.Read(r[:])
		instance = hex.EncodeToString(r[:])
	}
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Cluster{
		st: o.Store, node: o.Node, instance: instance, key: o.Key, ttl: o.TTL,
		version: o.Version, log: log, onForward: o.OnForward, started: time.Now(),
		client: &http.Client{Transport: &http.Transport{
			DialContext:           (&net.Dialer{Timeout: 3 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			MaxIdleConnsPerHost:   16,
			IdleConnTimeout:       90 * time.Second,
			ResponseHeaderTimeout: 0, // a forwarded handoff may wait for a person
		}},
	}
}

// Node is this node's id.
func (c *Cluster) Node() string { return c.node }

// TTL is the lease TTL.
func (c *Cluster) TTL() time.Duration { return c.ttl }

// Every is how often a node heartbeats and renews its leases.
func (c *Cluster) Every() time.Duration { return c.ttl / 3 }

// SetURL sets the URL other nodes reach this one at ("" : none); the next
// Beat publishes it.
func (c *Cluster) SetURL(u string) {
	c.mu.Lock()
	c.url = strings.TrimSuffix(u, "/")
	c.mu.Unlock()
}

// Load is what a heartbeat tells of a node.
type Load struct {
	Sessions, Tabs int
	ChromiumBytes  int64
}

// Beat writes this node's heartbeat. It fails (wrapping
// store.ErrNodeInUse) when another live daemon heartbeats under the same
// node id.
func (c *Cluster) Beat(ctx context.Context, l Load) error {
	c.mu.Lock()
	u := c.url
	c.mu.Unlock()
	err := c.st.Heartbeat(ctx, store.Node{ID: c.node, URL: u, Instance: c.instance, Version: c.version,
		StartedAt: c.started, Sessions: l.Sessions, Tabs: l.Tabs, ChromiumBytes: l.ChromiumBytes}, c.ttl)
	if errors.Is(err, store.ErrNodeInUse) {
		return fmt.Errorf("another browserd runs as node %q on this store (%w); give each daemon its own --node-id", c.node, err)
	}
	return err
}

// Leave removes this node from the registry (a clean stop).
func (c *Cluster) Leave(ctx context.Context) error { return c.st.RemoveNode(ctx, c.node, c.instance) }

// NodeInfo is one node as GET /api/nodes shows it.
type NodeInfo struct {
	ID            string    `json:"id"`
	URL           string    `json:"url,omitempty"`
	Self          bool      `json:"self,omitempty"`
	Live          bool      `json:"live"`
	Version       string    `json:"version,omitempty"`
	StartedAt     time.Time `json:"startedAt"`
	Heartbeat     time.Time `json:"heartbeat"`
	Sessions      int       `json:"sessions"`
	Tabs          int       `json:"tabs"`
	ChromiumBytes int64     `json:"chromiumBytes"`
}

// Nodes lists the registry, each node marked live or not.
func (c *Cluster) Nodes(ctx context.Context) ([]NodeInfo, error) {
	ns, err := c.st.ListNodes(ctx)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	out := make([]NodeInfo, 0, len(ns))
	for _, n := range ns {
		out = append(out, NodeInfo{ID: n.ID, URL: n.URL, Self: n.ID == c.node && n.Instance == c.instance,
			Live: c.live(n, now), Version: n.Version, StartedAt: n.StartedAt, Heartbeat: n.Heartbeat,
			Sessions: n.Sessions, Tabs: n.Tabs, ChromiumBytes: n.ChromiumBytes})
	}
	return out, nil
}

// live: the node's last heartbeat is younger than the TTL.
func (c *Cluster) live(n store.Node, now time.Time) bool { return now.Sub(n.Heartbeat) < c.ttl }

// Peer is a node that holds a session.
type Peer struct {
	ID  string
	URL string
	// Session is the session's name as the store knows it.
	Session string
	// Until is when its lease of the session expires unless renewed.
	Until time.Time
}

// Locate finds the node a request for session (qualified) should go to:
// nil when this node should serve it (no lease, an expired one, its own,
// or a holder that is dead and whose lease has run out meanwhile). For a
// holder that is dead but whose lease still runs, Locate waits until the
// lease expires (bounded by ctx), so that the caller then takes the
// session over.
func (c *Cluster) Locate(ctx context.Context, session string) (*Peer, error) {
	for {
		holder, until, err := c.st.LeaseHolder(ctx, session)
		if errors.Is(err, store.ErrNotFound) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		now := time.Now()
		if holder == c.node || !until.After(now) {
			return nil, nil
		}
		n, ok, err := c.lookup(ctx, holder)
		if err != nil {
			return nil, err
		}
		switch {
		case !ok || ok && c.live(n, now) && n.URL == "":
			// Not a node of the registry (a daemon of an older version),
			// or one that serves no address the others reach (no
			// --listen): this node answers, refusing a session another
			// daemon holds.
			return nil, nil
		case c.live(n, now):
			return &Peer{ID: holder, URL: n.URL, Session: session, Until: until}, nil
		case until.Sub(now) > 2*c.ttl:
			// Dead, but its lease runs longer than this cluster's leases
			// do: not worth waiting for.
			return nil, nil
		}
		// Dead: its lease is all that keeps the session, and it runs out
		// soon; then look again, as another node may have taken the
		// session meanwhile.
		if err := c.awaitExpiry(ctx, session, holder, until); err != nil {
			return nil, err
		}
	}
}

// lookup reads a node's row, from the cached registry when it is fresh
// (one read per second at most, unless a node is missing from it).
func (c *Cluster) lookup(ctx context.Context, id string) (store.Node, bool, error) {
	c.mu.Lock()
	n, ok := c.nodes[id]
	fresh := time.Since(c.read) < time.Second
	c.mu.Unlock()
	if ok && fresh {
		return n, true, nil
	}
	ns, err := c.st.ListNodes(ctx)
	if err != nil {
		return store.Node{}, false, err
	}
	m := make(map[string]store.Node, len(ns))
	for _, n := range ns {
		m[n.ID] = n
	}
	c.mu.Lock()
	c.nodes, c.read = m, time.Now()
	c.mu.Unlock()
	n, ok = m[id]
	return n, ok, nil
}

// forget drops the cached registry: a peer failed to answer.
func (c *Cluster) forget() {
	c.mu.Lock()
	c.read = time.Time{}
	c.mu.Unlock()
}

// awaitExpiry waits until a dead holder's lease of session has run out,
// re-reading it in case the holder renews it (it was not dead after all)
// or another node takes it.
func (c *Cluster) awaitExpiry(ctx context.Context, session, holder string, until time.Time) error {
	c.log.Info("waiting for a dead node's lease to expire", "session", session, "node", holder, "in", time.Until(until).Round(time.Millisecond))
	for {
		d := time.Until(until) + 50*time.Millisecond
		if d <= 0 {
			return nil
		}
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("waiting for node %s's lease of the session to expire (it stopped answering; the session comes back here after --lease-ttl): %w", holder, ctx.Err())
		case <-t.C:
		}
		h, u, err := c.st.LeaseHolder(ctx, session)
		if errors.Is(err, store.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		if h != holder || !u.After(time.Now()) {
			return nil
		}
		until = u
	}
}

// sign sets the headers that make r a request of this node for owner.
func (c *Cluster) sign(r *http.Request, owner string) {
	t := strconv.FormatInt(time.Now().Unix(), 10)
	r.Header.Set(HeaderNode, c.node)
	r.Header.Set(HeaderOwner, owner)
	// The caller's token policy goes along, signed: the node that serves
	// the call holds it to the same policy (package policy).
	pol := encodePolicy(policy.From(r.Context()))
	r.Header.Del(HeaderPolicy)
	if pol != "" {
		r.Header.Set(HeaderPolicy, pol)
	}
	r.Header.Set(HeaderSignature, "t="+t+",s="+hex.EncodeToString(c.mac(t, c.node, owner, r.Method, r.URL.RequestURI(), pol)))
	r.Header.Del("Authorization")
}

// mac signs a request's parts; pol (the encoded policy) only when there
// is one, so that nodes without policies sign as before.
func (c *Cluster) mac(t, node, owner, method, uri, pol string) []byte {
	h := hmac.New(sha256.New, c.key)
	parts := []string{t, node, owner, method, uri}
	if pol != "" {
		parts = append(parts, pol)
	}
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return h.Sum(nil)
}

// wirePolicy is a token's policy as one node sends it to another.
type wirePolicy struct {
	Source string          `json:"source"`
	Policy json.RawMessage `json:"policy"`
}

func encodePolicy(p *policy.Policy) string {
	if p.Empty() {
		return ""
	}
	b, _ := json.Marshal(wirePolicy{Source: p.Source, Policy: json.RawMessage(p.JSON())})
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodePolicy(s string) (*policy.Policy, error) {
	if s == "" {
		return nil, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	var w wirePolicy
	if err == nil {
		err = json.Unmarshal(b, &w)
	}
	if err != nil {
		return nil, fmt.Errorf("the forwarded policy does not read: %w", err)
	}
	p, err := policy.Parse(w.Policy)
	if err != nil {
		return nil, fmt.Errorf("the forwarded policy: %w", err)
	}
	return p.Named(w.Source), nil
}

// errBadSignature is what a node answers a request whose signature does
// not check.
var errBadSignature = errors.New("the request claims to come from a browserd node but its signature does not check: every node needs the same --secret-key-file, and clocks within a minute of each other")

// verify checks r's node signature; ok false when r carries none.
func (c *Cluster) verify(r *http.Request) (owner string, ok bool, err error) {
	sig := r.Header.Get(HeaderSignature)
	if sig == "" {
		return "", false, nil
	}
	ts, s, found := strings.Cut(sig, ",s=")
	ts, hasT := strings.CutPrefix(ts, "t=")
	if !found || !hasT {
		return "", true, errBadSignature
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return "", true, errBadSignature
	}
	if d := time.Since(time.Unix(sec, 0)); d > MaxSkew || d < -MaxSkew {
		return "", true, errBadSignature
	}
	got, err := hex.DecodeString(s)
	if err != nil {
		return "", true, errBadSignature
	}
	owner = r.Header.Get(HeaderOwner)
	if !hmac.Equal(got, c.mac(ts, r.Header.Get(HeaderNode), owner, r.Method, r.URL.RequestURI(), r.Header.Get(HeaderPolicy))) || owner == "" {
		return "", true, errBadSignature
	}
	return owner, true, nil
}

type forwardedKey struct{}

// Forwarded reports whether ctx is a request another node forwarded
// here: it is served here, never forwarded again.
func Forwarded(ctx context.Context) bool {
	v, _ := ctx.Value(forwardedKey{}).(bool)
	return v
}

// dialFailed reports whether err happened before the request reached the
// peer (nothing was done there): a refused or timed-out connection.
func dialFailed(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}
