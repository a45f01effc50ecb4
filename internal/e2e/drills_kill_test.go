//go:build linux

package e2e

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/browserd/browserd/internal/client"
	"github.com/browserd/browserd/internal/sealkey"
	"github.com/browserd/browserd/internal/store/sqlite"
	"github.com/browserd/browserd/internal/tool"
)

// Reliability drills of issue #13: the daemon killed -9 at random moments
// under logged-in sessions, and hundreds of tab cycles against a daemon's
// processes, memory and file descriptors.

var drillSeed = flag.Uint64("drill.seed", 0, "seed of the drills' random moments (0: from the clock)")

// drillKills is how many times TestDrillKill9 kills the daemon: five in
// make test, each kind of moment once in a random order (a kill, a
// restart and a resume of three sessions of three tabs cost about ten
// seconds of the machine); make soak kills ten times (BROWSERD_DRILL_KILLS,
// or -drill.kills), the extra moments drawn at random.
var drillKills = flag.Int("drill.kills", envInt("BROWSERD_DRILL_KILLS", 5), "kills of TestDrillKill9 (at least 5: every kind of moment once)")

// envInt is the number in the environment variable name, or def.
func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

// drillRand returns the drill's random source and logs its seed, so that a
// failure can be replayed with -drill.seed.
func drillRand(t *testing.T) *rand.Rand {
	seed := *drillSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (replay with -drill.seed=%d)", seed, seed)
	return rand.New(rand.NewPCG(seed, 0))
}

// drillKey names one tab of one session.
func drillKey(session, tab string) string { return session + "/" + tab }

// drillOp is one action of a drill in a session.
type drillOp struct {
	session string
	in      tool.Input
}

// drillPlan makes random actions on the sessions' tabs, following each
// tab's state through them: every state a tab goes through is one its
// session really had, so one a capture may hold.
type drillPlan struct {
	rng     *rand.Rand
	n       *int
	state   map[string][]tabState // per session, as the actions leave it
	allowed map[string][]tabState // per tab (drillKey), every state it had
}

// newDrillPlan starts a plan from the tabs' current states; earlier holds
// states of tabs (by drillKey) that no capture may have superseded yet.
func newDrillPlan(rng *rand.Rand, n *int, cur map[string][]tabState, earlier map[string]tabState) *drillPlan {
	p := &drillPlan{rng: rng, n: n, state: map[string][]tabState{}, allowed: map[string][]tabState{}}
	for id, tabs := range cur {
		p.state[id] = slices.Clone(tabs)
		for _, ts := range tabs {
			k := drillKey(id, ts.Tab)
			if e, ok := earlier[k]; ok {
				p.allowed[k] = append(p.allowed[k], e)
			}
			p.allowed[k] = append(p.allowed[k], ts)
		}
	}
	return p
}

// fast is a quick state-changing action on a random tab of session: a
// navigation to another account page, or a new sessionStorage value.
func (p *drillPlan) fast(session string) drillOp {
	return p.fastAt(session, p.rng.IntN(len(p.state[session])))
}

// fastAt is fast on the session's i-th tab.
func (p *drillPlan) fastAt(session string, i int) drillOp {
	ts := p.state[session][i]
	*p.n++
	no := false
	in := tool.Input{Session: session, Task: ts.Task, Tab: ts.Tab, Snapshot: &no}
	if p.rng.IntN(2) == 0 {
		ts.URL = site.URL(fmt.Sprintf("/account?drill=%d", *p.n))
		in.Action, in.URL = "navigate", ts.URL
	} else {
		ts.Session = fmt.Sprintf("drill-%d", *p.n)
		in.Action, in.Expression = "evaluate", fmt.Sprintf("(sessionStorage.setItem('tabid', %q), 'ok')", ts.Session)
	}
	p.state[session][i] = ts
	k := drillKey(session, ts.Tab)
	p.allowed[k] = append(p.allowed[k], ts)
	return drillOp{session: session, in: in}
}

