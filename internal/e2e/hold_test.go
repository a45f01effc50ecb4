//go:build linux

package e2e

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/browserd/browserd/internal/computer"
	"github.com/browserd/browserd/internal/tool"
)

// TestHoldKey (issue 37): a key is held down as a finger holds it — one
// keydown, the keyboard's repeats after its delay, one keyup at the end —
// through the browser tool's press with time and the computer tool's
// hold_key. A page that moves a piece while an arrow key is down sees it
// held for the time asked.
func TestHoldKey(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Game</title><p id=out>idle</p><script>
let downs = 0, repeats = 0, ups = 0, t0 = 0;
addEventListener('keydown', e => { if (e.key !== 'ArrowRight') return; downs++; if (e.repeat) repeats++; else t0 = performance.now(); });
addEventListener('keyup', e => { if (e.key !== 'ArrowRight') return; ups++;
  document.getElementById('out').textContent = 'downs ' + downs + ' repeats ' + repeats + ' ups ' + ups + ' held ' + Math.round(performance.now() - t0); });
</script>`)
	}))
	defer srv.Close()
	cfg := testConfig(t)
	cfg.AllowHosts = append(cfg.AllowHosts, strings.TrimPrefix(srv.URL, "http://"))
	e, do := newEngine(t, cfg)
	res := do(tool.Input{Action: "navigate", URL: srv.URL, Task: "game"})
	if !res.Success {
		t.Fatalf("navigate: %s", res.Error)
	}
	read := func() (downs, repeats, ups, held int) {
		t.Helper()
		r := do(tool.Input{Action: "evaluate", Task: "game", Expression: "document.getElementById('out').textContent"})
		m := regexp.MustCompile(`downs \d+ repeats \d+ ups \d+ held \d+`).FindString(r.Content)
		if _, err := fmt.Sscanf(m, "downs %d repeats %d ups %d held %d", &downs, &repeats, &ups, &held); err != nil {
			t.Fatalf("the page's count %q: %v", r.Content, err)
		}
		return
	}
	if r := do(tool.Input{Action: "press", Task: "game", Key: "ArrowRight", Time: 900}); !r.Success {
		t.Fatalf("press with time: %s", r.Error)
	}
	downs, repeats, ups, held := read()
	if ups != 1 || repeats < 2 || downs != repeats+1 || held < 800 {
		t.Errorf("press ArrowRight for 900 ms: %d keydowns (%d repeats), %d keyups, held %d ms", downs, repeats, ups, held)
	}
	c := computer.New(e, computer.DefaultDisplay)
	if r := c.Do(context.Background(), computer.Input{Action: "hold_key", Text: "Right", Duration: 0.9, Task: "game"}); !r.Success {
		t.Fatalf("hold_key: %s", r.Error)
	}
	downs, repeats, ups, held = read()
	if ups != 2 || held < 800 {
		t.Errorf("hold_key Right for 0.9 s: %d keydowns (%d repeats), %d keyups, held %d ms", downs, repeats, ups, held)
	}
}
