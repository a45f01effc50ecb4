//go:build linux

package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/browserd/browserd/internal/tool"
)

// TestWarmStart (issue 40): `browserd mcp` starts the daemon as its client
// connects, and the daemon starts the default profile's browser (--warm)
// before any call. The first call uses that browser — which then holds
// what the profile saved, as a browser the call started would — instead
// of starting another; unused, it closes after --idle-timeout; a stopped
// daemon leaves no Chromium.
func TestWarmStart(t *testing.T) {
	t.Parallel() // waits more than it works: run beside another (make test's budget)
	data := t.TempDir()
	connect := func(extra ...string) *mcpDriver {
		t.Helper()
		cmd := exec.Command(browserdBin(t), append(append([]string{"mcp"}, daemonFlags(data)...), extra...)...)
		c := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil)
		sess, err := c.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatalf("connecting to browserd mcp: %v", err)
		}
		t.Cleanup(func() { sess.Close() })
		return &mcpDriver{sess: sess, data: data, shown: map[string][2]string{}}
	}
	must := func(d *mcpDriver, in tool.Input) tool.Result {
		t.Helper()
		in.Snapshot = new(bool)
		r := d.do(t, in)
		if !r.Success {
			t.Fatalf("%s: %s", in.Action, r.Error)
		}
		return r
	}
	waitChromium := func(want bool, within time.Duration) {
		t.Helper()
		for deadline := time.Now().Add(within); (len(chromiumPIDs(data)) > 0) != want; time.Sleep(50 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("Chromium of %s running: %v after %s; want %v", data, !want, within, want)
			}
		}
	}
	started := func() int {
		b, _ := os.ReadFile(filepath.Join(data, "browserd.log"))
		return bytes.Count(b, []byte(`"msg":"browser started"`))
	}
	t.Cleanup(func() { waitNoChromium(t, data) })

	// The profile saves something its next browser must hold: a value in
	// the site's storage, the session closed (nothing to resume), the
	// daemon stopped.
	d := connect()
	waitChromium(true, 30*time.Second)
	must(d, tool.Input{Action: "navigate", URL: site.URL("/form")})
	must(d, tool.Input{Action: "evaluate", Expression: `localStorage.setItem('warm', 'kept'), 'set'`})
	must(d, tool.Input{Action: "close"})
	stopDaemon(t, data)
	waitNoChromium(t, data)
	if n := started(); n != 1 {
		t.Fatalf("%d browsers started for the first client; want 1 (the one started ahead)", n)
	}
	// What the browser kept on disk goes: only the profile's saved state
	// (put back by a script in each new tab) can bring the value back.
	sealed, _ := filepath.Glob(filepath.Join(data, "profiles", "*", "default", "credentials.sealed"))
	if len(sealed) != 1 {
		t.Fatalf("the default profile's sealed credentials: %v; want one file", sealed)
	}
	if err := os.Remove(sealed[0]); err != nil {
		t.Fatal(err)
	}

	// A client connects: the browser runs before any call, and the first
	// call uses it, with the profile's storage put back.
	d = connect()
	waitChromium(true, 30*time.Second)
	must(d, tool.Input{Action: "navigate", URL: site.URL("/form")})
	if r := must(d, tool.Input{Action: "evaluate", Expression: `localStorage.getItem('warm')`}); !bytes.Contains([]byte(r.Content), []byte("kept")) {
		t.Errorf("the profile's storage in the browser started ahead: %q; want it to hold warm=kept", r.Content)
	}
	if n := started(); n != 2 {
		t.Errorf("%d browsers started in two runs; want 2: the first call takes the browser started ahead", n)
	}
	stopDaemon(t, data)
	waitNoChromium(t, data)

	// Nobody calls: the browser started ahead closes after --idle-timeout.
	connect("--idle-timeout", "2s")
	waitChromium(true, 30*time.Second)
	waitChromium(false, 20*time.Second)
	stopDaemon(t, data)
}
