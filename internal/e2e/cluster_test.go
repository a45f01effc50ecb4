//go:build linux

package e2e

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	neturl "net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/browserd/browserd/internal/cluster"
	"github.com/browserd/browserd/internal/freeport"
	"github.com/browserd/browserd/internal/tool"
)

// clusterTTL is the tests' --lease-ttl: shorter than the default 15 s so
// that failover runs fit in the suite's time.
const clusterTTL = 6 * time.Second

// pgSchema returns a PostgreSQL URL of a fresh schema of the test server
// (BROWSERD_TEST_POSTGRES, which make test sets), dropped afterwards.
func pgSchema(t *testing.T) string {
	t.Helper()
	base := os.Getenv("BROWSERD_TEST_POSTGRES")
	if base == "" {
		t.Skip("needs BROWSERD_TEST_POSTGRES, a PostgreSQL URL: make test starts a throwaway cluster and sets it")
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var r [6]byte
	_, _ = rand.Read(r[:])
	schema := "e2e_" + hex.EncodeToString(r[:])
	if _, err := conn.Exec(ctx, `CREATE SCHEMA `+schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		conn, err := pgx.Connect(context.Background(), base)
		if err != nil {
			return
		}
		defer conn.Close(context.Background())
		_, _ = conn.Exec(context.Background(), `DROP SCHEMA `+schema+` CASCADE`)
	})
	u, err := neturl.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// clusterNode is one daemon of a test cluster.
type clusterNode struct {
	id, data, addr string
	args           []string
	cmd            *exec.Cmd
}

// testCluster starts n daemons on one store and one key.
type testCluster struct {
	t     *testing.T
	db    string
	key   string
	nodes []*clusterNode
}

func newTestCluster(t *testing.T, n int, extra ...string) *testCluster {
	c := &testCluster{t: t, db: pgSchema(t), key: filepath.Join(t.TempDir(), "cluster.key")}
	k := make([]byte, 32)
	_, _ = rand.Read(k)
	if err := os.WriteFile(c.key, k, 0o600); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		nd := &clusterNode{id: fmt.Sprintf("n%d", i+1), data: t.TempDir(), addr: freeAddr(t)}
		nd.args = append([]string{"--data", nd.data, "--allow-host", "127.0.0.1", "--listen", nd.addr,
			"--db", c.db, "--secret-key-file", c.key, "--node-id", nd.id,
			"--lease-ttl", clusterTTL.String(), "--snapshot-interval", "200ms"}, extra...)
		c.nodes = append(c.nodes, nd)
	}
	for _, nd := range c.nodes {
		c.start(nd)
	}
	return c
}

func (c *testCluster) start(nd *clusterNode) {
	nd.cmd = startDaemonArgs(c.t, nd.data, nd.args...)
	waitHTTP(c.t, "http://"+nd.addr+"/api/health")
}

// stop stops a node with SIGTERM (a graceful stop) and waits for it.
func (c *testCluster) stop(nd *clusterNode) {
	_ = nd.cmd.Process.Signal(syscall.SIGTERM)
	_, _ = nd.cmd.Process.Wait()
	waitNoChromium(c.t, nd.data)
}

// kill kills a node with SIGKILL; its Chromium dies with it (the
// daemon's process group watchdog) or is reaped by the next start.
func (c *testCluster) kill(nd *clusterNode) {
	_ = nd.cmd.Process.Kill()
	_, _ = nd.cmd.Process.Wait()
	waitNoChromium(c.t, nd.data)
	_ = os.Remove(filepath.Join(nd.data, "browserd.sock"))
}

func waitHTTP(t *testing.T, url string) {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if resp, err := http.Get(url); err == nil {
			resp.Body.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not answer in 15 s", url)
		}
	}
}

