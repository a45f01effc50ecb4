package browsers

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/browserd/browserd/internal/config"
	"github.com/browserd/browserd/internal/sessions"
	"github.com/browserd/browserd/internal/tool"
)

// TestHeadlessSlots (issue #17 point 4): a session launch asked to show
// otherwise than the daemon lives in a browser of its own kind; a profile
// keeps its one browser.
func TestHeadlessSlots(t *testing.T) {
	for _, c := range []struct {
		cfg    config.Config
		s      *sessions.Session
		key    string
		headed bool
	}{
		{config.Config{}, &sessions.Session{}, "shared", false},
		{config.Config{}, &sessions.Session{Headed: new(true)}, "shared-headed", true},
		{config.Config{}, &sessions.Session{Headed: new(false)}, "shared", false},
		{config.Config{Headed: true}, &sessions.Session{}, "shared", true},
		{config.Config{Headed: true}, &sessions.Session{Headed: new(false)}, "shared-headless", false},
		{config.Config{}, &sessions.Session{Profile: "admin/work", Headed: new(true)}, "profile:admin/work", true},
		{config.Config{CDP: "http://127.0.0.1:9222"}, &sessions.Session{Headed: new(true)}, "attached", true},
	} {
		e := &Pool{Registry: &sessions.Registry{Cfg: c.cfg}}
		if got := e.SlotKey(c.s); got != c.key {
			t.Errorf("%+v, headed %v: slot %q, want %q", c.cfg, c.s.Headed, got, c.key)
		}
		if got := e.Shows(c.s); got != c.headed {
			t.Errorf("%+v, headed %v: shows %v, want %v", c.cfg, c.s.Headed, got, c.headed)
		}
	}
}

// TestCheckHeadless: headless: false is refused, clearly, only where no
// window can be shown.
func TestCheckHeadless(t *testing.T) {
	t.Setenv("DISPLAY", "")
	t.Setenv("WAYLAND_DISPLAY", "")
	visible := &tool.Input{Action: "launch", Headless: new(false)}
	e := &Pool{Registry: &sessions.Registry{}}
	if err := e.CheckHeadless(visible); err == nil || !strings.Contains(err.Error(), "headless: false needs a display: no DISPLAY or WAYLAND_DISPLAY is set for the daemon") {
		t.Errorf("no display: %v", err)
	}
	for _, in := range []*tool.Input{{Action: "launch"}, {Action: "launch", Headless: new(true)}} {
		if err := e.CheckHeadless(in); err != nil {
			t.Errorf("headless %v: %v", in.Headless, err)
		}
	}
	if err := (&Pool{Registry: &sessions.Registry{Cfg: config.Config{Headed: true}}}).CheckHeadless(visible); err != nil {
		t.Errorf("a headed daemon: %v", err)
	}
	t.Setenv("WAYLAND_DISPLAY", "wayland-0")
	if err := e.CheckHeadless(visible); err != nil {
		t.Errorf("with a Wayland display: %v", err)
	}
}

// TestSpareWaitedFor: a new tab asked for while the blank tab ahead is
// being opened (RefillSpare, begun as the last call answered) takes that
// one once it is open, rather than opening another beside it — and one
// that cannot wait (its ctx ends) opens its own.
func TestSpareWaitedFor(t *testing.T) {
	e := &Pool{Registry: &sessions.Registry{}}
	sl := &sessions.Slot{Refilling: true, Refilled: make(chan struct{})}
	go func() {
		time.Sleep(50 * time.Millisecond)
		e.Mu.Lock()
		sl.Spares = append(sl.Spares, "ahead")
		sl.Refilling = false
		close(sl.Refilled)
		e.Mu.Unlock()
	}()
	if id := e.SpareTab(context.Background(), sl, nil); id != "ahead" {
		t.Errorf("SpareTab during a refill = %q, want the tab being opened (ahead)", id)
	}
	if id := e.SpareTab(context.Background(), sl, nil); id != "" {
		t.Errorf("SpareTab with none left = %q, want none", id)
	}
	sl.Refilling, sl.Refilled = true, make(chan struct{})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if id := e.SpareTab(ctx, sl, nil); id != "" {
		t.Errorf("SpareTab whose ctx ended = %q, want none", id)
	}
}
