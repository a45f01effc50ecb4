package tool

import (
	"slices"
	"strings"
	"testing"
)

// TestValidate: the fields of click, select and launch are checked with an
// error that says what to send instead.
func TestValidate(t *testing.T) {
	for _, c := range []struct {
		in   Input
		want string // "" = valid
	}{
		{Input{Action: "click", Ref: "e1", Double: true, Button: "right", Modifiers: []string{"Shift", "control"}}, ""},
		{Input{Action: "click", Ref: "e1", Button: "side"}, "use left, right or middle"},
		{Input{Action: "click", Ref: "e1", Modifiers: []string{"Hyper"}}, "use Alt, Control, Meta or Shift"},
		{Input{Action: "drag", Ref: "e1", To: "e2"}, ""},
		{Input{Action: "drag", Selector: "#card", To: "Done"}, ""},
		{Input{Action: "drag", Ref: "e1"}, "drag needs to"},
		{Input{Action: "drag", To: "e2"}, "drag needs a target"},
		{Input{Action: "userDataDir", To: "e2"}, "unknown action"},
		{Input{Action: "status", UserDataDir: "/x"}, "creates no session"},
		{Input{Action: "navigate", URL: "https://a.example", UserDataDir: "/x", Profile: "p"}, "give one"},
		{Input{Action: "select", Ref: "e1", Values: []string{"a", "b"}}, ""},
		{Input{Action: "select", Ref: "e1"}, "select needs value"},
		{Input{Action: "select", Ref: "e1", Value: "a", Values: []string{"a"}}, ""},
		{Input{Action: "launch", HTTPCredentials: []HTTPCredential{{Origin: "https://a.example", Username: "u", Password: "p"}}}, ""},
		{Input{Action: "launch", HTTPCredentials: []HTTPCredential{{Origin: "https://a.example"}}}, "needs origin"},
		{Input{Action: "wait", Time: 1 << 62}, "at most 3600000"},
		{Input{Action: "wait", Text: "x", Timeout: 9223372036854775807}, "at most 3600000"},
		{Input{Action: "wait", Text: "x", Timeout: MaxMillis}, ""},
		{Input{Action: "scroll", Amount: 1 << 40}, "amount 1000000"},
		{Input{Action: "scroll", Clicks: -1}, "must not be negative"},
		{Input{Action: "scroll", Clicks: 2, Amount: 100}, "not both"},
		{Input{Action: "scroll", Clicks: 101}, "at most 100 wheel clicks"},
		{Input{Action: "snapshot", Depth: 1 << 40}, "depth is at most"},
		{Input{Action: "navigate", URL: "https://a.example", HTTPCredentials: []HTTPCredential{{Origin: "x", Username: "u"}}}, "set with launch"},
		// Issue 17 point 4: launch's environment, checked before any browser.
		{Input{Action: "launch", Headless: new(false), UserAgent: "agent/1.0", Timezone: "Asia/Tokyo", Locale: "ja-JP",
			Geolocation: &Geolocation{Latitude: 35.68, Longitude: 139.77, Accuracy: 20}}, ""},
		{Input{Action: "launch", Timezone: "Etc/GMT+5", Locale: "es-419"}, ""},
		{Input{Action: "launch", Timezone: "Mars/Olympus"}, "not an IANA time zone"},
		{Input{Action: "launch", Timezone: "../../etc/passwd"}, "not an IANA time zone"},
		{Input{Action: "launch", Timezone: "Local"}, "not an IANA time zone"},
		{Input{Action: "launch", Locale: "fr_FR"}, "not a language tag"},
		{Input{Action: "launch", Locale: "1fr"}, "not a language tag"},
		{Input{Action: "launch", UserAgent: "a\nb"}, "without control characters"},
		{Input{Action: "launch", Geolocation: &Geolocation{Latitude: 91}}, "latitude -90 to 90"},
		{Input{Action: "launch", Geolocation: &Geolocation{Longitude: -180.5}}, "longitude -180 to 180"},
		{Input{Action: "launch", Geolocation: &Geolocation{Accuracy: -1}}, "accuracy is metres"},
		{Input{Action: "navigate", URL: "https://a.example", UserAgent: "x"}, "set with launch"},
		{Input{Action: "tab_new", Headless: new(false)}, "set with launch"},
		// Issue 28 point 5: launch's login check.
		{Input{Action: "launch", Profile: "work", LoginCheck: &LoginCheck{URL: "https://app.example.com/account", Text: "Ada Lovelace", Name: "the app"}}, ""},
		{Input{Action: "launch", LoginCheck: &LoginCheck{URL: "http://127.0.0.1:8080/me", Selector: "a[href='/logout']"}}, ""},
		{Input{Action: "launch", LoginCheck: &LoginCheck{}}, ""}, // removes it
		{Input{Action: "launch", LoginCheck: &LoginCheck{Text: "Ada"}}, "loginCheck needs url"},
		{Input{Action: "launch", LoginCheck: &LoginCheck{URL: "https://a.example/"}}, "takes text"},
		{Input{Action: "launch", LoginCheck: &LoginCheck{URL: "https://a.example/", Text: "Ada", Selector: "#me"}}, "one of them"},
		{Input{Action: "launch", LoginCheck: &LoginCheck{URL: "file:///etc/passwd", Text: "root"}}, "not an http(s) URL"},
		{Input{Action: "launch", LoginCheck: &LoginCheck{URL: "example.com/account", Text: "Ada"}}, "not an http(s) URL"},
		{Input{Action: "launch", LoginCheck: &LoginCheck{URL: "https://ann:pw@a.example/", Text: "Ada"}}, "holds a login"},
		{Input{Action: "launch", LoginCheck: &LoginCheck{URL: "https://a.example/", Text: "Ada\nLovelace"}}, "on one line"},
		{Input{Action: "launch", LoginCheck: &LoginCheck{URL: "https://a.example/", Text: strings.Repeat("a", 1001)}}, "at most 1000"},
		{Input{Action: "navigate", URL: "https://a.example", LoginCheck: &LoginCheck{URL: "https://a.example/", Text: "Ada"}}, "loginCheck is set with launch"},
		// Issue 51 point 4: emulate sets the position at any time.
		{Input{Action: "emulate", Geolocation: &Geolocation{Latitude: 48.85, Longitude: 2.35}}, ""},
		{Input{Action: "emulate", Geolocation: &Geolocation{Latitude: 91}}, "emulate: geolocation wants latitude"},
		{Input{Action: "emulate", Geolocation: &Geolocation{Latitude: 1}, Timezone: "UTC"}, "set with launch"},
		// Issue 47 point 5: launch took emulate's fields and applied none.
		{Input{Action: "launch", InitScript: "window.x = 1", Headers: map[string]string{"X-A": "1"}}, "launch does not take headers, initScript"},
		{Input{Action: "launch", Permissions: []string{"geolocation"}}, "launch does not take permissions"},
		{Input{Action: "launch", ColorScheme: "dark", Device: "Pixel 7"}, ""},
		// Issue 47 point 5: a request passed on with a header Chromium
		// will not send is refused up front (it stayed paused for 30 s).
		{Input{Action: "route", URL: "**/api", Headers: map[string]string{"Host": "evil.example"}}, `header "Host"`},
		{Input{Action: "route", URL: "**/api", Headers: map[string]string{"proxy-authorization": "Basic x"}}, "for a proxy"},
		{Input{Action: "route", URL: "**/api", Headers: map[string]string{"Connection": "upgrade"}}, "WebSockets"},
		{Input{Action: "route", URL: "**/api", Headers: map[string]string{"X-Token": "a", "Authorization": "Bearer b"}}, ""},
		{Input{Action: "route", URL: "**/api", Status: 200, Headers: map[string]string{"Content-Length": "2", "Set-Cookie": "a=b"}}, ""}, // an answer's headers are the response's
		{Input{Action: "route", URL: "**/api", Body: strings.Repeat("a", MaxRouteBody+1)}, "1 MB inline"},
		{Input{Action: "route", URL: "**/api", Fetch: true, Body: "x"}, "fetch changes the server's answer"},
		{Input{Action: "route", URL: "**/api", Text: "a", Value: "b"}, "add fetch: true"},
		{Input{Action: "route", URL: "**/api", Fetch: true, Value: "b"}, "give text"},
		{Input{Action: "route", URL: "**/api", Fetch: true, Text: "a", Value: "b", Status: 201, Headers: map[string]string{"Set-Cookie": "a=b"}}, ""},
	} {
		err := c.in.Validate()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%+v: %v", c.in, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%+v: got %v, want an error with %q", c.in, err, c.want)
		}
	}
}

