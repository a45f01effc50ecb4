package recovery

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/browserd/browserd/internal/browser"
	"github.com/browserd/browserd/internal/sessions"
	"github.com/browserd/browserd/internal/untrusted"
)

// Lazy tabs. A resume (a restart, a crash, another node taking a session
// over) opens every tab of the session, but loads only each task's tab in
// front (and those left for a person to review): the tabs behind it stay
// unloaded until something uses them — an action in the tab, tab_switch,
// a person's live view — as Chromium's own session restore does. A
// session that comes back with many tabs costs one page load per task,
// not one per tab, and the memory of blank renderers until then. Until it
// loads, a lazy tab is listed, captured and exported as its capture knew
// it (its URL, title and sessionStorage).

// tabInfo is a tab's URL and title: the page's, or for a lazy tab where
// it will load.
func (e *Recovery) TabInfo(ctx context.Context, tb *sessions.Tab) (url, title untrusted.Text) {
	e.Mu.Lock()
	lz := tb.Lazy
	e.Mu.Unlock()
	if lz != nil {
		return lz.URL, lz.Title
	}
	url, title, _ = tb.Page.Info(ctx)
	return url, title
}

// readLoaded is readTab for a tab that is loaded; a lazy tab is not read
// (its blank page knows nothing of it): the caller keeps what the last
// capture knew.
func (e *Recovery) ReadLoaded(ctx context.Context, tb *sessions.Tab) (sessions.CapturedTab, bool) {
	e.Mu.Lock()
	lazy := tb.Lazy != nil
	e.Mu.Unlock()
	if lazy {
		return sessions.CapturedTab{}, false
	}
	return e.ReadTab(ctx, tb.Page)
}

// wake loads a lazy tab where it was, within limit; with skip (the caller
// is about to load another page in it) it only stops being lazy. It
// returns a note for the agent when the load failed. A tab that is not
// lazy is left alone; of two callers at once, one loads it.
func (e *Recovery) Wake(ctx context.Context, tb *sessions.Tab, skip bool, limit time.Duration) string {
	e.Mu.Lock()
	lz := tb.Lazy
	switch {
	case lz == nil || lz.Waking:
		e.Mu.Unlock()
		return ""
	case skip:
		tb.Lazy = nil
		e.Mu.Unlock()
		return ""
	}
	// It stays lazy while it loads, so that a capture meanwhile keeps
	// what the last one knew instead of reading the blank page.
	lz.Waking = true
	e.Mu.Unlock()
	lctx, cancel := context.WithTimeout(ctx, limit)
	err := tb.Page.Navigate(lctx, lz.URL.Unwrap())
	cancel()
	e.Mu.Lock()
	tb.Lazy = nil
	e.Mu.Unlock()
	if err != nil {
		// Its URL is the page's choice: the tab list shows it, inside the
		// envelope; the note says only what happened.
		return fmt.Sprintf("tab %s did not load its page again after the resume (%s); the tab list shows its address", tb.ID, LoadFailure(err))
	}
	return ""
}

// loadFailure says in browserd's words why a load failed: Chromium's error
// code, a timeout, a crash — never the page's URL or words.
func LoadFailure(err error) string {
	var ne *browser.NavError
	switch {
	case errors.As(err, &ne):
		return ne.Text
	case errors.Is(err, context.DeadlineExceeded):
		return "it did not load in time"
	case errors.Is(err, browser.ErrCrashed):
		return "its renderer crashed"
	}
	return "the browser refused the load"
}
