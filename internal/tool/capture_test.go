package tool

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestParseCapture (issue 17 point 9): session_resume's capture is a
// capture id, a time, or an age.
func TestParseCapture(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	local := time.Date(2026, 3, 1, 11, 30, 5, 0, time.Local)
	for _, c := range []struct {
		ref    CaptureRef
		id     int64
		at     time.Time
		errHas string
	}{
		{ref: "17", id: 17},
		{ref: " 42 ", id: 42},
		{ref: "2026-03-01T11:00:00Z", at: time.Date(2026, 3, 1, 11, 0, 0, 0, time.UTC)},
		{ref: "2026-03-01T12:00:00.250+01:00", at: time.Date(2026, 3, 1, 11, 0, 0, 250e6, time.UTC)},
		{ref: "2026-03-01 11:30:05", at: local},
		{ref: "2026-03-01T11:30:05", at: local},
		{ref: "2026-03-01 11:30", at: local.Add(-5 * time.Second)},
		{ref: "10m", at: now.Add(-10 * time.Minute)},
		{ref: "1h30m", at: now.Add(-90 * time.Minute)},
		{ref: "0", errHas: "positive"},
		{ref: "-3", errHas: "positive"},
		{ref: "yesterday", errHas: "give a capture id"},
		{ref: "-10m", errHas: "give a capture id"},
	} {
		id, at, err := ParseCapture(c.ref, now)
		if c.errHas != "" {
			if err == nil || !strings.Contains(err.Error(), c.errHas) {
				t.Errorf("ParseCapture(%q) = %d, %v, %v; want an error with %q", c.ref, id, at, err, c.errHas)
			}
			continue
		}
		if err != nil || id != c.id || !at.Equal(c.at) {
			t.Errorf("ParseCapture(%q) = %d, %v, %v; want %d, %v", c.ref, id, at, err, c.id, c.at)
		}
	}
}

// A capture id may come as a JSON number or string; only session_resume
// takes one.
func TestCaptureRefJSON(t *testing.T) {
	for body, want := range map[string]CaptureRef{
		`{"action":"session_resume","session":"s","capture":17}`:     "17",
		`{"action":"session_resume","session":"s","capture":"17"}`:   "17",
		`{"action":"session_resume","session":"s","capture":"10m"}`:  "10m",
		`{"action":"session_resume","session":"s"}`:                  "",
		`{"action":"session_resume","session":"s","capture":"2026"}`: "2026",
	} {
		var in Input
		if err := json.Unmarshal([]byte(body), &in); err != nil || in.Capture != want {
			t.Errorf("%s: capture %q, %v; want %q", body, in.Capture, err, want)
		}
	}
	var in Input
	if err := json.Unmarshal([]byte(`{"action":"session_resume","capture":true}`), &in); err == nil {
		t.Error("capture true was accepted")
	}
	for _, c := range []struct {
		in     Input
		errHas string
	}{
		{Input{Action: "session_resume", Session: "s", Capture: "17"}, ""},
		{Input{Action: "session_resume", Session: "s", Capture: "later"}, "give a capture id"},
		{Input{Action: "navigate", URL: "https://example.com/", Capture: "17"}, "capture is for session_resume"},
		{Input{Action: "list_sessions", Session: "s"}, ""},
	} {
		err := c.in.Validate()
		if c.errHas == "" && err != nil || c.errHas != "" && (err == nil || !strings.Contains(err.Error(), c.errHas)) {
			t.Errorf("Validate(%+v) = %v, want %q", c.in, err, c.errHas)
		}
	}
}