func TestCheckDomains(t *testing.T) {
	for _, ok := range [][]string{nil, {"example.com"}, {".example.com", "localhost", "127.0.0.1", "a-b.example"}} {
		if err := CheckDomains(ok); err != nil {
			t.Errorf("CheckDomains(%q) = %v", ok, err)
		}
	}
	many := make([]string, MaxExcludedDomains+1)
	for i := range many {
		many[i] = "example.com"
	}
	for _, bad := range [][]string{{""}, {"."}, {"exa mple.com"}, {"a..b"}, {"example.com."}, {"http://example.com"}, {"ex/ample"}, many} {
		if err := CheckDomains(bad); err == nil {
			t.Errorf("CheckDomains(%.40q) accepted", bad)
		}
	}
}

func TestDragOffset(t *testing.T) {
	for to, want := range map[string][3]int{
		"+120,0":    {120, 0, 1},
		"-40, 15":   {-40, 15, 1},
		" +5 , -7 ": {5, -7, 1},
		"e12":       {0, 0, 0},
		"Done":      {0, 0, 0},
		"120,0":     {0, 0, 0}, // a text a drop zone may show; an offset is signed
		"+1,2,3":    {0, 0, 0},
		"+999999,0": {0, 0, 0},
	} {
		dx, dy, ok := DragOffset(to)
		if got := [3]int{dx, dy, map[bool]int{true: 1}[ok]}; got != want {
			t.Errorf("DragOffset(%q) = %v, want %v", to, got, want)
		}
	}
}

// TestActionChecksKnown: only the tool's actions have checks of their own.
func TestActionChecksKnown(t *testing.T) {
	for a := range actionChecks {
		if !slices.Contains(Actions, a) {
			t.Errorf("actionChecks has checks for %q, which is not an action", a)
		}
	}
}

// TestLoginCheckSite: a check's site is its name, else its URL's host.
func TestLoginCheckSite(t *testing.T) {
	for _, c := range []struct {
		check LoginCheck
		want  string
	}{
		{LoginCheck{URL: "https://app.example.com:8443/account", Text: "Ada"}, "app.example.com:8443"},
		{LoginCheck{URL: "https://app.example.com/account", Text: "Ada", Name: "the app"}, "the app"},
	} {
		if got := c.check.Site(); got != c.want {
			t.Errorf("%+v: site %q, want %q", c.check, got, c.want)
		}
	}
	if !(&LoginCheck{}).Removes() || (&LoginCheck{URL: "https://a.example/"}).Removes() || (*LoginCheck)(nil).Removes() {
		t.Error("Removes: only a check without url removes")
	}
}
