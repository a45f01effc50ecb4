// Package status words what an owner may see of the daemon and its
// sessions: the status action (browsers, sessions, tasks, tabs, their
// proxies, login checks, routes and live views — never another owner's),
// list_sessions (the owner's sessions in the store, with their last login
// check) and a session's kept captures (list_sessions with a session, for
// session_resume's capture), and one session with its tabs for the API.
//
// The engine wires a Board (its room) and puts what it says in the
// answer.
package status

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/browserd/browserd/internal/auth"
	"github.com/browserd/browserd/internal/logincheck"
	"github.com/browserd/browserd/internal/recovery"
	"github.com/browserd/browserd/internal/redact"
	"github.com/browserd/browserd/internal/routes"
	"github.com/browserd/browserd/internal/sessions"
	"github.com/browserd/browserd/internal/store"
	"github.com/browserd/browserd/internal/tool"
	"github.com/browserd/browserd/internal/untrusted"
)

// Lines is what the board asks the other rooms for: a session's proxy
// line and a tab's live-view URL (called with the registry's Mu held), a
// session's last login check, a tab's page and title, and an owner's
// redactor (titles and URLs are the page's: its echo of a secret too).
type Lines interface {
	ProxyStatus(s *sessions.Session) string
	LiveURL(session, tab string) string
	LastLogin(id string) *tool.Login
	TabInfo(ctx context.Context, tb *sessions.Tab) (url, title untrusted.Text)
	Redactor(ctx context.Context, owner string) *redact.Redactor
}

// Board says what owners may see.
type Board struct {
	*sessions.Registry
	Lines Lines
}

// StatusText describes the daemon's browsers, sessions, tasks and tabs as
// owner may see them: the shared browsers, and owner's own profiles',
// folders', sessions and tabs — never another owner's (admin included:
// status is the caller's view, as list_sessions is).
func (b *Board) StatusText(owner string) string {
	b.Mu.Lock()
	defer b.Mu.Unlock()
	var sb strings.Builder
	running := 0
	keys := make([]string, 0, len(b.Slots))
	for k := range b.Slots {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		sl := b.Slots[k]
		br := sl.Br
		if br == nil || !sl.VisibleTo(owner) {
			continue // not running, or another owner's profile or folder
		}
		select {
		case <-br.Done():
			fmt.Fprintf(&sb, "browser %s: exited (%s); the next action starts a new one\n", k, br.DeathReason())
		default:
			running++
			switch {
			case br.Attached():
				fmt.Fprintf(&sb, "browser: running, attached over CDP (%s)\n", b.Cfg.CDP)
			case !strings.HasPrefix(k, "profile:"):
				// The shared browser runs every owner's sessions: its pid
				// is none of one owner's business.
				fmt.Fprintf(&sb, "browser: running %s\n", k)
			default:
				fmt.Fprintf(&sb, "browser: running %s (pid %d)\n", k, br.PID())
			}
		}
	}
	if running == 0 {
		sb.WriteString("browser: not running (starts on the first action)\n")
	}
	ids := make([]string, 0, len(b.Sessions))
	tabs := 0
	for id, s := range b.Sessions {
		// A session with no task is closed or parked (close, the idle
		// timeout): list_sessions has it, status does not.
		if o, _ := sessions.SplitName(id); o == owner && len(s.Tasks) > 0 {
			ids = append(ids, id)
			for _, t := range s.Tasks {
				tabs += len(t.Tabs)
			}
		}
	}
	fmt.Fprintf(&sb, "sessions: %d, tabs: %d, idle timeout: %s\n", len(ids), tabs, b.Cfg.IdleTimeout)
	for p, r := range b.Repairs {
		if o, _ := sessions.SplitName(p); o == owner {
			fmt.Fprintf(&sb, "profile %s repaired %s\n", p, r)
		}
	}
	sort.Strings(ids)
	for _, id := range ids {
		s := b.Sessions[id]
		sb.WriteString(b.Lines.ProxyStatus(s))
		sb.WriteString(logincheck.Status(s))
		for _, l := range routes.Lines(nil, &s.Routes) {
			fmt.Fprintf(&sb, "  session %s %s\n", s.ID, l)
		}
		kind := "ephemeral"
		switch {
		case s.Profile != "":
			kind = "profile " + s.Profile
		case s.Dir != "":
			kind = "folder " + s.Dir
		}
		for _, t := range s.Tasks {
			tabs := make([]string, len(t.Tabs))
			for i, tb := range t.Tabs {
				tabs[i] = tb.ID
			}
			ended := ""
			if t.Ended {
				ended = fmt.Sprintf(" (ended; left for review %s ago)", time.Since(t.EndedAt).Round(time.Second))
			}
			fmt.Fprintf(&sb, "  session %s (%s) task %s%s: tabs [%s], idle %s\n", s.ID, kind, t.Name, ended, strings.Join(tabs, " "), time.Since(t.LastUsed).Round(time.Second))
			for _, l := range routes.Lines(&t.Routes, nil) {
				fmt.Fprintf(&sb, "    %s\n", l)
			}
			for _, tb := range t.Tabs {
				if u := b.Lines.LiveURL(s.ID, tb.ID); u != "" {
					fmt.Fprintf(&sb, "    %s live view: %s\n", tb.ID, u)
				}
			}
		}
	}
	return strings.TrimRight(sb.String(), "\n")
}