// tcpDo runs tool calls through POST /api/actions of the node at addr
// with token.
func tcpDo(t *testing.T, addr, token string) func(tool.Input) tool.Result {
	hc := &http.Client{Timeout: 90 * time.Second}
	return func(in tool.Input) tool.Result {
		t.Helper()
		b, _ := json.Marshal(in)
		req, _ := http.NewRequest("POST", "http://"+addr+"/api/actions", bytes.NewReader(b))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatalf("%s via %s: %v", in.Action, addr, err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		var r tool.Result
		if err := json.Unmarshal(raw, &r); err != nil || resp.StatusCode != 200 {
			t.Fatalf("%s via %s: %s %s", in.Action, addr, resp.Status, raw)
		}
		return r
	}
}

// nodesOf reads GET /api/nodes over a node's socket (as admin).
func nodesOf(t *testing.T, data string) map[string]cluster.NodeInfo {
	t.Helper()
	var l struct {
		Nodes []cluster.NodeInfo `json:"nodes"`
	}
	if code, raw := socketAPI(t, data).call("GET", "/api/nodes", nil, &l); code != 200 {
		t.Fatalf("GET /api/nodes: %d %s", code, raw)
	}
	m := map[string]cluster.NodeInfo{}
	for _, n := range l.Nodes {
		m[n.ID] = n
	}
	return m
}

// ownerToken makes a token of owner over a node's socket.
func ownerToken(t *testing.T, data, owner string) string {
	t.Helper()
	var tok struct {
		Token string `json:"token"`
	}
	if code, raw := socketAPI(t, data).call("POST", "/api/tokens", map[string]string{"owner": owner}, &tok); code != 200 && code != 201 {
		t.Fatalf("POST /api/tokens: %d %s", code, raw)
	}
	return tok.Token
}

// sessionsOn counts the live sessions of each node, as their heartbeats
// tell (within a beat).
func sessionsOn(t *testing.T, data string) map[string]int {
	t.Helper()
	out := map[string]int{}
	for id, n := range nodesOf(t, data) {
		if n.Live {
			out[id] = n.Sessions
		}
	}
	return out
}

// TestCluster is issue 15's acceptance run: three nodes on one PostgreSQL;
// a session made through node 1 is driven through nodes 2 and 3; node 1 is
// kill -9'd with three sessions logged in, and their next requests through
// nodes 2 and 3 bring them back logged in with storage and tabs equal,
// each on exactly one node; node 1 restarted does not take them back; a
// graceful stop of node 2 hands its sessions over with nothing lost.
func TestCluster(t *testing.T) {
	t.Parallel() // waits out leases (6 s): beside other tests (make test's budget)
	c := newTestCluster(t, 3)
	n1, n2, n3 := c.nodes[0], c.nodes[1], c.nodes[2]
	token := ownerToken(t, n1.data, "alice")
	do1, do2, do3 := tcpDo(t, n1.addr, token), tcpDo(t, n2.addr, token), tcpDo(t, n3.addr, token)

	nodes := nodesOf(t, n2.data)
	for _, nd := range c.nodes {
		if n := nodes[nd.id]; !n.Live || n.URL != "http://"+nd.addr {
			t.Errorf("node %s in the registry: %+v", nd.id, n)
		}
	}
	if !nodes["n2"].Self || nodes["n1"].Self {
		t.Errorf("n2's registry marks the wrong node as itself: %+v", nodes)
	}
	// The registry is admin's: alice's token is refused.
	req, _ := http.NewRequest("GET", "http://"+n1.addr+"/api/nodes", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("alice's GET /api/nodes: %v %v, want 403", resp, err)
	} else {
		resp.Body.Close()
	}
	// A forged node request (no shared key) is refused.
	forged, _ := http.NewRequest("POST", "http://"+n2.addr+cluster.DoPath, strings.NewReader(`{"action":"status"}`))
	forged.Header.Set(cluster.HeaderNode, "n1")
	forged.Header.Set(cluster.HeaderOwner, "admin")
	forged.Header.Set(cluster.HeaderSignature, fmt.Sprintf("t=%d,s=00", time.Now().Unix()))
	if resp, err := http.DefaultClient.Do(forged); err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("forged node request: %v %v, want 401", resp, err)
	} else {
		resp.Body.Close()
	}

	// Three sessions logged in through node 1 …
	ids := []string{"s1", "s2", "s3"}
	before := map[string][]tabState{}
	since := map[string]time.Time{}
	for _, id := range ids {
		before[id], since[id] = loginSession(t, do1, id)
	}
	// … driven through nodes 2 and 3: they answer for node 1's sessions.
	for _, do := range []func(tool.Input) tool.Result{do2, do3} {
		for _, want := range before["s1"] {
			if got := readTab(t, do, "s1", want.Task, want.Tab); got != want {
				t.Errorf("s1 tab %s through another node:\n got %+v\nwant %+v", want.Tab, got, want)
			}
		}
	}
	if r := do3(tool.Input{Action: "snapshot", Session: "s2", Task: "b"}); !r.Success || !strings.Contains(r.Content, "Logged in as user-s2") {
		t.Errorf("snapshot of s2 through n3: %s %s", r.Error, r.Content)
	}
	// MCP over streamable HTTP through another node.
	mc := mcp.NewClient(&mcp.Implementation{Name: "e2e-cluster", Version: "1"}, nil)
	ms, err := mc.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: "http://" + n2.addr + "/mcp", HTTPClient: bearerClient(token)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	mr, err := ms.CallTool(context.Background(), &mcp.CallToolParams{Name: "browser", Arguments: map[string]any{"action": "snapshot", "session": "s3", "task": "b"}})
	if err != nil || mr.IsError || !strings.Contains(mr.Content[0].(*mcp.TextContent).Text, "Logged in as user-s3") {
		t.Errorf("MCP snapshot of s3 through n2: %v %+v", err, mr)
	}
	ms.Close()
	// A session's API route through another node.
	var st struct {
		URL string `json:"url"`
	}
	if code, raw := tcpAPI(t, n3.addr, token).call("GET", "/api/sessions/s3/state", nil, &st); code != 200 {
		t.Errorf("GET /api/sessions/s3/state through n3: %d %s", code, raw)
	}
	// A token's policy goes along, signed: the node that serves s3's
	// export holds the caller to it (issue 36).
	var limited struct {
		Token string `json:"token"`
	}
	socketAPI(t, n1.data).expect(201, "POST", "/api/tokens", map[string]any{"owner": "alice", "policy": map[string]any{"deny": []string{"state_save"}}}, &limited)
	if code, raw := tcpAPI(t, n3.addr, limited.Token).call("GET", "/api/sessions/s3/state", nil, nil); code != http.StatusForbidden || !strings.Contains(string(raw), `rule: deny \"state_save\"`) {
		t.Errorf("GET /api/sessions/s3/state through n3 with a token whose policy denies state_save: %d %s", code, raw)
	}
	// The cost of forwarding: the same cheap action on n1 directly and
	// through n2 (docs/benchmarks.md; logged, not asserted).
	median := func(do func(tool.Input) tool.Result) time.Duration {
		var ds []time.Duration
		for range 30 {
			start := time.Now()
			if r := do(tool.Input{Action: "tabs", Session: "s1", Task: "a"}); !r.Success {
				t.Fatal(r.Error)
			}
			ds = append(ds, time.Since(start))
		}
		slices.Sort(ds)
		return ds[len(ds)/2]
	}
	direct, forwarded := median(do1), median(do2)
	t.Logf("tabs action, median of 30: on its node %v, forwarded by another node %v (+%v)", direct, forwarded, forwarded-direct)
	waitFor(t, "every session on n1 alone", func() bool {
		on := sessionsOn(t, n2.data)
		return on["n1"] == 3 && on["n2"] == 0 && on["n3"] == 0
	})
	waitCaptured(t, do1, since)

	// kill -9 node 1. The next request for each session, through node 2
	// or 3, waits out node 1's lease and brings the session back there.
	c.kill(n1)
	killed := time.Now()
	via := map[string]func(tool.Input) tool.Result{"s1": do2, "s2": do3, "s3": do2}
	var wg sync.WaitGroup
	for _, id := range ids {
		wg.Go(func() {
			r := via[id](tool.Input{Action: "tabs", Session: id, Task: "a"})
			if !r.Success {
				t.Errorf("first call for %s after n1 died: %s", id, r.Error)
			}
			t.Logf("%s answered %v after n1 was killed", id, time.Since(killed).Round(time.Millisecond))
		})
	}
	wg.Wait()
	for _, id := range ids {
		for _, do := range []func(tool.Input) tool.Result{do2, do3} {
			for _, want := range before[id] {
				if got := readTab(t, do, id, want.Task, want.Tab); got != want {
					t.Errorf("%s tab %s after failover:\n got %+v\nwant %+v", id, want.Tab, got, want)
				}
			}
		}
	}
	waitFor(t, "s1 and s3 on n2, s2 on n3", func() bool {
		on := sessionsOn(t, n3.data)
		return on["n2"] == 2 && on["n3"] == 1
	})

	// Node 1 comes back: it does not resurrect its old sessions, and
	// answers for them through the nodes that run them now.
	_ = os.Remove(filepath.Join(n1.data, "browserd.sock"))
	c.start(n1)
	do1 = tcpDo(t, n1.addr, token)
	if got := readTab(t, do1, "s2", before["s2"][0].Task, before["s2"][0].Tab); got != before["s2"][0] {
		t.Errorf("s2 through the restarted n1:\n got %+v\nwant %+v", got, before["s2"][0])
	}
	time.Sleep(clusterTTL / 2) // a heartbeat or two
	if on := sessionsOn(t, n1.data); on["n1"] != 0 || on["n2"] != 2 || on["n3"] != 1 {
		t.Errorf("after n1 restarted, sessions per node = %v, want n1 0, n2 2, n3 1", on)
	}
	var metrics string
	if code, raw := socketAPI(t, n1.data).call("GET", "/metrics", nil, nil); code == 200 {
		metrics = string(raw)
	}
	if !strings.Contains(metrics, `browserd_forwarded_requests_total{kind="action",outcome="ok"} `) ||
		strings.Contains(metrics, `browserd_forwarded_requests_total{kind="action",outcome="ok"} 0`) {
		t.Errorf("n1's metrics do not count its forwarded call:\n%s", grepLines(metrics, "forwarded"))
	}

	// A change through n2 that no capture has seen yet, then a graceful
	// stop of n2: its final capture hands the change over.
	tab := before["s1"][0]
	if r := do2(tool.Input{Action: "evaluate", Session: "s1", Task: tab.Task, Tab: tab.Tab, Expression: "sessionStorage.setItem('tabid', 'handed-over'), 1"}); !r.Success {
		t.Fatal(r.Error)
	}
	c.stop(n2)
	stopped := time.Now()
	got := readTab(t, do3, "s1", tab.Task, tab.Tab)
	t.Logf("s1 answered %v after n2 stopped gracefully", time.Since(stopped).Round(time.Millisecond))
	want := tab
	want.Session = "handed-over"
	if got != want {
		t.Errorf("s1 after n2's graceful stop:\n got %+v\nwant %+v", got, want)
	}
	for _, want := range before["s3"] {
		if got := readTab(t, do1, "s3", want.Task, want.Tab); got != want {
			t.Errorf("s3 tab %s after n2's graceful stop:\n got %+v\nwant %+v", want.Tab, got, want)
		}
	}
	if d := time.Since(stopped); d > clusterTTL {
		t.Logf("note: the hand-over took %v, longer than the lease TTL", d)
	}
}

