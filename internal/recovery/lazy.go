package recovery

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/browserd/browserd/internal/browser"
	"github.com/browserd/browserd/internal/inject"
	"github.com/browserd/browserd/internal/sessions"
	"github.com/browserd/browserd/internal/untrusted"
)

// Lazy tabs. A resume (a restart, a crash, another node taking a session
// over) opens and loads only each task's tab in front (and those left for
// a person to review): the tabs behind it get no target in the browser —
// no renderer, no memory — until something uses them (an action in the
// tab, tab_switch, a person's live view), as Chromium's own session
// restore does. A session that comes back with many tabs costs one page
// load per task, not one per tab. Until it loads, a lazy tab is listed,
// captured and exported as its capture knew it (its URL, title and
// sessionStorage).

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

// Wake loads a lazy tab where it was, within limit: it opens the tab's
// page (a lazy tab has no target until then) and loads its URL; with skip
// (the caller is about to load another page in it) it only opens it. It
// returns a note for the agent when the load failed. A tab that is not
// lazy is left alone; of callers at once, one wakes it and the others
// wait for it.
func (e *Recovery) Wake(ctx context.Context, tb *sessions.Tab, skip bool, limit time.Duration) string {
	e.Mu.Lock()
	lz := tb.Lazy
	switch {
	case lz == nil:
		e.Mu.Unlock()
		return ""
	case lz.Woken != nil:
		ch := lz.Woken
		e.Mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
		}
		return ""
	}
	// It stays lazy while it wakes, so that a capture meanwhile keeps
	// what the last one knew instead of reading the blank page.
	lz.Woken = make(chan struct{})
	s := tb.Task.Sess
	opts := lz.Opts
	opts.InitScript = inject.CombineScripts(lz.Opts.InitScript, s.InitScript)
	opts.Emulation, opts.Credentials, opts.Scope = s.Emu, s.Creds, s.ID
	e.Mu.Unlock()
	lctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	err := e.openLazy(lctx, tb, opts)
	if err == nil && !skip {
		err = tb.Page.Navigate(lctx, lz.URL.Unwrap())
	}
	e.Mu.Lock()
	woken := lz.Woken
	if tb.Page != nil {
		tb.Lazy = nil
	} else {
		lz.Woken = nil // not opened: the next use tries again
	}
	close(woken)
	e.Mu.Unlock()
	if err != nil {
		// Its URL is the page's choice: the tab list shows it, inside the
		// envelope; the note says only what happened.
		return fmt.Sprintf("tab %s did not load its page again after the resume (%s); the tab list shows its address", tb.ID, LoadFailure(err))
	}
	return ""
}

// openLazy gives a lazy tab its page, in its session's browser context.
func (e *Recovery) openLazy(ctx context.Context, tb *sessions.Tab, opts browser.PageOptions) error {
	e.Mu.Lock()
	has := tb.Page != nil
	e.Mu.Unlock()
	if has {
		return nil
	}
	s := tb.Task.Sess
	sl, _, err := e.EnsureBrowser(ctx, s)
	if err != nil {
		return err
	}
	ctxID, err := e.ContextFor(ctx, sl, s)
	if err != nil {
		return err
	}
	if sl.Br.Attached() && ctxID == "" {
		opts.Guard = e.FetchGuard(s)
	}
	pg, err := e.OpenPage(ctx, sl, ctxID, opts)
	if err != nil {
		return err
	}
	e.Mu.Lock()
	tb.Page = pg
	e.Mu.Unlock()
	return nil
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
