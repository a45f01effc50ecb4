//go:build linux

package e2e

import (
	"strings"
	"testing"

	"github.com/browserd/browserd/internal/tool"
)

// TestTargetWaits: a selector or a role and name that matches nothing yet
// is waited for (an element a script adds 700 ms later is clicked), and
// one that never matches fails after the call's timeout, saying so.
func TestTargetWaits(t *testing.T) {
	_, do := newEngine(t, testConfig(t))
	if r := do(tool.Input{Action: "navigate", URL: site.URL("/wait")}); !r.Success {
		t.Fatal(r.Error)
	}
	add := `setTimeout(() => { const b = document.createElement('button'); b.id = 'soon'; b.textContent = 'Soon';
	  b.onclick = () => { b.textContent = 'Clicked'; }; document.body.append(b); }, 700); true`
	if r := do(tool.Input{Action: "evaluate", Expression: add}); !r.Success {
		t.Fatal(r.Error)
	}
	if r := do(tool.Input{Action: "click", Selector: "#soon"}); !r.Success {
		t.Fatalf("a selector that matches 700 ms later: %s", r.Error)
	}
	if r := do(tool.Input{Action: "evaluate", Expression: add}); !r.Success {
		t.Fatal(r.Error)
	}
	if r := do(tool.Input{Action: "click", Role: "button", Name: "Soon"}); !r.Success {
		t.Fatalf("a role and name that match 700 ms later: %s", r.Error)
	}
	r := do(tool.Input{Action: "click", Selector: "#never", Timeout: 400})
	if r.Success || !strings.Contains(r.Error, `no element matches selector "#never" after`) || !strings.Contains(r.Error, "raise timeout") {
		t.Errorf("a selector that never matches: %+v", r)
	}
	if r := do(tool.Input{Action: "click", Selector: "#[bad"}); r.Success || !strings.Contains(r.Error, "not valid CSS") {
		t.Errorf("a bad selector: %+v", r)
	}
}
