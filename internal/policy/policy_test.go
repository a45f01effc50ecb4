package policy

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/browserd/browserd/internal/tool"
)

func TestParseErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"deny":["evaluat"]}`, `"evaluat" is not an action`},
		{`{"deny":["evaluate"],"allow":["evaluate"]}`, "both denied and allowed"},
		{`{"deny":["upload"],"confirm":["upload"]}`, "both denied and to confirm"},
		{`{"denied":["evaluate"]}`, "unknown field"},
		{`{"hosts":["https://example.com/"]}`, "not a URL"},
		{`{"hosts":["*.1.2.3.4"]}`, "wildcard needs a domain"},
		{`{"hosts":["ex ample.com"]}`, "not a URL"},
		{`{"hosts":["exämple.com"]}`, "xn--"},
		{`{"hosts":["example.com:99999"]}`, "port"},
		{`{"confirm":["upload"],"confirmTimeout":"1ms"}`, "1s to"},
		{`{"deny":["secret:"]}`, "name the secret"},
		{`{} {}`, "text after"},
		{`[]`, "not a policy object"},
		{strings.Repeat(" ", MaxSize+1) + "{}", "bytes"},
	} {
		if _, err := Parse([]byte(c.in)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%.60s) = %v, want an error with %q", c.in, err, c.want)
		}
	}
	for _, empty := range []string{"", " ", "null", "{}", `{"deny":[]}`} {
		if p, err := Parse([]byte(empty)); err != nil || p != nil {
			t.Errorf("Parse(%q) = %v, %v; want the empty policy", empty, p, err)
		}
	}
}

func TestParseCanonical(t *testing.T) {
	p := MustParse(`{"deny":[" evaluate","evaluate"],"hosts":["Example.COM.","*.example.org","127.0.0.1:8080","[::1]"],"confirm":["upload"],"confirmTimeout":"90s"}`)
	if got := p.JSON(); got != `{"deny":["evaluate"],"confirm":["upload"],"hosts":["example.com","*.example.org","127.0.0.1:8080","[::1]"],"confirmTimeout":"90s"}` {
		t.Errorf("JSON = %s", got)
	}
	if p.Timeout() != 90*time.Second {
		t.Errorf("Timeout = %s", p.Timeout())
	}
	if q := MustParse(p.JSON()); q.JSON() != p.JSON() {
		t.Errorf("not stable: %s then %s", p.JSON(), q.JSON())
	}
	if s := p.String(); s != "deny evaluate; confirm upload; hosts example.com, *.example.org, 127.0.0.1:8080, [::1]; a person has 1m30s to confirm" {
		t.Errorf("String = %q", s)
	}
}

func TestDecide(t *testing.T) {
	no := false
	p := MustParse(`{"deny":["evaluate","network.bodies","secret:BANK_PIN"],"confirm":["upload","secret"]}`).Named("token tk_1")
	for _, c := range []struct {
		in   tool.Input
		want Verdict
		rule string
	}{
		{tool.Input{Action: "evaluate", Expression: "1"}, Denied, `deny "evaluate"`},
		{tool.Input{Action: "network"}, Allowed, ""},
		{tool.Input{Action: "network", Request: "r3"}, Denied, `deny "network.bodies"`},
		{tool.Input{Action: "network", Path: "x.har"}, Denied, `deny "network.bodies"`},
		{tool.Input{Action: "network", Redact: &no}, Denied, `deny "network.bodies"`},
		{tool.Input{Action: "upload", Files: []string{"a"}}, Confirm, `confirm "upload"`},
		{tool.Input{Action: "type", Text: "x"}, Allowed, ""},
		{tool.Input{Action: "type", Secret: "SHOP_PW"}, Confirm, `confirm "secret"`},
		{tool.Input{Action: "type", Secret: "BANK_PIN"}, Denied, `deny "secret:BANK_PIN"`},
		{tool.Input{Action: "fill", Fields: []tool.Field{{Ref: "e1", Value: "a"}, {Ref: "e2", Secret: "BANK_PIN"}}}, Denied, `deny "secret:BANK_PIN"`},
		{tool.Input{Action: "navigate", URL: "http://x"}, Allowed, ""},
	} {
		d := p.Decide(c.in)
		if d.Verdict != c.want || d.Rule != c.rule {
			t.Errorf("%s %+v: %v %q, want %v %q", c.in.Action, c.in, d.Verdict, d.Rule, c.want, c.rule)
		}
		if d.Verdict == Denied && !strings.Contains(d.Message(c.in.Action), "token tk_1; rule: "+c.rule) {
			t.Errorf("message %q does not name the policy and rule", d.Message(c.in.Action))
		}
	}
	if d := MustParse(`{"deny":["secret"]}`).Decide(tool.Input{Action: "type", Secret: "A"}); d.Verdict != Denied || d.Rule != `deny "secret"` {
		t.Errorf("deny secret: %+v", d)
	}
	if d := (*Policy)(nil).Decide(tool.Input{Action: "evaluate"}); d.Verdict != Allowed {
		t.Errorf("nil policy: %+v", d)
	}
	if m := MustParse(`{"deny":["pdf"]}`).Decide(tool.Input{Action: "pdf"}).Message("pdf"); !strings.Contains(m, "daemon default") {
		t.Errorf("a policy without a source: %q", m)
	}
}

func TestDecideAllow(t *testing.T) {
	p := MustParse(`{"allow":["navigate","snapshot","type","network","secret:SHOP_PW"]}`)
	for _, c := range []struct {
		in   tool.Input
		want Verdict
	}{
		{tool.Input{Action: "navigate"}, Allowed},
		{tool.Input{Action: "status"}, Allowed}, // always
		{tool.Input{Action: "evaluate"}, Denied},
		{tool.Input{Action: "network", Request: "r1"}, Denied},
		{tool.Input{Action: "type", Secret: "SHOP_PW"}, Allowed},
		{tool.Input{Action: "type", Secret: "OTHER"}, Denied},
	} {
		if d := p.Decide(c.in); d.Verdict != c.want {
			t.Errorf("%+v: %v (%s), want %v", c.in, d.Verdict, d.Rule, c.want)
		}
	}
	if d := MustParse(`{"allow":["type","secret"]}`).Decide(tool.Input{Action: "type", Secret: "ANY"}); d.Verdict != Allowed {
		t.Errorf("allow secret: %+v", d)
	}
}

func TestCheckURL(t *testing.T) {
	p := MustParse(`{"hosts":["example.com","*.example.org","0x7f.1:8080"]}`) // 127.0.0.1, as a browser reads it
	for u, want := range map[string]Verdict{
		"http://2130706433:8080/":        Allowed,
		"https://example.com/a":          Allowed,
		"https://EXAMPLE.com./a":         Allowed,
		"https://www.example.com/":       Denied,
		"https://example.org/":           Allowed,
		"https://a.b.example.org/x?y#z":  Allowed,
		"https://evilexample.org/":       Denied,
		"http://127.0.0.1:8080/":         Allowed,
		"http://127.0.0.1:8081/":         Denied,
		"http://example.com@evil.test/":  Denied,
		"http://evil.test/?example.com":  Denied,
		"about:blank":                    Allowed,
		"data:text/html,hi":              Denied,
		"javascript:alert(1)":            Denied,
		"file:///etc/passwd":             Denied,
		"http://[::1]/":                  Denied,
		"https://example.com:443/":       Allowed,
		"https://sub.example.org:1234/p": Allowed,
	} {
		if d := p.CheckURL(u); d.Verdict != want {
			t.Errorf("CheckURL(%s) = %v (%s), want %v", u, d.Verdict, d.Rule, want)
		}
	}
	if d := (*Policy)(nil).CheckURL("http://anything/"); d.Verdict != Allowed {
		t.Errorf("nil policy: %+v", d)
	}
}

func TestUnmarshalChecks(t *testing.T) {
	var v struct{ P *Policy }
	if err := json.Unmarshal([]byte(`{"P":{"deny":["nope"]}}`), &v); err == nil {
		t.Fatal("an invalid policy unmarshalled")
	}
	if err := json.Unmarshal([]byte(`{"P":{"hosts":["example.com"],"confirm":["pdf"],"confirmTimeout":"7s"}}`), &v); err != nil {
		t.Fatal(err)
	}
	if v.P.CheckURL("https://evil.test/").Verdict != Denied || v.P.Timeout() != 7*time.Second {
		t.Fatalf("an unmarshalled policy was not checked: %+v", v.P)
	}
}

func TestContext(t *testing.T) {
	ctx := context.Background()
	if From(ctx) != nil || From(With(ctx, nil)) != nil {
		t.Fatal("a context without a policy has one")
	}
	p := MustParse(`{"deny":["pdf"]}`)
	if From(With(ctx, p)) != p {
		t.Fatal("the policy did not travel")
	}
}

func TestRulesAreActionsOrKinds(t *testing.T) {
	for _, a := range tool.Actions {
		if err := checkRule(a); err != nil {
			t.Errorf("action %s: %v", a, err)
		}
	}
	for k := range Kinds {
		if k == "secret:NAME" {
			continue
		}
		if err := checkRule(k); err != nil {
			t.Errorf("kind %s: %v", k, err)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"deny":["evaluate","network.bodies"],"confirm":["upload","secret"],"hosts":["example.com","*.example.org"]}`,
		`{"allow":["navigate","secret:A"],"confirmTimeout":"5m"}`,
		`{"hosts":["[::1]:80","127.0.0.1"]}`, `null`, `{}`, `{"deny":[1]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := Parse(b)
		if err != nil {
			return
		}
		// A valid policy reads back the same from its canonical JSON, and
		// deciding never panics.
		q, err := Parse([]byte(p.JSON()))
		if err != nil || q.JSON() != p.JSON() {
			t.Fatalf("%s: reparse %v, %s", p.JSON(), err, q.JSON())
		}
		p.Decide(tool.Input{Action: "type", Secret: "X", Fields: []tool.Field{{Secret: "Y"}}})
		p.CheckURL("http://example.com:81/")
		_ = p.String()
	})
}

// Script is a kind (issue 47): a route that answers with a page of the
// caller's, or an init script, runs what evaluate would, so a rule on
// evaluate holds for them — deny, confirm and allow alike — and "script"
// names them all.
func TestScriptIsAKind(t *testing.T) {
	body := tool.Input{Action: "route", URL: "**/x", Body: "<script>alert(1)</script>", ContentType: "text/html"}
	file := tool.Input{Action: "route", URL: "**/x", Path: "page.html"}
	abort := tool.Input{Action: "route", URL: "**/ads", Abort: "blockedbyclient"}
	init := tool.Input{Action: "emulate", InitScript: "console.log(document.cookie)"}
	media := tool.Input{Action: "emulate", ColorScheme: "dark"}
	eval := tool.Input{Action: "evaluate", Expression: "1"}
	for _, c := range []struct {
		policy string
		in     tool.Input
		want   Verdict
	}{
		{`{"deny":["evaluate"]}`, body, Denied},
		{`{"deny":["evaluate"]}`, file, Denied},
		{`{"deny":["evaluate"]}`, init, Denied},
		{`{"deny":["evaluate"]}`, abort, Allowed},
		{`{"deny":["evaluate"]}`, media, Allowed},
		{`{"deny":["script"]}`, eval, Denied},
		{`{"deny":["script"]}`, body, Denied},
		{`{"confirm":["evaluate"]}`, init, Confirm},
		{`{"allow":["route","emulate"]}`, body, Denied},
		{`{"allow":["route","emulate"]}`, abort, Allowed},
		{`{"allow":["route","emulate","evaluate"]}`, body, Allowed},
		{`{"allow":["route","emulate","script"]}`, init, Allowed},
	} {
		if got := MustParse(c.policy).Decide(c.in); got.Verdict != c.want {
			t.Errorf("%s on %s %+v: %v (%s), want %v", c.policy, c.in.Action, c.in, got.Verdict, got.Rule, c.want)
		}
	}
}

// Navigation is a kind (issue 47): denying navigate left tab_new with a
// URL, back and forward; a rule on navigate holds for all of them, and
// "navigation" names them all.
func TestNavigationIsAKind(t *testing.T) {
	tabURL := tool.Input{Action: "tab_new", URL: "https://elsewhere.example/"}
	blank := tool.Input{Action: "tab_new"}
	back := tool.Input{Action: "back"}
	fwd := tool.Input{Action: "forward"}
	reload := tool.Input{Action: "reload"}
	for _, c := range []struct {
		policy string
		in     tool.Input
		want   Verdict
	}{
		{`{"deny":["navigate"]}`, tabURL, Denied},
		{`{"deny":["navigate"]}`, back, Denied},
		{`{"deny":["navigate"]}`, fwd, Denied},
		{`{"deny":["navigate"]}`, blank, Allowed},
		{`{"deny":["navigate"]}`, reload, Allowed},
		{`{"deny":["navigation"]}`, back, Denied},
		{`{"confirm":["navigate"]}`, tabURL, Confirm},
		{`{"allow":["tab_new","back"]}`, tabURL, Denied},
		{`{"allow":["tab_new","back"]}`, blank, Allowed},
		{`{"allow":["tab_new","back","navigate"]}`, back, Allowed},
	} {
		if got := MustParse(c.policy).Decide(c.in); got.Verdict != c.want {
			t.Errorf("%s on %s %+v: %v (%s), want %v", c.policy, c.in.Action, c.in, got.Verdict, got.Rule, c.want)
		}
	}
}
