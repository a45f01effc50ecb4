package idle

import (
	"testing"
	"time"

	"github.com/browserd/browserd/internal/config"
	"github.com/browserd/browserd/internal/sessions"
)

func TestExpired(t *testing.T) {
	now := time.Now()
	e := &Janitor{Registry: &sessions.Registry{Cfg: config.Config{IdleTimeout: time.Minute, ReviewGrace: time.Hour}}}
	for _, c := range []struct {
		name  string
		t     *sessions.Task
		grace time.Duration
		want  bool
	}{
		{"working, idle past the timeout", &sessions.Task{LastUsed: now.Add(-2 * time.Minute)}, time.Hour, true},
		{"working, recently used", &sessions.Task{LastUsed: now.Add(-30 * time.Second)}, time.Hour, false},
		{"review within the grace", &sessions.Task{Ended: true, EndedAt: now.Add(-30 * time.Minute), LastUsed: now.Add(-30 * time.Minute)}, time.Hour, false},
		{"review past the grace", &sessions.Task{Ended: true, EndedAt: now.Add(-61 * time.Minute)}, time.Hour, true},
		{"review, grace 0: until closed", &sessions.Task{Ended: true, EndedAt: now.Add(-100 * time.Hour)}, 0, false},
	} {
		e.Cfg.ReviewGrace = c.grace
		if got := e.Expired(c.t, now); got != c.want {
			t.Errorf("%s: expired = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestEphemeralGone: an ephemeral session with no task left goes after the
// idle timeout — but not while it is being resumed (a resume slower than a
// short idle timeout lost the session it was bringing back, context and
// all), nor a profile's.
func TestEphemeralGone(t *testing.T) {
	now := time.Now()
	e := &Janitor{Registry: &sessions.Registry{Cfg: config.Config{IdleTimeout: time.Second}}}
	old := now.Add(-2 * time.Second)
	for _, c := range []struct {
		name string
		s    *sessions.Session
		want bool
	}{
		{"no task, past the timeout", &sessions.Session{Created: old}, true},
		{"no task yet, being resumed", &sessions.Session{Created: old, Resuming: make(chan struct{})}, false},
		{"no task, within the timeout", &sessions.Session{Created: now}, false},
		{"a task", &sessions.Session{Created: old, Tasks: map[string]*sessions.Task{"t": {}}}, false},
		{"a profile's", &sessions.Session{Created: old, Profile: "work"}, false},
	} {
		if got := e.ephemeralGone(c.s, now); got != c.want {
			t.Errorf("%s: gone = %v, want %v", c.name, got, c.want)
		}
	}
}
