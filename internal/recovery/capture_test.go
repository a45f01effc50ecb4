package recovery

import (
	"testing"
	"time"

	"github.com/browserd/browserd/internal/sessions"
	"github.com/browserd/browserd/internal/storagestate"
	"github.com/browserd/browserd/internal/store"
)

// TestCaptureHash (issue 17 point 9): a probe of a session no action
// changed writes a capture only when the sum of what it read differs from
// the last capture's. The sum ignores the order the browser lists things
// in, the time, the fence and tab titles; it sees every cookie, storage
// item, URL and viewport change.
func TestCaptureHash(t *testing.T) {
	base := func() store.Capture {
		return store.Capture{
			SessionID: "s", Taken: time.Unix(100, 0), Node: "n1",
			Tabs: []store.Tab{
				{ID: "t1", Task: "default", URL: "https://a.example/", Title: "A", Width: 1280, Height: 720, Active: true,
					SessionStorage: []storagestate.NameValue{{Name: "x", Value: "1"}, {Name: "y", Value: "2"}}},
				{ID: "t2", Task: "default", URL: "https://b.example/", Title: "B", Width: 1280, Height: 720},
			},
			Cookies: []storagestate.Cookie{
				{Name: "sid", Value: "v1", Domain: "a.example", Path: "/", Expires: -1},
				{Name: "pref", Value: "dark", Domain: "b.example", Path: "/", Expires: 2e9},
			},
			Origins: []storagestate.Origin{
				{Origin: "https://a.example", LocalStorage: []storagestate.NameValue{{Name: "k", Value: "1"}, {Name: "l", Value: "2"}}},
				{Origin: "https://b.example", LocalStorage: []storagestate.NameValue{}},
			},
		}
	}
	h := CaptureHash(base())
	same := map[string]func(*store.Capture){
		"another time and node": func(c *store.Capture) { c.Taken, c.Node = time.Unix(999, 0), "n2" },
		"cookies in another order": func(c *store.Capture) {
			c.Cookies[0], c.Cookies[1] = c.Cookies[1], c.Cookies[0]
		},
		"origins in another order": func(c *store.Capture) { c.Origins[0], c.Origins[1] = c.Origins[1], c.Origins[0] },
		"storage in another order": func(c *store.Capture) {
			ls := c.Origins[0].LocalStorage
			ls[0], ls[1] = ls[1], ls[0]
			ss := c.Tabs[0].SessionStorage
			ss[0], ss[1] = ss[1], ss[0]
		},
		"a title changed (a clock in it)": func(c *store.Capture) { c.Tabs[0].Title = "A (3)" },
	}
	for name, change := range same {
		c := base()
		change(&c)
		if CaptureHash(c) != h {
			t.Errorf("%s: the sum changed", name)
		}
	}
	differ := map[string]func(*store.Capture){
		"a cookie's value (a token refresh)": func(c *store.Capture) { c.Cookies[0].Value = "v2" },
		"a cookie's expiry":                  func(c *store.Capture) { c.Cookies[1].Expires = 2e9 + 60 },
		"a new cookie (a timer's)": func(c *store.Capture) {
			c.Cookies = append(c.Cookies, storagestate.Cookie{Name: "timer", Value: "1", Domain: "a.example", Path: "/", Expires: -1})
		},
		"a localStorage value":   func(c *store.Capture) { c.Origins[0].LocalStorage[1].Value = "3" },
		"a sessionStorage value": func(c *store.Capture) { c.Tabs[0].SessionStorage[0].Value = "9" },
		"a URL (pushState)":      func(c *store.Capture) { c.Tabs[1].URL = "https://b.example/#2" },
		"a viewport":             func(c *store.Capture) { c.Tabs[1].Width = 800 },
		"the tab in front":       func(c *store.Capture) { c.Tabs[0].Active, c.Tabs[1].Active = false, true },
		"a tab gone":             func(c *store.Capture) { c.Tabs = c.Tabs[:1] },
	}
	for name, change := range differ {
		c := base()
		change(&c)
		if CaptureHash(c) == h {
			t.Errorf("%s: the sum did not change", name)
		}
	}
	// The sum does not reorder the capture it is given.
	c := base()
	c.Cookies[0], c.Cookies[1] = c.Cookies[1], c.Cookies[0]
	CaptureHash(c)
	if c.Cookies[0].Name != "pref" || c.Tabs[0].Title != "A" {
		t.Errorf("captureHash changed its argument: %+v", c)
	}
}

// TestProbeCadence: with a short interval the capturer looks often enough
// to capture a change within about the interval; never more often than
// every 50 ms, and at least every second.
func TestProbeCadence(t *testing.T) {
	for _, c := range []struct {
		interval, probe, tick time.Duration
	}{
		{300 * time.Millisecond, 300 * time.Millisecond, 75 * time.Millisecond},
		{30 * time.Second, 30 * time.Second, time.Second},
		{0, time.Second, 250 * time.Millisecond},
		{100 * time.Millisecond, 100 * time.Millisecond, 50 * time.Millisecond},
	} {
		e := &Recovery{Registry: &sessions.Registry{}}
		e.Cfg.SnapshotInterval = c.interval
		if p, tk := e.ProbeEvery(), e.CapTick(); p != c.probe || tk != c.tick {
			t.Errorf("interval %s: probe every %s, tick %s; want %s, %s", c.interval, p, tk, c.probe, c.tick)
		}
	}
}
