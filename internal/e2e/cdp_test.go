//go:build linux

package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/browserd/browserd/internal/recording"
	"github.com/browserd/browserd/internal/tool"
)

// cdpPlaywright drives a task of a browserd session with playwright-core's
// connectOverCDP, as a program built on Playwright does: a login (its
// response waited for), a screenshot, a second page, a download, and each
// refusal tried through Playwright's own API. It prints what it saw as
// JSON. Between its pages and its look at the targets it waits for
// $BARRIER/other (the Puppeteer client's pages are open then).
const cdpPlaywright = `const { chromium } = require('playwright-core');
const fs = require('fs');
const [endpoint, site, barrier] = process.argv.slice(2);
const out = {};
const text = e => String(e && e.message || e).split('\n')[0];
(async () => {
  const browser = await chromium.connectOverCDP(endpoint);
  out.contexts = browser.contexts().length;
  const ctx = browser.contexts()[0];
  out.firstPages = ctx.pages().length;
  const page = ctx.pages()[0];
  await page.goto(site + '/login');
  await page.fill('#username', 'cdp-ada');
  const [resp] = await Promise.all([
    page.waitForResponse(r => r.url().endsWith('/login') && r.request().method() === 'POST'),
    page.click('button[type=submit]'),
  ]);
  out.loginStatus = resp.status();
  await page.waitForURL('**/account');
  out.account = (await page.textContent('body')).trim();
  out.shot = (await page.screenshot()).length;
  const second = await ctx.newPage();
  await second.goto(site + '/download?pw');
  const [download] = await Promise.all([second.waitForEvent('download'), second.click('#report')]);
  out.download = download.suggestedFilename();
  out.pages = ctx.pages().length;
  out.file = await page.goto('file:///etc/passwd').then(() => 'loaded', text);
  out.proxy = await browser.newContext({ proxy: { server: 'http://127.0.0.1:9' } }).then(() => 'made', text);
  const own = await browser.newContext();
  const ownPage = await own.newPage();
  out.ownContext = await ownPage.goto('http://169.254.169.254/latest/meta-data/').then(() => 'loaded', text);
  await own.close();
  const b = await browser.newBrowserCDPSession();
  out.systemInfo = await b.send('SystemInfo.getInfo').then(() => 'answered', text);
  out.crash = await b.send('Browser.crash').then(() => 'crashed', text);
  out.tracing = await b.send('Tracing.start').then(() => 'tracing', text);
  fs.writeFileSync(barrier + '/playwright', '');
  for (let i = 0; i < 600 && !fs.existsSync(barrier + '/puppeteer'); i++) await new Promise(r => setTimeout(r, 100));
  out.targets = (await b.send('Target.getTargets')).targetInfos.map(t => t.url);
  await browser.close();
  console.log(JSON.stringify(out));
})().catch(e => { console.error(e); process.exit(1); });
`

// cdpPuppeteer drives another task of the same session with
// puppeteer-core's connect, at the same time.
const cdpPuppeteer = `const puppeteer = require('puppeteer-core');
const fs = require('fs');
const [endpoint, site, barrier] = process.argv.slice(2);
const out = {};
(async () => {
  const browser = await puppeteer.connect({ browserWSEndpoint: endpoint, defaultViewport: null });
  const pages = await browser.pages();
  out.firstPages = pages.length;
  const page = pages[0];
  await page.goto(site + '/form?pp');
  await page.type('#name', 'Grace');
  out.typed = await page.$eval('#name', e => e.value);
  out.shot = (await page.screenshot()).length;
  const second = await browser.newPage();
  await second.goto(site + '/login?pp');
  fs.writeFileSync(barrier + '/puppeteer', '');
  for (let i = 0; i < 600 && !fs.existsSync(barrier + '/playwright'); i++) await new Promise(r => setTimeout(r, 100));
  out.targets = browser.targets().map(t => t.url());
  out.pages = (await browser.pages()).map(p => p.url());
  await browser.close();
  console.log(JSON.stringify(out));
})().catch(e => { console.error(e); process.exit(1); });
`

