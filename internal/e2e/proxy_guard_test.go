//go:build linux

package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/browserd/browserd/internal/tool"
)

// rawListener accepts connections on ip:0, counts them and answers each
// with answer.
func rawListener(t *testing.T, ip string, answer func(net.Conn)) (addr string, conns *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", ip+":0")
	if err != nil {
		t.Fatal(err)
	}
	conns = &atomic.Int64{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			go func() {
				defer c.Close()
				c.SetDeadline(time.Now().Add(10 * time.Second))
				answer(c)
			}()
		}
	}()
	t.Cleanup(func() { ln.Close(); <-done })
	return ln.Addr().String(), conns
}

// proxyMarker is what the hostile servers below send: it must reach no
// answer, snapshot, page script, network log nor HAR.
const proxyMarker = "INTERNAL-7c1e5b"

// hostileAnswer reads a request's head and answers with a line net/http
// would quote whole ("malformed HTTP response"), then a page.
func hostileAnswer(c net.Conn) {
	br := bufio.NewReader(c)
	for {
		line, err := br.ReadString('\n')
		if err != nil || line == "\r\n" {
			break
		}
	}
	io.WriteString(c, proxyMarker+"-secret-"+proxyMarker+"\r\n\r\n<html><body>"+proxyMarker+" internal admin page</body></html>\n")
}

// TestSessionProxyGuard (issue 36 point 3) through real Chromium: a
// launch whose proxy is an internal address (127.0.0.2, cloud metadata)
// is refused with the --allow-host flag that would allow it, and the
// internal server never hears of it; a proxy --allow-host allows that
// answers garbage fails the navigation in browserd's words — the bytes it
// sent are in neither the answer, the snapshot, the page's own fetch, the
// network log nor the HAR.
func TestSessionProxyGuard(t *testing.T) {
	t.Parallel() // its own daemon or engine: waits more than it works, beside others (make test's budget)
	internal, hits := rawListener(t, "127.0.0.2", hostileAnswer)
	hostile, hostileHits := rawListener(t, "127.0.0.3", hostileAnswer)
	d := newMCPDriver(t, "--allow-host", hostile, "--allow-host", shopAddr)
	shop := fmt.Sprintf("http://%s:8080/", shopAddr)
	d.do(t, tool.Input{Action: "status"}) // the daemon runs
	api := func(in tool.Input) (tool.Result, string) {
		t.Helper()
		raw := postAction(t, d.data, in)
		if strings.Contains(strings.ToLower(raw), strings.ToLower(proxyMarker)) {
			t.Errorf("%s answered with the proxy's bytes: %s", in.Action, raw)
		}
		var r tool.Result
		if err := json.Unmarshal([]byte(raw), &r); err != nil {
			t.Fatalf("%s: %q: %v", in.Action, raw, err)
		}
		return r, raw
	}

	// Internal addresses: refused at launch, nothing dialled.
	for _, tc := range []struct{ server, flag string }{
		{"http://" + internal, "--allow-host " + internal},
		{"socks5://" + internal, "--allow-host " + internal},
		{"http://169.254.169.254:80", "--allow-host 169.254.169.254"},
	} {
		r, raw := api(tool.Input{Action: "launch", Session: "inside", Proxy: &tool.Proxy{Server: tc.server}})
		if r.Success || !strings.Contains(r.Error, "refused by browserd's guard") || !strings.Contains(r.Error, tc.flag) {
			t.Errorf("launch with proxy %s: %s", tc.server, raw)
		}
		t.Logf("launch with proxy %s: %s", tc.server, r.Error)
		// Whatever the launch did, a navigation of that session reaches
		// nothing internal.
		api(tool.Input{Action: "navigate", Session: "inside", URL: shop})
		api(tool.Input{Action: "close", Session: "inside"})
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the internal server received %d connections", n)
	}

	// The session's own lists narrow the daemon's, for its proxy too.
	for _, tc := range []struct {
		in   tool.Input
		want string
	}{
		{tool.Input{BlockHosts: []string{"127.0.0.3"}}, "matches --block-host 127.0.0.3"},
		{tool.Input{OnlyHosts: []string{shopAddr}}, "launch's onlyHosts must name it too"},
		{tool.Input{AllowHosts: []string{shopAddr}}, "launch's allowHosts must name it too"},
	} {
		in := tc.in
		in.Action, in.Session, in.Proxy = "launch", "narrow", &tool.Proxy{Server: "http://" + hostile}
		if r, raw := api(in); r.Success || !strings.Contains(r.Error, tc.want) {
			t.Errorf("launch %+v: %s", tc.in, raw)
		}
	}
	if n := hostileHits.Load(); n != 0 {
		t.Errorf("a proxy the session's lists refuse was dialled %d times", n)
	}

	// A proxy the operator allowed that answers garbage.
	r, raw := api(tool.Input{Action: "launch", Session: "odd", Proxy: &tool.Proxy{Server: "http://" + hostile}})
	if !r.Success {
		t.Fatalf("launch with an allowed proxy: %s", raw)
	}
	r, raw = api(tool.Input{Action: "navigate", Session: "odd", URL: shop})
	if r.Success || !strings.Contains(r.Error, "not HTTP") {
		t.Errorf("navigate through a proxy that answers garbage: %s", raw)
	}
	t.Logf("navigate: %s", r.Error)
	if hostileHits.Load() == 0 {
		t.Error("the allowed proxy was never dialled")
	}
	_, raw = api(tool.Input{Action: "snapshot", Session: "odd"})
	if !strings.Contains(raw, "not HTTP") {
		t.Errorf("the error page: %s", raw)
	}
	// The page's own fetch: the same origin's 502, and a tunnel.
	r, raw = api(tool.Input{Action: "evaluate", Session: "odd", Expression: `Promise.all([
		fetch('/x').then(r => r.text().then(t => r.status + ' ' + t), e => 'error ' + e),
		fetch('https://` + shopAddr + `/y').then(r => r.text(), e => 'error ' + e)]).then(a => a.join(' | '))`})
	if !r.Success || !strings.Contains(raw, "502") || !strings.Contains(raw, "not HTTP") {
		t.Errorf("the page's fetch: %s", raw)
	}
	t.Logf("the page's fetch: %s", r.Content)
	// The network log, each request whole, and the HAR.
	_, raw = api(tool.Input{Action: "network", Session: "odd"})
	for _, id := range regexp.MustCompile(`\br\d+\b`).FindAllString(raw, -1) {
		api(tool.Input{Action: "network", Session: "odd", Request: id, Redact: new(false)})
	}
	r, _ = api(tool.Input{Action: "network", Session: "odd", Path: "odd.har"})
	if r.Path != "" {
		if b, err := os.ReadFile(r.Path); err != nil || strings.Contains(strings.ToLower(string(b)), strings.ToLower(proxyMarker)) {
			t.Errorf("the HAR %s holds the proxy's bytes (%v)", r.Path, err)
		}
	}
	api(tool.Input{Action: "console", Session: "odd"})
	api(tool.Input{Action: "status"})
	if n := hits.Load(); n != 0 {
		t.Errorf("the internal server received %d connections", n)
	}
	// Nor in any file of the data folder: the daemon's log included.
	_ = filepath.WalkDir(d.data, func(path string, de fs.DirEntry, err error) error {
		if err != nil || de.IsDir() {
			return nil
		}
		if b, err := os.ReadFile(path); err == nil && bytes.Contains(bytes.ToLower(b), bytes.ToLower([]byte(proxyMarker))) {
			t.Errorf("%s holds the proxy's bytes", path)
		}
		return nil
	})
}
