package cluster

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/browserd/browserd/internal/auth"
	"github.com/browserd/browserd/internal/policy"
	"github.com/browserd/browserd/internal/sealkey"
	"github.com/browserd/browserd/internal/store"
	"github.com/browserd/browserd/internal/store/sqlite"
	"github.com/browserd/browserd/internal/tool"
)

// shared opens one SQLite store for the nodes of a test and a key they
// all derive.
func shared(t *testing.T) (store.Store, []byte) {
	t.Helper()
	dir := t.TempDir()
	box, err := sealkey.Load(filepath.Join(dir, "secret.key"))
	if err != nil {
		t.Fatal(err)
	}
	st, err := sqlite.Open(filepath.Join(dir, "db"), box)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, box.Derive("cluster")
}

func node(st store.Store, key []byte, id string, ttl time.Duration) *Cluster {
	return New(Options{Store: st, Node: id, Key: key, TTL: ttl})
}

func TestSignVerify(t *testing.T) {
	st, key := shared(t)
	a := node(st, key, "a", 15*time.Second)
	b := node(st, key, "b", 15*time.Second)
	req := httptest.NewRequest("POST", "/api/sessions/s/actions?x=1", nil)
	req.Header.Set("Authorization", "Bearer bd_secret")
	a.sign(req, "alice")
	if req.Header.Get("Authorization") != "" {
		t.Error("a forwarded request carries the caller's token on")
	}
	owner, ok, err := b.verify(req)
	if !ok || err != nil || owner != "alice" {
		t.Fatalf("verify = %q, %v, %v; want alice", owner, ok, err)
	}
	for name, tamper := range map[string]func(r *http.Request){
		"owner":  func(r *http.Request) { r.Header.Set(HeaderOwner, "admin") },
		"node":   func(r *http.Request) { r.Header.Set(HeaderNode, "c") },
		"method": func(r *http.Request) { r.Method = "DELETE" },
		"path":   func(r *http.Request) { r.URL.Path = "/api/sessions/other/actions" },
		"query":  func(r *http.Request) { r.URL.RawQuery = "x=2" },
		"policy added": func(r *http.Request) {
			r.Header.Set(HeaderPolicy, encodePolicy(policy.MustParse(`{"confirm":["upload"]}`)))
		},
		"garbage": func(r *http.Request) {
			r.Header.Set(HeaderSignature, "t=1,s=zz")
		},
		"old": func(r *http.Request) {
			old := strconv.FormatInt(time.Now().Add(-2*MaxSkew).Unix(), 10)
			r.Header.Set(HeaderSignature, "t="+old+",s="+hex.EncodeToString(a.mac(old, "a", "alice", r.Method, r.URL.RequestURI(), "")))
		},
	} {
		r := req.Clone(context.Background())
		tamper(r)
		if _, ok, err := b.verify(r); !ok || err == nil {
			t.Errorf("%s tampered: verify = %v, %v; want a refusal", name, ok, err)
		}
	}
	// Another key (another --secret-key-file) does not verify.
	st2, key2 := shared(t)
	if _, _, err := node(st2, key2, "x", time.Minute).verify(req); err == nil {
		t.Error("a node with another key accepted the signature")
	}
	plain := httptest.NewRequest("GET", "/api/sessions", nil)
	if _, ok, _ := b.verify(plain); ok {
		t.Error("an unsigned request counts as signed")
	}
}

