package network

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/browserd/browserd/internal/browser"
)

func sample() []browser.Request {
	t0 := time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC)
	return []browser.Request{
		{ID: "r1", Method: "GET", URL: "https://shop.example/", Type: "Document", Started: t0, Status: 200, StatusText: "OK",
			MimeType: "text/html", Protocol: "h2", Bytes: 5200, Done: true, Duration: 34 * time.Millisecond,
			ReqHeaders:  []browser.Header{{Name: "Cookie", Value: "sid=abc; theme=dark"}, {Name: "Accept", Value: "text/html"}},
			RespHeaders: []browser.Header{{Name: "Set-Cookie", Value: "sid=abc; HttpOnly\nlang=fr"}, {Name: "Content-Type", Value: "text/html"}},
			Timing:      &browser.Timing{DNSStart: 1, DNSEnd: 3, ConnectStart: 3, ConnectEnd: 10, SSLStart: 5, SSLEnd: 10, SendStart: 10, SendEnd: 11, ReceiveHeadersEnd: 30}},
		{ID: "r2", Method: "POST", URL: "https://shop.example/api/login?token=t0k3n&page=2", Type: "Fetch", Started: t0.Add(time.Second),
			Status: 500, Done: true, Duration: 8 * time.Millisecond, Bytes: 120,
			ReqHeaders: []browser.Header{{Name: "Authorization", Value: "Bearer xyz"}, {Name: "Content-Type", Value: "application/json"}},
			PostData:   `{"user":"ada","password":"hunter2","nested":{"apiKey":"k"}}`},
		{ID: "r3", Method: "GET", URL: "http://10.0.0.1/x", Type: "Image", Started: t0.Add(2 * time.Second), Done: true,
			Failed: "net::ERR_FAILED", Refused: "10.0.0.1 is a private (RFC 1918) address"},
		{ID: "r4", Method: "GET", URL: "https://shop.example/slow", Type: "XHR", Started: t0.Add(3 * time.Second)},
		{ID: "r5", Method: "GET", URL: "https://shop.example/old", Type: "Document", Started: t0, Status: 301, Done: true, RedirectTo: "https://shop.example/"},
	}
}

func TestList(t *testing.T) {
	got := List(sample(), 0, ListOptions{})
	for _, want := range []string{
		"5 requests since the last navigation (1 refused by the guard):",
		"r1 GET 200 document 5.2kB 34ms https://shop.example/",
		"r2 POST 500 fetch 120B 8ms https://shop.example/api/login?token=t0k3n&page=2",
		"r3 GET refused image 0ms http://10.0.0.1/x — 10.0.0.1 is a private",
		"r4 GET pending xhr",
		"r5 GET 301 document 0ms https://shop.example/old → https://shop.example/",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("List lacks %q:\n%s", want, got)
		}
	}
	f := List(sample(), 3, ListOptions{Filter: "failed"})
	if !strings.Contains(f, "2 of 5 requests since the last navigation match \"failed\"") || strings.Contains(f, "r1 ") {
		t.Errorf("filter failed:\n%s", f)
	}
	if f := List(sample(), 0, ListOptions{Filter: "XHR"}); !strings.Contains(f, "r4 ") || strings.Contains(f, "r2 ") {
		t.Errorf("filter by type:\n%s", f)
	}
	if f := List(sample(), 0, ListOptions{Max: 2}); !strings.Contains(f, "(the first 3 left out") || strings.Contains(f, "r1 ") {
		t.Errorf("max:\n%s", f)
	}
	if f := List(nil, 0, ListOptions{}); f != "0 requests since the last navigation" {
		t.Errorf("empty: %q", f)
	}
}

func TestOneRedacts(t *testing.T) {
	r := sample()[1]
	got := One(&r, Body{Data: []byte(`{"error":"no"}`)}, OneOptions{Redact: true})
	for _, want := range []string{"Authorization: <redacted>", `"password":"<redacted>"`, `"apiKey":"<redacted>"`, `"user":"ada"`, `{"error":"no"}`} {
		if !strings.Contains(got, want) {
			t.Errorf("One lacks %q:\n%s", want, got)
		}
	}
	for _, secret := range []string{"xyz", "hunter2"} {
		if strings.Contains(got, secret) {
			t.Errorf("One shows %q:\n%s", secret, got)
		}
	}
	if got := One(&r, Body{}, OneOptions{Redact: false}); !strings.Contains(got, "Bearer xyz") || !strings.Contains(got, "hunter2") {
		t.Errorf("redact false hides:\n%s", got)
	}
	long := One(&r, Body{Data: []byte(strings.Repeat("é", 50))}, OneOptions{MaxChars: 10})
	if !strings.Contains(long, strings.Repeat("é", 10)+"\n… (80 more bytes") {
		t.Errorf("cut body:\n%s", long)
	}
}