// slow is a navigation of a random tab of session to a page that answers
// after 3 s: the daemon is killed before it commits, so the tab keeps its
// state.
func (p *drillPlan) slow(session string) drillOp {
	ts := p.state[session][p.rng.IntN(len(p.state[session]))]
	*p.n++
	no := false
	return drillOp{session: session, in: tool.Input{Action: "navigate", Session: session, Task: ts.Task, Tab: ts.Tab,
		URL: site.URL(fmt.Sprintf("/slow?ms=3000&drill=%d", *p.n)), Snapshot: &no}}
}

// TestDrillKill9 is issue #13's drill: kill -9 of the daemon at random
// moments (five times in make test, ten in make soak: drillKills) under three logged-in sessions of three tabs over two
// tasks (a session cookie, localStorage, sessionStorage). The moments:
//
//   - navigation: one session's tab loads a page that answers after 3 s
//     while the other sessions act;
//   - capture: right after state-changing actions, while the capturer
//     writes them (--snapshot-interval 200ms: at once);
//   - random: at a random delay into streams of actions in every session;
//   - resume: while the sessions are being rehydrated, by session_resume
//     or by an action;
//   - resume-nav: a session resumed by a navigate of one tab to a slow
//     page (that tab opens blank and loads only the new page) and captured
//     while the page loads, after an action in its other task.
//
// After every kill: no Chromium process is left; the newest capture of
// each session holds, for every tab, a state that tab really had — the
// kill may lose the actions after the last capture (docs/recovery.md,
// "Loss window"), never mix, blank or invent states — with the login
// cookie; a new daemon lists the three sessions recoverable with their
// three tabs; resumed (session_resume, or implicitly by an evaluate or a
// navigate) every tab is back under its id and task exactly as captured:
// URL, logged in, localStorage and sessionStorage, and no other tab. The
// moments come from a seeded source: the seed is logged, -drill.seed
// replays it.
func TestDrillKill9(t *testing.T) {
	t.Parallel() // waits more than it works: run beside another (make test's budget)
	begin := time.Now()
	rng := drillRand(t)
	data := t.TempDir()
	sock := filepath.Join(data, "browserd.sock")
	flags := []string{"--snapshot-interval", "200ms"}
	d := startDaemon(t, data, flags...)
	// try runs a call that a kill may cut short: an error, not a failure;
	// do is for calls that must work.
	c := client.New(sock)
	defer c.Close()
	try := func(in tool.Input) (tool.Result, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		return c.Do(ctx, in)
	}
	do := func(in tool.Input) tool.Result {
		t.Helper()
		r, err := try(in)
		if err != nil {
			t.Fatalf("%s: %v", in.Action, err)
		}
		return r
	}
	ids := []string{"k1", "k2", "k3"}
	cur := map[string][]tabState{}
	since := map[string]time.Time{}
	for _, id := range ids {
		cur[id], since[id] = loginSession(t, do, id)
		sortTabs(cur[id])
	}
	waitCaptured(t, do, since)
	t.Logf("three sessions logged in and captured in %v", time.Since(begin).Round(time.Millisecond))

	no := false
	live := true
	n := 0
	kept, lost := 0, 0
	// Every kind of moment at least once, in a random order; the first
	// kill finds the sessions live, not to be resumed.
	kinds := []string{"navigation", "capture", "random", "resume", "resume-nav"}
	kills := max(*drillKills, len(kinds))
	for range kills - len(kinds) {
		kinds = append(kinds, kinds[rng.IntN(5)])
	}
	rng.Shuffle(len(kinds), func(i, j int) { kinds[i], kinds[j] = kinds[j], kinds[i] })
	if i := slices.IndexFunc(kinds, func(k string) bool { return !strings.HasPrefix(k, "resume") }); i > 0 {
		kinds[0], kinds[i] = kinds[i], kinds[0]
	}
	for k := 1; k <= kills; k++ {
		kind := kinds[k-1]
		var earlier map[string]tabState
		if !live && kind != "resume" && kind != "resume-nav" {
			earlier = drillResume(t, do, rng, &n, cur)
			live = true
		}
		p := newDrillPlan(rng, &n, cur, earlier)
		var killed atomic.Bool
		var wg sync.WaitGroup
		var mu sync.Mutex
		var early []string // failures before the kill
		run := func(ops []drillOp) {
			defer wg.Done()
			for _, op := range ops {
				r, err := try(op.in)
				if killed.Load() {
					return
				}
				if err != nil || !r.Success {
					mu.Lock()
					early = append(early, fmt.Sprintf("%s %s %s: %v %s", op.session, op.in.Action, op.in.Tab, err, r.Error))
					mu.Unlock()
					return
				}
			}
		}
		var delay time.Duration
		what := ""
		mustHold := "" // a session whose capture must hold its last change
		switch kind {
		case "navigation":
			// One session loads a slow page; the others keep working.
			slowAt := ids[rng.IntN(len(ids))]
			for _, id := range ids {
				var ops []drillOp
				if id == slowAt {
					ops = append(ops, p.slow(id))
				} else {
					for range 1 + rng.IntN(3) {
						ops = append(ops, p.fast(id))
					}
				}
				wg.Add(1)
				go run(ops)
			}
			delay = time.Duration(250+rng.IntN(1250)) * time.Millisecond
			what = "into a slow navigation in " + slowAt
			time.Sleep(delay)
		case "capture":
			// Changes that make the sessions due: the capturer writes
			// them at once; the kill comes while it does.
			for _, id := range ids {
				if rng.IntN(3) == 0 {
					continue
				}
				for range 1 + rng.IntN(2) {
					op := p.fast(id)
					if r, err := try(op.in); err != nil || !r.Success {
						t.Fatalf("%s %s: %v %s", id, op.in.Action, err, r.Error)
					}
				}
			}
			delay = time.Duration(rng.IntN(50)) * time.Millisecond
			what = "after the last change"
			time.Sleep(delay)
		case "random":
			for _, id := range ids {
				var ops []drillOp
				for range 2 + rng.IntN(4) {
					ops = append(ops, p.fast(id))
				}
				if rng.IntN(3) == 0 {
					ops = append(ops, p.slow(id))
				}
				wg.Add(1)
				go run(ops)
			}
			delay = time.Duration(rng.IntN(1200)) * time.Millisecond
			what = "into a stream of actions"
			time.Sleep(delay)
		case "resume":
			// Every session is being resumed, one after another (the
			// daemon resumes one at a time), explicitly or by an action.
			for _, id := range ids {
				in := tool.Input{Action: "session_resume", Session: id}
				if rng.IntN(2) == 0 {
					in = tool.Input{Action: "evaluate", Session: id, Task: cur[id][0].Task, Tab: cur[id][0].Tab, Expression: "location.href"}
				}
				wg.Add(1)
				go run([]drillOp{{session: id, in: in}})
			}
			delay = time.Duration(rng.IntN(1500)) * time.Millisecond
			what = "into the resumes"
			time.Sleep(delay)
		case "resume-nav":
			// The navigate resumes the session, then loads for 10 s in
			// a tab that has nothing else yet; an action in another task
			// makes the session due, and its capture cannot read that
			// tab: it must keep what the resumed capture knew of it.
			x := ids[rng.IntN(len(ids))]
			first := cur[x][0]
			n++
			wg.Add(1)
			go run([]drillOp{{session: x, in: tool.Input{Action: "navigate", Session: x, Task: first.Task, Tab: first.Tab,
				URL: site.URL(fmt.Sprintf("/slow?ms=10000&drill=%d", n)), Snapshot: &no}}})
			for deadline := time.Now().Add(20 * time.Second); states(do(tool.Input{Action: "list_sessions"}))[x].State != "active"; time.Sleep(20 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("kill %d: the navigate did not resume %s", k, x)
				}
			}
			other := slices.IndexFunc(cur[x], func(ts tabState) bool { return ts.Task != first.Task })
			op := p.fastAt(x, other)
			opStart := time.Now()
			if r, err := try(op.in); err != nil || !r.Success {
				t.Fatalf("kill %d: %s %s: %v %s", k, x, op.in.Action, err, r.Error)
			}
			what = "after " + x + " was resumed by a slow navigation"
			for deadline := time.Now().Add(8 * time.Second); ; time.Sleep(20 * time.Millisecond) {
				if states(do(tool.Input{Action: "list_sessions"}))[x].LastCapture.After(opStart) {
					what += " and captured"
					mustHold = x
					break
				}
				if time.Now().After(deadline) {
					what += " (no capture seen in 8 s)"
					break
				}
			}
			delay = time.Duration(rng.IntN(300)) * time.Millisecond
			time.Sleep(delay)
		}
		procs := len(chromiumPIDs(data))
		killed.Store(true)
		if err := d.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		_, _ = d.Process.Wait()
		wg.Wait()
		c.Close() // no kept-alive connection to the dead daemon
		waitNoChromium(t, data)
		if len(early) > 0 {
			t.Errorf("kill %d: actions failed before the kill: %v", k, early)
		}

		// What the last capture holds is what a resume brings back: a
		// state each tab had, logged in.
		got := drillCaptures(t, data, ids)
		changes, held := 0, 0
		for _, id := range ids {
			if len(got[id]) != len(cur[id]) {
				t.Fatalf("kill %d: %s's last capture holds %d tabs, want %d: %+v", k, id, len(got[id]), len(cur[id]), got[id])
			}
			for i, ts := range got[id] {
				want := p.allowed[drillKey(id, ts.Tab)]
				if ts.Tab != cur[id][i].Tab || ts.Task != cur[id][i].Task {
					t.Fatalf("kill %d: %s's last capture holds tab %s/%s where %s/%s was", k, id, ts.Task, ts.Tab, cur[id][i].Task, cur[id][i].Tab)
				}
				if !slices.Contains(want, ts) {
					t.Fatalf("kill %d (%s): %s tab %s is captured in a state it never had:\n got %+v\nwant one of %+v", k, kind, id, ts.Tab, ts, want)
				}
				if len(want) > 1 {
					changes++
					if ts == want[len(want)-1] {
						held++
					} else if id == mustHold {
						t.Errorf("kill %d (%s): %s was captured after its change, but tab %s is captured as %+v, not %+v", k, kind, id, ts.Tab, ts, want[len(want)-1])
					}
				}
			}
		}
		kept += held
		lost += changes - held
		cur = got
		t.Logf("kill %d: %s, %v %s, %d Chromium processes; %d of %d changed tabs captured in their last state",
			k, kind, delay, what, procs, held, changes)

		// The killed daemon's socket file is still there: wait for the
		// new daemon to answer on a fresh one.
		_ = os.Remove(sock)
		d = startDaemon(t, data, flags...)
		live = false
		r := do(tool.Input{Action: "list_sessions", Filter: "recoverable"})
		var rec []string
		for _, s := range r.Sessions {
			rec = append(rec, s.ID)
			if s.Tabs != len(cur[s.ID]) {
				t.Errorf("kill %d: recoverable %s lists %d tabs, want %d", k, s.ID, s.Tabs, len(cur[s.ID]))
			}
		}
		slices.Sort(rec)
		if !slices.Equal(rec, ids) {
			t.Fatalf("kill %d: recoverable sessions = %v, want %v\n%s", k, rec, ids, r.Content)
		}
	}
	drillResume(t, do, rng, &n, cur)
	t.Logf("%d kills in %v; changed tabs captured in their last state %d times, in an earlier one %d times",
		kills, time.Since(begin).Round(time.Millisecond), kept, lost)
}

