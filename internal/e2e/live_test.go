//go:build linux

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/browserd/browserd/internal/browser"
	"github.com/browserd/browserd/internal/chromium"
)

// TestLiveView (issue #14, first part): a person signs in to the dashboard
// with the one-time URL `browserd dashboard` prints, sees the agent's tab,
// and watches it live; the URL does not work twice, another owner finds
// nothing, and no other site can open a viewer's socket.
func TestLiveView(t *testing.T) {
	t.Parallel() // waits more than it works: run beside another (make test's budget)
	// A page that animates: every frame paints a new count.
	anim := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/still" {
			fmt.Fprint(w, `<!doctype html><title>Still</title><h1>Nothing moves here</h1>`)
			return
		}
		fmt.Fprint(w, `<!doctype html><title>Animated</title><h1 id="n">0</h1>
<button id="b" style="position:absolute;left:100px;top:200px;width:200px;height:60px" onclick="window.clicks=(window.clicks||0)+1">Press me</button>
<input id="f" style="position:absolute;left:100px;top:300px;width:300px;height:40px">
<script>let n = 0; (function tick() { document.getElementById('n').textContent = ++n; requestAnimationFrame(tick); })();</script>`)
	}))
	defer anim.Close()
	// The operator's webhook, told when an agent asks for help.
	notes := make(chan map[string]string, 4)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m map[string]string
		_ = json.NewDecoder(r.Body).Decode(&m)
		notes <- m
	}))
	defer hook.Close()
	data := t.TempDir()
	addr := freeAddr(t)
	daemon := startDaemon(t, data, "--listen", addr, "--notify-url", hook.URL)
	admin := socketAPI(t, data)
	var res struct {
		Success bool   `json:"success"`
		Error   string `json:"error"`
		Tab     string `json:"tab"`
	}
	admin.expect(200, "POST", "/api/actions", map[string]any{"action": "navigate", "session": "watched", "url": anim.URL, "snapshot": false}, &res)
	if !res.Success {
		t.Fatalf("the agent's navigate: %s", res.Error)
	}
	var signin struct {
		URL string `json:"url"`
	}
	admin.expect(200, "POST", "/api/dashboard", nil, &signin)
	if !strings.HasPrefix(signin.URL, "http://"+addr+"/dashboard/signin?code=") {
		t.Fatalf("sign-in URL %q", signin.URL)
	}
	// Without signing in: nothing.
	if resp, err := http.Get("http://" + addr + "/"); err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("the dashboard without a sign-in: %v %v", resp.StatusCode, err)
	}

	// The person's own browser.
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	viewerDir := t.TempDir()
	br, err := browser.Start(ctx, chromium.Options{UserDataDir: viewerDir, Width: 1280, Height: 800})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { br.Close(context.Background()); waitNoChromium(t, viewerDir) }()
	pg, err := br.NewPage(ctx, "", browser.PageOptions{Width: 1280, Height: 800})
	if err != nil {
		t.Fatal(err)
	}
	if err := pg.Navigate(ctx, signin.URL); err != nil {
		t.Fatal(err)
	}
	waitFor := func(what, expr, want string) string {
		t.Helper()
		var got string
		for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			got, _ = pg.Eval(ctx, expr)
			if strings.Contains(got, want) {
				return got
			}
		}
		t.Fatalf("%s: %q does not contain %q", what, got, want)
		return ""
	}
	waitFor("the dashboard lists the agent's tab", "document.body.innerText", "t1 — Animated")
	waitFor("the dashboard says what goes on in the tab", "document.body.innerText", "in front · idle")
	// Each tab is a picture (its recording's latest frame) with its last
	// step, and a step that failed says why.
	waitFor("the tab's picture", "String(!!document.querySelector('img.shot') && document.querySelector('img.shot').naturalWidth > 0)", "true")
	// The whole picture, from its left edge: a page wider than the card's
	// 16:10 was cut at both sides (issue 51 point 5).
	waitFor("the picture shown whole from its top left", "(() => { const s = getComputedStyle(document.querySelector('img.shot')); return s.objectFit + ' ' + s.objectPosition })()", "contain 0% 0%")
	admin.expect(200, "POST", "/api/actions", map[string]any{"action": "click", "session": "watched", "selector": "#nowhere", "timeout": 300}, &res)
	if res.Success {
		t.Fatal("a click on nothing succeeded")
	}
	waitFor("the last step, failed", "document.body.innerText", "step 2: click — failed")
	waitFor("why it failed", "document.querySelector('.card .why') ? document.querySelector('.card .why').textContent : ''", "#nowhere")
	shoot(t, ctx, pg, "dashboard-tabs.png")
	if u, _ := pg.Eval(ctx, "location.pathname"); !strings.Contains(u, "/") {
		t.Fatalf("after sign-in the browser is at %s", u)
	}
	// The one-time URL is spent.
	if resp, err := http.Get(signin.URL); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a reused sign-in URL: %v %v", resp.StatusCode, err)
	}

	// The live view: frames of the animated page keep coming. The API
	// gives its URL (the session's front tab).
	var detail struct {
		LiveViewURL string `json:"liveViewUrl"`
	}
	admin.expect(200, "GET", "/api/sessions/watched", nil, &detail)
	if detail.LiveViewURL != "http://"+addr+"/dashboard/live?session=watched" {
		t.Fatalf("liveViewUrl %q", detail.LiveViewURL)
	}
	if err := pg.Navigate(ctx, detail.LiveViewURL); err != nil {
		t.Fatal(err)
	}
	waitFor("the front tab is shown", "document.getElementById('what').textContent", "tab t1")
	start := time.Now()
	waitFor("the first frame", "String(window.browserdFrames)", "1")
	first := time.Since(start)
	if ms, err := pg.Eval(ctx, "String(window.browserdFirstFrameMs)"); err == nil {
		if n, err := strconv.Atoi(strings.Trim(ms, `"`)); err == nil {
			first = time.Duration(n) * time.Millisecond // from opening the socket, measured in the page
		}
	}
	time.Sleep(2 * time.Second)
	n1, _ := pg.Eval(ctx, "window.browserdFrames")
	cpu0 := cpuTime(t, daemon.Process.Pid)
	time.Sleep(2 * time.Second)
	n2, _ := pg.Eval(ctx, "window.browserdFrames")
	busy := cpuTime(t, daemon.Process.Pid) - cpu0
	a, _ := strconv.Atoi(strings.Trim(n1, `"`))
	b, _ := strconv.Atoi(strings.Trim(n2, `"`))
	if b <= a {
		t.Fatalf("the live view stopped: %d frames, then %d", a, b)
	}
	t.Logf("live view: first frame after %s, %.1f frames/s; the daemon used %.0f %% of a core meanwhile", first.Round(time.Millisecond), float64(b-a)/2, busy.Seconds()/2*100)
	shoot(t, ctx, pg, "live-view.png")

	// The timeline beside it: the task's steps (its recording); a step
	// shows the frame of the page after it, until "Back to live".
	waitFor("the timeline lists the agent's navigate", "document.getElementById('steps').innerText", "navigate")
	waitFor("the failed click says why", "document.getElementById('steps').innerText", "no element matches selector")
	if steps, _ := pg.Eval(ctx, "document.getElementById('steps').innerText"); strings.Contains(steps, `"action"`) || strings.Contains(steps, `""`) {
		t.Errorf("the timeline shows empty arguments: %s", steps)
	}
	if _, err := pg.Eval(ctx, "document.querySelector('#steps li').click()"); err != nil {
		t.Fatal(err)
	}
	waitFor("the step's frame", "String(!document.getElementById('stillbox').hidden && document.getElementById('still').naturalWidth > 0)", "true")
	if _, err := pg.Eval(ctx, "document.getElementById('back').click()"); err != nil {
		t.Fatal(err)
	}
	waitFor("back to live", "String(!document.getElementById('screen').hidden)", "true")

	// Take control: the agent's input on the tab fails at once meanwhile.
	if _, err := pg.Eval(ctx, "document.getElementById('take').click()"); err != nil {
		t.Fatal(err)
	}
	waitFor("holding the tab", "String(window.browserdHolding)", "true")
	admin.expect(200, "POST", "/api/actions", map[string]any{"action": "click", "session": "watched", "tab": "t1", "selector": "#b"}, &res)
	if res.Success || !strings.Contains(res.Error, "a person") || !strings.Contains(res.Error, "controls tab t1") {
		t.Fatalf("the agent's click on a tab a person holds: %+v", res)
	}
	// The person clicks the page's button and types into its field,
	// through the viewer: real mouse and key events on the canvas.
	point := func(x, y float64) (float64, float64) {
		t.Helper()
		var r []float64
		js := `(() => { const c = document.getElementById('screen').getBoundingClientRect(); const m = window.browserdMeta;
		  return JSON.stringify([c.left + ` + fmt.Sprint(x) + ` / m.w * c.width, c.top + ` + fmt.Sprint(y) + ` / m.h * c.height]); })()`
		s, err := pg.Eval(ctx, js)
		if err != nil {
			t.Fatal(err)
		}
		var raw string
		if json.Unmarshal([]byte(s), &raw) != nil {
			raw = s
		}
		if err := json.Unmarshal([]byte(raw), &r); err != nil || len(r) != 2 {
			t.Fatalf("canvas point: %q %v", s, err)
		}
		return r[0], r[1]
	}
	bx, by := point(200, 230)
	if err := pg.Click(ctx, bx, by, browser.ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	fx, fy := point(250, 320)
	if err := pg.Click(ctx, fx, fy, browser.ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"h", "i"} {
		if err := pg.Press(ctx, k); err != nil {
			t.Fatal(err)
		}
	}
	// Hand back: the agent's next answer says a person acted, and the page
	// holds what they did.
	time.Sleep(300 * time.Millisecond)
	if _, err := pg.Eval(ctx, "document.getElementById('release').click()"); err != nil {
		t.Fatal(err)
	}
	waitFor("handing back", "String(window.browserdHolding)", "false")
	var ev struct {
		Success bool     `json:"success"`
		Error   string   `json:"error"`
		Content string   `json:"content"`
		Notes   []string `json:"notes"`
	}
	admin.expect(200, "POST", "/api/actions", map[string]any{"action": "evaluate", "session": "watched", "tab": "t1",
		"expression": "(window.clicks || 0) + '|' + document.getElementById('f').value"}, &ev)
	if !ev.Success || !strings.Contains(ev.Content, `"1|hi"`) {
		t.Fatalf("what the person did is not in the page: %+v", ev)
	}
	if !strings.Contains(strings.Join(ev.Notes, " "), "a person controlled tab t1") {
		t.Fatalf("the agent was not told a person acted: %v", ev.Notes)
	}

	// The agent asks for help: handoff blocks until a person takes the tab
	// and hands it back; the dashboard shows the tab waiting, with the
	// agent's reason.
	type handoffResult struct {
		Success bool     `json:"success"`
		Error   string   `json:"error"`
		Content string   `json:"content"`
		Notes   []string `json:"notes"`
	}
	// Through MCP over HTTP: a client that asks for progress hears that the
	// call waits for a person.
	progressed := make(chan string, 16)
	mc := mcp.NewClient(&mcp.Implementation{Name: "e2e-handoff", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			select {
			case progressed <- r.Params.Message:
			default:
			}
		}})
	ms, err := mc.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://" + addr + "/mcp", HTTPClient: bearerClient(adminToken(t, data))}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ms.Close()
	done := make(chan handoffResult, 1)
	go func() {
		p := &mcp.CallToolParams{Name: "browser", Arguments: map[string]any{"action": "handoff", "session": "watched", "tab": "t1", "reason": "enter the code sent by SMS"}}
		p.SetProgressToken("handoff-1")
		r, err := ms.CallTool(ctx, p)
		var hr handoffResult
		if err != nil {
			hr.Error = err.Error()
		} else {
			hr.Success = !r.IsError
			for _, c := range r.Content {
				if tc, ok := c.(*mcp.TextContent); ok {
					hr.Content += tc.Text
				}
			}
			hr.Notes = []string{hr.Content}
		}
		done <- hr
	}()
	select {
	case m := <-progressed:
		if !strings.Contains(m, "waiting for a person") || !strings.Contains(m, "enter the code sent by SMS") {
			t.Fatalf("the progress notification: %q", m)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("no progress notification while handoff waits")
	}
	if err := pg.Navigate(ctx, "http://"+addr+"/"); err != nil {
		t.Fatal(err)
	}
	waitFor("the dashboard shows the tab waiting", "document.body.innerText", "waiting for a person: enter the code sent by SMS")
	waitFor("the waiting tab's picture", "String(!!document.querySelector('img.shot') && document.querySelector('img.shot').complete && document.querySelector('img.shot').naturalWidth > 0)", "true")
	shoot(t, ctx, pg, "dashboard.png")
	select {
	case m := <-notes:
		if m["event"] != "handoff" || m["reason"] != "enter the code sent by SMS" || m["session"] != "watched" || m["tab"] != "t1" ||
			m["liveViewUrl"] != "http://"+addr+"/dashboard/live?session=watched&tab=t1" {
			t.Fatalf("the webhook's note: %v", m)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the webhook was not told")
	}
	select {
	case hr := <-done:
		t.Fatalf("handoff returned before anyone took the tab: %+v", hr)
	default:
	}
	if err := pg.Navigate(ctx, "http://"+addr+"/dashboard/live?session=watched&tab=t1"); err != nil {
		t.Fatal(err)
	}
	waitFor("the live view again", "String(window.browserdFrames > 0)", "true")
	if _, err := pg.Eval(ctx, "document.getElementById('take').click()"); err != nil {
		t.Fatal(err)
	}
	waitFor("holding the tab", "String(window.browserdHolding)", "true")
	bx, by = point(200, 230)
	if err := pg.Click(ctx, bx, by, browser.ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	if _, err := pg.Eval(ctx, "document.getElementById('release').click()"); err != nil {
		t.Fatal(err)
	}
	select {
	case hr := <-done:
		if !hr.Success || !strings.Contains(strings.Join(hr.Notes, " "), "handed it back") || !strings.Contains(hr.Content, `document "Animated"`) {
			t.Fatalf("handoff's answer: %+v", hr)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("handoff did not return after the hand-back")
	}
	// Nobody comes: a clear timeout.
	var hr handoffResult
	admin.expect(200, "POST", "/api/actions", map[string]any{"action": "handoff", "session": "watched", "tab": "t1", "reason": "nobody will", "timeout": 2000}, &hr)
	if hr.Success || !strings.Contains(hr.Error, "nobody took tab t1") {
		t.Fatalf("a handoff nobody answers: %+v", hr)
	}

	// The live-view URL of every tab, in tabs and status.
	liveT1 := "http://" + addr + "/dashboard/live?session=watched&tab=t1"
	var tabs struct {
		Tabs []struct {
			ID          string `json:"id"`
			LiveViewURL string `json:"liveViewUrl"`
			Review      bool   `json:"review"`
		} `json:"tabs"`
		Content string `json:"content"`
	}
	admin.expect(200, "POST", "/api/actions", map[string]any{"action": "tabs", "session": "watched"}, &tabs)
	if len(tabs.Tabs) != 1 || tabs.Tabs[0].LiveViewURL != liveT1 {
		t.Fatalf("tabs: %+v", tabs)
	}
	admin.expect(200, "POST", "/api/actions", map[string]any{"action": "status"}, &tabs)
	if !strings.Contains(tabs.Content, "t1 live view: "+liveT1) {
		t.Fatalf("status does not give the live view:\n%s", tabs.Content)
	}

	// A task that ended leaves its tab for review: the dashboard lists it,
	// and a person closes it there.
	admin.expect(200, "POST", "/api/actions", map[string]any{"action": "navigate", "session": "watched", "task": "done", "url": anim.URL + "/review", "snapshot": false}, &res)
	reviewTab := res.Tab
	admin.expect(200, "POST", "/api/actions", map[string]any{"action": "task_end", "session": "watched", "task": "done"}, &res)
	if !res.Success {
		t.Fatalf("task_end: %s", res.Error)
	}
	if err := pg.Navigate(ctx, "http://"+addr+"/"); err != nil {
		t.Fatal(err)
	}
	waitFor("the review tab is listed", "document.body.innerText", "left for review")
	adminCookie := signedInCookie(t, admin, &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }})
	post := func(body string, origin, csrf string) int {
		t.Helper()
		req, _ := http.NewRequest("POST", "http://"+addr+"/dashboard/api/close", strings.NewReader(body))
		req.AddCookie(adminCookie)
		req.Header.Set("Content-Type", "application/json")
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		if csrf != "" {
			req.Header.Set("X-Browserd-Csrf", csrf)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	closeReview := `{"session":"watched","tab":"` + reviewTab + `"}`
	// A cross-site POST (the cookie, no CSRF token; or a token from another
	// origin) is refused.
	if code := post(closeReview, "http://evil.example", ""); code != http.StatusForbidden {
		t.Fatalf("a cross-site POST without the CSRF token: %d", code)
	}
	var dl struct {
		CSRF string `json:"csrf"`
	}
	r0 := getWith(t, "http://"+addr+"/dashboard/api/sessions", adminCookie)
	_ = json.NewDecoder(r0.Body).Decode(&dl)
	r0.Body.Close()
	if dl.CSRF == "" {
		t.Fatal("the dashboard's listing carries no CSRF token")
	}
	if code := post(closeReview, "http://evil.example", dl.CSRF); code != http.StatusForbidden {
		t.Fatalf("a POST from another origin with the token: %d", code)
	}
	// The agent's own running tab is not the person's to close.
	if code := post(`{"session":"watched","tab":"t1"}`, "http://"+addr, dl.CSRF); code != http.StatusConflict {
		t.Fatalf("closing a running task's tab: %d", code)
	}
	if _, err := pg.Eval(ctx, `document.querySelector('button[data-tab="`+reviewTab+`"]').click()`); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		var d struct {
			Tabs []struct {
				ID string `json:"id"`
			} `json:"openTabs"`
		}
		admin.expect(200, "GET", "/api/sessions/watched", nil, &d)
		open := false
		for _, tb := range d.Tabs {
			open = open || tb.ID == reviewTab
		}
		if !open {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the person's Close left the review tab open: %+v", d)
		}
	}

	// A read-only share link: shows the session's tabs, without a sign-in
	// and without control; revoked, it shows nothing.
	var link struct {
		ID      string    `json:"id"`
		URL     string    `json:"url"`
		Expires time.Time `json:"expiresAt"`
	}
	admin.expect(201, "POST", "/api/sessions/watched/live", map[string]string{"ttl": "10m"}, &link)
	if !strings.HasPrefix(link.URL, "http://"+addr+"/dashboard/share/") || time.Until(link.Expires) > 11*time.Minute || time.Until(link.Expires) < 9*time.Minute {
		t.Fatalf("share link: %+v", link)
	}
	admin.expect(400, "POST", "/api/sessions/watched/live", map[string]string{"ttl": "forever"}, nil)
	if r := getWith(t, link.URL+"tabs", nil); r.StatusCode != http.StatusOK {
		t.Fatalf("the shared tab list without a sign-in: %d", r.StatusCode)
	} else {
		b, _ := io.ReadAll(r.Body)
		r.Body.Close()
		if !strings.Contains(string(b), `"id":"t1"`) {
			t.Fatalf("the shared tab list: %s", b)
		}
	}
	if err := pg.Navigate(ctx, link.URL+"?tab=t1"); err != nil {
		t.Fatal(err)
	}
	waitFor("the shared view draws frames", "String(window.browserdFrames > 0)", "true")
	if hidden, _ := pg.Eval(ctx, "String(document.getElementById('take').hidden)"); !strings.Contains(hidden, "true") {
		t.Fatal("the read-only view offers to take control")
	}
	// Its socket ignores a take: the agent keeps the tab.
	sctx, scancel := context.WithTimeout(ctx, 10*time.Second)
	defer scancel()
	sh := http.Header{}
	sh.Set("Origin", "http://"+addr)
	wsURL := "ws" + strings.TrimPrefix(link.URL, "http") + "ws?tab=t1"
	sc, _, err := websocket.Dial(sctx, wsURL, &websocket.DialOptions{HTTPHeader: sh})
	if err != nil {
		t.Fatalf("the shared socket: %v", err)
	}
	if _, msg, err := sc.Read(sctx); err != nil || !strings.Contains(string(msg), `"ro":true`) {
		t.Fatalf("the shared socket's hello: %q %v", msg, err)
	}
	_ = sc.Write(sctx, websocket.MessageText, []byte(`{"t":"take"}`))
	time.Sleep(300 * time.Millisecond)
	admin.expect(200, "POST", "/api/actions", map[string]any{"action": "click", "session": "watched", "tab": "t1", "selector": "#b", "snapshot": false}, &res)
	if !res.Success {
		t.Fatalf("a read-only viewer took the tab: %+v", res)
	}
	sc.CloseNow()
	var links struct {
		Links []struct {
			ID string `json:"id"`
		} `json:"links"`
	}
	admin.expect(200, "GET", "/api/sessions/watched/live", nil, &links)
	if len(links.Links) != 1 || links.Links[0].ID != link.ID {
		t.Fatalf("the session's share links: %+v", links)
	}
	admin.expect(200, "DELETE", "/api/sessions/watched/live/"+link.ID, nil, nil)
	if r := getWith(t, link.URL, nil); r.StatusCode != http.StatusForbidden {
		t.Fatalf("a revoked share link: %d", r.StatusCode)
	}
	admin.expect(404, "DELETE", "/api/sessions/watched/live/"+link.ID, nil, nil)

	// Watching a tab where nothing moves costs next to nothing: frames
	// come only when the page paints.
	admin.expect(200, "POST", "/api/actions", map[string]any{"action": "navigate", "session": "watched", "tab": "t1", "url": anim.URL + "/still", "snapshot": false}, &res)
	if err := pg.Navigate(ctx, liveT1); err != nil {
		t.Fatal(err)
	}
	waitFor("the still page's first frame", "String(window.browserdFrames > 0)", "true")
	time.Sleep(500 * time.Millisecond)
	s1, _ := pg.Eval(ctx, "window.browserdFrames")
	cpu0 = cpuTime(t, daemon.Process.Pid)
	time.Sleep(3 * time.Second)
	s2, _ := pg.Eval(ctx, "window.browserdFrames")
	idle := cpuTime(t, daemon.Process.Pid) - cpu0
	f1, _ := strconv.Atoi(strings.Trim(s1, `"`))
	f2, _ := strconv.Atoi(strings.Trim(s2, `"`))
	t.Logf("live view of a still tab: %d frames in 3 s; the daemon used %.1f %% of a core", f2-f1, idle.Seconds()/3*100)

	// Another owner: its own sign-in, and the admin's tab is not found.
	var tok struct {
		Token string `json:"token"`
	}
	admin.expect(201, "POST", "/api/tokens", map[string]string{"owner": "bob"}, &tok)
	bob := tcpAPI(t, addr, tok.Token)
	var bobIn struct {
		URL string `json:"url"`
	}
	bob.expect(200, "POST", "/api/dashboard", nil, &bobIn)
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noRedirect.Get(bobIn.URL)
	if err != nil || resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("bob's sign-in: %v %v", resp.StatusCode, err)
	}
	var bobCookie *http.Cookie
	for _, c := range resp.Cookies() {
		if c.Name == "browserd_dashboard" {
			bobCookie = c
		}
	}
	if bobCookie == nil || !bobCookie.HttpOnly || bobCookie.SameSite != http.SameSiteStrictMode {
		t.Fatalf("bob's cookie: %+v", bobCookie)
	}
	get := func(path string, c *http.Cookie, origin string) *http.Response {
		req, _ := http.NewRequest("GET", "http://"+addr+path, nil)
		req.AddCookie(c)
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	r := get("/dashboard/api/sessions", bobCookie, "")
	var list struct {
		Sessions []struct {
			ID string `json:"id"`
		} `json:"sessions"`
	}
	_ = json.NewDecoder(r.Body).Decode(&list)
	r.Body.Close()
	for _, s := range list.Sessions {
		if s.ID == "watched" {
			t.Fatal("bob's dashboard lists admin's session")
		}
	}
	if r := get("/dashboard/ws?session=watched&tab=t1", bobCookie, ""); r.StatusCode != http.StatusNotFound {
		t.Fatalf("bob opening admin's tab: status %d, want 404", r.StatusCode)
	}
	bob.expect(404, "POST", "/api/sessions/watched/live", nil, nil)

	// A cross-site page cannot open the viewer's socket, even with the
	// person's cookie (which SameSite=Strict would not send anyway).
	adminCookie = signedInCookie(t, admin, noRedirect)
	wctx, wcancel := context.WithTimeout(ctx, 10*time.Second)
	defer wcancel()
	h := http.Header{}
	h.Set("Origin", "http://evil.example")
	h.Set("Cookie", adminCookie.Name+"="+adminCookie.Value)
	if c, resp, err := websocket.Dial(wctx, "ws://"+addr+"/dashboard/ws?session=watched&tab=t1", &websocket.DialOptions{HTTPHeader: h}); err == nil {
		c.CloseNow()
		t.Fatal("a cross-site socket was accepted")
	} else if resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a cross-site socket: %v", err)
	}
	// From the dashboard's own origin it works (a frame arrives).
	h.Set("Origin", "http://"+addr)
	c, _, err := websocket.Dial(wctx, "ws://"+addr+"/dashboard/ws?session=watched&tab=t1", &websocket.DialOptions{HTTPHeader: h})
	if err != nil {
		t.Fatalf("the viewer's own socket: %v", err)
	}
	defer c.CloseNow()
	if typ, msg, err := c.Read(wctx); err != nil || typ != websocket.MessageText || string(msg) != `{"id":"t1","ro":false,"t":"tab"}` {
		t.Fatalf("the first message: %v %q %v", typ, msg, err)
	}
	if typ, msg, err := c.Read(wctx); err != nil || typ != websocket.MessageText || !strings.Contains(string(msg), `"w"`) {
		t.Fatalf("the frame's size: %v %q %v", typ, msg, err)
	}
	if typ, msg, err := c.Read(wctx); err != nil || typ != websocket.MessageBinary || len(msg) < 3 || msg[0] != 0xFF || msg[1] != 0xD8 {
		t.Fatalf("the first frame is not a JPEG: %v %d bytes %v", typ, len(msg), err)
	}
}

// getWith GETs url with cookie c (none when nil).
func getWith(t *testing.T, url string, c *http.Cookie) *http.Response {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if c != nil {
		req.AddCookie(c)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// cpuTime is the CPU time process pid has used, user and system.
func cpuTime(t *testing.T, pid int) time.Duration {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	// The fields after the command's closing parenthesis; utime and stime
	// are the 12th and 13th of them, in clock ticks (100 a second).
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	u, _ := strconv.Atoi(f[11])
	s, _ := strconv.Atoi(f[12])
	return time.Duration(u+s) * 10 * time.Millisecond
}

// shoot saves a screenshot of what the person's browser shows into
// $BROWSERD_DOCS_SHOTS (for docs/live-view.md), when it is set.
func shoot(t *testing.T, ctx context.Context, pg *browser.Page, name string) {
	t.Helper()
	dir := os.Getenv("BROWSERD_DOCS_SHOTS")
	if dir == "" {
		return
	}
	png, err := pg.Screenshot(ctx, false, nil)
	if err != nil {
		t.Fatalf("screenshot for the docs: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// signedInCookie signs admin in to the dashboard and returns its cookie.
func signedInCookie(t *testing.T, admin *apiClient, hc *http.Client) *http.Cookie {
	t.Helper()
	var in struct {
		URL string `json:"url"`
	}
	admin.expect(200, "POST", "/api/dashboard", nil, &in)
	resp, err := hc.Get(in.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	for _, c := range resp.Cookies() {
		if c.Name == "browserd_dashboard" {
			return c
		}
	}
	t.Fatal("no dashboard cookie")
	return nil
}
