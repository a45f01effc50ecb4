//go:build linux

package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/browserd/browserd/internal/chromium"
)

// TestHARFromTheAPI: GET /api/sessions/{id}/har serves the task's network
// log as HAR to its owner only, and Chrome DevTools' own HAR importer (the
// front end Chromium serves on its debugging port) reads it.
func TestHARFromTheAPI(t *testing.T) {
	t.Parallel() // its own daemon or engine: waits more than it works, beside others (make test's budget)
	data := t.TempDir()
	addr := freeAddr(t)
	startDaemon(t, data, "--listen", addr)
	admin := tcpAPI(t, addr, adminToken(t, data))
	var tokA, tokB struct {
		Token string `json:"token"`
	}
	admin.expect(201, "POST", "/api/tokens", map[string]string{"owner": "alice"}, &tokA)
	admin.expect(201, "POST", "/api/tokens", map[string]string{"owner": "bob"}, &tokB)
	alice, bob := tcpAPI(t, addr, tokA.Token), tcpAPI(t, addr, tokB.Token)
	var res struct {
		Success bool   `json:"success"`
		Error   string `json:"error"`
		Content string `json:"content"`
	}
	act := func(in map[string]any) {
		t.Helper()
		alice.expect(200, "POST", "/api/actions", in, &res)
		if !res.Success {
			t.Fatalf("%v: %s", in, res.Error)
		}
	}
	act(map[string]any{"action": "navigate", "session": "net", "task": "shop", "url": site.URL("/network"), "snapshot": false})
	act(map[string]any{"action": "wait", "session": "net", "task": "shop", "text": "ready:"})
	act(map[string]any{"action": "network", "session": "net", "task": "shop", "filter": "failed"})
	if !strings.Contains(res.Content, " POST 500 fetch ") || !strings.Contains(res.Content, " GET refused fetch ") || strings.Contains(res.Content, " GET 200 document ") {
		t.Errorf("network filter failed over the HTTP API: %s", res.Content)
	}

	status, har := alice.call("GET", "/api/sessions/net/har?task=shop", nil, nil)
	if status != 200 {
		t.Fatalf("GET har: %d %s", status, har)
	}
	checkHAR(t, har)
	if matches, _ := filepath.Glob(filepath.Join(data, "owners", "alice", "har", "*.har")); len(matches) != 1 {
		t.Errorf("the HAR the API served is not kept in alice's har folder: %v", matches)
	}
	if status, body := bob.call("GET", "/api/sessions/net/har?task=shop", nil, nil); status != 404 {
		t.Errorf("bob read alice's HAR: %d %.200s", status, body)
	}
	if status, body := alice.call("GET", "/api/sessions/net/har?task=shop&redact=maybe", nil, nil); status != 400 || !strings.Contains(string(body), "redact") {
		t.Errorf("redact=maybe: %d %s", status, body)
	}

	// Chrome DevTools imports it: its HAR importer, from the front end a
	// Chromium with a debugging port serves, turns each entry into a
	// request.
	port := devtoolsPort(t)
	act(map[string]any{"action": "navigate", "session": "net", "task": "devtools", "url": "http://127.0.0.1:" + port + "/json/version", "snapshot": false})
	expr := fmt.Sprintf(`(async () => {
		const m = await import('/devtools/models/har/har.js');
		const root = new m.HARFormat.HARRoot(%s);
		const reqs = m.Importer.Importer.requestsFromHARLog(root.log);
		return reqs.map(r => r.requestMethod + ' ' + r.statusCode + ' ' + r.url()).join('\n');
	})()`, har)
	act(map[string]any{"action": "evaluate", "session": "net", "task": "devtools", "expression": expr})
	for _, want := range []string{"POST 500 " + site.URL("/net/api"), "GET 200 " + site.URL("/network"), "GET 302 " + site.URL("/net/redirect")} {
		if !strings.Contains(res.Content, want) {
			t.Errorf("DevTools' importer did not read %q from the HAR; it read:\n%s", want, res.Content)
		}
	}
}

// devtoolsPort starts a headless Chromium with a debugging port, for the
// DevTools front end it serves, and returns the port.
func devtoolsPort(t *testing.T) string {
	exe, err := chromium.Find("")
	if err != nil {
		t.Skip(err)
	}
	profile := t.TempDir()
	var args []string
	for _, a := range (chromium.Options{UserDataDir: profile, Width: 800, Height: 600}).Args() {
		if a != "--remote-debugging-pipe" {
			args = append(args, a)
		}
	}
	chrome := exec.Command(exe, append(args, "--remote-debugging-port=0")...)
	if err := chrome.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = chrome.Process.Kill()
		_, _ = chrome.Process.Wait()
		waitNoChromium(t, profile)
	})
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		b, err := os.ReadFile(filepath.Join(profile, "DevToolsActivePort"))
		if lines := strings.Split(strings.TrimSpace(string(b)), "\n"); err == nil && len(lines) == 2 {
			return lines[0]
		}
	}
	t.Fatal("Chromium wrote no DevToolsActivePort")
	return ""
}
