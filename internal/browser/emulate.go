package browser

import (
	"context"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
)

// This file applies what internal/emulation decides a session's pages see
// beyond the user agent, time zone, locale and position: a device's
// metrics and touch, media features, network conditions, CPU throttling,
// extra headers, init scripts and permissions. Every tab of the session
// gets them when it opens (newPage) and when they change (Emulate).

// Device is a device's metrics beyond the viewport's size.
type Device struct {
	Scale  float64 `json:"deviceScaleFactor,omitempty"`
	Mobile bool    `json:"isMobile,omitempty"`
	Touch  bool    `json:"hasTouch,omitempty"`
	// ScreenWidth and ScreenHeight are the screen's size (screen.width,
	// screen.height) when larger than the viewport: 0, the viewport's.
	ScreenWidth  int `json:"screenWidth,omitempty"`
	ScreenHeight int `json:"screenHeight,omitempty"`
}

// More is what may change while the session runs (the emulate action).
type More struct {
	// Media are CSS media features by name: prefers-color-scheme,
	// prefers-reduced-motion, forced-colors.
	Media map[string]string `json:"media,omitempty"`
	// Offline cuts the tabs off the network; Net throttles it.
	Offline bool      `json:"offline,omitempty"`
	Net     *Throttle `json:"net,omitempty"`
	// CPU slows the renderer down by this factor (1 or 0: none).
	CPU float64 `json:"cpu,omitempty"`
	// Headers are sent with every request.
	Headers map[string]string `json:"headers,omitempty"`
	// InitScripts run in every new document before the page's own, in
	// its main world.
	InitScripts []string `json:"initScripts,omitempty"`
	// Permissions are granted, each to its origin.
	Permissions []Permission `json:"permissions,omitempty"`
}

// Throttle is a network's speed: bytes per second each way and the
// latency added to each request, in ms.
type Throttle struct {
	Download float64 `json:"download"`
	Upload   float64 `json:"upload"`
	Latency  float64 `json:"latency"`
}

// Permission is a set of permissions (geolocation, notifications, …)
// granted to one origin ("" for every origin).
type Permission struct {
	Origin string   `json:"origin,omitempty"`
	Names  []string `json:"names"`
}

// IsZero reports whether m sets nothing.
func (m More) IsZero() bool {
	return len(m.Media) == 0 && !m.Offline && m.Net == nil && m.CPU == 0 && len(m.Headers) == 0 &&
		len(m.InitScripts) == 0 && len(m.Permissions) == 0
}

// Clone is a deep copy of m, to change without touching the tabs' own.
func (m More) Clone() More {
	m.Media = maps.Clone(m.Media)
	m.Headers = maps.Clone(m.Headers)
	m.InitScripts = slices.Clone(m.InitScripts)
	m.Permissions = slices.Clone(m.Permissions)
	if m.Net != nil {
		n := *m.Net
		m.Net = &n
	}
	return m
}

// deviceMetrics is setDeviceMetricsOverride's parameters for a viewport on
// a device (nil: a desktop at scale 1), as Playwright sets them: the
// screen is the device's (the viewport's when it names none); a mobile
// device's screen is in portrait or landscape as its screen's sides say,
// a desktop's in landscape.
func deviceMetrics(w, h int, d *Device) map[string]any {
	scale, mobile := 1.0, false
	sw, sh := w, h
	if d != nil {
		scale, mobile = d.Scale, d.Mobile
		if scale <= 0 {
			scale = 1
		}
		if d.ScreenWidth > 0 && d.ScreenHeight > 0 {
			sw, sh = d.ScreenWidth, d.ScreenHeight
		}
	}
	orientation := map[string]any{"angle": 0, "type": "landscapePrimary"}
	if mobile && sw <= sh {
		orientation = map[string]any{"angle": 0, "type": "portraitPrimary"}
	} else if mobile {
		orientation = map[string]any{"angle": 90, "type": "landscapePrimary"}
	}
	return map[string]any{"width": w, "height": h, "deviceScaleFactor": scale, "mobile": mobile,
		"screenWidth": sw, "screenHeight": sh, "screenOrientation": orientation}
}

// moreSteps are the per-tab CDP commands of d and m (init scripts and
// permissions aside: newInitScripts, grant).
func moreSteps(d *Device, m More) [][2]any {
	var steps [][2]any
	if d != nil && d.Touch {
		// One touch point, as Playwright's devices have.
		steps = append(steps, [2]any{"Emulation.setTouchEmulationEnabled", map[string]any{"enabled": true}})
	}
	if len(m.Media) > 0 {
		steps = append(steps, [2]any{"Emulation.setEmulatedMedia", map[string]any{"features": mediaFeatures(m.Media)}})
	}
	if m.Offline || m.Net != nil {
		steps = append(steps, [2]any{"Network.emulateNetworkConditions", netConditions(m)})
	}
	if m.CPU > 1 {
		steps = append(steps, [2]any{"Emulation.setCPUThrottlingRate", map[string]any{"rate": m.CPU}})
	}
	if len(m.Headers) > 0 {
		steps = append(steps, [2]any{"Network.setExtraHTTPHeaders", map[string]any{"headers": m.Headers}})
	}
	return steps
}