// TestClusterTakeoverRace: node 1 dies with eight sessions (raceSessions); nodes 2 and 3
// (--auto-rehydrate) race to take them over, while a request for each
// goes to both: every session ends on exactly one node, and every request
// is answered. It logs the time from the kill to each session answering
// (docs/benchmarks.md).
func TestClusterTakeoverRace(t *testing.T) {
	t.Parallel() // waits out leases (6 s): beside other tests (make test's budget)
	c := newTestCluster(t, 3, "--auto-rehydrate")
	n1, n2, n3 := c.nodes[0], c.nodes[1], c.nodes[2]
	token := ownerToken(t, n1.data, "alice")
	do1, do2, do3 := tcpDo(t, n1.addr, token), tcpDo(t, n2.addr, token), tcpDo(t, n3.addr, token)
	n := raceSessions
	var ids []string
	for i := range n {
		id := fmt.Sprintf("r%02d", i)
		ids = append(ids, id)
		if r := do1(tool.Input{Action: "navigate", Session: id, URL: site.URL("/account?" + id), Snapshot: new(bool)}); !r.Success {
			t.Fatalf("navigate %s: %s", id, r.Error)
		}
		if r := do1(tool.Input{Action: "evaluate", Session: id, Expression: "localStorage.setItem('acct', '" + id + "'), 1"}); !r.Success {
			t.Fatal(r.Error)
		}
	}
	waitFor(t, "every session captured with its storage", func() bool {
		r := do1(tool.Input{Action: "list_sessions", Filter: "active"})
		done := 0
		for _, s := range r.Sessions {
			if strings.Contains(s.URL, "/account?") && !s.LastCapture.IsZero() {
				done++
			}
		}
		return done == n
	})
	time.Sleep(time.Second) // the capture after the evaluate

	c.kill(n1)
	killed := time.Now()
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		times []time.Duration
	)
	for _, id := range ids {
		for _, do := range []func(tool.Input) tool.Result{do2, do3} {
			wg.Go(func() {
				r := do(tool.Input{Action: "evaluate", Session: id, Expression: "location.search + ' ' + localStorage.getItem('acct')"})
				if !r.Success || !strings.Contains(text(r), "?"+id+" "+id) {
					t.Errorf("%s after the takeover: %q %s", id, text(r), r.Error)
				}
				mu.Lock()
				times = append(times, time.Since(killed))
				mu.Unlock()
			})
		}
	}
	wg.Wait()
	slices.Sort(times)
	t.Logf("time from kill -9 to answering, %d requests for %d sessions (lease TTL %v): p50 %v, p99 %v, max %v",
		len(times), n, clusterTTL, times[len(times)/2].Round(time.Millisecond), times[len(times)*99/100].Round(time.Millisecond), times[len(times)-1].Round(time.Millisecond))
	waitFor(t, "every session on exactly one node", func() bool {
		on := sessionsOn(t, n2.data)
		return on["n2"]+on["n3"] == n && on["n1"] == 0
	})
	on := sessionsOn(t, n2.data)
	t.Logf("sessions per node after the takeover: %v", on)
}

