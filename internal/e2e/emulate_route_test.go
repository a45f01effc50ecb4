//go:build linux

package e2e

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/browserd/browserd/internal/tool"
)

// evalIn evaluates expression in the task's tab of profile (a session of
// its own) and returns the answer's text.
func evalIn(t *testing.T, d driver, profile, task, expression string) string {
	t.Helper()
	return ok(t, d, tool.Input{Action: "evaluate", Profile: profile, Task: task, Expression: expression}).Content
}

// testEmulateRoute (issue 39 points 1 and 2), through every front end: a
// phone launched by its device name shows its viewport, touch and user
// agent to the page, and a dark color scheme through matchMedia; a click
// on it is a tap (touch events, then the click); a route answers a fetch
// with a made-up body, which the page shows, and another aborts one; the
// network log marks what a route served and status lists the routes;
// offline is seen by the page, and undone.
func testEmulateRoute(t *testing.T, d driver, task string) {
	phone := task + "-phone"
	ok(t, d, tool.Input{Action: "launch", Profile: phone, Task: task, Device: "Pixel 7", ColorScheme: "dark"})
	ok(t, d, tool.Input{Action: "navigate", Profile: phone, Task: task, URL: site.URL("/form"), Snapshot: new(false)})
	env := evalIn(t, d, phone, task, `JSON.stringify([screen.width, 'ontouchstart' in window, navigator.maxTouchPoints,
		navigator.userAgent.includes('Pixel 7'), matchMedia('(prefers-color-scheme: dark)').matches, devicePixelRatio])`)
	contains(t, env, `[412,true,1,true,true,2.625]`)

	// The position changes at any time, and is granted apart (issue 51
	// point 4: it could only be set at launch, which granted it too).
	ok(t, d, tool.Input{Action: "emulate", Profile: phone, Task: task, Geolocation: &tool.Geolocation{Latitude: 48.85, Longitude: 2.35, Accuracy: 10}, Permissions: []string{"geolocation"}})
	where := `new Promise(r => navigator.geolocation.getCurrentPosition(p => r(p.coords.latitude + ',' + p.coords.longitude), e => r('error ' + e.code)))`
	contains(t, evalIn(t, d, phone, task, where), "48.85,2.35")
	ok(t, d, tool.Input{Action: "emulate", Profile: phone, Task: task, Geolocation: &tool.Geolocation{Latitude: 40.7, Longitude: -74}})
	contains(t, evalIn(t, d, phone, task, where), "40.7,-74")

	// A tap: touchstart and touchend, then the click a browser makes of it.
	evalIn(t, d, phone, task, `(() => {
		document.body.insertAdjacentHTML('afterbegin', '<button id="tap" style="width:200px;height:80px">Tap me</button>');
		window.seen = [];
		for (const type of ['touchstart', 'touchend', 'mousedown', 'click'])
			document.getElementById('tap').addEventListener(type, () => seen.push(type));
		return 'ready';
	})()`)
	ok(t, d, tool.Input{Action: "click", Profile: phone, Task: task, Selector: "#tap", Snapshot: new(false)})
	contains(t, evalIn(t, d, phone, task, `seen.join(',')`), "touchstart,touchend,mousedown,click")
	// A scroll is a swipe: the page hears the finger, and moves.
	evalIn(t, d, phone, task, `(() => {
		document.body.insertAdjacentHTML('beforeend', '<div style="height:5000px">tall</div>');
		window.moves = 0;
		addEventListener('touchmove', () => moves++, {passive: true});
		return 'ready';
	})()`)
	ok(t, d, tool.Input{Action: "scroll", Profile: phone, Task: task, Direction: "down", Snapshot: new(false)})
	contains(t, evalIn(t, d, phone, task, `'swiped: ' + (moves > 0) + ' ' + (scrollY > 0)`), "swiped: true true")

	// A mocked fetch, shown on the page; an aborted one.
	ok(t, d, tool.Input{Action: "route", Profile: phone, Task: task, URL: "**/mock/items", Body: `{"name":"mocked item"}`})
	ok(t, d, tool.Input{Action: "route", Profile: phone, Task: task, URL: "/\\/mock\\/broken$/", Abort: "failed"})
	evalIn(t, d, phone, task, `fetch('/mock/items').then(r => r.json()).then(j => {
		document.body.insertAdjacentHTML('beforeend', '<p id="got">' + j.name + ' (' + document.readyState + ')</p>'); return j.name; })`)
	contains(t, ok(t, d, tool.Input{Action: "extract", Profile: phone, Task: task, Selector: "#got"}).Content, "mocked item")
	contains(t, evalIn(t, d, phone, task, `fetch('/mock/broken').then(() => 'answered', e => 'refused: ' + e.name)`), "refused: TypeError")
	// The server's own answer, changed (issue 51 point 4: Playwright's
	// route.fetch() then route.fulfill()): its status, a header and a
	// text of its body; its Content-Type kept.
	ok(t, d, tool.Input{Action: "route", Profile: phone, Task: task, URL: "**/net/data.json", Fetch: true, Status: 203,
		Headers: map[string]string{"X-Routed": "changed"}, Text: `"items":3`, Value: `"items":7`})
	contains(t, evalIn(t, d, phone, task, `fetch('/net/data.json').then(async r => [r.status, r.headers.get('x-routed'), r.headers.get('content-type'), await r.text()].join(' '))`),
		`203 changed application/json {\"items\":7}`)
	contains(t, ok(t, d, tool.Input{Action: "status", Profile: phone, Task: task}).Content, `route (task) **/net/data.json: the server's answer, changed: status 203, 1 headers, "\"items\":3" replaced; 1 served`)
	// A request passed on with a header Chromium will not send fails at
	// once, and the log says why (it stayed paused until the page gave up).
	ok(t, d, tool.Input{Action: "route", Profile: phone, Task: task, URL: "**/mock/override", Headers: map[string]string{"X-HTTP-Method-Override": "TRACE"}})
	contains(t, evalIn(t, d, phone, task, `fetch('/mock/override').then(() => 'answered', e => 'refused: ' + e.name)`), "refused: TypeError")
	contains(t, ok(t, d, tool.Input{Action: "network", Profile: phone, Task: task, Filter: "override"}).Content, "Chromium refused to send the request with its headers")
	net := ok(t, d, tool.Input{Action: "network", Profile: phone, Task: task, Filter: "mock"}).Content
	contains(t, net, "/mock/items [route **/mock/items]")
	contains(t, net, "[route /\\/mock\\/broken$/]")
	contains(t, ok(t, d, tool.Input{Action: "status", Profile: phone, Task: task}).Content, "route (task) **/mock/items: answered 200")

	// Offline, seen by the page; then back.
	ok(t, d, tool.Input{Action: "emulate", Profile: phone, Task: task, Offline: new(true)})
	contains(t, evalIn(t, d, phone, task, `fetch('/form').then(() => 'fetched', () => 'failed').then(f => f + ', online: ' + navigator.onLine)`), "failed, online: false")
	ok(t, d, tool.Input{Action: "emulate", Profile: phone, Task: task, Offline: new(false)})
	contains(t, evalIn(t, d, phone, task, `fetch('/form').then(() => 'fetched', () => 'failed').then(f => f + ', online: ' + navigator.onLine)`), "fetched, online: true")
	// A reload while offline fails as a navigation does (it answered
	// success with Chromium's error page), and works again online.
	ok(t, d, tool.Input{Action: "emulate", Profile: phone, Task: task, Offline: new(true)})
	bad(t, d, tool.Input{Action: "reload", Profile: phone, Task: task}, "ERR_INTERNET_DISCONNECTED")
	ok(t, d, tool.Input{Action: "emulate", Profile: phone, Task: task, Offline: new(false)})
	ok(t, d, tool.Input{Action: "navigate", Profile: phone, Task: task, URL: site.URL("/form"), Snapshot: new(false)})

	ok(t, d, tool.Input{Action: "unroute", Profile: phone, Task: task})
	if st := ok(t, d, tool.Input{Action: "status", Profile: phone, Task: task}).Content; strings.Contains(st, "route (task)") {
		t.Errorf("unroute left routes: %s", st)
	}
	ok(t, d, tool.Input{Action: "close", Profile: phone, Task: task})
}