// resetSteps undo what old set and now leaves unset.
func resetSteps(old, now More) [][2]any {
	var steps [][2]any
	for name := range old.Media {
		if _, ok := now.Media[name]; !ok {
			// An empty value is the feature's own again.
			steps = append(steps, [2]any{"Emulation.setEmulatedMedia", map[string]any{"features": []map[string]string{{"name": name, "value": ""}}}})
		}
	}
	if (old.Offline || old.Net != nil) && !now.Offline && now.Net == nil {
		steps = append(steps, [2]any{"Network.emulateNetworkConditions", netConditions(now)})
	}
	if old.CPU > 1 && now.CPU <= 1 {
		steps = append(steps, [2]any{"Emulation.setCPUThrottlingRate", map[string]any{"rate": 1}})
	}
	if len(old.Headers) > 0 && len(now.Headers) == 0 {
		steps = append(steps, [2]any{"Network.setExtraHTTPHeaders", map[string]any{"headers": map[string]string{}}})
	}
	return steps
}

func mediaFeatures(media map[string]string) []map[string]string {
	var fs []map[string]string
	for _, name := range slices.Sorted(maps.Keys(media)) {
		fs = append(fs, map[string]string{"name": name, "value": media[name]})
	}
	return fs
}

// netConditions is emulateNetworkConditions' parameters for m (none set:
// the network as it is).
func netConditions(m More) map[string]any {
	p := map[string]any{"offline": m.Offline, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1}
	if n := m.Net; n != nil {
		p["latency"], p["downloadThroughput"], p["uploadThroughput"] = n.Latency, n.Download, n.Upload
	}
	return p
}

// newInitScripts are the commands that add the scripts the tab does not
// run yet, each once.
func (p *Page) newInitScripts(scripts []string) [][2]any {
	p.mu.Lock()
	defer p.mu.Unlock()
	var steps [][2]any
	for _, s := range scripts {
		if p.inits[s] {
			continue
		}
		if p.inits == nil {
			p.inits = map[string]bool{}
		}
		p.inits[s] = true
		steps = append(steps, [2]any{"Page.addScriptToEvaluateOnNewDocument", map[string]any{"source": s}})
	}
	return steps
}

// permissionTypes are Chromium's PermissionType names (what
// Browser.grantPermissions takes) by the web's permission names, which
// the tool takes, as Playwright maps them.
var permissionTypes = map[string]string{
	"geolocation": "geolocation", "notifications": "notifications", "midi": "midi",
	"midi-sysex": "midiSysex", "camera": "videoCapture", "microphone": "audioCapture",
	"background-sync": "backgroundSync", "clipboard-read": "clipboardReadWrite",
	"clipboard-write": "clipboardSanitizedWrite", "storage-access": "storageAccess",
	"payment-handler": "paymentHandler", "local-fonts": "localFonts",
	"accelerometer": "sensors", "gyroscope": "sensors", "magnetometer": "sensors", "ambient-light-sensor": "sensors",
}

// grant grants perms in the tab's browser context: Chromium keeps them
// per context, and a browser started again has forgotten them.
func (p *Page) grant(ctx context.Context, perms []Permission) error {
	if len(perms) == 0 || p.b == nil {
		return nil
	}
	bs := p.b.conn.Browser()
	contextID, err := p.contextID(ctx)
	if err != nil {
		return fmt.Errorf("granting permissions: %w", err)
	}
	for _, g := range perms {
		names := make([]string, 0, len(g.Names))
		for _, n := range g.Names {
			names = append(names, cmpOr(permissionTypes[n], n))
		}
		params := map[string]any{"permissions": names}
		if g.Origin != "" {
			params["origin"] = g.Origin
		}
		if contextID != "" {
			params["browserContextId"] = contextID
		}
		if err := bs.Call(ctx, "Browser.grantPermissions", params, nil); err != nil {
			return fmt.Errorf("granting %v to %s: %w", g.Names, cmpOr(g.Origin, "every origin"), err)
		}
	}
	return nil
}

// contextID is the id of the tab's browser context ("" for the default
// one).
func (p *Page) contextID(ctx context.Context) (string, error) {
	var info struct {
		TargetInfo struct {
			BrowserContextID string `json:"browserContextId"`
		} `json:"targetInfo"`
	}
	err := p.b.conn.Browser().Call(ctx, "Target.getTargetInfo", map[string]any{"targetId": p.TargetID}, &info)
	return info.TargetInfo.BrowserContextID, err
}