// raceSessions is how many sessions TestClusterTakeoverRace's two nodes
// race for: eight, four each on average, every one asked of both at once
// (it was 20: 110 s of two busy cores, for the same race eight times
// over; BROWSERD_RACE_SESSIONS=20 for the timings of docs/benchmarks.md).
var raceSessions = envInt("BROWSERD_RACE_SESSIONS", 8)

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(3 * clusterTTL); !ok(); time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestClusterProfile: a persistent profile's login is in the store, so the
// profile launches logged in on another node (its session cookie
// included); while one node runs it, another forwards to it instead of
// running it too.
func TestClusterProfile(t *testing.T) {
	t.Parallel() // waits out leases (6 s): beside other tests (make test's budget)
	c := newTestCluster(t, 2)
	n1, n2 := c.nodes[0], c.nodes[1]
	token := ownerToken(t, n1.data, "alice")
	do1, do2 := tcpDo(t, n1.addr, token), tcpDo(t, n2.addr, token)
	no := false
	must := func(do func(tool.Input) tool.Result, in tool.Input) tool.Result {
		t.Helper()
		in.Profile, in.Snapshot = "work", &no
		r := do(in)
		if !r.Success {
			t.Fatalf("%s: %s", in.Action, r.Error)
		}
		return r
	}
	must(do1, tool.Input{Action: "navigate", URL: site.URL("/login")})
	must(do1, tool.Input{Action: "type", Selector: "#username", Text: "worker"})
	must(do1, tool.Input{Action: "type", Selector: "#password", Text: "pw"})
	must(do1, tool.Input{Action: "click", Role: "button", Name: "Log in"})
	// Through n2 while n1 runs it: forwarded, not run twice.
	if r := must(do2, tool.Input{Action: "snapshot"}); !strings.Contains(r.Content, "Logged in as worker") {
		t.Errorf("profile through n2 while n1 runs it: %s", r.Content)
	}
	waitFor(t, "the profile on n1 alone", func() bool {
		on := sessionsOn(t, n1.data)
		return on["n1"] == 1 && on["n2"] == 0
	})
	// n1 closes it (its browser exits, the state saved), then n2 runs it.
	must(do1, tool.Input{Action: "close"})
	r := must(do2, tool.Input{Action: "navigate", URL: site.URL("/account"), Snapshot: nil})
	r = must(do2, tool.Input{Action: "snapshot"})
	if !strings.Contains(r.Content, "Logged in as worker") {
		t.Errorf("the profile on n2 after n1 closed it is not logged in:\n%s", r.Content)
	}
	waitFor(t, "the profile on n2 alone", func() bool {
		on := sessionsOn(t, n1.data)
		return on["n1"] == 0 && on["n2"] == 1
	})
}

// freeAddr is a 127.0.0.1 address for a daemon's --listen.
func freeAddr(t testing.TB) string { t.Helper(); return freeport.Addr(t) }