// drillCaptures reads, from the store of a killed daemon, each session's
// newest capture as the tab states a resume brings back: Status is the
// account page's line when the capture holds the session's sid cookie.
func drillCaptures(t *testing.T, data string, ids []string) map[string][]tabState {
	t.Helper()
	box, err := sealkey.Load(filepath.Join(data, "secret.key"))
	if err != nil {
		t.Fatal(err)
	}
	st, err := sqlite.Open(filepath.Join(data, "browserd.db"), box)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	out := map[string][]tabState{}
	for _, id := range ids {
		c, err := st.LatestCapture(context.Background(), id)
		if err != nil {
			t.Fatalf("%s's last capture: %v", id, err)
		}
		status := "no sid cookie in the capture"
		for _, ck := range c.Cookies {
			if ck.Name == "sid" && ck.Value != "" {
				status = "Logged in as user-" + id
			}
		}
		local := map[string]string{}
		for _, o := range c.Origins {
			for _, kv := range o.LocalStorage {
				if kv.Name == "acct" {
					local[o.Origin] = kv.Value
				}
			}
		}
		for _, tb := range c.Tabs {
			ts := tabState{Tab: tb.ID, Task: tb.Task, URL: tb.URL, Status: status, Local: local[originOfURL(tb.URL)]}
			for _, kv := range tb.SessionStorage {
				if kv.Name == "tabid" {
					ts.Session = kv.Value
				}
			}
			out[id] = append(out[id], ts)
		}
		sortTabs(out[id])
	}
	return out
}