// SessionList is list_sessions without a session: owner's sessions in the
// store in state filter ("" or "all": every state), and their text.
func (b *Board) SessionList(ctx context.Context, owner, filter string) ([]tool.SessionInfo, string, error) {
	state := store.SessionState(filter)
	if state == "all" {
		state = ""
	}
	rows, err := b.Store.ListSessions(ctx, owner, state)
	if err != nil {
		return nil, "", err
	}
	var out []tool.SessionInfo
	var sb strings.Builder
	for _, r := range rows {
		login := b.Lines.LastLogin(r.ID)
		out = append(out, tool.SessionInfo{
			ID: r.ID, State: string(r.State), Profile: r.Profile, Reason: r.Reason, Tabs: r.Tabs, URL: r.URL,
			Created: r.CreatedAt, Updated: r.UpdatedAt, LastCapture: r.LastCaptureAt, Login: login,
		})
		kind := "ephemeral"
		if r.Profile != "" {
			kind = "profile " + r.Profile
		}
		fmt.Fprintf(&sb, "%s: %s (%s), %d tabs, last capture %s", r.ID, r.State, kind, r.Tabs, recovery.Ago(r.LastCaptureAt))
		if r.URL != "" {
			fmt.Fprintf(&sb, ", %s", r.URL)
		}
		if r.Reason != "" {
			fmt.Fprintf(&sb, " — %s", r.Reason)
		}
		if login != nil {
			fmt.Fprintf(&sb, "; %s", login.Message)
		}
		sb.WriteString("\n")
	}
	if len(rows) == 0 {
		sb.WriteString("no sessions")
		if state != "" {
			fmt.Fprintf(&sb, " in state %s", state)
		}
	}
	return out, strings.TrimRight(sb.String(), "\n"), nil
}

// CaptureList is list_sessions with a session: its kept captures, newest
// first, for session_resume's capture, and their text.
func (b *Board) CaptureList(ctx context.Context, id string) ([]tool.CaptureInfo, string, error) {
	row, err := b.Store.GetSession(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, "", tool.Fail("no session %q in the store; list_sessions shows the sessions", id)
	}
	if err != nil {
		return nil, "", err
	}
	list, err := b.Store.ListCaptures(ctx, id)
	if err != nil {
		return nil, "", err
	}
	var out []tool.CaptureInfo
	var sb strings.Builder
	fmt.Fprintf(&sb, "session %q (%s) keeps %d captures, newest first", id, row.State, len(list))
	if len(list) > 0 {
		sb.WriteString("; session_resume with capture (an id, or a time: the newest at or before it) restores one")
		b.Mu.Lock()
		s := b.Sessions[id]
		live := s != nil && s.Stored && !s.Parked
		b.Mu.Unlock()
		if live {
			sb.WriteString(" once the session is closed")
		}
	}
	sb.WriteString("\n")
	for _, ci := range list {
		info := tool.CaptureInfo{ID: ci.ID, Taken: ci.Taken, Tabs: ci.Tabs, URL: ci.URL, Title: ci.Title}
		if ci.Err != nil {
			info.Error = ci.Err.Error()
		}
		out = append(out, info)
		fmt.Fprintf(&sb, "%d: %s, ", ci.ID, recovery.Ago(ci.Taken))
		if ci.Err != nil {
			fmt.Fprintf(&sb, "cannot be read: %v\n", ci.Err)
			continue
		}
		fmt.Fprintf(&sb, "%d tabs", ci.Tabs)
		if ci.URL != "" {
			fmt.Fprintf(&sb, ", %s", ci.URL)
		}
		if ci.Title != "" {
			fmt.Fprintf(&sb, " %q", ci.Title)
		}
		sb.WriteString("\n")
	}
	return out, strings.TrimRight(sb.String(), "\n"), nil
}

