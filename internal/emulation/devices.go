// Package emulation decides what a session's pages see of the device and
// network they run on: launch's device (Playwright's descriptors, by
// name), the media features (colorScheme, reducedMotion, forcedColors),
// and what the emulate action changes mid-session — offline, network and
// CPU throttling, extra HTTP headers, permissions per origin, init
// scripts. It turns a call into a browser.Emulation; internal/browser
// applies it to every tab of the session, those opened later included.
package emulation

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/browserd/browserd/internal/browser"
)

// Device is one of Playwright's device descriptors.
type Device struct {
	Name      string  `json:"name"`
	UserAgent string  `json:"userAgent"`
	Width     int     `json:"width"`
	Height    int     `json:"height"`
	Scale     float64 `json:"deviceScaleFactor"`
	Mobile    bool    `json:"isMobile"`
	Touch     bool    `json:"hasTouch"`
	// ScreenWidth and ScreenHeight are the device's screen where it is
	// larger than its viewport (a phone's browser bars): 0 when the
	// same.
	ScreenWidth  int `json:"screenWidth,omitempty"`
	ScreenHeight int `json:"screenHeight,omitempty"`
}

// browserDevice is d as the browser applies it.
func (d Device) browserDevice() *browser.Device {
	return &browser.Device{Scale: d.Scale, Mobile: d.Mobile, Touch: d.Touch, ScreenWidth: d.ScreenWidth, ScreenHeight: d.ScreenHeight}
}

// devicesJSON is Playwright's device descriptors (playwright-core 1.65.1's
// devices), each device's viewport, screen (where it differs), scale,
// mobile, touch and user agent.
//
//go:embed devices.json
var devicesJSON []byte

var devices = sync.OnceValue(func() []Device {
	var ds []Device
	if err := json.Unmarshal(devicesJSON, &ds); err != nil {
		panic("emulation: devices.json: " + err.Error()) // built in: a broken file is a build error
	}
	return ds
})

// Devices are the names of the devices Lookup knows.
func Devices() []string {
	var names []string
	for _, d := range devices() {
		names = append(names, d.Name)
	}
	return names
}

// fold is a name as Lookup compares it: lower case, spaces collapsed.
func fold(s string) string { return strings.Join(strings.Fields(strings.ToLower(s)), " ") }

// squeeze is a name without its spaces: "iphone15" is "iPhone 15".
func squeeze(s string) string { return strings.ReplaceAll(fold(s), " ", "") }

// Lookup finds a device by name, case and spacing aside. An unknown name's
// error lists the names closest to it.
func Lookup(name string) (Device, error) {
	want := fold(name)
	for _, d := range devices() {
		if fold(d.Name) == want {
			return d, nil
		}
	}
	for _, d := range devices() {
		if squeeze(d.Name) == squeeze(name) {
			return d, nil
		}
	}
	return Device{}, fmt.Errorf("device %q is not one browserd knows; close to it: %s (each also in landscape: \"… landscape\")", name, strings.Join(closest(want, 6), ", "))
}

// closest are up to n device names nearest to want: those that share its
// words first, then by edit distance.
func closest(want string, n int) []string {
	type cand struct {
		name  string
		score int
	}
	words := strings.Fields(want)
	var cs []cand
	for _, d := range devices() {
		f := fold(d.Name)
		if strings.HasSuffix(f, " landscape") {
			continue
		}
		score := distance(want, f) * 10
		for _, w := range words {
			if strings.Contains(f, w) {
				score -= 100 * len(w)
			}
		}
		cs = append(cs, cand{d.Name, score})
	}
	slices.SortStableFunc(cs, func(a, b cand) int { return a.score - b.score })
	var out []string
	for _, c := range cs[:min(n, len(cs))] {
		out = append(out, fmt.Sprintf("%q", c.name))
	}
	return out
}

// distance is the Levenshtein distance between a and b, in bytes.
func distance(a, b string) int {
	if len(a) > 200 {
		a = a[:200]
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
