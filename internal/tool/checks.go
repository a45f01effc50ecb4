package tool

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"
)

// What each action asks of its fields. Validate makes the checks every
// call needs, then the action's own, from actionChecks.

// actionChecks are each action's own checks of its fields, beyond the
// ones Validate makes of every call (TestActionChecksKnown: only the
// tool's actions have one).
var actionChecks = map[string]func(*Input) error{
	"launch":         (*Input).checkLaunch,
	"navigate":       (*Input).checkNavigate,
	"fill":           (*Input).checkFill,
	"drag":           (*Input).checkDrag,
	"click":          (*Input).checkPointer,
	"hover":          (*Input).checkPointer,
	"type":           (*Input).checkType,
	"select":         (*Input).checkSelect,
	"evaluate":       (*Input).checkEvaluate,
	"tab_switch":     (*Input).checkTab,
	"tab_close":      (*Input).checkTab,
	"press":          (*Input).checkPress,
	"upload":         (*Input).checkUpload,
	"wait":           (*Input).checkWait,
	"handoff":        (*Input).checkHandoff,
	"state_load":     (*Input).checkStateLoad,
	"session_resume": (*Input).checkSessionResume,
	"list_sessions":  (*Input).checkListSessions,
	"scroll":         (*Input).checkScroll,
	"network":        (*Input).checkNetwork,
	"mouse_move":     (*Input).checkMouse,
	"mouse_down":     (*Input).checkMouse,
	"mouse_up":       (*Input).checkMouse,
	"emulate":        (*Input).checkEmulate,
	"route":          (*Input).checkRoute,
	"unroute":        (*Input).checkScope,
}

// needTarget checks that an action that acts on an element names one.
func (in *Input) needTarget() error {
	if in.Ref == "" && in.Selector == "" && in.Role == "" {
		return fmt.Errorf("%s needs a target: ref (from snapshot), role+name, or selector", in.Action)
	}
	return nil
}

func (in *Input) checkLaunch() error {
	var emu []string
	for name, set := range map[string]bool{"headers": len(in.Headers) > 0, "permissions": len(in.Permissions) > 0,
		"initScript": in.InitScript != "", "offline": in.Offline != nil, "throttle": in.Throttle != "", "cpu": in.CPU != 0} {
		if set {
			emu = append(emu, name)
		}
	}
	if len(emu) > 0 {
		// launch took them and applied nothing (issue 47 point 5).
		slices.Sort(emu)
		return fmt.Errorf("launch does not take %s: they are emulate's — launch, then send {\"action\":\"emulate\", …} with them (they hold for every tab of the session)", strings.Join(emu, ", "))
	}
	if len(in.State) > 0 && in.StoredSession != "" {
		return fmt.Errorf("launch takes state (an inline storageState) or storedSession (a stored one's id), not both")
	}
	if len(in.HTTPCredentials) > 16 {
		return fmt.Errorf("launch: at most 16 httpCredentials")
	}
	for i, c := range in.HTTPCredentials {
		if c.Origin == "" || c.Username == "" || len(c.Username)+len(c.Password) > 4096 {
			return fmt.Errorf("launch: httpCredentials[%d] needs origin (scheme://host[:port]) and username, at most 4096 bytes with the password", i)
		}
	}
	if p := in.Proxy; p != nil {
		if strings.TrimSpace(p.Server) == "" || len(p.Server) > 2048 || len(p.Bypass) > 8192 {
			return fmt.Errorf("launch: proxy needs server, the proxy's address: {\"server\":\"http://proxy.example.com:3128\",\"username\":\"…\",\"password\":\"…\",\"bypass\":\".example.com\"}")
		}
		if len(p.Username)+len(p.Password) > 4096 {
			return fmt.Errorf("launch: proxy username and password are at most 4096 bytes together")
		}
	}
	if err := in.checkEnvironment(); err != nil {
		return err
	}
	if err := in.checkMedia(); err != nil {
		return err
	}
	if len(in.ClientCertificates) > 16 {
		return fmt.Errorf("launch: at most 16 clientCertificates")
	}
	for i, c := range in.ClientCertificates {
		pem := c.Cert != "" || c.Key != ""
		switch {
		case !strings.HasPrefix(c.Origin, "https://"):
			return fmt.Errorf("launch: clientCertificates[%d].origin %q: give the https origin the certificate is for, https://host[:port]", i, c.Origin)
		case pem && c.PFX != "", !pem && c.PFX == "":
			return fmt.Errorf("launch: clientCertificates[%d] takes cert and key (PEM), or pfx (a PKCS#12 file in base64) with its passphrase", i)
		case pem && (c.Cert == "" || c.Key == ""):
			return fmt.Errorf("launch: clientCertificates[%d] needs both cert and key (PEM)", i)
		case len(c.Cert)+len(c.Key)+len(c.PFX)+len(c.CA)+len(c.Passphrase) > 256<<10:
			return fmt.Errorf("launch: clientCertificates[%d] is over 256 KB", i)
		}
	}
	if err := CheckLoginCheck(in.LoginCheck); err != nil {
		return err
	}
	if err := CheckDomains(in.ExcludeCookieDomains); err != nil {
		return fmt.Errorf("launch: excludeCookieDomains: %w", err)
	}
	if (in.Width != 0 || in.Height != 0) && (in.Width < 100 || in.Height < 100 || in.Width > 8192 || in.Height > 8192) {
		return fmt.Errorf("launch: width and height must both be set, 100 to 8192 pixels, not %dx%d", in.Width, in.Height)
	}
	return nil
}