// TestCDPEndpoint: Playwright's connectOverCDP, Puppeteer's connect and
// agent-browser's --cdp drive tasks of one browserd session (issue 49):
// each sees only its own task's pages, a login made over CDP is the
// session's (an MCP-side call of another task finds it, and a new session
// of the profile does after a restart), the refusals hold whatever the
// client library sends, the client's pages are the task's tabs, a close
// leaves the session's browser up, and a token whose policy denies
// evaluate gets no CDP at all.
func TestCDPEndpoint(t *testing.T) {
	node, _, dir := npmInstall(t, "the CDP clients are not run", "playwright-core@1.65.1", "puppeteer-core@24.43.1", "agent-browser@0.41.2")
	data := t.TempDir()
	addr := freeAddr(t)
	d := startDaemon(t, data, "--listen", addr)
	token := adminToken(t, data)
	api := tcpAPI(t, addr, token)
	var res tool.Result
	api.expect(200, "POST", "/api/actions", map[string]any{"action": "launch", "session": "cdp", "profile": "cdp"}, &res)
	if !res.Success {
		t.Fatalf("launch: %s", res.Error)
	}
	endpoint := func(task string) string {
		return "ws://" + addr + "/cdp?session=cdp&task=" + task + "&token=" + token
	}

	// No token, no CDP; /json/version names the endpoint for clients
	// that take http://host:port.
	if resp, err := http.Get("http://" + addr + "/cdp?session=cdp"); err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("/cdp without a token: %v %v, want 401", resp, err)
	}
	var version struct {
		URL string `json:"webSocketDebuggerUrl"`
	}
	api.expect(200, "GET", "/json/version?session=cdp&task=x", nil, &version)
	if version.URL != "ws://"+addr+"/cdp?session=cdp&task=x" {
		t.Errorf("/json/version: %q", version.URL)
	}

	// The same over the Unix socket, as admin.
	var viaSocket struct {
		URL string `json:"webSocketDebuggerUrl"`
	}
	socketAPI(t, data).expect(200, "GET", "/json/version?task=x", nil, &viaSocket)
	if !strings.HasSuffix(viaSocket.URL, "/cdp?task=x") {
		t.Errorf("/json/version over the socket: %q", viaSocket.URL)
	}

	// Playwright and Puppeteer at once, on two tasks.
	barrier := t.TempDir()
	for name, script := range map[string]string{"pw.js": cdpPlaywright, "pp.js": cdpPuppeteer} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var pw struct {
		Contexts, FirstPages, LoginStatus, Shot, Pages int
		Account, Download, File, Proxy, OwnContext     string
		SystemInfo, Crash, Tracing                     string
		Targets                                        []string
	}
	var pp struct {
		FirstPages, Shot int
		Typed            string
		Targets, Pages   []string
	}
	var wg sync.WaitGroup
	runNode := func(script, task string, out any) {
		defer wg.Done()
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, node, filepath.Join(dir, script), endpoint(task), site.URL(""), barrier)
		cmd.Dir = dir
		var stderr strings.Builder
		cmd.Stderr = &stderr
		b, err := cmd.Output()
		if err != nil {
			t.Errorf("%s: %v\n%s", script, err, stderr.String())
			return
		}
		if err := json.Unmarshal(b, out); err != nil {
			t.Errorf("%s: %v: %s", script, err, b)
		}
	}
	wg.Add(2)
	go runNode("pw.js", "pw", &pw)
	go runNode("pp.js", "pp", &pp)
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	t.Logf("playwright: %+v", pw)
	t.Logf("puppeteer: %+v", pp)
	if pw.Contexts != 1 || pw.FirstPages != 1 || pp.FirstPages != 1 {
		t.Errorf("each client should find one context with its task's one page: %d contexts, %d and %d pages", pw.Contexts, pw.FirstPages, pp.FirstPages)
	}
	if pw.LoginStatus != http.StatusSeeOther || !strings.Contains(pw.Account, "cdp-ada") || pw.Shot == 0 || pp.Shot == 0 {
		t.Errorf("login over CDP: status %d, account %q, screenshots %d and %d bytes", pw.LoginStatus, pw.Account, pw.Shot, pp.Shot)
	}
	if pw.Download != "report.csv" || pw.Pages != 2 || pp.Typed != "Grace" {
		t.Errorf("download %q, %d pages, typed %q", pw.Download, pw.Pages, pp.Typed)
	}
	for what, msg := range map[string]string{"file: navigation": pw.File, "a context's own proxy": pw.Proxy, "SystemInfo": pw.SystemInfo,
		"Browser.crash": pw.Crash, "tracing every tab": pw.Tracing, "a page of its own context at the metadata address": pw.OwnContext} {
		if !strings.Contains(msg, "browserd") && !strings.Contains(msg, "refused") {
			t.Errorf("%s: %q, want browserd's refusal", what, msg)
		}
	}
	for _, u := range pw.Targets {
		if strings.Contains(u, "pp") {
			t.Errorf("Playwright's task sees Puppeteer's page %s", u)
		}
	}
	for _, u := range append(pp.Targets, pp.Pages...) {
		if strings.Contains(u, "/account") || strings.Contains(u, "pw") {
			t.Errorf("Puppeteer's task sees Playwright's page %s", u)
		}
	}
	if len(pw.Targets) != 2 || len(pp.Pages) != 2 {
		t.Errorf("each client should see its own two pages: %q and %q", pw.Targets, pp.Pages)
	}

	// The client's pages are the task's tabs; the session's browser
	// outlived both clients' close; another task of the session (an MCP
	// agent's) finds the login made over CDP.
	api.expect(200, "POST", "/api/actions", map[string]any{"action": "tabs", "session": "cdp", "task": "pw"}, &res)
	if len(res.Tabs) != 2 {
		t.Errorf("task pw's tabs: %+v, want the two pages Playwright used", res.Tabs)
	}
	// Its navigations are in the task's recording, each with a frame.
	var seen map[string]bool
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		var tr recording.Export
		api.expect(200, "GET", "/api/sessions/cdp/trace?task=pw", nil, &tr)
		seen = map[string]bool{}
		for _, e := range tr.Entries {
			if e.Type == "action" && e.Name == "navigate" && e.Args["by"] == "cdp" && e.Frame != "" {
				seen[strings.TrimPrefix(e.URL, site.URL(""))] = true
			}
			if e.Type == "action" && e.Name == "download" && e.Args["file"] == "report.csv" && e.OK != nil && *e.OK {
				seen["download"] = true
			}
		}
		if seen["/account"] && seen["/download?pw"] && seen["download"] || time.Now().After(deadline) {
			break
		}
	}
	if !seen["/login"] || !seen["/account"] || !seen["/download?pw"] || !seen["download"] {
		t.Errorf("the recording of task pw has CDP navigations with frames to %v, want /login, /account and /download?pw, and the download of report.csv", seen)
	}
	if status, har := api.call("GET", "/api/sessions/cdp/har?task=pw", nil, nil); status != 200 || !strings.Contains(string(har), "/download?pw") {
		t.Errorf("the task's HAR has not the page Playwright loaded last: %d %.300s", status, har)
	}
	api.expect(200, "POST", "/api/actions", map[string]any{"action": "navigate", "session": "cdp", "task": "mcp", "url": site.URL("/account")}, &res)
	if !res.Success || !strings.Contains(res.Content, "cdp-ada") {
		t.Fatalf("an MCP-side task of the session after the CDP login: %s %s", res.Error, res.Content)
	}

	// An agent's calls and a raw CDP client on one task: what the client
	// changed is in the agent's next answer, and a ref to an element it
	// removed is stale, not another element.
	api.expect(200, "POST", "/api/actions", map[string]any{"action": "navigate", "session": "cdp", "task": "mix", "url": site.URL("/form")}, &res)
	nameRef, mixTab := ref(t, res.Content, "textbox", "Name"), res.Tab
	raw := dialCDP(t, endpoint("mix"))
	var targets struct {
		TargetInfos []struct {
			TargetID string `json:"targetId"`
			URL      string `json:"url"`
		} `json:"targetInfos"`
	}
	raw.call(t, "", "Target.getTargets", nil, &targets)
	if len(targets.TargetInfos) != 1 || !strings.HasSuffix(targets.TargetInfos[0].URL, "/form") {
		t.Fatalf("the raw client's targets: %+v, want the task's one page", targets.TargetInfos)
	}
	var attached struct {
		SessionID string `json:"sessionId"`
	}
	raw.call(t, "", "Target.attachToTarget", map[string]any{"targetId": targets.TargetInfos[0].TargetID, "flatten": true}, &attached)
	raw.call(t, attached.SessionID, "Runtime.evaluate", map[string]any{"expression": `document.getElementById('name').remove(); document.body.insertAdjacentHTML('afterbegin', '<button id="fresh">Fresh from CDP</button>')`}, nil)

	// A person who takes the page over in the dashboard has it to
	// themselves: the client's input is refused until they hand it back.
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	cookie := signedInCookie(t, socketAPI(t, data), noRedirect)
	h := http.Header{}
	h.Set("Origin", "http://"+addr)
	h.Set("Cookie", cookie.Name+"="+cookie.Value)
	lctx, lcancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer lcancel()
	live, _, err := websocket.Dial(lctx, "ws://"+addr+"/dashboard/ws?session=cdp&tab="+mixTab, &websocket.DialOptions{HTTPHeader: h})
	if err != nil {
		t.Fatalf("the dashboard's socket: %v", err)
	}
	move := map[string]any{"type": "mouseMoved", "x": 5, "y": 5}
	_ = live.Write(lctx, websocket.MessageText, []byte(`{"t":"take"}`))
	var held error
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if _, held = raw.do(attached.SessionID, "Input.dispatchMouseEvent", move); held != nil {
			break
		}
	}
	if held == nil || !strings.Contains(held.Error(), "a person") {
		t.Errorf("the client's input while a person holds the page: %v, want a refusal", held)
	}
	_ = live.Write(lctx, websocket.MessageText, []byte(`{"t":"release"}`))
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if _, held = raw.do(attached.SessionID, "Input.dispatchMouseEvent", move); held == nil {
			break
		}
	}
	if held != nil {
		t.Errorf("the client's input once the person handed the page back: %v", held)
	}
	live.CloseNow()
	raw.close()
	api.expect(200, "POST", "/api/actions", map[string]any{"action": "type", "session": "cdp", "task": "mix", "ref": nameRef, "text": "x"}, &res)
	if res.Success {
		t.Errorf("typing into a field the CDP client removed succeeded: %s", res.Content)
	}
	api.expect(200, "POST", "/api/actions", map[string]any{"action": "snapshot", "session": "cdp", "task": "mix"}, &res)
	if !strings.Contains(res.Content, "Fresh from CDP") || strings.Contains(res.Content, `textbox "Name"`) {
		t.Errorf("the agent's snapshot after the CDP client's change:\n%s", res.Content)
	}

	// agent-browser --cdp, on a task of an ephemeral session (a context
	// of the browser every such session shares).
	ab := filepath.Join(dir, "node_modules", "agent-browser", "bin", "agent-browser-linux-x64")
	if _, err := os.Stat(ab); err == nil {
		_ = os.Chmod(ab, 0o755)
		home := t.TempDir()
		run := func(args ...string) string {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			eph := "ws://" + addr + "/cdp?session=eph&task=ab&token=" + token
			cmd := exec.CommandContext(ctx, ab, append([]string{"--cdp", eph}, args...)...)
			cmd.Env = append(os.Environ(), "AGENT_BROWSER_HOME="+home, "HOME="+home)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Errorf("agent-browser %s: %v\n%s", args[0], err, out)
			}
			return string(out)
		}
		run("open", site.URL("/form?ab"))
		if snap := run("snapshot"); !strings.Contains(snap, "Name") {
			t.Errorf("agent-browser's snapshot over browserd's CDP: %s", snap)
		}
		run("close")
		api.expect(200, "POST", "/api/actions", map[string]any{"action": "tabs", "session": "eph", "task": "ab"}, &res)
		if len(res.Tabs) != 1 || !strings.HasSuffix(res.Tabs[0].URL, "/form?ab") {
			t.Errorf("the ephemeral session's task after agent-browser: %+v", res.Tabs)
		}
	}

	// A token whose policy denies evaluate gets no CDP at all.
	var limited struct {
		Token string `json:"token"`
	}
	api.expect(201, "POST", "/api/tokens", map[string]any{"owner": "dana", "policy": map[string]any{"deny": []string{"evaluate"}}}, &limited)
	req, _ := http.NewRequest("GET", "http://"+addr+"/cdp?task=x", nil)
	req.Header.Set("Authorization", "Bearer "+limited.Token)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("/cdp for a token that may not evaluate: %v %v, want 403", resp, err)
	}

	// Another owner naming the same session gets a session of its own:
	// none of admin's pages, none of its cookies.
	var other struct {
		Token string `json:"token"`
	}
	api.expect(201, "POST", "/api/tokens", map[string]any{"owner": "erin"}, &other)
	erin := dialCDP(t, "ws://"+addr+"/cdp?session=cdp&task=pw&token="+other.Token)
	var erinTargets struct {
		TargetInfos []struct {
			URL string `json:"url"`
		} `json:"targetInfos"`
	}
	erin.call(t, "", "Target.getTargets", nil, &erinTargets)
	var cookies struct {
		Cookies []struct {
			Name string `json:"name"`
		} `json:"cookies"`
	}
	erin.call(t, "", "Storage.getCookies", nil, &cookies)
	erin.close()
	if len(erinTargets.TargetInfos) != 1 || erinTargets.TargetInfos[0].URL != "about:blank" || len(cookies.Cookies) != 0 {
		t.Errorf("another owner's session=cdp: targets %+v, cookies %+v, want a blank page of its own and no cookie", erinTargets.TargetInfos, cookies.Cookies)
	}

	// The login made over CDP survives a restart: a new session of the
	// profile is logged in.
	stopDaemon(t, data)
	_, _ = d.Process.Wait()
	startDaemon(t, data, "--listen", addr)
	api.expect(200, "POST", "/api/actions", map[string]any{"action": "navigate", "profile": "cdp", "task": "after", "url": site.URL("/account")}, &res)
	if !res.Success || !strings.Contains(res.Content, "cdp-ada") {
		t.Errorf("the profile after a restart: %s %s", res.Error, res.Content)
	}
	// The pages Playwright opened come back with the session, as any tab.
	api.expect(200, "POST", "/api/actions", map[string]any{"action": "tabs", "session": "cdp", "task": "pw"}, &res)
	var urls []string
	for _, tb := range res.Tabs {
		urls = append(urls, strings.TrimPrefix(tb.URL, site.URL("")))
	}
	if strings.Join(urls, " ") != "/account /download?pw" {
		t.Errorf("task pw after the restart: %q, want the pages Playwright left", urls)
	}
}