// sortTabs orders a session's tab states by task, then tab number.
func sortTabs(tabs []tabState) {
	slices.SortFunc(tabs, func(a, b tabState) int {
		if c := strings.Compare(a.Task, b.Task); c != 0 {
			return c
		}
		return tabNumber(a.Tab) - tabNumber(b.Tab)
	})
}

// tabNumber is 3 for "t3".
func tabNumber(id string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(id, "t"))
	return n
}

// originOfURL is scheme://host:port of an http URL.
func originOfURL(u string) string {
	scheme, rest, ok := strings.Cut(u, "://")
	if !ok {
		return ""
	}
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	return scheme + "://" + rest
}

// drillResume resumes each session — by session_resume or, at random, by
// an evaluate in one of its tabs or a navigate of one to another account
// page — and checks that every tab is back under its id and task, exactly
// in the state cur says (as its last capture held it; the navigated tab
// at its new URL with its storage), and that no other tab came back. It
// updates cur for the navigates, and returns the states they left (by
// drillKey): the next capture may not have happened yet, or may not read
// the tab (a tab it cannot read keeps what the last capture knew of it).
func drillResume(t *testing.T, do func(tool.Input) tool.Result, rng *rand.Rand, n *int, cur map[string][]tabState) map[string]tabState {
	t.Helper()
	earlier := map[string]tabState{}
	ids := make([]string, 0, len(cur))
	for id := range cur {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		first := cur[id][0]
		switch rng.IntN(3) {
		case 0:
			r := do(tool.Input{Action: "session_resume", Session: id})
			if !r.Success {
				t.Fatalf("session_resume %s: %s", id, r.Error)
			}
			var got []string
			for _, tb := range r.Tabs {
				got = append(got, tb.Task+"/"+tb.ID)
			}
			var want []string
			for _, ts := range cur[id] {
				want = append(want, ts.Task+"/"+ts.Tab)
			}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("session_resume %s brought back tabs %v, want %v", id, got, want)
			}
		case 1:
			r := do(tool.Input{Action: "evaluate", Session: id, Task: first.Task, Tab: first.Tab, Expression: "location.href"})
			if !r.Success || !strings.Contains(strings.Join(r.Notes, " "), "was resumed") {
				t.Fatalf("an evaluate on recoverable %s: success %v, error %q, notes %v", id, r.Success, r.Error, r.Notes)
			}
		default:
			*n++
			u := site.URL(fmt.Sprintf("/account?drill=%d", *n))
			no := false
			r := do(tool.Input{Action: "navigate", Session: id, Task: first.Task, Tab: first.Tab, URL: u, Snapshot: &no})
			if !r.Success || r.Tab != first.Tab || !strings.Contains(strings.Join(r.Notes, " "), "was resumed") {
				t.Fatalf("a navigate on recoverable %s: success %v, tab %s, error %q, notes %v", id, r.Success, r.Tab, r.Error, r.Notes)
			}
			earlier[drillKey(id, first.Tab)] = first
			cur[id][0].URL = u
		}
		tasks := map[string][]string{}
		for _, ts := range cur[id] {
			tasks[ts.Task] = append(tasks[ts.Task], ts.Tab)
		}
		for task, want := range tasks {
			var got []string
			for _, tb := range do(tool.Input{Action: "tabs", Session: id, Task: task}).Tabs {
				got = append(got, tb.ID)
			}
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("%s task %s has tabs %v after the resume, want %v", id, task, got, want)
			}
		}
		for _, want := range cur[id] {
			if got := readTab(t, do, id, want.Task, want.Tab); got != want {
				t.Errorf("%s tab %s after the resume:\n got %+v\nwant %+v (its last capture)", id, want.Tab, got, want)
			}
		}
	}
	return earlier
}