// TestEmulateRouteOverHTTP (issue 39) through POST /api/actions: a dark
// color scheme set mid-session, a mocked fetch for the session's every
// task, and a route that never widens the guard — a request it passes on
// to an internal address is refused as any, while an answer it makes up
// dials nothing.
func TestEmulateRouteOverHTTP(t *testing.T) {
	data := t.TempDir()
	addr := freeAddr(t)
	startDaemon(t, data, "--listen", addr)
	api := tcpAPI(t, addr, adminToken(t, data))
	var res struct {
		Success bool   `json:"success"`
		Error   string `json:"error"`
		Content string `json:"content"`
	}
	act := func(in map[string]any) string {
		t.Helper()
		in["session"] = "mock"
		api.expect(200, "POST", "/api/actions", in, &res)
		if !res.Success {
			t.Fatalf("%v: %s", in, res.Error)
		}
		return res.Content
	}
	act(map[string]any{"action": "navigate", "task": "a", "url": site.URL("/form"), "snapshot": false})
	act(map[string]any{"action": "emulate", "task": "a", "colorScheme": "dark"})
	contains(t, act(map[string]any{"action": "evaluate", "task": "a", "expression": `'dark: ' + matchMedia('(prefers-color-scheme: dark)').matches`}), "dark: true")
	origin := strings.TrimSuffix(site.URL("/"), "/")
	act(map[string]any{"action": "emulate", "task": "a", "permissions": []string{"notifications", "geolocation"}, "url": origin,
		"throttle": "4G", "cpu": 2, "initScript": "window.early = String(document.body)"})
	contains(t, act(map[string]any{"action": "evaluate", "task": "a", "expression": `navigator.permissions.query({name: 'geolocation'}).then(p => 'geolocation: ' + p.state + ', notifications: ' + Notification.permission)`}),
		"geolocation: granted, notifications: granted")
	// Every permission the tool names is one Chromium grants (six of them
	// were "Unknown permission type").
	var all []string
	for _, p := range tool.Permissions {
		if p != "none" {
			all = append(all, p)
		}
	}
	act(map[string]any{"action": "emulate", "task": "a", "permissions": all, "url": origin})
	contains(t, act(map[string]any{"action": "evaluate", "task": "a", "expression": `Promise.all(['camera', 'microphone', 'clipboard-read', 'clipboard-write', 'midi', 'background-sync', 'storage-access', 'local-fonts', 'accelerometer']
		.map(n => navigator.permissions.query({name: n}).then(p => n + ' ' + p.state, e => n + ' ' + e.name))).then(l => l.join(', '))`}),
		"camera granted, microphone granted, clipboard-read granted, clipboard-write granted, midi granted, background-sync granted, storage-access granted, local-fonts granted, accelerometer granted")
	act(map[string]any{"action": "reload", "task": "a", "snapshot": false})
	contains(t, act(map[string]any{"action": "evaluate", "task": "a", "expression": `'early: ' + window.early`}), "early: null") // before the page's body

	act(map[string]any{"action": "route", "task": "a", "scope": "session", "url": "**/mock/items", "status": 201,
		"contentType": "application/json", "body": `{"name":"from the route"}`, "headers": map[string]string{"X-Mocked": "yes"}})
	// Another task's new tab sees the session's route.
	act(map[string]any{"action": "navigate", "task": "b", "url": site.URL("/form"), "snapshot": false})
	contains(t, act(map[string]any{"action": "evaluate", "task": "b", "expression": `fetch('/mock/items').then(async r => r.status + ' ' + r.headers.get('x-mocked') + ' ' + (await r.json()).name)`}),
		"201 yes from the route")

	// Made up for an internal address: answered, nothing dialled.
	act(map[string]any{"action": "route", "task": "b", "url": "http://10.255.255.1/made-up", "body": "hello", "headers": map[string]string{"Access-Control-Allow-Origin": "*"}})
	contains(t, act(map[string]any{"action": "evaluate", "task": "b", "expression": `fetch('http://10.255.255.1/made-up').then(r => r.text(), e => 'failed: ' + e)`}), "hello")
	// Passed on to an internal address: the guard refuses it still.
	act(map[string]any{"action": "route", "task": "b", "url": "http://10.255.255.1/passed", "headers": map[string]string{"X-Extra": "1"}})
	act(map[string]any{"action": "evaluate", "task": "b", "expression": `fetch('http://10.255.255.1/passed', {mode: 'no-cors'}).then(() => 'answered', e => 'failed')`})
	net := act(map[string]any{"action": "network", "task": "b", "filter": "10.255.255.1"})
	contains(t, net, "/passed — 10.255.255.1 is a private")
	contains(t, net, "/made-up [route http://10.255.255.1/made-up]")
	contains(t, act(map[string]any{"action": "status"}), "route (session) **/mock/items: answered 201")

	// Extra headers emulate sets, and those a route passes a request on
	// with, reach the site.
	act(map[string]any{"action": "emulate", "task": "b", "headers": map[string]string{"X-Emulated": "yes"}})
	act(map[string]any{"action": "route", "task": "b", "url": "**/form?routed", "headers": map[string]string{"X-Routed": "1"}})
	act(map[string]any{"action": "evaluate", "task": "b", "expression": `fetch('/form?routed').then(r => 'status ' + r.status)`})
	id := regexp.MustCompile(`(r\d+) GET 200 fetch`).FindStringSubmatch(act(map[string]any{"action": "network", "task": "b", "filter": "routed"}))
	if id == nil {
		t.Fatal("no fetch of /form?routed in the network log")
	}
	one := act(map[string]any{"action": "network", "task": "b", "request": id[1]})
	contains(t, strings.ToLower(one), "x-emulated: yes")
	contains(t, strings.ToLower(one), "x-routed: 1")
}

