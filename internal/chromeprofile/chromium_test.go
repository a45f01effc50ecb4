//go:build linux

package chromeprofile

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/storage"
	"github.com/chromedp/chromedp"

	"github.com/browserd/browserd/internal/storagestate"
)

const chromiumPath = "/usr/bin/chromium"

// TestChromiumOpensProfile builds a profile of 1,000 cookies and 50
// origins' localStorage, starts the real Chromium on it, and checks that
// Chromium sees every cookie and item as written.
func TestChromiumOpensProfile(t *testing.T) {
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Skipf("no Chromium: %v", err)
	}
	if testing.Short() {
		t.Skip("starts Chromium")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	// One local page for every origin: Chromium maps every host to
	// 127.0.0.1, so http://o<i>.test:<port> reaches it.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	sent := map[string]string{} // host → the Cookie header of its last request
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		sent[r.Host] = r.Header.Get("Cookie")
		mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, "<!doctype html><title>chromeprofile</title>")
	})}
	go srv.Serve(ln)
	defer srv.Close()
	port := ln.Addr().(*net.TCPAddr).Port

	now := time.Now()
	st := makeState(port, now)
	dir, err := os.MkdirTemp("", "chromeprofile-test")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	start := time.Now()
	res, err := Build(ctx, st, dir, now)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Build: %v, %d cookies, %d origins, %d items", time.Since(start), res.Cookies, res.Origins, res.Items)
	if res.Cookies != 1000 || res.Origins != 50 || res.Items != 300 || len(res.Skipped) != 0 {
		t.Fatalf("result: %d cookies, %d origins, %d items, skipped %q", res.Cookies, res.Origins, res.Items, res.Skipped)
	}

	var pgid int
	actx, acancel := chromedp.NewExecAllocator(ctx,
		chromedp.ExecPath(chromiumPath),
		chromedp.Flag("headless", "new"),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("password-store", "basic"),
		chromedp.Flag("host-resolver-rules", "MAP * 127.0.0.1"),
		chromedp.Flag("no-proxy-server", true),
		chromedp.UserDataDir(dir),
		// Chromium in its own process group, so that no helper process
		// outlives the test and writes into dir.
		chromedp.ModifyCmdFunc(func(cmd *exec.Cmd) {
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		}),
	)
	defer func() {
		acancel()
		if pgid > 0 {
			killGroup(t, pgid)
		}
	}()
	bctx, bcancel := chromedp.NewContext(actx)
	defer bcancel()
	if err := chromedp.Do(bctx); err != nil {
		t.Fatal(err)
	}
	pgid = chromedp.FromContext(bctx).Browser.Process().Pid

	// Cookies, through the default (persistent) context.
	got, err := chromedp.CallBrowser(bctx, storage.GetCookies, storage.GetCookiesParams{})
	if err != nil {
		t.Fatal(err)
	}
	checkCookies(t, st.Cookies, got.Cookies, now)

	// And the sites get them: a visit sends the cookies that apply to
	// http://<site>/ (not the secure ones, nor SameSite=None without
	// Secure, which Chromium never sends). d3.test has session and
	// persistent, Lax and unspecified cookies; d4.test Strict and None.
	for _, site := range []string{"d3.test", "d4.test"} {
		host := fmt.Sprintf("%s:%d", site, port)
		if err := chromedp.Do(bctx, chromedp.Navigate("http://"+host+"/")); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		header := sent[host]
		mu.Unlock()
		gotSent := map[string]string{}
		for _, kv := range strings.Split(header, "; ") {
			if k, v, ok := strings.Cut(kv, "="); ok {
				gotSent[k] = v
			}
		}
		wantSent := map[string]string{}
		for _, c := range st.Cookies {
			if strings.TrimPrefix(c.Domain, ".") == site && c.Path == "/" && !c.Secure && c.SameSite != "None" {
				wantSent[c.Name] = c.Value
			}
		}
		if len(wantSent) < 5 || !maps.Equal(gotSent, wantSent) {
			t.Errorf("http://%s/ got the cookies\n%q\nwant\n%q", host, gotSent, wantSent)
		}
	}

	// localStorage, by visiting each origin.
	for i, o := range st.Origins {
		origin, _ := normalizeOrigin(o.Origin)
		if err := chromedp.Do(bctx, chromedp.Navigate(origin+"/")); err != nil {
			t.Fatalf("origin %d %s: %v", i, origin, err)
		}
		js, err := chromedp.Run(bctx, chromedp.Evaluate[string](`JSON.stringify(Object.entries(localStorage))`))
		if err != nil {
			t.Fatalf("origin %d %s: %v", i, origin, err)
		}
		var entries [][2]string
		if err := json.Unmarshal([]byte(js), &entries); err != nil {
			t.Fatalf("%s: %v in %s", origin, err, js)
		}
		var want [][2]string
		for _, it := range o.LocalStorage {
			want = append(want, [2]string{it.Name, it.Value})
		}
		cmp := func(a, b [2]string) int { return strings.Compare(a[0], b[0]) }
		slices.SortFunc(entries, cmp)
		slices.SortFunc(want, cmp)
		if !slices.Equal(entries, want) {
			t.Errorf("%s localStorage:\n got %q\nwant %q", origin, entries, want)
		}
	}
}

// checkCookies compares what Chromium returned with what was written.
func checkCookies(t *testing.T, want []storagestate.Cookie, got []*network.Cookie, now time.Time) {
	t.Helper()
	byKey := map[string]*network.Cookie{}
	for _, c := range got {
		byKey[c.Domain+" "+c.Name+" "+c.Path] = c
	}
	if len(got) != len(want) {
		t.Errorf("Chromium has %d cookies, want %d", len(got), len(want))
	}
	capAt := float64(now.Add(maxCookieAge).UnixMicro()) / 1e6
	bad := 0
	for _, w := range want {
		path := w.Path
		c := byKey[w.Domain+" "+w.Name+" "+path]
		if c == nil {
			t.Errorf("missing cookie %q on %q %q", w.Name, w.Domain, path)
			bad++
			continue
		}
		session := w.Expires < 0
		exp := w.Expires
		if !session {
			exp = math.Min(exp, capAt)
		}
		var diffs []string
		if c.Value != w.Value {
			diffs = append(diffs, fmt.Sprintf("value %q, want %q", c.Value, w.Value))
		}
		if c.HTTPOnly != w.HTTPOnly || c.Secure != w.Secure {
			diffs = append(diffs, fmt.Sprintf("httpOnly %v secure %v, want %v %v", c.HTTPOnly, c.Secure, w.HTTPOnly, w.Secure))
		}
		if string(c.SameSite) != w.SameSite {
			diffs = append(diffs, fmt.Sprintf("sameSite %q, want %q", c.SameSite, w.SameSite))
		}
		if c.Session != session {
			diffs = append(diffs, fmt.Sprintf("session %v, want %v", c.Session, session))
		}
		if !session && math.Abs(c.Expires-exp) > 1 {
			diffs = append(diffs, fmt.Sprintf("expires %f, want %f", c.Expires, exp))
		}
		if diffs != nil {
			bad++
			if bad <= 20 {
				t.Errorf("cookie %q on %q: %s", w.Name, w.Domain, strings.Join(diffs, "; "))
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d cookies differ", bad, len(want))
	}
}

// killGroup kills Chromium's process group and waits until it is gone.
func killGroup(t *testing.T, pgid int) {
	syscall.Kill(-pgid, syscall.SIGKILL)
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := syscall.Kill(-pgid, 0)
		if errors.Is(err, syscall.ESRCH) {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("Chromium's process group %d still runs: %v", pgid, err)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}