// snapshotIf is an Input.Snapshot: nil (the default, a snapshot) when
// want, else false.
func snapshotIf(want bool) *bool {
	if want {
		return nil
	}
	no := false
	return &no
}

// daemonRSS reads a process's VmRSS (kB), open fds and threads.
func daemonRSS(t *testing.T, pid int) (rssKB, fds, threads int) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range bytes.Split(b, []byte("\n")) {
		f := strings.Fields(string(l))
		if len(f) < 2 {
			continue
		}
		switch f[0] {
		case "VmRSS:":
			rssKB, _ = strconv.Atoi(f[1])
		case "Threads:":
			threads, _ = strconv.Atoi(f[1])
		}
	}
	ents, err := os.ReadDir(filepath.Join("/proc", strconv.Itoa(pid), "fd"))
	if err != nil {
		t.Fatal(err)
	}
	return rssKB, len(ents), threads
}

// TestDrillTabCycles is issue #13's drill: 86 cycles (5 to warm up, 40
// measured in the daemon, 6 + 35 in process) of tab_new (at a page), navigate
// (to another) and tab_close in a real daemon, driven over its socket,
// through pages with cross-site frames, shadow roots, a table,
// a single-page app, DOM changes and hover styles. After a warm-up the
// daemon's Chromium processes, open file descriptors and resident memory
// are taken; after the cycles they must be back: Chromium processes at
// most 2 more (once the closed tabs' renderers have had a few seconds to
// exit), fds within ±10, RSS at most 40 MB more (the Go heap and
// Chromium's connection buffers breathe; the figures are logged). The
// daemon does not tell its goroutines, so 35 more cycles run in an engine
// in this process: its goroutines must be back within 20 (the test
// site's keep-alive connections come and go) — a leak of one per cycle
// would be 35.
func TestDrillTabCycles(t *testing.T) {
	begin := time.Now()
	data := t.TempDir()
	d := startDaemon(t, data, "--snapshot-interval", "500ms")
	pid := d.Process.Pid
	do := socketDo(t, data)
	// The task's first tab stays: the session's context and the browser
	// live through the cycles.
	tabCycle(t, do, -1)
	// stable waits until the data dir's Chromium processes are at most
	// max, or their count has not changed for a second (5 s at most),
	// and says how many there are.
	stable := func(data string, max int) int {
		last, since := -1, time.Now()
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(100 * time.Millisecond) {
			n := len(chromiumPIDs(data))
			if n != last {
				last, since = n, time.Now()
			}
			if n <= max || time.Since(since) >= time.Second || time.Now().After(deadline) {
				return n
			}
		}
	}
	for i := range 5 {
		tabCycle(t, do, i)
	}
	procs0 := stable(data, 0)
	rss0, fds0, thr0 := daemonRSS(t, pid)
	t.Logf("after the warm-up: %d Chromium processes; daemon RSS %d kB, %d fds, %d threads", procs0, rss0, fds0, thr0)

	const cycles = 40 // 120 until make test's budget ran out; a leak of an fd or a renderer a cycle shows in 40
	start := time.Now()
	mid := 0
	for i := range cycles {
		tabCycle(t, do, i)
		if i == cycles/2 {
			mid, _, _ = daemonRSS(t, pid)
		}
	}
	took := time.Since(start)
	procs := stable(data, procs0)
	var rss, fds, thr int
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		if rss, fds, thr = daemonRSS(t, pid); fds <= fds0+10 || time.Now().After(deadline) {
			break
		}
	}
	tabs := do(tool.Input{Action: "tabs", Session: "cycles", Task: "w"}).Tabs
	t.Logf("after %d cycles in %v (%v each): %d Chromium processes (start %d); daemon RSS %d kB (start %d, %+d; %d at half-way), %d fds (start %d), %d threads (start %d); %d tabs open",
		cycles, took.Round(time.Millisecond), (took / cycles).Round(time.Millisecond), procs, procs0, rss, rss0, rss-rss0, mid, fds, fds0, thr, thr0, len(tabs))
	if len(tabs) != 1 {
		t.Errorf("%d tabs open after the cycles, want the first one: %+v", len(tabs), tabs)
	}
	if procs > procs0+2 {
		t.Errorf("%d Chromium processes after the cycles, %d before", procs, procs0)
	}
	if fds > fds0+10 || fds < fds0-10 {
		t.Errorf("the daemon has %d open fds after the cycles, %d before", fds, fds0)
	}
	if rss > rss0+40*1024 {
		t.Errorf("the daemon's RSS grew from %d kB to %d kB over %d cycles", rss0, rss, cycles)
	}

	// Goroutines, in process.
	cfg := testConfig(t)
	_, edo := newEngine(t, cfg)
	tabCycle(t, edo, -1)
	for i := range 5 {
		tabCycle(t, edo, i)
	}
	stable(cfg.Data, 0)
	g0 := runtime.NumGoroutine()
	const inProcess = 35 // a goroutine leaked a cycle passes the allowance of 20
	for i := range inProcess {
		tabCycle(t, edo, i)
	}
	stable(cfg.Data, 0)
	g := runtime.NumGoroutine()
	for deadline := time.Now().Add(5 * time.Second); g > g0+20 && time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		g = runtime.NumGoroutine()
	}
	t.Logf("in process: %d goroutines after %d cycles, %d before; %v in all", g, inProcess, g0, time.Since(begin).Round(time.Millisecond))
	if g > g0+20 {
		t.Errorf("goroutines grew from %d to %d over %d tab cycles", g0, g, inProcess)
		buf := make([]byte, 1<<20)
		t.Logf("goroutines:\n%s", buf[:runtime.Stack(buf, true)])
	}
}

