package emulation

import (
	"strings"
	"testing"

	"github.com/browserd/browserd/internal/browser"
	"github.com/browserd/browserd/internal/tool"
)

// TestSame: a launch on a running session passes when it asks
// nothing new, and otherwise names what the session runs with.
func TestSame(t *testing.T) {
	emu := browser.Emulation{UserAgent: "ua/1", Timezone: "Asia/Tokyo",
		Geolocation: &browser.Geolocation{Latitude: 1, Longitude: 2}}
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
		err := Same("env", emu, false, false, &c.in)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%+v: %v", c.in, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), `session "env" already runs`) || !strings.Contains(err.Error(), "close it first")):
			t.Errorf("%+v: %v, want an error with %q", c.in, err, c.want)
		}
	}
}
