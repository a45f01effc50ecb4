package tool

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// The checks of emulate, route and unroute, and of launch's device and
// media features (internal/emulation and internal/routes do the work).

// Media feature values, by field.
var (
	ColorSchemes   = []string{"light", "dark", "no-preference"}
	ReducedMotions = []string{"reduce", "no-preference"}
	ForcedColors   = []string{"active", "none"}
)

// Permissions are those emulate grants (the web's names, as Playwright
// takes them; "none" takes back every one granted).
var Permissions = []string{"geolocation", "notifications", "clipboard-read", "clipboard-write",
	"camera", "microphone", "midi", "midi-sysex", "background-sync", "storage-access", "payment-handler",
	"local-fonts", "accelerometer", "gyroscope", "magnetometer", "ambient-light-sensor", "none"}

// AbortReasons are route's abort reasons (Playwright's error codes).
var AbortReasons = []string{"aborted", "accessdenied", "addressunreachable", "blockedbyclient",
	"blockedbyresponse", "connectionaborted", "connectionclosed", "connectionfailed",
	"connectionrefused", "connectionreset", "internetdisconnected", "namenotresolved",
	"timedout", "failed"}

func (in *Input) checkMedia() error {
	for _, f := range []struct {
		name, v string
		ok      []string
	}{{"colorScheme", in.ColorScheme, ColorSchemes}, {"reducedMotion", in.ReducedMotion, ReducedMotions}, {"forcedColors", in.ForcedColors, ForcedColors}} {
		if f.v != "" && !slices.Contains(f.ok, f.v) {
			return fmt.Errorf("%s %q: use %s", f.name, f.v, strings.Join(f.ok, ", "))
		}
	}
	if len(in.Device) > 100 {
		return fmt.Errorf("device: a device's name, such as \"iPhone 15\" or \"Pixel 7\"")
	}
	return nil
}

func (in *Input) checkEmulate() error {
	if err := in.checkMedia(); err != nil {
		return err
	}
	if in.ColorScheme == "" && in.ReducedMotion == "" && in.ForcedColors == "" && in.Offline == nil && in.Throttle == "" &&
		in.CPU == 0 && len(in.Headers) == 0 && len(in.Permissions) == 0 && in.InitScript == "" && in.Geolocation == nil {
		return fmt.Errorf("emulate needs what to change: colorScheme, reducedMotion, forcedColors, offline, throttle, cpu, headers, permissions (for url, an origin), geolocation or initScript")
	}
	if err := in.checkGeolocation(); err != nil {
		return err
	}
	if in.CPU != 0 && !(in.CPU >= 1 && in.CPU <= 100) {
		return fmt.Errorf("emulate: cpu is how many times slower, 1 (none) to 100, e.g. 4")
	}
	if len(in.InitScript) > 1<<20 {
		return fmt.Errorf("emulate: initScript is at most 1 MB")
	}
	if err := checkHeaders(in.Headers); err != nil {
		return fmt.Errorf("emulate: %w", err)
	}
	for _, p := range in.Permissions {
		if !slices.Contains(Permissions, p) {
			return fmt.Errorf("emulate: permission %q: use %s", p, strings.Join(Permissions, ", "))
		}
	}
	if in.URL != "" {
		u, err := url.Parse(in.URL)
		if len(in.Permissions) == 0 || err != nil || u.Scheme == "" || u.Host == "" || strings.Trim(u.Path, "/") != "" {
			return fmt.Errorf("emulate: url is the origin permissions are granted to (https://example.com), with permissions")
		}
	}
	return nil
}

func checkHeaders(h map[string]string) error {
	if len(h) > 64 {
		return fmt.Errorf("at most 64 headers")
	}
	for k, v := range h {
		if k == "" || strings.ContainsAny(k, " :\r\n\t") || strings.ContainsAny(v, "\r\n") || len(k)+len(v) > 8192 {
			return fmt.Errorf("header %q: a name without spaces or colons, a value on one line", k)
		}
	}
	return nil
}

