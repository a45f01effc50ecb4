package browsers

import (
	"strings"
	"testing"

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
