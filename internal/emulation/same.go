package emulation

import (
	"fmt"
	"strings"

	"github.com/browserd/browserd/internal/browser"
	"github.com/browserd/browserd/internal/tool"
)

// Same refuses a launch on session name, which already runs (the call did
// not create it), when it asks for another environment or window than the
// session has: emu, and shows (its browser shows a window; attached: the
// browser is one browserd attached to, whose window is not browserd's to
// choose). They apply only when a session is created. What the call
// leaves out, or asks as the session has it, passes.
func Same(name string, emu browser.Emulation, shows, attached bool, in *tool.Input) error {
	show := func(v string) string {
		if v == "" {
			return "the browser's own"
		}
		return fmt.Sprintf("%q", v)
	}
	var diff []string
	if in.Headless != nil && !attached && !*in.Headless != shows {
		diff = append(diff, fmt.Sprintf("headless %v", !shows))
	}
	if in.UserAgent != "" && in.UserAgent != emu.UserAgent {
		diff = append(diff, "userAgent "+show(emu.UserAgent))
	}
	if in.Timezone != "" && in.Timezone != emu.Timezone {
		diff = append(diff, "timezone "+show(emu.Timezone))
	}
	if in.Locale != "" && in.Locale != emu.Locale {
		diff = append(diff, "locale "+show(emu.Locale))
	}
	if g := in.Geolocation; g != nil && (emu.Geolocation == nil || *g != tool.Geolocation(*emu.Geolocation)) {
		if emu.Geolocation == nil {
			diff = append(diff, "geolocation the browser's own")
		} else {
			diff = append(diff, fmt.Sprintf("geolocation %v, %v", emu.Geolocation.Latitude, emu.Geolocation.Longitude))
		}
	}
	diff = append(diff, LaunchDiff(emu, in)...)
	if len(diff) == 0 {
		return nil
	}
	return tool.Fail("session %q already runs, with %s: headless, userAgent, timezone, locale, geolocation and device apply only when launch creates the session — close it first (the close action; a session ends with its last task's close), then launch again, or launch another session",
		name, strings.Join(diff, ", "))
}
