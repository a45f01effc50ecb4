//go:build linux

package e2e

import (
	"strings"
	"testing"

	"github.com/browserd/browserd/internal/tool"
)

// TestLaunchHostsNarrowOnly: a session's allowHosts may narrow the
// server's list, never widen it: an entry the server does not allow is
// refused, naming the server flag that would allow it, instead of being
// dropped without a word; blockHosts takes effect.
func TestLaunchHostsNarrowOnly(t *testing.T) {
	_, do := newEngine(t, testConfig(t)) // the server allows 127.0.0.1 and localhost
	r := do(tool.Input{Action: "launch", Session: "wide", AllowHosts: []string{"127.0.0.1", "10.0.0.5"}})
	if r.Success || !strings.Contains(r.Error, "allowHosts 10.0.0.5: not allowed by the server") || !strings.Contains(r.Error, "--allow-host 10.0.0.5") {
		t.Errorf("a wider allowHosts: %+v", r)
	}
	if r := do(tool.Input{Action: "launch", Session: "narrow", AllowHosts: []string{"127.0.0.1"}}); !r.Success {
		t.Errorf("a narrower allowHosts: %s", r.Error)
	}
	if r := do(tool.Input{Action: "navigate", Session: "narrow", URL: site.URL("/")}); !r.Success {
		t.Errorf("navigating within the session's allowHosts: %s", r.Error)
	}
	if r := do(tool.Input{Action: "launch", Session: "blocked", BlockHosts: []string{"127.0.0.1"}}); !r.Success {
		t.Fatalf("blockHosts: %s", r.Error)
	}
	if r := do(tool.Input{Action: "navigate", Session: "blocked", URL: site.URL("/")}); r.Success {
		t.Error("a blocked host was reached")
	}
}