// SessionInfo is one session of the caller (GET /api/sessions/{id}): its
// listing and, when it is
// live here, its tabs.
func (b *Board) SessionInfo(ctx context.Context, id string) (tool.SessionInfo, []tool.Tab, error) {
	s, q, err := b.LiveSession(ctx, id)
	if err != nil {
		return tool.SessionInfo{}, nil, err
	}
	row, err := b.Store.GetSession(ctx, q)
	if err != nil {
		return tool.SessionInfo{}, nil, err
	}
	info := tool.SessionInfo{ID: id, State: string(row.State), Profile: sessions.BareName(row.Profile), Reason: strings.ReplaceAll(row.Reason, auth.Owner(ctx)+sessions.OwnerSep, ""),
		Tabs: row.Tabs, URL: row.URL, Created: row.CreatedAt, Updated: row.UpdatedAt, LastCapture: row.LastCaptureAt, Login: b.Lines.LastLogin(q)}
	var tabs []tool.Tab
	if s != nil {
		b.Mu.Lock()
		tasks := make([]*sessions.Task, 0, len(s.Tasks))
		for _, t := range s.Tasks {
			tasks = append(tasks, t)
		}
		b.Mu.Unlock()
		for _, t := range tasks {
			tabs = append(tabs, b.TabList(ctx, t)...)
		}
		info.Tabs = len(tabs)
	}
	// Titles and URLs are the page's: its echo of a secret too.
	red := b.Lines.Redactor(ctx, auth.Owner(ctx))
	info.URL = red.String(info.URL)
	for i := range tabs {
		tabs[i].Title, tabs[i].URL = red.String(tabs[i].Title), red.String(tabs[i].URL)
	}
	return info, tabs, nil
}

// TabList lists a task's tabs, as the tabs action and the API show them:
// where each is, and what it is doing.
func (b *Board) TabList(ctx context.Context, t *sessions.Task) []tool.Tab {
	b.Mu.Lock()
	tabs := append([]*sessions.Tab(nil), t.Tabs...)
	active := t.Active
	b.Mu.Unlock()
	out := make([]tool.Tab, 0, len(tabs))
	for _, tb := range tabs {
		url, title := b.Lines.TabInfo(ctx, tb)
		b.Mu.Lock()
		waiting, review := tb.Waiting, t.Ended
		live := b.Lines.LiveURL(t.Sess.ID, tb.ID)
		state := "idle"
		switch {
		case tb.Lazy != nil:
			state = "not loaded yet"
		case tb.Held != nil:
			state = "person in control"
		case waiting != "":
			state = "waiting for a person"
		case review:
			state = "left for review"
		case t.Working:
			state = "agent working"
		}
		b.Mu.Unlock()
		out = append(out, tool.Tab{ID: tb.ID, Task: t.Name, URL: url.Unwrap(), Title: title.Unwrap(), Active: tb == active, Waiting: waiting,
			Review: review, LiveViewURL: live, State: state})
	}
	sort.SliceStable(out, func(i, j int) bool { return sessions.TabNum(out[i].ID) < sessions.TabNum(out[j].ID) })
	return out
}