// ResetPermissions takes back every permission granted in the tab's
// browser context.
func (p *Page) ResetPermissions(ctx context.Context) error {
	contextID, err := p.contextID(ctx)
	if err != nil {
		return err
	}
	params := map[string]any{}
	if contextID != "" {
		params["browserContextId"] = contextID
	}
	return p.b.conn.Browser().Call(ctx, "Browser.resetPermissions", params, nil)
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// Touch reports whether the tab emulates a touch screen: a click is a
// tap, a scroll a swipe.
func (p *Page) Touch() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.opts.Emulation.Device != nil && p.opts.Emulation.Device.Touch
}

// Tap touches the screen at the point and lifts the finger, as a person's
// tap: the page gets touchstart and touchend, then the mouse events and
// click a browser makes of a tap.
func (p *Page) Tap(ctx context.Context, x, y float64) error {
	pt := []map[string]any{{"x": x, "y": y, "radiusX": 1, "radiusY": 1, "force": 1, "id": 0}}
	return waitAll([]func(any) error{
		p.sess.Send(ctx, "Input.dispatchTouchEvent", map[string]any{"type": "touchStart", "touchPoints": pt}),
		p.sess.Send(ctx, "Input.dispatchTouchEvent", map[string]any{"type": "touchEnd", "touchPoints": []map[string]any{}}),
	})
}

// Swipe scrolls by (dx, dy) pixels as a finger does, around (x, y), the
// middle of what it swipes: the page gets touchstart, touchmove and
// touchend, and what is under the finger scrolls with it. A distance
// longer than the screen (twice x or y) is cut to 80 % of it.
func (p *Page) Swipe(ctx context.Context, x, y, dx, dy float64) error {
	clip := func(d, mid float64) float64 { return max(-1.6*mid, min(1.6*mid, d)) }
	dx, dy = clip(dx, x), clip(dy, y)
	const steps = 10
	point := func(i int) []map[string]any {
		f := float64(i)/steps - 0.5 // from half a distance ahead to half behind
		return []map[string]any{{"x": x - dx*f, "y": y - dy*f, "radiusX": 1, "radiusY": 1, "force": 1, "id": 0}}
	}
	waits := []func(any) error{p.sess.Send(ctx, "Input.dispatchTouchEvent", map[string]any{"type": "touchStart", "touchPoints": point(0)})}
	for i := 1; i <= steps; i++ {
		waits = append(waits, p.sess.Send(ctx, "Input.dispatchTouchEvent", map[string]any{"type": "touchMove", "touchPoints": point(i)}))
	}
	waits = append(waits, p.sess.Send(ctx, "Input.dispatchTouchEvent", map[string]any{"type": "touchEnd", "touchPoints": []map[string]any{}}))
	return waitAll(waits)
}

var (
	androidRe = regexp.MustCompile(`Android (\d+(\.\d+)?(\.\d+)?)`)
	iPhoneRe  = regexp.MustCompile(`iPhone OS (\d+(_\d+)?)`)
	iPadRe    = regexp.MustCompile(`iPad; CPU OS (\d+(_\d+)?)`)
	macOSRe   = regexp.MustCompile(`Mac OS X (\d+(_\d+)?(_\d+)?)`)
	windowsRe = regexp.MustCompile(`Windows\D+(\d+(\.\d+)?(\.\d+)?)`)
)

// uaMetadata is the Client Hints a user agent string implies
// (Emulation.UserAgentMetadata): its platform and version, its
// architecture, and whether it is a phone's — Playwright's reading of a
// user agent (calculateUserAgentMetadata), so that a device looks the
// same to a site through either.
func uaMetadata(ua string, mobile bool) map[string]any {
	platform, version, arch := "Windows", "", "x86"
	switch {
	case androidRe.MatchString(ua):
		platform, version, arch = "Android", androidRe.FindStringSubmatch(ua)[1], "arm"
	case iPhoneRe.MatchString(ua):
		platform, version, arch = "iOS", iPhoneRe.FindStringSubmatch(ua)[1], "arm"
	case iPadRe.MatchString(ua):
		platform, version, arch = "iOS", iPadRe.FindStringSubmatch(ua)[1], "arm"
	case macOSRe.MatchString(ua):
		platform, version = "macOS", macOSRe.FindStringSubmatch(ua)[1]
		if !strings.Contains(ua, "Intel") {
			arch = "arm"
		}
	case windowsRe.MatchString(ua):
		version = windowsRe.FindStringSubmatch(ua)[1]
	case strings.Contains(strings.ToLower(ua), "linux"):
		platform = "Linux"
	}
	if strings.Contains(ua, "ARM") {
		arch = "arm"
	}
	return map[string]any{"mobile": mobile, "model": "", "architecture": arch, "platform": platform, "platformVersion": version}
}
