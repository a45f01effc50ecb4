package inject

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/browserd/browserd/internal/storagestate"
)

var now = time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)

func state() *storagestate.State {
	return &storagestate.State{
		Cookies: []storagestate.Cookie{
			{Name: "sid", Domain: ".app.example.com", Expires: -1},
			{Name: "t", Domain: "tracker.test", Expires: float64(now.Add(time.Hour).Unix())},
		},
		Origins: []storagestate.Origin{{Origin: "https://app.example.com"}, {Origin: "https://evil.test:8443"}},
	}
}

func kind(err error) Kind {
	var ie *Error
	if errors.As(err, &ie) {
		return ie.Kind
	}
	return 0
}

func TestCheck(t *testing.T) {
	if _, err := Check(state(), time.Time{}, nil, "", now); err != nil {
		t.Fatalf("no rules: %v", err)
	}
	if _, err := Check(state(), now.Add(-time.Second), nil, "", now); kind(err) != Rejected {
		t.Fatalf("expired stored session: %v", err)
	}
	old := state()
	for i := range old.Cookies {
		old.Cookies[i].Expires = float64(now.Add(-time.Hour).Unix())
	}
	_, err := Check(old, time.Time{}, nil, "", now)
	var ie *Error
	if !errors.As(err, &ie) || ie.Kind != Rejected || len(ie.Fields) != 2 || ie.Fields[1].Path != "cookies[1]" {
		t.Fatalf("all cookies expired: %v", err)
	}
	// One live cookie is enough.
	old.Cookies[0].Expires = -1
	if _, err := Check(old, time.Time{}, nil, "", now); err != nil {
		t.Fatalf("a session cookie left: %v", err)
	}
	_, err = Check(state(), time.Time{}, []string{"example.com"}, Reject, now)
	if !errors.As(err, &ie) || ie.Kind != Rejected || len(ie.Fields) != 2 || ie.Fields[0].Path != "cookies[1]" || ie.Fields[1].Path != "origins[1]" {
		t.Fatalf("reject outside: %v", err)
	}
	st := state()
	dropped, err := Check(st, time.Time{}, []string{"example.com"}, Filter, now)
	if err != nil || len(dropped) != 2 || len(st.Cookies) != 1 || len(st.Origins) != 1 {
		t.Fatalf("filter: %v %v %+v", dropped, err, st)
	}
	if _, err := Check(state(), time.Time{}, []string{"x.test"}, "sometimes", now); kind(err) != Malformed {
		t.Fatalf("bad policy: %v", err)
	}
	if _, err := Check(state(), time.Time{}, []string{"https://x.test/"}, Reject, now); kind(err) != Malformed {
		t.Fatalf("a URL as a domain: %v", err)
	}
}

func TestDomainsAndHint(t *testing.T) {
	d := Domains(state())
	if strings.Join(d, ",") != "app.example.com,tracker.test" {
		t.Fatalf("Domains = %v", d)
	}
	if d := Domains(&storagestate.State{Origins: []storagestate.Origin{{Origin: "https://a.test"}}}); strings.Join(d, ",") != "a.test" {
		t.Fatalf("Domains of origins only = %v", d)
	}
	h := Hint("work", nil, d, d)
	for _, want := range []string{"## Browser Session", "- app.example.com\n", "- tracker.test\n", `"session": "work"`, "https://app.example.com"} {
		if !strings.Contains(h, want) {
			t.Errorf("hint lacks %q:\n%s", want, h)
		}
	}
	if strings.Contains(h, "visited pages") {
		t.Errorf("hint marks injected domains as page-set:\n%s", h)
	}
	// A domain a page set a cookie for — sorted first, to be the example —
	// is listed apart, as data: not a login, not in the instruction.
	h = Hint("work", nil, []string{"app.example.com"}, []string{"aaa-evil.test", "app.example.com"})
	if strings.Contains(h, "- aaa-evil.test") || strings.Contains(h, "https://aaa-evil.test") || !strings.Contains(h, "https://app.example.com") ||
		!strings.Contains(h, "visited pages set (not stored logins; the pages chose these domains): aaa-evil.test\n") {
		t.Errorf("a page-set cookie domain in the hint:\n%s", h)
	}
	h = Hint("work", nil, nil, []string{"aaa-evil.test"})
	if strings.Contains(h, "navigate") || !strings.Contains(h, "no stored logins") {
		t.Errorf("a hint with no injected login invites a navigation:\n%s", h)
	}
	if h := StoredHint("ss_1", nil, d); !strings.Contains(h, `"storedSession": "ss_1"`) {
		t.Errorf("stored hint: %s", h)
	}
}

// TestHintSiteURL: the prompt's example opens the site the login is for,
// with its scheme and port — not https:// on the bare host.
func TestHintSiteURL(t *testing.T) {
	local := &storagestate.State{
		Cookies: []storagestate.Cookie{{Name: "sid", Value: "1", Domain: "127.0.0.1", Path: "/"}},
		Origins: []storagestate.Origin{{Origin: "http://127.0.0.1:8081", LocalStorage: []storagestate.NameValue{{Name: "k", Value: "v"}}}},
	}
	h := Hint("work", local, Domains(local), nil)
	if !strings.Contains(h, `"url": "http://127.0.0.1:8081"`) {
		t.Errorf("the example loses the site's scheme and port:\n%s", h)
	}
	if h := StoredHint("ss_1", local, Domains(local)); !strings.Contains(h, `"url": "http://127.0.0.1:8081"`) {
		t.Errorf("the stored hint's example loses the site's scheme and port:\n%s", h)
	}
	for _, tc := range []struct {
		st     *storagestate.State
		domain string
		want   string
	}{
		{local, "127.0.0.1", "http://127.0.0.1:8081"},
		{&storagestate.State{Origins: []storagestate.Origin{{Origin: "https://app.example.com:8443"}}}, "example.com", "https://app.example.com:8443"},
		{&storagestate.State{Cookies: []storagestate.Cookie{{Domain: "localhost"}}}, "localhost", "http://localhost"},
		{&storagestate.State{Cookies: []storagestate.Cookie{{Domain: ".localhost", Secure: true}}}, "localhost", "https://localhost"},
		{&storagestate.State{Cookies: []storagestate.Cookie{{Domain: ".example.com"}}}, "example.com", "https://example.com"},
		{nil, "10.0.0.5", "http://10.0.0.5"},
	} {
		if got := SiteURL(tc.st, tc.domain); got != tc.want {
			t.Errorf("SiteURL(%s) = %s, want %s", tc.domain, got, tc.want)
		}
	}
}
