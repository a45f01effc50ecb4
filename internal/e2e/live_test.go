package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/browserd/browserd/internal/browser"
)

// TestLiveView (issue #14, first part): a person signs in to the dashboard
// with the one-time URL `browserd dashboard` prints, sees the agent's tab,
// and watches it live; the URL does not work twice, another owner finds
// nothing, and no other site can open a viewer's socket.
func TestLiveView(t *testing.T) {
	// A page that animates: every frame paints a new count.
	anim := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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
	addr := freePort(t)
	startDaemon(t, data, "--listen", addr, "--notify-url", hook.URL)
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
	br, err := browser.Start(ctx, browser.LaunchOptions{UserDataDir: viewerDir, Width: 1280, Height: 800})
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
	time.Sleep(2 * time.Second)
	n1, _ := pg.Eval(ctx, "window.browserdFrames")
	time.Sleep(2 * time.Second)
	n2, _ := pg.Eval(ctx, "window.browserdFrames")
	a, _ := strconv.Atoi(strings.Trim(n1, `"`))
	b, _ := strconv.Atoi(strings.Trim(n2, `"`))
	if b <= a {
		t.Fatalf("the live view stopped: %d frames, then %d", a, b)
	}
	t.Logf("live view: first frame after %s, %.1f frames/s", first.Round(time.Millisecond), float64(b-a)/2)

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
	done := make(chan handoffResult, 1)
	go func() {
		var hr handoffResult
		admin.expect(200, "POST", "/api/actions", map[string]any{"action": "handoff", "session": "watched", "tab": "t1", "reason": "enter the code sent by SMS"}, &hr)
		done <- hr
	}()
	if err := pg.Navigate(ctx, "http://"+addr+"/"); err != nil {
		t.Fatal(err)
	}
	waitFor("the dashboard shows the tab waiting", "document.body.innerText", "waiting for a person: enter the code sent by SMS")
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

	// A cross-site page cannot open the viewer's socket, even with the
	// person's cookie (which SameSite=Strict would not send anyway).
	adminCookie := signedInCookie(t, admin, noRedirect)
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
	if typ, msg, err := c.Read(wctx); err != nil || typ != websocket.MessageText || string(msg) != `{"id":"t1","t":"tab"}` {
		t.Fatalf("the first message: %v %q %v", typ, msg, err)
	}
	if typ, msg, err := c.Read(wctx); err != nil || typ != websocket.MessageText || !strings.Contains(string(msg), `"w"`) {
		t.Fatalf("the frame's size: %v %q %v", typ, msg, err)
	}
	if typ, msg, err := c.Read(wctx); err != nil || typ != websocket.MessageBinary || len(msg) < 3 || msg[0] != 0xFF || msg[1] != 0xD8 {
		t.Fatalf("the first frame is not a JPEG: %v %d bytes %v", typ, len(msg), err)
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