func (in *Input) checkNavigate() error {
	if len(in.HTTPCredentials) > 0 {
		return fmt.Errorf("httpCredentials are set with launch, before navigating")
	}
	if in.URL == "" {
		return fmt.Errorf("navigate needs url, e.g. {\"action\":\"navigate\",\"url\":\"https://example.com\"}")
	}
	return nil
}

func (in *Input) checkFill() error {
	if len(in.Fields) == 0 || len(in.Fields) > MaxFields {
		return fmt.Errorf("fill needs fields: 1 to %d of {ref, value}, the refs from a snapshot", MaxFields)
	}
	for i, f := range in.Fields {
		if !LooksLikeRef(f.Ref) {
			return fmt.Errorf("fill: fields[%d].ref %q is not a ref: use the refs of a snapshot, e.g. e12", i, f.Ref)
		}
		if len(f.Value) > 1<<20 {
			return fmt.Errorf("fill: fields[%d].value is longer than 1 MiB", i)
		}
		if f.Secret != "" && f.Value != "" {
			return fmt.Errorf("fill: fields[%d] takes value or secret (a stored secret's name), not both", i)
		}
	}
	return nil
}

func (in *Input) checkDrag() error {
	if err := in.needTargetOrPoint(); err != nil {
		return err
	}
	if strings.TrimSpace(in.To) == "" || len(in.To) > 500 {
		return fmt.Errorf("drag needs to: the ref of the element to drop on, from a snapshot (e.g. e12), the text it shows, or an offset in pixels from where the drag starts (+120,0)")
	}
	return nil
}

func (in *Input) checkPointer() error {
	if err := in.needTargetOrPoint(); err != nil {
		return err
	}
	return in.checkButtons()
}

// checkButtons checks click's and the mouse actions' button and
// modifiers.
func (in *Input) checkButtons() error {
	switch in.Button {
	case "", "left", "right", "middle":
	default:
		return fmt.Errorf("click button %q: use left, right or middle", in.Button)
	}
	for _, m := range in.Modifiers {
		switch strings.ToLower(m) {
		case "alt", "control", "ctrl", "meta", "shift":
		default:
			return fmt.Errorf("click modifier %q: use Alt, Control, Meta or Shift", m)
		}
	}
	return nil
}

func (in *Input) checkType() error {
	// No target and no point: the keys go where the focus is.
	if in.Secret != "" && in.Text != "" {
		return fmt.Errorf("type takes text or secret (a stored secret's name), not both")
	}
	return nil
}

func (in *Input) checkSelect() error {
	if err := in.needTarget(); err != nil {
		return err
	}
	if in.Value == "" && len(in.Values) == 0 {
		return fmt.Errorf("select needs value (the option's value or its label) or, for a multi-select, values")
	}
	return nil
}

func (in *Input) checkEvaluate() error {
	if in.Expression == "" {
		return fmt.Errorf("evaluate needs expression, e.g. \"document.title\"")
	}
	return nil
}

func (in *Input) checkTab() error {
	if in.Tab == "" && in.Action == "tab_switch" {
		return fmt.Errorf("tab_switch needs tab: a tab id from the tabs action, e.g. t2")
	}
	return nil
}

func (in *Input) checkPress() error {
	if in.Key == "" {
		return fmt.Errorf("press needs key, e.g. Enter, Tab, ArrowDown, Control+a")
	}
	return nil
}

func (in *Input) checkUpload() error {
	if len(in.Files) == 0 {
		return fmt.Errorf("upload needs files: names of files inside the upload folder")
	}
	if err := in.needTarget(); err != nil {
		return err
	}
	return nil
}

func (in *Input) checkWait() error {
	if in.Selector == "" && in.Text == "" && in.TextGone == "" && in.URL == "" && in.Time == 0 && !in.Load && !in.Human {
		return fmt.Errorf("wait needs one of selector, text, textGone, url, load, human or time")
	}
	return nil
}

func (in *Input) checkHandoff() error {
	if strings.TrimSpace(in.Reason) == "" {
		return fmt.Errorf("handoff needs reason: what the person should do (e.g. \"enter the one-time code sent by SMS\")")
	}
	return nil
}

func (in *Input) checkStateLoad() error {
	if len(in.State) == 0 && in.Path == "" {
		return fmt.Errorf("state_load needs state (a storageState object) or path (a file name in the states folder)")
	}
	return nil
}