// rawCDP is a bare CDP client: one command at a time, events skipped.
type rawCDP struct {
	ws *websocket.Conn
	id int64
}

func dialCDP(t *testing.T, endpoint string) *rawCDP {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, endpoint, nil)
	if err != nil {
		t.Fatalf("dialing %s: %v", endpoint, err)
	}
	ws.SetReadLimit(64 << 20)
	return &rawCDP{ws: ws}
}

func (r *rawCDP) call(t *testing.T, session, method string, params, out any) {
	t.Helper()
	result, err := r.do(session, method, params)
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	if out != nil {
		if err := json.Unmarshal(result, out); err != nil {
			t.Fatalf("%s: %v", method, err)
		}
	}
}

// do sends one command and waits for its answer.
func (r *rawCDP) do(session, method string, params any) (json.RawMessage, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r.id++
	if params == nil {
		params = map[string]any{}
	}
	msg := map[string]any{"id": r.id, "method": method, "params": params}
	if session != "" {
		msg["sessionId"] = session
	}
	b, _ := json.Marshal(msg)
	if err := r.ws.Write(ctx, websocket.MessageText, b); err != nil {
		return nil, err
	}
	for {
		_, data, err := r.ws.Read(ctx)
		if err != nil {
			return nil, err
		}
		var reply struct {
			ID     int64           `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(data, &reply) != nil || reply.ID != r.id {
			continue
		}
		if reply.Error != nil {
			return nil, errors.New(reply.Error.Message)
		}
		return reply.Result, nil
	}
}

func (r *rawCDP) close() { r.ws.Close(websocket.StatusNormalClosure, "") }