func TestTrust(t *testing.T) {
	st, key := shared(t)
	a, b := node(st, key, "a", time.Minute), node(st, key, "b", time.Minute)
	var got string
	signed := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = auth.Owner(r.Context())
		if !Forwarded(r.Context()) {
			t.Error("a signed request is not marked forwarded")
		}
	})
	unsigned := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got = "unsigned" })
	h := b.Trust(signed, unsigned)

	req := httptest.NewRequest("GET", "/api/sessions/s/state", nil)
	a.sign(req, "bob")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != 200 || got != "bob" {
		t.Errorf("signed: %d, owner %q; want 200 as bob", rec.Code, got)
	}
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/api/sessions/s/state", nil))
	if got != "unsigned" {
		t.Errorf("unsigned request went to %q", got)
	}
	// A token's policy goes along, signed; taking it off or changing it
	// breaks the signature.
	var gotPol *policy.Policy
	withPol := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { gotPol = policy.From(r.Context()) })
	pol := policy.MustParse(`{"deny":["evaluate"],"hosts":["example.com"]}`).Named("token tk_1")
	req = httptest.NewRequestWithContext(policy.With(t.Context(), pol), "GET", "/api/sessions/s/state", nil)
	a.sign(req, "bob")
	b.Trust(withPol, unsigned).ServeHTTP(httptest.NewRecorder(), req)
	if gotPol.JSON() != pol.JSON() || gotPol.Source != "token tk_1" {
		t.Errorf("the forwarded policy: %s from %q", gotPol.JSON(), gotPol.Source)
	}
	for name, tamper := range map[string]func(r *http.Request){
		"removed": func(r *http.Request) { r.Header.Del(HeaderPolicy) },
		"changed": func(r *http.Request) { r.Header.Set(HeaderPolicy, encodePolicy(policy.MustParse(`{"deny":["pdf"]}`))) },
	} {
		r := req.Clone(t.Context())
		tamper(r)
		rec = httptest.NewRecorder()
		b.Trust(withPol, unsigned).ServeHTTP(rec, r)
		if rec.Code != http.StatusUnauthorized {
			t.Errorf("policy %s: %d, want 401", name, rec.Code)
		}
	}
	bad := httptest.NewRequest("GET", "/api/sessions/s/state", nil)
	a.sign(bad, "Not An Owner")
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, bad)
	if rec.Code != http.StatusUnauthorized {
		t.Errorf("a signed request with an invalid owner: %d, want 401", rec.Code)
	}
}

// peerEngine answers tool calls with what it was asked, as the owner it
// was told.
type peerEngine struct{}

func (peerEngine) Do(ctx context.Context, in tool.Input) (tool.Result, error) {
	return tool.Result{Action: in.Action, Success: true, Content: auth.Owner(ctx) + ":" + in.Session, Image: []byte{1, 2, 3}}, nil
}

func TestLocateAndForward(t *testing.T) {
	ctx := t.Context()
	st, key := shared(t)
	ttl := 3 * time.Second
	a, b := node(st, key, "a", ttl), node(st, key, "b", ttl)

	// b serves its API: the DoHandler behind Trust, and a session route.
	mux := http.NewServeMux()
	mux.Handle("POST "+DoPath, b.Trust(b.DoHandler(peerEngine{}), http.NotFoundHandler()))
	mux.Handle("/api/", b.Trust(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "b serves "+r.URL.Path+" for "+auth.Owner(r.Context()))
	}), http.NotFoundHandler()))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	b.SetURL(srv.URL)
	for _, c := range []*Cluster{a, b} {
		if err := c.Beat(ctx, Load{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.CreateSession(ctx, store.Session{ID: "alice~s", Owner: "alice"}); err != nil {
		t.Fatal(err)
	}
	if p, err := a.Locate(ctx, "alice~s"); p != nil || err != nil {
		t.Fatalf("Locate(no lease) = %+v, %v; want here", p, err)
	}
	if ok, err := st.AcquireLease(ctx, "alice~s", "b", time.Now(), ttl); !ok || err != nil {
		t.Fatal(ok, err)
	}
	p, err := a.Locate(ctx, "alice~s")
	if err != nil || p == nil || p.ID != "b" || p.URL != srv.URL {
		t.Fatalf("Locate(b's lease) = %+v, %v; want b at %s", p, err, srv.URL)
	}
	if p, err := b.Locate(ctx, "alice~s"); p != nil || err != nil {
		t.Errorf("b.Locate(its own) = %+v, %v; want here", p, err)
	}
	res, err := a.Do(ctx, p, "alice", tool.Input{Action: "snapshot", Session: "s"})
	if err != nil || !res.Success || res.Content != "alice:s" || string(res.Image) != "\x01\x02\x03" {
		t.Fatalf("Do = %+v, %v; want b's answer as alice, with the image", res, err)
	}
	// A session route through a's Proxy reaches b, signed as the caller.
	route := func(ctx context.Context, owner, session string) (*Peer, error) {
		return a.Locate(ctx, owner+"~"+session)
	}
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a.Proxy(route, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "a serves it") })).
			ServeHTTP(w, r.WithContext(auth.WithOwner(r.Context(), "alice")))
	}))
	defer front.Close()
	body := get(t, front.URL+"/api/sessions/s/state")
	if body != "b serves /api/sessions/s/state for alice" {
		t.Errorf("proxied: %q", body)
	}
	if body := get(t, front.URL+"/api/sessions/other/state"); body != "a serves it" {
		t.Errorf("a session no node holds: %q, want served here", body)
	}

	// b dies: its address refuses connections. The next call waits for
	// b's lease to run out and is then served here.
	srv.Close()
	start := time.Now()
	_, err = a.Do(ctx, p, "alice", tool.Input{Action: "snapshot", Session: "s"})
	if !errors.Is(err, ErrServeHere) {
		t.Fatalf("Do to a dead node = %v, want ErrServeHere", err)
	}
	if _, until, _ := st.LeaseHolder(ctx, "alice~s"); time.Now().Before(until) {
		t.Errorf("served here at %v, before b's lease ran out at %v", time.Now(), until)
	}
	t.Logf("took over after %v", time.Since(start))
	// And through the proxy.
	if ok, err := st.AcquireLease(ctx, "alice~s", "b", time.Now(), ttl); !ok || err != nil {
		t.Fatal(ok, err)
	}
	if body := get(t, front.URL+"/api/sessions/s/state"); body != "a serves it" {
		t.Errorf("proxied to a dead node: %q, want served here after the lease ran out", body)
	}
}

