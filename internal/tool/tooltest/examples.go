// Package tooltest holds examples of the browser tool's input for the
// tests of every front end (MCP, the HTTP API, the CLI): together they set
// every field of tool.Input, each example valid on its own.
package tooltest

import (
	"encoding/json"
	"reflect"
	"strings"

	"github.com/browserd/browserd/internal/tool"
)

// Examples are valid calls that, between them, set every field of
// tool.Input (TestExamplesCoverEveryField checks it: a new field needs an
// example here).
func Examples() []tool.Input {
	no, yes := false, true
	return []tool.Input{
		{
			Action: "launch", Session: "s1", Task: "t1", UserDataDir: "work",
			State:                json.RawMessage(`{"cookies":[{"name":"sid","value":"1","domain":"example.com","path":"/","expires":-1,"httpOnly":true,"secure":true,"sameSite":"Lax"}],"origins":[{"origin":"https://example.com","localStorage":[{"name":"k","value":"v"}]}]}`),
			HTTPCredentials:      []tool.HTTPCredential{{Origin: "https://intranet.example.com", Username: "ada", Password: "pw"}},
			ExcludeCookieDomains: []string{"ads.example.com"},
			Headless:             &no, UserAgent: "Agent/1", Timezone: "Europe/Paris", Locale: "fr-FR",
			Geolocation: &tool.Geolocation{Latitude: 48.85, Longitude: 2.35, Accuracy: 10},
			Width:       1024, Height: 768,
			AllowHosts: []string{"intranet.example.com"}, BlockHosts: []string{"ads.example.com"}, OnlyHosts: []string{"example.com"},
			Snapshot: &no, Timeout: 5000,
		},
		{Action: "launch", Profile: "work", StoredSession: "st1",
			Proxy:              &tool.Proxy{Server: "http://proxy.example.com:3128", Username: "ada", Password: "pw", Bypass: ".example.com"},
			ClientCertificates: []tool.ClientCertificate{{Origin: "https://intranet.example.com", Cert: "-----BEGIN CERTIFICATE-----", Key: "-----BEGIN PRIVATE KEY-----", CA: "-----BEGIN CERTIFICATE-----"}},
			LoginCheck:         &tool.LoginCheck{URL: "https://example.com/account", Text: "Ada Lovelace", Name: "example"}},
		{Action: "launch", Session: "s2", ClientCertificates: []tool.ClientCertificate{{Origin: "https://pay.example.com", PFX: "MIIK", Passphrase: "pw"}}},
		{Action: "navigate", URL: "https://example.com/", Full: true},
		{Action: "click", Ref: "e3", Button: "right", Modifiers: []string{"Shift"}, Double: true, Tab: "t2"},
		{Action: "type", Role: "textbox", Name: "Email", Text: "ada@example.com", Clear: true, Submit: true},
		{Action: "select", Selector: "#country", Value: "fr", Values: []string{"fr", "de"}},
		{Action: "press", Key: "Control+a", Codegen: true},
		{Action: "evaluate", Expression: "document.title"},
		{Action: "screenshot", Path: "page.png", FullPage: &yes},
		{Action: "upload", Ref: "e7", Files: []string{"cv.pdf"}},
		{Action: "list_sessions", Filter: "all"},
		{Action: "session_resume", Session: "s1", Capture: "3"},
		{Action: "wait", Time: 100, TextGone: "Loading", Load: true},
		{Action: "wait", Human: true},
		{Action: "handoff", Reason: "enter the code sent by SMS"},
		{Action: "dialog", Accept: &no, Text: "answer"},
		{Action: "drag", Ref: "e4", To: "e9"},
		{Action: "fill", Fields: []tool.Field{{Ref: "e3", Value: "Ada"}, {Ref: "e5", Value: "true"}, {Ref: "e6", Secret: "SHOP_PASSWORD"}}},
		{Action: "type", Ref: "e4", Secret: "SHOP_PASSWORD"},
		{Action: "scroll", Direction: "down", Amount: 300},
		{Action: "scroll", Direction: "up", Clicks: 2, X: new(40), Y: new(60)},
		{Action: "snapshot", Interactive: true, Depth: 4, MaxChars: 2000, Diff: true},
		{Action: "network", Request: "r3", Redact: &no},
		{Action: "network", Filter: "fetch"},
		{Action: "mouse_down", X: new(10), Y: new(20), Button: "right"},
		{Action: "screenshot", Annotate: true, FullPage: &no},
		{Action: "launch", Session: "s3", Device: "Pixel 7", ColorScheme: "dark", ReducedMotion: "reduce", ForcedColors: "active"},
		{Action: "emulate", Offline: &yes, Throttle: "Slow 3G", CPU: 4, Headers: map[string]string{"X-Test": "1"},
			Permissions: []string{"geolocation"}, URL: "https://example.com", InitScript: "window.seen = true"},
		{Action: "route", URL: "**/api/items", Status: 200, ContentType: "application/json", Body: "[]", Delay: 100, Scope: "session"},
		{Action: "route", URL: "/\\/ads\\//", Abort: "blockedbyclient"},
		{Action: "route", URL: "**/api/cart", Fetch: true, Status: 201, Text: `"stock":0`, Value: `"stock":5`, Headers: map[string]string{"X-Mocked": "1"}},
		{Action: "unroute", URL: "**/api/items", Scope: "session"},
	}
}

// Same reports whether two inputs say the same, as JSON values (the
// key order of an inline state aside).
func Same(a, b tool.Input) bool {
	var va, vb any
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if json.Unmarshal(ja, &va) != nil || json.Unmarshal(jb, &vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}

// JSONFields are the JSON names of the fields of struct type t (those of
// tool.Input are the tool's fields), each with its Go type; a field the
// JSON leaves out (json:"-") is not among them.
func JSONFields(t reflect.Type) map[string]reflect.Type {
	fields := map[string]reflect.Type{}
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case name == "-" || !f.IsExported():
			continue
		case name == "":
			name = f.Name
		}
		fields[name] = f.Type
	}
	return fields
}
