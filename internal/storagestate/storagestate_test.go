package storagestate

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

func TestPlaywrightFixtureRoundTrip(t *testing.T) {
	b, err := os.ReadFile("testdata/playwright.json")
	if err != nil {
		t.Fatal(err)
	}
	st, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Cookies) != 2 || st.Cookies[0].Expires != -1 || !st.Cookies[0].HTTPOnly || st.Origins[0].LocalStorage[1].Value != "привет ✓" {
		t.Fatalf("parsed %+v", st)
	}
	out, err := st.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	// Our export has exactly Playwright's shape: the same keys, types and order.
	var a, z any
	json.Unmarshal(b, &a)
	json.Unmarshal(out, &z)
	ja, _ := json.Marshal(a)
	jz, _ := json.Marshal(z)
	if string(ja) != string(jz) {
		t.Fatalf("export differs from Playwright's format:\n%s\nvs\n%s", ja, jz)
	}
	checkPlaywrightSchema(t, out)
}

// checkPlaywrightSchema checks the JSON against Playwright's documented
// storageState schema: required keys and their types.
func checkPlaywrightSchema(t *testing.T, data []byte) {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	cookies, ok := doc["cookies"].([]any)
	if !ok {
		t.Fatal("cookies is not an array")
	}
	for i, c := range cookies {
		m := c.(map[string]any)
		for k, typ := range map[string]string{"name": "string", "value": "string", "domain": "string", "path": "string", "expires": "number", "httpOnly": "bool", "secure": "bool", "sameSite": "string"} {
			v, ok := m[k]
			if !ok {
				t.Fatalf("cookies[%d] lacks %s", i, k)
			}
			switch typ {
			case "string":
				_, ok = v.(string)
			case "number":
				_, ok = v.(float64)
			case "bool":
				_, ok = v.(bool)
			}
			if !ok {
				t.Fatalf("cookies[%d].%s is not a %s", i, k, typ)
			}
		}
		if ss := m["sameSite"]; ss != "Strict" && ss != "Lax" && ss != "None" {
			t.Fatalf("cookies[%d].sameSite = %v", i, ss)
		}
	}
	origins, ok := doc["origins"].([]any)
	if !ok {
		t.Fatal("origins is not an array")
	}
	for i, o := range origins {
		m := o.(map[string]any)
		if _, ok := m["origin"].(string); !ok {
			t.Fatalf("origins[%d].origin", i)
		}
		if _, ok := m["localStorage"].([]any); !ok {
			t.Fatalf("origins[%d].localStorage is not an array", i)
		}
	}
}

func TestParseErrorsNameFields(t *testing.T) {
	cases := map[string]string{
		`{"cookies":[{"value":"x","domain":"a.com"}]}`:                           "cookies[0].name: missing",
		`{"cookies":[{"name":"a","value":"x","domain":"a.com","sameSite":"x"}]}`: "cookies[0].sameSite",
		`{"cookies":[{"name":"a","value":"x","domain":"a/b"}]}`:                  "cookies[0].domain",
		`{"cookies":[{"name":"a","value":"x","domain":"a.com","expires":"x"}]}`:  "cookies[0].expires",
		`{"origins":[{"origin":"file:///x","localStorage":[]}]}`:                 "origins[0].origin",
		`{"origins":[{"origin":"https://a.com","localStorage":"x"}]}`:            "origins[0].localStorage",
		`[1,2]`: "not valid JSON",
		`{"cookies":[{"name":"a;b","value":"x","domain":"a.com"}]}`: "cookies[0]",
	}
	for in, want := range cases {
		_, err := Parse([]byte(in))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", in, err, want)
		}
	}
}

func TestExclude(t *testing.T) {
	st := &State{Cookies: []Cookie{{Name: "a", Domain: ".ads.example.com"}, {Name: "b", Domain: "example.com"}, {Name: "c", Domain: "other.org"}}}
	if n := st.Exclude([]string{"example.com"}); n != 2 || len(st.Cookies) != 1 || st.Cookies[0].Name != "c" {
		t.Fatalf("Exclude: %d %+v", n, st.Cookies)
	}
}

func TestCDPConversion(t *testing.T) {
	cs := FromCDP([]CDPCookie{{Name: "s", Value: "1", Domain: "a", Path: "/", Expires: -1, Session: true}, {Name: "p", Value: "2", Domain: "a", Path: "/", Expires: 2e9}})
	if cs[0].Expires != -1 || cs[1].Expires != 2e9 || cs[0].SameSite != "Lax" {
		t.Fatalf("%+v", cs)
	}
	ps := ToCDP(cs)
	if _, ok := ps[0]["expires"]; ok {
		t.Fatal("a session cookie got an expiry")
	}
	if ps[1]["expires"] != 2e9 {
		t.Fatalf("%+v", ps[1])
	}
}

func FuzzParse(f *testing.F) {
	b, _ := os.ReadFile("testdata/playwright.json")
	f.Add(b)
	f.Add([]byte(`{"cookies":[{"name":"a","value":"b","domain":"c","expires":1e308}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		st, err := Parse(data)
		if err != nil {
			return
		}
		out, err := st.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Parse(out); err != nil {
			t.Fatalf("our own export does not parse: %v\n%s", err, out)
		}
	})
}

// TestParseErrorQuotesNothing: a file that is not JSON is refused without
// quoting its content (state_load reads files an agent names).
func TestParseErrorQuotesNothing(t *testing.T) {
	for _, in := range []string{"S3CRET-not-json", `{"cookies": "Xsecret"}`, `{"cookies": [`, `[1,2]`} {
		_, err := Parse([]byte(in))
		if err == nil {
			t.Fatalf("%q parsed", in)
		}
		for _, leak := range []string{"'S'", "S3CRET", "Xsecret", "'X'"} {
			if strings.Contains(err.Error(), leak) {
				t.Errorf("%q: error %q quotes the input", in, err)
			}
		}
	}
}