// tabCycle is one cycle of TestDrillTabCycles in task w of session
// cycles: tab_new at a page, navigate to another, tab_close; i < 0 opens
// the task's first tab, which stays.
func tabCycle(t *testing.T, do func(tool.Input) tool.Result, i int) {
	t.Helper()
	must := func(in tool.Input) tool.Result {
		t.Helper()
		in.Session, in.Task = "cycles", "w"
		r := do(in)
		if !r.Success {
			t.Fatalf("%s %s: %s", in.Action, in.URL, r.Error)
		}
		return r
	}
	if i < 0 {
		must(tool.Input{Action: "navigate", URL: site.URL("/form"), Snapshot: snapshotIf(false)})
		return
	}
	pages := []string{"/frames", "/form", "/table?rows=50", "/spa", "/shadow", "/account", "/changes", "/hover"}
	// Every fourth tab_new and every other navigate answer with their
	// snapshot (an answer's snapshot costs more than the rest of the
	// cycle).
	r := must(tool.Input{Action: "tab_new", URL: site.URL(pages[i%len(pages)]), Snapshot: snapshotIf(i%4 == 0)})
	if r.Tab == "" {
		t.Fatalf("tab_new named no tab: %+v", r)
	}
	must(tool.Input{Action: "navigate", Tab: r.Tab, URL: site.URL(pages[(i+3)%len(pages)]), Snapshot: snapshotIf(i%2 == 1)})
	must(tool.Input{Action: "tab_close", Tab: r.Tab})
}
