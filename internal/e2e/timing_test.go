//go:build linux

package e2e

import (
	"context"
	"log/slog"
	"regexp"
	"testing"

	"github.com/browserd/browserd/internal/engine"
	"github.com/browserd/browserd/internal/tool"
)

// TestActionSteps: at debug level a click logs when each of its steps
// ended, in order — found, aimed (the page's watch started with the aim,
// in one round trip), clicked, the page settled, the answer — and at info
// level nothing of the kind.
func TestActionSteps(t *testing.T) {
	for _, level := range []slog.Level{slog.LevelDebug, slog.LevelInfo} {
		t.Run(level.String(), func(t *testing.T) {
			var logs lockedBuffer
			cfg := testConfig(t)
			e, err := engine.New(cfg, slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: level})))
			if err != nil {
				t.Fatal(err)
			}
			defer func() {
				if err := e.Close(context.Background()); err != nil {
					t.Errorf("closing the engine: %v", err)
				}
				waitNoChromium(t, cfg.Data)
			}()
			do := func(in tool.Input) tool.Result {
				t.Helper()
				r, err := e.Do(context.Background(), in)
				if err != nil || !r.Success {
					t.Fatalf("%s: %v %s", in.Action, err, r.Error)
				}
				return r
			}
			r := do(tool.Input{Action: "navigate", URL: site.URL("/form")})
			m := regexp.MustCompile(`button "Sign up" \[ref=(\w+)\]`).FindStringSubmatch(r.Content)
			if m == nil {
				t.Fatalf("no Sign up button in:\n%s", r.Content)
			}
			do(tool.Input{Action: "click", Ref: m[1]})
			steps := regexp.MustCompile(`msg="action steps" action=click tab=\w+ steps="(?:.*, )?found [\d.]+ms, aimed [\d.]+ms, clicked [\d.]+ms, .*settled [\d.]+ms, (?:.*, )?acted [\d.]+ms, .*answered [\d.]+ms"`)
			got := steps.MatchString(logs.String())
			if want := level == slog.LevelDebug; got != want {
				t.Fatalf("level %v: a click's steps logged = %v, want %v; the log:\n%s", level, got, want, logs.String())
			}
		})
	}
}