func TestHAR(t *testing.T) {
	data, err := HAR(sample(), HAROptions{Version: "test", PageURL: "https://shop.example/", Redact: true,
		Bodies: map[string]Body{"r1": {Data: []byte("<h1>Shop</h1>")}, "r2": {Data: []byte{0, 1, 2}, Binary: true}}})
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	for _, secret := range []string{"abc", "hunter2", "t0k3n", "xyz"} {
		if strings.Contains(s, secret) {
			t.Errorf("the HAR holds %q", secret)
		}
	}
	var har struct {
		Log struct {
			Version string `json:"version"`
			Entries []struct {
				Time    float64 `json:"time"`
				Request struct {
					URL     string `json:"url"`
					Cookies []struct{ Name, Value string }
				} `json:"request"`
				Response struct {
					Content struct {
						Text, Encoding string
					} `json:"content"`
					RedirectURL string `json:"redirectURL"`
					Cookies     []struct{ Name, Value string }
				} `json:"response"`
				Timings map[string]float64 `json:"timings"`
				Error   string             `json:"_error"`
			} `json:"entries"`
		} `json:"log"`
	}
	if err := json.Unmarshal(data, &har); err != nil {
		t.Fatal(err)
	}
	es := har.Log.Entries
	if har.Log.Version != "1.2" || len(es) != 5 {
		t.Fatalf("version %q, %d entries", har.Log.Version, len(es))
	}
	if c := es[0].Request.Cookies; len(c) != 2 || c[0].Name != "sid" || c[0].Value != Redacted || c[1].Name != "theme" {
		t.Errorf("request cookies: %+v", c)
	}
	if c := es[0].Response.Cookies; len(c) != 2 || c[1].Name != "lang" {
		t.Errorf("response cookies: %+v", c)
	}
	if es[0].Response.Content.Text != "<h1>Shop</h1>" || es[1].Response.Content.Encoding != "base64" {
		t.Errorf("bodies: %+v %+v", es[0].Response.Content, es[1].Response.Content)
	}
	if !strings.Contains(es[1].Request.URL, "token=%3Credacted%3E") || !strings.Contains(es[1].Request.URL, "page=2") {
		t.Errorf("query not redacted: %s", es[1].Request.URL)
	}
	if !strings.Contains(es[2].Error, "refused by browserd's guard") {
		t.Errorf("refused entry: %q", es[2].Error)
	}
	if es[4].Response.RedirectURL != "https://shop.example/" {
		t.Errorf("redirect: %q", es[4].Response.RedirectURL)
	}
	// HAR: the time is the sum of the timings that happened; send, wait
	// and receive are never -1.
	for i, e := range es {
		sum := 0.0
		for k, v := range e.Timings {
			if v < 0 && (k == "send" || k == "wait" || k == "receive") {
				t.Errorf("entry %d: %s = %v", i, k, v)
			}
			if v > 0 && k != "ssl" {
				sum += v
			}
		}
		if d := sum - e.Time; d > 0.01 || d < -0.01 {
			t.Errorf("entry %d: time %v, timings sum to %v (%v)", i, e.Time, sum, e.Timings)
		}
	}
}

func TestSensitive(t *testing.T) {
	for name, want := range map[string]bool{"Cookie": true, "set-cookie": true, "Authorization": true, "X-CSRF-Token": true,
		"X-Api-Key": true, "WWW-Authenticate": false, "Content-Type": false, "Accept": false} {
		if Sensitive(name) != want {
			t.Errorf("Sensitive(%q) = %v", name, !want)
		}
	}
	if got := RedactURL("https://ada:pw@x.example/p?q=1&access_token=abc"); strings.Contains(got, "pw") || strings.Contains(got, "abc") || !strings.Contains(got, "q=1") {
		t.Errorf("RedactURL: %s", got)
	}
	if got := RedactBody("application/x-www-form-urlencoded", "user=ada&password=pw&pin=1"); got != "user=ada&password=%3Credacted%3E&pin=1" {
		t.Errorf("form: %s", got)
	}
}

// FuzzHAR: whatever a page puts in its URLs, headers and bodies, the HAR
// is valid JSON, and the listing and redaction neither panic nor cut a
// character in half.
func FuzzHAR(f *testing.F) {
	f.Add("https://x.example/?token=1", "Cookie", "a=b; c", `{"password":"x"}`, "application/json")
	f.Add("http://[::1]:80/%zz?%=&&", "Set-Cookie", "=\n;;", "a=%zz&password", "application/x-www-form-urlencoded")
	f.Fuzz(func(t *testing.T, u, hname, hval, body, mt string) {
		reqs := []browser.Request{{ID: "r1", Method: "POST", URL: u, Type: "Fetch", Status: 200, Done: true,
			ReqHeaders: []browser.Header{{Name: hname, Value: hval}, {Name: "Content-Type", Value: mt}}, RespHeaders: []browser.Header{{Name: hname, Value: hval}},
			PostData: body}}
		data, err := HAR(reqs, HAROptions{Redact: true, Bodies: map[string]Body{"r1": {Data: []byte(body)}}})
		if err != nil {
			t.Fatal(err)
		}
		if !json.Valid(data) {
			t.Fatalf("invalid JSON: %s", data)
		}
		_ = List(reqs, 0, ListOptions{Filter: hval})
		_ = One(&reqs[0], Body{Data: []byte(body)}, OneOptions{Redact: true, MaxChars: 3})
		_ = RedactURL(u)
		_ = RedactBody(mt, body)
	})
}