func (in *Input) checkSessionResume() error {
	if in.Session == "" {
		return fmt.Errorf("session_resume needs session: the id of a recoverable session (list_sessions shows them)")
	}
	if in.Capture != "" {
		if _, _, err := ParseCapture(in.Capture, time.Now()); err != nil {
			return err
		}
	}
	return nil
}

func (in *Input) checkListSessions() error {
	if in.Filter != "" && !slices.Contains(SessionStates, in.Filter) {
		return fmt.Errorf("list_sessions filter %q: use one of %s", in.Filter, strings.Join(SessionStates, ", "))
	}
	return nil
}

var requestID = regexp.MustCompile(`^r[1-9][0-9]{0,9}$`)

func (in *Input) checkNetwork() error {
	if in.Request != "" && !requestID.MatchString(in.Request) {
		return fmt.Errorf("network request %q: give a request's id from the network listing, e.g. r3", in.Request)
	}
	if in.Request != "" && in.Path != "" {
		return fmt.Errorf("network takes request (one request, with its body) or path (the log as HAR), not both")
	}
	if in.Path != "" && !strings.HasSuffix(strings.ToLower(in.Path), ".har") {
		return fmt.Errorf("network path %q: a HAR file's name ends in .har, e.g. checkout.har", in.Path)
	}
	return nil
}

func (in *Input) checkScroll() error {
	if in.Direction != "" && !slices.Contains(ScrollDirections, in.Direction) {
		last := len(ScrollDirections) - 1
		return fmt.Errorf("scroll direction %q: use %s or %s", in.Direction, strings.Join(ScrollDirections[:last], ", "), ScrollDirections[last])
	}
	return nil
}

// checkEnvironment checks launch's headless, userAgent, timezone, locale
// and geolocation (the rules of browser.Emulation.Check, which the HTTP
// API applies to the same fields).
func (in *Input) checkEnvironment() error {
	if len(in.UserAgent) > 1024 || strings.ContainsFunc(in.UserAgent, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return fmt.Errorf("launch: userAgent is at most 1024 characters, without control characters")
	}
	if in.Timezone != "" && !ValidZone(in.Timezone) {
		return fmt.Errorf("launch: timezone %q is not an IANA time zone; use one such as Europe/Paris, America/New_York or UTC", in.Timezone)
	}
	if in.Locale != "" && !ValidLocale(in.Locale) {
		return fmt.Errorf("launch: locale %q is not a language tag; use one such as fr-FR, en-US or de", in.Locale)
	}
	return in.checkGeolocation()
}

// checkGeolocation checks a position launch or emulate sets.
func (in *Input) checkGeolocation() error {
	if g := in.Geolocation; g != nil {
		if !(g.Latitude >= -90 && g.Latitude <= 90) || !(g.Longitude >= -180 && g.Longitude <= 180) {
			return fmt.Errorf("%s: geolocation wants latitude -90 to 90 and longitude -180 to 180 degrees, not %v, %v", in.Action, g.Latitude, g.Longitude)
		}
		if !(g.Accuracy >= 0 && g.Accuracy <= 1e7) {
			return fmt.Errorf("%s: geolocation accuracy is metres, 0 to 10000000 (0: 10 m), not %v", in.Action, g.Accuracy)
		}
	}
	return nil
}

// loginCheckExample is a login check, for the errors that ask for one.
const loginCheckExample = `{"url":"https://example.com/account","text":"Ada Lovelace"} (or "selector":"#logout" instead of text), or {} to remove it`

// CheckLoginCheck checks launch's loginCheck: an http(s) url and either
// text or selector (not both), or nothing at all (it removes the one
// kept); nil passes.
func CheckLoginCheck(c *LoginCheck) error {
	if c == nil {
		return nil
	}
	if c.Removes() {
		if c.Text != "" || c.Selector != "" || c.Name != "" {
			return fmt.Errorf("launch: loginCheck needs url, the page that shows whether the session is logged in: %s", loginCheckExample)
		}
		return nil
	}
	u, err := url.Parse(c.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || len(c.URL) > 2048 {
		return fmt.Errorf("launch: loginCheck url %q is not an http(s) URL: %s", c.URL, loginCheckExample)
	}
	if u.User != nil {
		return fmt.Errorf("launch: loginCheck url holds a login: give HTTP logins to launch in httpCredentials instead")
	}
	if (strings.TrimSpace(c.Text) == "") == (strings.TrimSpace(c.Selector) == "") {
		return fmt.Errorf("launch: loginCheck takes text (what the page shows when logged in, e.g. the account's name) or selector (a CSS selector that matches only then), one of them: %s", loginCheckExample)
	}
	control := func(r rune) bool { return r < 0x20 || r == 0x7f }
	if len(c.Text) > 1000 || len(c.Selector) > 1000 || len(c.Name) > 100 ||
		strings.ContainsFunc(c.Text, control) || strings.ContainsFunc(c.Selector, control) || strings.ContainsFunc(c.Name, control) {
		return fmt.Errorf("launch: loginCheck text and selector are at most 1000 characters, name 100, on one line")
	}
	return nil
}
