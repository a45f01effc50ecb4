package emulation

import (
	"strings"
	"testing"

	"github.com/browserd/browserd/internal/browser"
	"github.com/browserd/browserd/internal/tool"
)

// TestLookup: Playwright's names, case and spacing aside, with their
// descriptors; an unknown name lists the closest.
func TestLookup(t *testing.T) {
	for _, c := range []struct {
		name          string
		w, h          int
		scale         float64
		mobile, touch bool
		ua            string
	}{
		{"iPhone 15", 393, 659, 3, true, true, "iPhone"},
		{"iphone   15 pro max", 430, 739, 3, true, true, "iPhone"},
		{"iPhone SE", 320, 568, 2, true, true, "iPhone"},
		{"Pixel 7", 412, 839, 2.625, true, true, "Android"},
		{"Galaxy S9+", 320, 658, 4.5, true, true, "Android"},
		{"iPad Pro 11", 834, 1194, 2, true, true, "iPad"},
		{"iPad Mini", 768, 1024, 2, true, true, "iPad"},
		{"Desktop Chrome", 1280, 720, 1, false, false, "Chrome"},
	} {
		d, err := Lookup(c.name)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if d.Width != c.w || d.Height != c.h || d.Scale != c.scale || d.Mobile != c.mobile || d.Touch != c.touch || !strings.Contains(d.UserAgent, c.ua) {
			t.Errorf("%s: %+v", c.name, d)
		}
	}
	if d, err := Lookup("iphone15"); err != nil || d.Name != "iPhone 15" {
		t.Errorf("iphone15: %v, %v", d.Name, err)
	}
	_, err := Lookup("iPhone 15 Pro Maxx")
	if err == nil || !strings.Contains(err.Error(), `"iPhone 15 Pro Max"`) {
		t.Errorf("unknown device: %v", err)
	}
	_, err = Lookup("pixle 7")
	if err == nil || !strings.Contains(err.Error(), `"Pixel 7"`) {
		t.Errorf("misspelt device: %v", err)
	}
}

// TestLaunchDevice: a device gives the viewport and user agent unless the
// call gives its own.
func TestLaunchDevice(t *testing.T) {
	in := &tool.Input{Action: "launch", Device: "pixel 7", ColorScheme: "dark"}
	emu, err := Launch(in)
	if err != nil {
		t.Fatal(err)
	}
	if in.Width != 412 || in.Height != 839 || emu.Device == nil || !emu.Device.Touch || !strings.Contains(emu.UserAgent, "Pixel 7") ||
		emu.Media["prefers-color-scheme"] != "dark" {
		t.Errorf("got %+v, %dx%d", emu, in.Width, in.Height)
	}
	in = &tool.Input{Action: "launch", Device: "Pixel 7", UserAgent: "Mine/1", Width: 500, Height: 600}
	emu, _ = Launch(in)
	if in.Width != 500 || emu.UserAgent != "Mine/1" {
		t.Errorf("the call's own viewport or user agent lost: %+v", emu)
	}
}

// TestChange: emulate's fields, merged into what the session has.
func TestChange(t *testing.T) {
	yes := true
	emu, said, err := Change(browser.Emulation{}, &tool.Input{Action: "emulate", Offline: &yes, Throttle: "Slow 3G", CPU: 4,
		Headers: map[string]string{"X-A": "1"}, Permissions: []string{"geolocation"}, URL: "https://example.com/", InitScript: "1"})
	if err != nil || len(said) != 6 {
		t.Fatalf("%v %q", err, said)
	}
	if !emu.Offline || emu.Net == nil || emu.CPU != 4 || emu.Headers["X-A"] != "1" || len(emu.Permissions) != 1 || emu.Permissions[0].Origin != "https://example.com" || len(emu.InitScripts) != 1 {
		t.Errorf("%+v", emu.More)
	}
	emu2, _, _ := Change(emu, &tool.Input{Action: "emulate", Headers: map[string]string{"X-A": ""}, Throttle: "none", Permissions: []string{"none"}})
	if len(emu2.Headers) != 0 || emu2.Net != nil || len(emu2.Permissions) != 0 || emu.Headers["X-A"] != "1" {
		t.Errorf("reset: %+v (before: %+v)", emu2.More, emu.More)
	}
	if _, _, err := Change(emu, &tool.Input{Throttle: "warp"}); err == nil {
		t.Error("an unknown throttle passed")
	}
	if t3, err := ParseThrottle("1600,750,150"); err != nil || t3.Latency != 150 || t3.Download != 200000 {
		t.Errorf("%+v %v", t3, err)
	}
}

// TestLaunchDiff: a launch on a running session names what it asks
// otherwise than the session has.
func TestLaunchDiff(t *testing.T) {
	in := &tool.Input{Action: "launch", Device: "Pixel 7", ColorScheme: "dark"}
	emu, _ := Launch(in)
	if d := LaunchDiff(emu, &tool.Input{Action: "launch", Device: "pixel 7", ColorScheme: "dark"}); len(d) != 0 {
		t.Errorf("the same launch differs: %q", d)
	}
	if d := LaunchDiff(emu, &tool.Input{Action: "launch", Device: "iPhone 15", ColorScheme: "light"}); len(d) != 2 {
		t.Errorf("another device and scheme: %q", d)
	}
}
