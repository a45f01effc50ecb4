package sessions

import (
	"fmt"

	"github.com/browserd/browserd/internal/browser"
)

// A task's tabs in the registry: added (opened, adopted, resumed) and
// removed (closed, reaped).

// AddTab adds a tab of the task for pg, under a new id of its session.
func (e *Registry) AddTab(t *Task, pg *browser.Page) *Tab {
	return e.AddTabID(t, pg, "")
}

// AddTabID adds a tab under id (a resumed tab keeps its id), or under a
// new id of its session when id is "" or taken.
func (e *Registry) AddTabID(t *Task, pg *browser.Page, id string) *Tab {
	e.Mu.Lock()
	defer e.Mu.Unlock()
	s := t.Sess
	if n := TabNum(id); n <= 0 || e.Tabs[TabKey{Sess: s.ID, Tab: id}] != nil || id != fmt.Sprintf("t%d", n) {
		s.NextTab++
		id = fmt.Sprintf("t%d", s.NextTab)
	} else {
		s.NextTab = max(s.NextTab, n)
	}
	tb := &Tab{ID: id, Task: t, Page: pg}
	s.TabsEnded = false
	e.Tabs[tb.Key()] = tb
	t.Tabs = append(t.Tabs, tb)
	t.Active = tb
	return tb
}

// LastTab reports whether tb is the only tab of its session.
func (e *Registry) LastTab(tb *Tab) bool {
	e.Mu.Lock()
	defer e.Mu.Unlock()
	for _, t := range tb.Task.Sess.Tasks {
		for _, x := range t.Tabs {
			if x != tb {
				return false
			}
		}
	}
	return true
}

// RemoveTab forgets a tab (closed by the agent, by the page, or reaped).
func (e *Registry) RemoveTab(tb *Tab) {
	e.Mu.Lock()
	defer e.Mu.Unlock()
	delete(e.Tabs, tb.Key())
	t := tb.Task
	for i, x := range t.Tabs {
		if x == tb {
			t.Tabs = append(t.Tabs[:i:i], t.Tabs[i+1:]...)
			break
		}
	}
	if t.Active == tb {
		t.Active = nil
		if n := len(t.Tabs); n > 0 {
			t.Active = t.Tabs[n-1]
		}
	}
	t.Sess.Refs.ForgetOwner(tb.ID)
	left := 0
	for _, x := range t.Sess.Tasks {
		left += len(x.Tabs)
	}
	t.Sess.TabsEnded = left == 0
}
