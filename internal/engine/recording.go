package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/browserd/browserd/internal/browser"
	"github.com/browserd/browserd/internal/network"
	"github.com/browserd/browserd/internal/recording"
	"github.com/browserd/browserd/internal/redact"
	"github.com/browserd/browserd/internal/store"
	"github.com/browserd/browserd/internal/tool"
)

// Each task's recording (internal/recording): the engine records every
// call a task makes, after its answer, with the console errors and the
// requests the action caused and a frame of the page.

// recordMark is where a tab's console and network log stood before the
// action, so the recording takes what the action added.
type recordMark struct {
	console, net int
	set          bool
}

// markRecord notes the tab's console and network log before the action,
// and tells the recorder an action begins on the tab (the frame of the
// last one is not taken now: it would show this one's page).
func (c *call) markRecord() {
	if c.e.Recorder == nil || c.tab == nil || c.tab.Page == nil {
		return
	}
	pg := c.tab.Page
	c.e.Recorder.Begin(pg)
	c.mark = recordMark{console: pg.ConsoleSeq(), net: pg.NetSeq(), set: true}
}

// record appends the call to its task's recording.
func (c *call) record(red *redact.Redactor, orig tool.Input) {
	rec := c.e.Recorder
	if rec == nil || c.task == nil || orig.Action == "close" {
		return // close dropped the task's recording with its tabs
	}
	ok := c.res.Success
	a := recording.Entry{
		Time: c.started.UTC(), Name: orig.Action, Tab: c.res.Tab, Args: recordArgs(orig, red),
		OK: &ok, Error: c.res.Error, MS: time.Since(c.started).Milliseconds(),
		AnswerBytes: len(c.res.Content), URL: red.String(c.res.URL), Title: red.String(c.res.Title),
		Locator: c.targets.Locator, Fields: c.targets.Fields, To: c.targets.To,
		Reads: readsOnly(orig.Action),
	}
	var console, requests []recording.Entry
	pg := c.pageForRecord()
	if pg != nil && c.mark.set {
		for _, m := range pg.ConsoleSince(c.mark.console) {
			if m.Level == "error" || m.Level == "warning" || m.Level == "assert" {
				console = append(console, recording.Entry{Type: "console", Time: time.Now().UTC(), Level: m.Level, Text: red.String(truncateRunes(m.Text, 500))})
			}
		}
		reqs := pg.NetSince(c.mark.net)
		if len(reqs) > 100 {
			reqs = reqs[len(reqs)-100:]
		}
		for _, r := range reqs {
			status := fmt.Sprint(r.Status)
			switch {
			case r.Refused != "":
				status = "refused"
			case r.Failed != "":
				status = "failed"
			case r.Status == 0:
				status = "pending"
			}
			requests = append(requests, recording.Entry{Type: "request", Time: r.Started.UTC(), Method: r.Method, Status: status,
				Kind: strings.ToLower(r.Type), URL: red.String(network.ShortURL(r.URL, 300))})
		}
	}
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

// recordArgs are the call's fields as the recording keeps them: what
// says which session and task it is left out; credentials (the fields
// tool.Input declares sensitive: a state, logins, a proxy's password, a
// client certificate's key) never kept; secrets' values replaced.
func recordArgs(in tool.Input, red *redact.Redactor) map[string]any {
	in = in.Redacted()
	in.Action, in.Session, in.Task = "", "", ""
	b, err := json.Marshal(in)
	if err != nil {
		return nil
	}
	b = []byte(red.String(string(b)))
	var m map[string]any
	if json.Unmarshal(b, &m) != nil || len(m) == 0 {
		return nil
	}
	return m
}

func truncateRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}

// Trace is a task's recording for its owner (GET /api/sessions/{id}/trace):
// JSON, or one self-contained HTML file with format "html".
func (e *Engine) Trace(ctx context.Context, session, task, format string) ([]byte, error) {
	if e.Recorder == nil {
		return nil, fmt.Errorf("%w: this daemon records nothing (it runs with --record=off)", store.ErrNotFound)
	}
	q, err := e.ownedSession(ctx, session)
	if err != nil {
		return nil, err
	}
	if task == "" {
		task = "default"
	}
	// The caller's own name for the session, never the owner-qualified
	// one the recording is kept under (bob~s9).
	if format == "html" {
		return e.Recorder.HTMLAs(q, session, task)
	}
	return e.Recorder.JSONAs(q, session, task)
}

// TraceEntries and TraceFrame are a task's recording for the dashboard.
func (e *Engine) TraceEntries(ctx context.Context, session, task string) ([]recording.Entry, error) {
	q, err := e.ownedSession(ctx, session)
	if err != nil || e.Recorder == nil {
		return nil, err
	}
	return e.Recorder.Entries(q, task)
}

// TraceFrame is the frame after a task's step seq.
func (e *Engine) TraceFrame(ctx context.Context, session, task string, seq int) ([]byte, error) {
	q, err := e.ownedSession(ctx, session)
	if err != nil {
		return nil, err
	}
	if e.Recorder == nil {
		return nil, recording.ErrNoFrame
	}
	return e.Recorder.Frame(q, task, seq)
}

// ownedSession is the qualified id of the caller's session id, live or
// in the store: ErrNotFound for another owner's.
func (e *Engine) ownedSession(ctx context.Context, id string) (string, error) {
	s, q, err := e.LiveSession(ctx, id)
	if err != nil {
		return "", err
	}
	if s == nil {
		if _, err := e.Store.GetSession(ctx, q); err != nil {
			if errors.Is(err, store.ErrNotFound) {
				return "", fmt.Errorf("%w: no session %q", store.ErrNotFound, id)
			}
			return "", err
		}
	}
	return q, nil
}

// startRecorder starts the recorder (unless --record=off) and deletes the
// recordings of sessions that ended while the daemon was down.
func (e *Engine) startRecorder(ctx context.Context) {
	if e.Cfg.Record == "off" {
		return
	}
	e.Recorder = recording.New(recording.Options{Dir: e.Cfg.Path("recordings"), Box: e.Box}, e.Log)
	for _, id := range e.Recorder.Sessions() {
		s, err := e.Store.GetSession(ctx, id)
		switch {
		case errors.Is(err, store.ErrNotFound), err == nil && (s.State == store.Closed || s.State == store.Failed):
			e.Recorder.DropSession(id)
		}
	}
}
