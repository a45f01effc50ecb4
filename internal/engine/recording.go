package engine

import (
	"time"

	"github.com/browserd/browserd/internal/browser"
	"github.com/browserd/browserd/internal/recording"
	"github.com/browserd/browserd/internal/redact"
	"github.com/browserd/browserd/internal/tool"
)

// Each task's recording (internal/recording; served by internal/traces):
// the engine records every call a task makes, after its answer, with the
// console errors and the requests the action caused and a frame of the
// page.

// markRecord notes the tab's console and network log before the action,
// and tells the recorder an action begins on the tab (the frame of the
// last one is not taken now: it would show this one's page).
func (c *call) markRecord() {
	if c.e.Recorder == nil || c.tab == nil || c.tab.Page == nil {
		return
	}
	c.endRecord() // marked again (an action tried again): the first ends
	c.mark = c.e.Recorder.MarkBefore(c.tab.Page)
	c.marked = c.tab.Page
}

// endRecord tells the recorder the action markRecord noted has ended:
// its answer is made, and the browser's frames may be taken once it is
// left alone.
func (c *call) endRecord() {
	if c.marked != nil {
		c.e.Recorder.End(c.marked)
		c.marked = nil
	}
}

// record appends the call to its task's recording.
func (c *call) record(red *redact.Redactor, orig tool.Input) {
	rec := c.e.Recorder
	if rec == nil || c.task == nil || orig.Action == "close" {
		return // close dropped the task's recording with its tabs
	}
	ok := c.res.Success
	a := recording.Entry{
		Time: c.started.UTC(), Name: orig.Action, Tab: c.res.Tab, Args: recording.Args(orig, red),
		OK: &ok, Error: c.res.Error, MS: time.Since(c.started).Milliseconds(),
		AnswerBytes: len(c.res.Content), URL: red.String(c.res.URL), Title: red.String(c.res.Title),
		Locator: c.targets.Locator, Fields: c.targets.Fields, To: c.targets.To,
		Reads: readsOnly(orig.Action),
	}
	pg := c.pageForRecord()
	console, requests := recording.Since(pg, c.mark, red)
	if _, err := rec.Record(c.task.Sess.ID, c.task.Name, a, console, requests, pg); err != nil {
		c.e.Log.Warn("recording an action failed", "session", c.task.Sess.ID, "task", c.task.Name, "err", err)
	}
}

// readsOnly reports whether an action only reads the page it acts on:
// neither changes it nor marks the session (tabActions).
func readsOnly(action string) bool {
	a, ok := tabActions[action]
	return ok && !a.changes && !a.marks
}

// pageForRecord is the tab whose frame the recording takes: the call's,
// unless it closed (tab_close) or never had a target.
func (c *call) pageForRecord() *browser.Page {
	if c.tab == nil || c.tab.Page == nil || c.tab.Page.Closed() || c.tab.Page.Dialog() != nil {
		return nil // a dialog blocks the page's painting
	}
	return c.tab.Page
}