func TestLocateDeadNodeWaits(t *testing.T) {
	ctx := t.Context()
	st, key := shared(t)
	ttl := 3 * time.Second
	a := node(st, key, "a", ttl)
	if err := st.CreateSession(ctx, store.Session{ID: "s"}); err != nil {
		t.Fatal(err)
	}
	// c holds the lease but its last heartbeat is older than the TTL:
	// Locate waits for the lease.
	if err := st.Heartbeat(ctx, store.Node{ID: "c", URL: "http://127.0.0.1:9", Instance: "x", Heartbeat: time.Now().Add(-2 * ttl)}, ttl); err != nil {
		t.Fatal(err)
	}
	if ok, err := st.AcquireLease(ctx, "s", "c", time.Now(), ttl); !ok || err != nil {
		t.Fatal(ok, err)
	}
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	if _, err := a.Locate(short, "s"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Locate with a short deadline = %v, want it to give up waiting", err)
	}
	p, err := a.Locate(ctx, "s")
	if p != nil || err != nil {
		t.Errorf("Locate(dead holder) = %+v, %v; want here once the lease ran out", p, err)
	}
	// A holder the registry does not know (a daemon of an older
	// version), or a dead one whose lease runs far longer than this
	// cluster's: not waited for; the engine refuses the session.
	for _, holder := range []string{"unknown", "c"} {
		if err := st.ReleaseLease(ctx, "s", "c"); err != nil {
			t.Fatal(err)
		}
		if err := st.ReleaseLease(ctx, "s", "unknown"); err != nil {
			t.Fatal(err)
		}
		if ok, err := st.AcquireLease(ctx, "s", holder, time.Now(), time.Hour); !ok || err != nil {
			t.Fatal(ok, err)
		}
		// Waiting would end in the deadline's error.
		short, cancel := context.WithTimeout(ctx, time.Minute)
		if p, err := a.Locate(short, "s"); p != nil || err != nil {
			t.Errorf("Locate(%s's hour-long lease) = %+v, %v; want here, without waiting", holder, p, err)
		}
		cancel()
	}
}

func TestNodesAndBeat(t *testing.T) {
	ctx := t.Context()
	st, key := shared(t)
	a := node(st, key, "a", 15*time.Second)
	a.SetURL("http://10.0.0.1:8765/")
	if err := a.Beat(ctx, Load{Sessions: 2, Tabs: 5, ChromiumBytes: 300 << 20}); err != nil {
		t.Fatal(err)
	}
	twin := node(st, key, "a", 15*time.Second)
	if err := twin.Beat(ctx, Load{}); !errors.Is(err, store.ErrNodeInUse) || !strings.Contains(err.Error(), "--node-id") {
		t.Errorf("a second daemon under a live node's id: %v, want ErrNodeInUse naming --node-id", err)
	}
	rec := httptest.NewRecorder()
	a.NodesHandler().ServeHTTP(rec, httptest.NewRequest("GET", "/api/nodes", nil))
	var l struct {
		Nodes []NodeInfo `json:"nodes"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &l); err != nil {
		t.Fatal(err)
	}
	if len(l.Nodes) != 1 || !l.Nodes[0].Live || !l.Nodes[0].Self || l.Nodes[0].Tabs != 5 || l.Nodes[0].URL != "http://10.0.0.1:8765" {
		t.Errorf("nodes = %+v", l.Nodes)
	}
	if err := a.Leave(ctx); err != nil {
		t.Fatal(err)
	}
	if ns, _ := a.Nodes(ctx); len(ns) != 0 {
		t.Errorf("after Leave: %+v", ns)
	}
}

func TestDialFailed(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	_, err = http.Get("http://" + addr + "/")
	if !dialFailed(err) {
		t.Errorf("a refused connection is not a dial failure: %v", err)
	}
}

func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}
