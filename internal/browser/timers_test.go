package browser

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/browserd/browserd/internal/chromium"
)

// TestOverdueTimerStillPending: a short timer the page started that is
// due but has not run yet — its thread was busy — is still pending, so
// Settle waits for what it does. lateJS runs in the same task as the busy
// loop, so the timer cannot have run in between.
func TestOverdueTimerStillPending(t *testing.T) {
	if testing.Short() {
		t.Skip("launches Chromium")
	}
	if _, err := chromium.Find(""); err != nil {
		t.Skipf("no Chromium: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	br, err := Start(ctx, chromium.Options{UserDataDir: t.TempDir(), Width: 800, Height: 600})
	if err != nil {
		t.Fatal(err)
	}
	defer br.Close(context.Background())
	pg, err := br.NewPage(ctx, "", PageOptions{Width: 800, Height: 600})
	if err != nil {
		t.Fatal(err)
	}
	if err := pg.Navigate(ctx, "data:text/html,<p>timers</p>"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		script string
		want   func(float64) bool
		what   string
	}{
		{"setTimeout(() => {}, 20); const t0 = performance.now(); while (performance.now() - t0 < 60) {}",
			func(v float64) bool { return v >= 1 }, "an overdue timer that has not run is pending (≥ 1 ms)"},
		{"setTimeout(() => {}, 500)",
			func(v float64) bool { return v > 400 && v <= 500 }, "a timer due in 500 ms is 400–500 ms away"},
		{"const id = setTimeout(() => {}, 20); clearTimeout(id)",
			func(v float64) bool { return v == 0 }, "a cleared timer is not pending"},
	} {
		var r struct {
			Result struct {
				Value float64 `json:"value"`
			} `json:"result"`
		}
		expr := fmt.Sprintf("(() => { %s; return %s; })()", c.script, fmt.Sprintf(lateJS, 1000))
		if err := pg.sess.Call(ctx, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}, &r); err != nil {
			t.Fatal(err)
		}
		if !c.want(r.Result.Value) {
			t.Errorf("%s: lateJS gave %v", c.what, r.Result.Value)
		}
		// The timers of one case are gone before the next.
		time.Sleep(600 * time.Millisecond)
	}
}
