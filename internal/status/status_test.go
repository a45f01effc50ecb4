package status

import (
	"context"
	"strings"
	"testing"

	"github.com/browserd/browserd/internal/config"
	"github.com/browserd/browserd/internal/redact"
	"github.com/browserd/browserd/internal/sessions"
	"github.com/browserd/browserd/internal/tool"
	"github.com/browserd/browserd/internal/untrusted"
)

type lines struct{}

func (lines) ProxyStatus(s *sessions.Session) string { return "" }
func (lines) LiveURL(session, tab string) string     { return "" }
func (lines) LastLogin(id string) *tool.Login        { return nil }
func (lines) TabInfo(context.Context, *sessions.Tab) (url, title untrusted.Text) {
	return untrusted.Text{}, untrusted.Text{}
}
func (lines) Redactor(context.Context, string) *redact.Redactor { return nil }

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

// TestTabList: a task's tabs in order of their ids, the active one marked,
// each with what it is doing.
func TestTabList(t *testing.T) {
	task := &sessions.Task{Name: "default", Sess: &sessions.Session{ID: "s1"}}
	t10, t2 := &sessions.Tab{ID: "t10", Task: task}, &sessions.Tab{ID: "t2", Task: task, Waiting: "a captcha"}
	task.Tabs, task.Active = []*sessions.Tab{t10, t2}, t10
	got := (&Board{Registry: &sessions.Registry{}, Lines: lines{}}).TabList(context.Background(), task)
	if len(got) != 2 || got[0].ID != "t2" || got[1].ID != "t10" || !got[1].Active || got[0].State != "waiting for a person" || got[1].State != "idle" {
		t.Fatalf("tabs: %+v", got)
	}
}