func (in *Input) checkScope() error {
	if in.Scope != "" && in.Scope != "task" && in.Scope != "session" {
		return fmt.Errorf("%s: scope is task (the default: this task's tabs) or session (every task's)", in.Action)
	}
	return nil
}

func (in *Input) checkRoute() error {
	if err := in.checkScope(); err != nil {
		return err
	}
	if in.URL == "" {
		return fmt.Errorf("route needs url, the requests it answers: a glob such as **/api/items or a regular expression such as /\\/api\\//")
	}
	if in.Status != 0 && (in.Status < 100 || in.Status > 599) {
		return fmt.Errorf("route: status is an HTTP status, 100 to 599")
	}
	if in.Abort != "" {
		if !slices.Contains(AbortReasons, in.Abort) {
			return fmt.Errorf("route: abort %q: use %s", in.Abort, strings.Join(AbortReasons, ", "))
		}
		if in.Status != 0 || in.Body != "" || in.Path != "" || in.ContentType != "" {
			return fmt.Errorf("route: abort fails the request; it takes no status, body, path or contentType")
		}
	}
	if in.Body != "" && in.Path != "" {
		return fmt.Errorf("route: body or path (a file in the uploads folder), not both")
	}
	if in.Fetch && (in.Abort != "" || in.Body != "" || in.Path != "") {
		return fmt.Errorf("route: fetch changes the server's answer: give status, headers, contentType, or text and value to replace in its body; not abort, body or path (leave fetch out to make the answer up)")
	}
	if !in.Fetch && (in.Text != "" || in.Value != "") {
		return fmt.Errorf("route: text and value replace a text in the server's answer: add fetch: true")
	}
	if in.Value != "" && in.Text == "" {
		return fmt.Errorf("route: value replaces text in the fetched body: give text, what to replace")
	}
	if in.Delay < 0 || in.Delay > 60000 {
		return fmt.Errorf("route: delay is 0 to 60000 ms")
	}
	if len(in.Body) > MaxRouteBody {
		return fmt.Errorf("route: body is at most 1 MB inline; put a bigger one (up to 10 MB) in the uploads folder and give it as path")
	}
	passesOn := !in.Fetch && in.Abort == "" && in.Status == 0 && in.Body == "" && in.Path == "" && in.ContentType == ""
	for k, v := range in.Headers {
		if why := refusedHeader(k, v); why != "" && passesOn {
			return fmt.Errorf("route: Chromium will not send a request with header %q (%s); leave it out", k, why)
		}
	}
	if strings.ContainsAny(in.ContentType, "\r\n") {
		return fmt.Errorf("route: contentType is one line, e.g. application/json")
	}
	return checkHeaders(in.Headers)
}

// MaxRouteBody bounds a route's inline body; a file (path) may hold 10 MB.
// The HTTP API's action body limit leaves room for it escaped in JSON.
const MaxRouteBody = 1 << 20

// refusedHeader says why Chromium refuses to send a request with header
// name: value ("" when it sends it) — the headers a browser sets itself or
// that belong to a proxy (Chromium's network::IsRequestHeaderSafe). A
// route that passes a request on with one would leave it paused.
func refusedHeader(name, value string) string {
	n := strings.ToLower(strings.TrimSpace(name))
	switch {
	case n == "content-length", n == "transfer-encoding", n == "trailer", n == "te", n == "keep-alive":
		return "the network stack sets it from the body and the connection"
	case n == "host":
		return "it comes from the URL"
	case n == "upgrade", n == "connection" && strings.EqualFold(strings.TrimSpace(value), "upgrade"):
		return "WebSockets upgrade their own way"
	case n == "cookie2", n == "set-cookie":
		return "not a request header the browser sends"
	case strings.HasPrefix(n, "proxy-"):
		return "it is for a proxy, not the site"
	}
	return ""
}
