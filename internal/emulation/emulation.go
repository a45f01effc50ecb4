package emulation

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/browserd/browserd/internal/browser"
	"github.com/browserd/browserd/internal/tool"
)

// Launch is the environment a launch call asks for: its user agent, time
// zone, locale and position, its device (whose viewport becomes the
// call's width and height unless it gives them, and whose user agent is
// the session's unless it gives one) and media features.
func Launch(in *tool.Input) (browser.Emulation, error) {
	emu := browser.Emulation{UserAgent: in.UserAgent, Timezone: in.Timezone, Locale: in.Locale,
		Geolocation: (*browser.Geolocation)(in.Geolocation)}
	if in.Device != "" {
		d, err := Lookup(in.Device)
		if err != nil {
			return emu, fmt.Errorf("launch: %w", err)
		}
		if emu.UserAgent == "" {
			emu.UserAgent = d.UserAgent
		}
		if in.Width == 0 {
			in.Width, in.Height = d.Width, d.Height
		}
		emu.Device = d.browserDevice()
	}
	emu.Media = media(nil, in)
	return emu, nil
}

// LaunchDiff says what of a launch's device a running session has not:
// it applies only when launch creates the session.
//
// Media features a running session has otherwise are named too: emulate
// changes them.
func LaunchDiff(emu browser.Emulation, in *tool.Input) []string {
	var diff []string
	for name, v := range media(nil, in) {
		if emu.Media[name] != v {
			diff = append(diff, fmt.Sprintf("%s %q (emulate changes it)", name, cmpOr(emu.Media[name], "the browser's own")))
		}
	}
	slices.Sort(diff)
	if in.Device == "" {
		return diff
	}
	d, err := Lookup(in.Device)
	if err == nil && emu.Device != nil && *emu.Device == *d.browserDevice() &&
		(in.UserAgent != "" || emu.UserAgent == d.UserAgent) {
		return diff
	}
	return append(diff, "another device")
}

// media is m with the media features in sets.
func media(m map[string]string, in *tool.Input) map[string]string {
	for name, v := range map[string]string{"prefers-color-scheme": in.ColorScheme,
		"prefers-reduced-motion": in.ReducedMotion, "forced-colors": in.ForcedColors} {
		if v == "" {
			continue
		}
		if m == nil {
			m = map[string]string{}
		}
		m[name] = v
	}
	return m
}

// Presets are the network speeds throttle names (Chrome DevTools'),
// bytes per second each way and latency in ms.
var Presets = map[string]browser.Throttle{
	"slow 3g": {Download: 500 * 1000 / 8 * 0.8, Upload: 500 * 1000 / 8 * 0.8, Latency: 400 * 5},
	"fast 3g": {Download: 1.6 * 1000 * 1000 / 8 * 0.9, Upload: 750 * 1000 / 8 * 0.9, Latency: 150 * 3.75},
	"slow 4g": {Download: 1.6 * 1000 * 1000 / 8 * 0.9, Upload: 750 * 1000 / 8 * 0.9, Latency: 150 * 3.75},
	"fast 4g": {Download: 9 * 1000 * 1000 / 8 * 0.9, Upload: 1.5 * 1000 * 1000 / 8 * 0.9, Latency: 60 * 2.75},
	"4g":      {Download: 9 * 1000 * 1000 / 8 * 0.9, Upload: 1.5 * 1000 * 1000 / 8 * 0.9, Latency: 60 * 2.75},
}

// ParseThrottle reads throttle: a preset's name ("Slow 3G", "Fast 3G",
// "Slow 4G", "4G"), "none", or "DOWN,UP,LATENCY" in kbit/s and ms. nil:
// none.
func ParseThrottle(s string) (*browser.Throttle, error) {
	f := fold(s)
	if f == "none" || f == "off" {
		return nil, nil
	}
	if t, ok := Presets[f]; ok {
		return &t, nil
	}
	parts := strings.Split(s, ",")
	if len(parts) == 3 {
		var v [3]float64
		ok := true
		for i, p := range parts {
			n, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
			ok = ok && err == nil && n >= 0 && n <= 1e7
			v[i] = n
		}
		if ok && v[0] > 0 && v[1] > 0 {
			return &browser.Throttle{Download: v[0] * 1000 / 8, Upload: v[1] * 1000 / 8, Latency: v[2]}, nil
		}
	}
	return nil, fmt.Errorf("throttle %q: use a preset (Slow 3G, Fast 3G, Slow 4G, 4G), none, or DOWN,UP,LATENCY in kbit/s and ms such as 1600,750,150", s)
}

