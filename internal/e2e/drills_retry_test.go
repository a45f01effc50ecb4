//go:build linux

package e2e

import (
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/browserd/browserd/internal/client"
)

// TestDrillRetryAfterKill is issue 26 point 10's drill: an agent drives
// `browserd mcp` with calls that change nothing on the page or do the
// same twice (navigate, snapshot, tabs, extract, console) while the daemon
// is kill -9'd every few seconds. Every call answers: the thin client
// starts the daemon again, which resumes the session, and sends the call
// again. A click cut short answers with the page and says that whether it
// happened is unknown.
func TestDrillRetryAfterKill(t *testing.T) {
	data := t.TempDir()
	bin := browserdBin(t)
	cmd := exec.Command(bin, append([]string{"mcp"}, daemonFlags(data)...)...)
	c := mcp.NewClient(&mcp.Implementation{Name: "retry-drill", Version: "1"}, nil)
	sess, err := c.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close(); stopDaemon(t, data); waitNoChromium(t, data) })
	call := func(args map[string]any) (string, bool) {
		args["session"] = "drill"
		res, err := sess.CallTool(context.Background(), &mcp.CallToolParams{Name: "browser", Arguments: args})
		if err != nil {
			t.Fatalf("%v: %v", args["action"], err)
		}
		var out strings.Builder
		for _, ct := range res.Content {
			if tc, ok := ct.(*mcp.TextContent); ok {
				out.WriteString(tc.Text)
			}
		}
		return out.String(), !res.IsError
	}
	if out, ok := call(map[string]any{"action": "navigate", "url": site.URL("/form")}); !ok {
		t.Fatalf("first navigate: %s", out)
	}

	// The killer: kill -9 the daemon four times, each 2 s after the daemon
	// then running answered a call — never one still starting and
	// resuming, which on a loaded machine takes longer than any fixed
	// interval (a call must make progress between kills; the client's
	// promise is a few restarts a call, not an endless number).
	var kills, answered atomic.Int32
	stop := make(chan struct{})
	killed := make(chan struct{})
	go func() {
		defer close(killed)
		for range 4 {
			seen := answered.Load()
			for answered.Load() == seen {
				select {
				case <-stop:
					return
				case <-time.After(20 * time.Millisecond):
				}
			}
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Second):
			}
			if pid, running, _ := client.DaemonPID(data); running {
				_ = syscall.Kill(pid, syscall.SIGKILL)
				kills.Add(1)
			}
		}
	}()
	calls := []map[string]any{
		{"action": "snapshot"},
		{"action": "navigate", "url": site.URL("/form")},
		{"action": "tabs"},
		{"action": "extract"},
		{"action": "console"},
	}
	// Until the four kills and ten calls at least, however slow the
	// machine (bounded: a daemon that never comes back fails the call).
	deadline := time.Now().Add(3 * time.Minute)
	n, retried := 0, 0
	for (kills.Load() < 4 || n < 10) && time.Now().Before(deadline) {
		args := map[string]any{}
		for k, v := range calls[n%len(calls)] {
			args[k] = v
		}
		out, ok := call(args)
		if !ok {
			b, _ := json.Marshal(args)
			t.Fatalf("call %d %s failed after %d kills:\n%s", n, b, kills.Load(), out)
		}
		answered.Add(1)
		if strings.Contains(out, "browserd restarted during this call") {
			retried++
		}
		n++
	}
	close(stop)
	<-killed
	t.Logf("%d calls answered across %d kills; %d were sent again", n, kills.Load(), retried)
	if kills.Load() < 4 {
		t.Fatalf("only %d kills happened in 3 minutes", kills.Load())
	}

	// The loop's killer may have killed the daemon after the last call
	// answered: the wait below is to be cut short under its send, not
	// while the daemon it starts is starting.
	if out, ok := call(map[string]any{"action": "snapshot"}); !ok {
		t.Fatalf("no daemon answered after the kills:\n%s", out)
	}
	// A click is not sent twice: cut short, it answers with the page.
	go func() {
		time.Sleep(50 * time.Millisecond)
		if pid, running, _ := client.DaemonPID(data); running {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}()
	out, ok := call(map[string]any{"action": "wait", "time": 1000})
	if !ok {
		t.Fatalf("a wait cut short was not sent again:\n%s", out)
	}
	go func() {
		time.Sleep(300 * time.Millisecond)
		if pid, running, _ := client.DaemonPID(data); running {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}()
	out, ok = call(map[string]any{"action": "evaluate", "expression": "new Promise(r => setTimeout(() => r(1), 2000))"})
	if ok || !strings.Contains(out, "whether the evaluate happened is unknown") || !strings.Contains(out, "Sign up") {
		t.Errorf("an evaluate cut short does not say it is unknown, with the page:\n%s", out)
	}
}
