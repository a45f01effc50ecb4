package status

import (
	"strings"
	"testing"

	"github.com/browserd/browserd/internal/config"
	"github.com/browserd/browserd/internal/sessions"
	"github.com/browserd/browserd/internal/tool"
)

type lines struct{}

func (lines) ProxyStatus(s *sessions.Session) string { return "" }
func (lines) LiveURL(session, tab string) string     { return "" }
func (lines) LastLogin(id string) *tool.Login        { return nil }

// TestStatusText: status shows the caller's own sessions and tasks, never
// another owner's.
func TestStatusText(t *testing.T) {
	reg := &sessions.Registry{Cfg: config.Default(), Sessions: map[string]*sessions.Session{}, Slots: map[string]*sessions.Slot{}}
	for _, id := range []string{"bob~s1", "alice~s2"} {
		s := &sessions.Session{ID: id, Tasks: map[string]*sessions.Task{}}
		s.Tasks["default"] = &sessions.Task{Name: "default", Sess: s}
		reg.Sessions[id] = s
	}
	got := (&Board{Registry: reg, Lines: lines{}}).StatusText("bob")
	if !strings.Contains(got, "browser: not running") || !strings.Contains(got, "sessions: 1, tabs: 0") || !strings.Contains(got, "session bob~s1 (ephemeral) task default") {
		t.Fatalf("bob's status:\n%s", got)
	}
	if strings.Contains(got, "alice") {
		t.Fatalf("bob sees alice's session:\n%s", got)
	}
}