// TestDeviceSurvivesRestart (issue 39): a session's device, its media
// features and an init script emulate added are kept in its captures,
// and its pages see them again after the daemon restarts and the session
// is resumed.
func TestDeviceSurvivesRestart(t *testing.T) {
	cfg := testConfig(t)
	seen := func(do func(tool.Input) tool.Result, when string) {
		t.Helper()
		r := do(tool.Input{Action: "evaluate", Session: "phone", Expression: `[navigator.maxTouchPoints, navigator.userAgent.includes('iPhone'),
			matchMedia('(prefers-color-scheme: dark)').matches, window.initRan === true].join(' ')`})
		if !r.Success || !strings.Contains(r.Content, "1 true true true") {
			t.Fatalf("%s: the page sees %q (%s), want touch, the iPhone's user agent, dark and the init script", when, r.Content, r.Error)
		}
	}
	e1, do1 := newEngine(t, cfg)
	for _, in := range []tool.Input{
		{Action: "launch", Session: "phone", Device: "iPhone 15"},
		{Action: "emulate", Session: "phone", ColorScheme: "dark", InitScript: "window.initRan = true"},
		{Action: "navigate", Session: "phone", URL: site.URL("/account"), Snapshot: new(false)},
	} {
		if r := do1(in); !r.Success {
			t.Fatalf("%s: %s", in.Action, r.Error)
		}
	}
	seen(do1, "before the restart")
	if err := e1.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	_, do2 := newEngine(t, cfg)
	if r := do2(tool.Input{Action: "session_resume", Session: "phone"}); !r.Success {
		t.Fatalf("resume: %s", r.Error)
	}
	seen(do2, "after the restart")
}
