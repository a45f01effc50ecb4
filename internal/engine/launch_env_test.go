package engine

import (
	"strings"
	"testing"

	"github.com/browserd/browserd/internal/browser"
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
		e := &Engine{Registry: &sessions.Registry{Cfg: c.cfg}}
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
	e := &Engine{Registry: &sessions.Registry{}}
	if err := e.CheckHeadless(visible); err == nil || !strings.Contains(err.Error(), "headless: false needs a display: no DISPLAY or WAYLAND_DISPLAY is set for the daemon") {
		t.Errorf("no display: %v", err)
	}
	for _, in := range []*tool.Input{{Action: "launch"}, {Action: "launch", Headless: new(true)}} {
		if err := e.CheckHeadless(in); err != nil {
			t.Errorf("headless %v: %v", in.Headless, err)
		}
	}
	if err := (&Engine{Registry: &sessions.Registry{Cfg: config.Config{Headed: true}}}).CheckHeadless(visible); err != nil {
		t.Errorf("a headed daemon: %v", err)
	}
	t.Setenv("WAYLAND_DISPLAY", "wayland-0")
	if err := e.CheckHeadless(visible); err != nil {
		t.Errorf("with a Wayland display: %v", err)
	}
}

// TestSameEnvironment: a launch on a running session passes when it asks
// nothing new, and otherwise names what the session runs with.
func TestSameEnvironment(t *testing.T) {
	e := &Engine{Registry: &sessions.Registry{}}
	s := &sessions.Session{ID: sessions.Qualify("alice", "env"), Emu: browser.Emulation{UserAgent: "ua/1", Timezone: "Asia/Tokyo",
		Geolocation: &browser.Geolocation{Latitude: 1, Longitude: 2}}}
	for _, c := range []struct {
		in   tool.Input
		want string // "" passes
	}{
		{tool.Input{}, ""},
		{tool.Input{UserAgent: "ua/1", Timezone: "Asia/Tokyo", Headless: new(true), Geolocation: &tool.Geolocation{Latitude: 1, Longitude: 2}}, ""},
		{tool.Input{Timezone: "Europe/Paris"}, `with timezone "Asia/Tokyo"`},
		{tool.Input{Locale: "fr-FR"}, "with locale the browser's own"},
		{tool.Input{Headless: new(false)}, "with headless true"},
		{tool.Input{Geolocation: &tool.Geolocation{Latitude: 1, Longitude: 2, Accuracy: 5}}, "with geolocation 1, 2"},
		{tool.Input{UserAgent: "ua/2", Locale: "de"}, `with userAgent "ua/1", locale the browser's own`},
	} {
		err := e.sameEnvironment(s, &c.in)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%+v: %v", c.in, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), `session "env" already runs`) || !strings.Contains(err.Error(), "close it first")):
			t.Errorf("%+v: %v, want an error with %q", c.in, err, c.want)
		}
	}
}
