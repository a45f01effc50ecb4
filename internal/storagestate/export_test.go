package storagestate

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestExport (issue 17 point 9): a session's exported state carries its
// tabs, each tab's sessionStorage in its origin's entry beside the
// localStorage, the front tab's URL and title, and where it was read;
// it still loads as a storageState.
func TestExport(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	x := &Export{
		State: State{
			Cookies: []Cookie{{Name: "sid", Value: "v", Domain: "a.example", Path: "/", Expires: -1}},
			Origins: []Origin{{Origin: "https://a.example", LocalStorage: []NameValue{{Name: "k", Value: "1"}}}},
		},
		Tabs: []ExportTab{
			{ID: "t1", Task: "a", URL: "https://a.example/x", Title: "A"},
			{ID: "t2", Task: "b", URL: "https://b.example/y", Title: "B", Active: true, SessionStorage: []NameValue{{Name: "s", Value: "2"}}},
			{ID: "t3", Task: "b", URL: "https://a.example/z", Title: "A2", SessionStorage: []NameValue{{Name: "s", Value: "3"}}},
		},
		Source: "capture", CapturedAt: &at,
	}
	x.AddTabStorage(func(u string) string {
		if i := strings.Index(u[8:], "/"); i >= 0 {
			return u[:8+i]
		}
		return u
	})
	x.Front()
	if x.URL != "https://b.example/y" || x.Title != "B" {
		t.Errorf("front tab: %q %q", x.URL, x.Title)
	}
	if len(x.Origins) != 2 || x.Origins[0].LocalStorage[0].Value != "1" || x.Origins[0].SessionStorage[0].Value != "3" ||
		x.Origins[1].Origin != "https://b.example" || x.Origins[1].SessionStorage[0].Value != "2" || x.Origins[1].LocalStorage == nil {
		t.Errorf("origins: %+v", x.Origins)
	}
	b, err := x.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if m["source"] != "capture" || m["capturedAt"] != "2026-03-01T12:00:00Z" || m["url"] != "https://b.example/y" || len(m["tabs"].([]any)) != 3 {
		t.Errorf("marshalled: %s", b)
	}
	st, err := Parse(b)
	if err != nil || len(st.Cookies) != 1 || len(st.Origins) != 2 {
		t.Errorf("the export does not load as a storageState: %v %+v", err, st)
	}
	// No tab in front: the first tab; none at all: empty lists, not null.
	y := &Export{Tabs: []ExportTab{{ID: "t1", URL: "https://a.example/", Title: "A"}}, Source: "browser"}
	y.Front()
	if y.URL != "https://a.example/" {
		t.Errorf("front of tabs none in front: %q", y.URL)
	}
	b, _ = (&Export{Source: "browser"}).Marshal()
	if !strings.Contains(string(b), `"cookies": []`) || !strings.Contains(string(b), `"tabs": []`) || strings.Contains(string(b), "capturedAt") {
		t.Errorf("empty export: %s", b)
	}
}
