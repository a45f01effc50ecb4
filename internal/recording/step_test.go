package recording

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/browserd/browserd/internal/redact"
	"github.com/browserd/browserd/internal/tool"
)

// TestArgs: a step's arguments leave out which session and task it is,
// never keep credentials, and hide secrets' values.
func TestArgs(t *testing.T) {
	in := tool.Input{Action: "type", Session: "s1", Task: "t", Ref: "e3", Text: "Hunter2-Sekrit",
		HTTPCredentials: []tool.HTTPCredential{{Origin: "https://x.test", Username: "u", Password: "pw-in-the-clear"}}}
	got := Args(in, redact.New(map[string]string{"PW": "Hunter2-Sekrit"}))
	if _, ok := got["session"]; ok || got["ref"] != "e3" {
		t.Fatalf("args: %v", got)
	}
	if got["text"] != "<secret PW>" {
		t.Errorf("a secret's value kept: %v", got["text"])
	}
	if b, _ := json.Marshal(got); strings.Contains(string(b), "pw-in-the-clear") {
		t.Errorf("a password kept: %s", b)
	}
}

func TestTruncateRunes(t *testing.T) {
	if got := truncateRunes("héllo", 2); got != "h…" {
		t.Errorf("cut inside a rune: %q", got)
	}
	if got := truncateRunes("short", 10); got != "short" {
		t.Errorf("not cut: %q", got)
	}
}