// Change is the session's environment after an emulate call, and what it
// changed, a phrase each.
func Change(emu browser.Emulation, in *tool.Input) (browser.Emulation, []string, error) {
	m := emu.More.Clone()
	var said []string
	if in.ColorScheme != "" || in.ReducedMotion != "" || in.ForcedColors != "" {
		m.Media = media(m.Media, in)
		for _, k := range slices.Sorted(maps.Keys(m.Media)) {
			said = append(said, k+": "+m.Media[k])
		}
	}
	if in.Offline != nil {
		m.Offline = *in.Offline
		said = append(said, map[bool]string{true: "offline", false: "online"}[m.Offline])
	}
	if in.Throttle != "" {
		t, err := ParseThrottle(in.Throttle)
		if err != nil {
			return emu, nil, err
		}
		m.Net = t
		if t == nil {
			said = append(said, "network not throttled")
		} else {
			said = append(said, fmt.Sprintf("network throttled to %.0f kbit/s down, %.0f up, %.0f ms latency", t.Download*8/1000, t.Upload*8/1000, t.Latency))
		}
	}
	if in.CPU != 0 {
		m.CPU = in.CPU
		said = append(said, fmt.Sprintf("CPU %gx slower", in.CPU))
	}
	if len(in.Headers) > 0 {
		if m.Headers == nil {
			m.Headers = map[string]string{}
		}
		for k, v := range in.Headers {
			if v == "" {
				delete(m.Headers, k)
			} else {
				m.Headers[k] = v
			}
		}
		said = append(said, fmt.Sprintf("extra headers: %s", strings.Join(slices.Sorted(maps.Keys(m.Headers)), ", ")))
	}
	if len(in.Permissions) > 0 {
		if slices.Contains(in.Permissions, "none") {
			m.Permissions = nil
			said = append(said, "every permission taken back")
		} else {
			origin := strings.TrimRight(in.URL, "/")
			m.Permissions = slices.DeleteFunc(m.Permissions, func(p browser.Permission) bool { return p.Origin == origin })
			m.Permissions = append(m.Permissions, browser.Permission{Origin: origin, Names: slices.Clone(in.Permissions)})
			said = append(said, fmt.Sprintf("%s granted to %s", strings.Join(in.Permissions, ", "), cmpOr(origin, "every origin")))
		}
	}
	if in.InitScript != "" {
		if !slices.Contains(m.InitScripts, in.InitScript) {
			if len(m.InitScripts) >= 32 {
				return emu, nil, fmt.Errorf("emulate: the session has 32 init scripts already; join them into one")
			}
			m.InitScripts = append(m.InitScripts, in.InitScript)
		}
		said = append(said, "init script added: it runs in every new document, before the page's own (reload for this one)")
	}
	if g := in.Geolocation; g != nil {
		// The position only: the permission is granted apart (permissions
		// geolocation), as Playwright's setGeolocation does.
		emu.Geolocation = &browser.Geolocation{Latitude: g.Latitude, Longitude: g.Longitude, Accuracy: g.Accuracy}
		said = append(said, fmt.Sprintf("geolocation %v, %v", g.Latitude, g.Longitude))
	}
	emu.More = m
	return emu, said, nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// Apply gives every page the session's environment; reset takes back the
// permissions granted before (emulate's "none").
func Apply(ctx context.Context, pages []*browser.Page, emu browser.Emulation, reset bool) error {
	for i, pg := range pages {
		if reset && i == 0 {
			if err := pg.ResetPermissions(ctx); err != nil {
				return fmt.Errorf("taking back permissions: %w", err)
			}
		}
		if err := pg.Emulate(ctx, emu); err != nil {
			return err
		}
	}
	return nil
}

// Do carries out an emulate call on the session whose environment is emu
// and whose tabs are pages; set keeps the new environment for the tabs to
// come. Res gets what changed.
func Do(ctx context.Context, in *tool.Input, res *tool.Result, emu browser.Emulation, set func(browser.Emulation), pages []*browser.Page) error {
	next, said, err := Change(emu, in)
	if err != nil {
		return err
	}
	set(next)
	if err := Apply(ctx, pages, next, slices.Contains(in.Permissions, "none")); err != nil {
		return err
	}
	res.Content = "emulating: " + strings.Join(said, "; ")
	return nil
}
