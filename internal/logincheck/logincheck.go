// Package logincheck answers "is the login still good?" (issue 28 point
// 5). A session may have a login check — launch's loginCheck: a page, and
// the text it shows (or an element it has) only when logged in. A
// profile's is kept in the store with the profile and applies to every
// session of it; a session without a profile keeps its own in its
// captures. The check runs when launch sets it, when the session's
// browser starts (the first session of a profile on this daemon, a
// browser that crashed) and when the session is resumed (session_resume,
// the next action, --auto-rehydrate): in a tab of its own in the
// session's context, never one of the agent's, through the guard, within
// Time, and the tab is closed. Its result is a note of the call that ran
// it, and status, list_sessions and the dashboard show the last one. What
// the note says is browserd's words and the check's own (its URL, text,
// selector and name are the caller's); where the page ended is the
// page's, and goes in Detail.
//
// The engine wires a Checker (its room) and puts a Result in the answer
// of the call that ran the check.
package logincheck

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/browserd/browserd/internal/browser"
	"github.com/browserd/browserd/internal/sessions"
	"github.com/browserd/browserd/internal/store"
	"github.com/browserd/browserd/internal/tool"
)

// Time bounds a login check: its tab, the page's load, and the look for
// what it shows.
const Time = 10 * time.Second

// showWait is how long a login check looks for its text or selector once
// the page loaded: a page that draws the account's name after its load
// (a single-page app) has that long.
const showWait = 1500 * time.Millisecond

// Pages is what a check needs of the browsers: a slot held while its tab
// is open, the session's context, the CDP guard of an attached browser,
// and the check's URL vetted as a navigation's (the guard, the policy).
type Pages interface {
	SlotKey(s *sessions.Session) string
	HoldSlot(sl *sessions.Slot) func()
	ContextFor(ctx context.Context, sl *sessions.Slot, s *sessions.Session) (string, error)
	FetchGuard(s *sessions.Session) func(ctx context.Context, raw string) error
	CheckURL(ctx context.Context, s *sessions.Session, raw string) (string, error)
}

// Checker runs sessions' login checks and keeps their last results on
// the sessions (Session.Login).
type Checker struct {
	*sessions.Registry
	Pages Pages
}

// Result is what a login check found.
type Result struct {
	Login tool.Login
	// Note is the sentence for the answer of the call that ran it.
	Note string
	// Detail is page-derived (where the page ended): inside the envelope.
	Detail string
}

// CheckLogin runs s's login check if one is due, and returns its note
// ("" when none ran); recovery.Rooms (--auto-rehydrate).
func (k *Checker) CheckLogin(ctx context.Context, s *sessions.Session) string {
	if r := k.DueLoginCheck(ctx, s); r != nil {
		return r.Note
	}
	return ""
}

// DueLoginCheck runs s's login check if one is due (its browser started,
// or it was resumed, since the last); nil when none ran. Of two calls at
// once, one runs it.
func (k *Checker) DueLoginCheck(ctx context.Context, s *sessions.Session) *Result {
	k.Mu.Lock()
	due := s.LoginDue
	s.LoginDue = false
	k.Mu.Unlock()
	if !due {
		return nil
	}
	return k.runOf(ctx, s)
}

// RunLoginCheck runs s's login check now (launch set it), if it has one.
func (k *Checker) RunLoginCheck(ctx context.Context, s *sessions.Session) *Result {
	k.Mu.Lock()
	s.LoginDue = false
	k.Mu.Unlock()
	return k.runOf(ctx, s)
}

// runOf runs the login check that applies to s, if any, and keeps its
// result for status and list_sessions; nil when it has none.
func (k *Checker) runOf(ctx context.Context, s *sessions.Session) *Result {
	chk, err := k.checkOf(ctx, s)
	if err != nil {
		k.Log.Warn("reading a profile's login check failed", "session", s.ID, "err", err)
		return &Result{Note: "the profile's login check could not be read (" + err.Error() + "); launch with loginCheck sets it again"}
	}
	if chk == nil {
		return nil
	}
	r := k.run(ctx, s, chk)
	k.Mu.Lock()
	s.Login = &r.Login
	k.Mu.Unlock()
	return r
}

// checkOf is the login check that applies to s: its profile's (in the
// store), else its own; nil for none.
func (k *Checker) checkOf(ctx context.Context, s *sessions.Session) (*store.LoginCheck, error) {
	k.Mu.Lock()
	profile, own := s.Profile, s.Check
	k.Mu.Unlock()
	if profile == "" {
		if own == nil {
			return nil, nil
		}
		c := *own
		return &c, nil
	}
	owner, name := sessions.SplitName(profile)
	return k.Store.ProfileLoginCheck(ctx, owner, name)
}

// run opens chk's page in a tab of s's context, looks for what it shows
// when logged in, closes the tab and says what it found.
func (k *Checker) run(ctx context.Context, s *sessions.Session, chk *store.LoginCheck) *Result {
	ctx, cancel := context.WithTimeout(ctx, Time)
	defer cancel()
	site := (*tool.LoginCheck)(chk).Site()
	found, final, err := k.lookFor(ctx, s, chk)
	at := time.Now()
	r := &Result{Login: tool.Login{Site: site, Checked: at}}
	when := at.Local().Format("15:04")
	switch {
	case err != nil:
		r.Login.State = tool.LoginError
		r.Login.Message = fmt.Sprintf("could not check the login to %s: %s (checked %s)", site, failure(err, chk), when)
		r.Note = r.Login.Message
	case found:
		r.Login.State = tool.LoginOK
		r.Login.Message = fmt.Sprintf("still logged in to %s (checked %s)", site, when)
		r.Note = r.Login.Message
	default:
		r.Login.State = tool.LoginLapsed
		what := fmt.Sprintf("%s does not show %q", chk.URL, chk.Text)
		if chk.Selector != "" {
			what = fmt.Sprintf("nothing on %s matches %s", chk.URL, chk.Selector)
		}
		r.Login.Message = fmt.Sprintf("the login to %s has lapsed: %s (checked %s)", site, what, when)
		r.Note = r.Login.Message + "; log in again (handoff asks a person to), then launch with the loginCheck to check again"
		if final != "" {
			r.Detail = "the login check's page ended at " + final
		}
	}
	return r
}

// errNoBrowser: the session's browser is not running (it exited).
var errNoBrowser = errors.New("its browser is not running")

// failure says why a login check could not be made, in browserd's words
// (the check's URL is the caller's; no page text).
func failure(err error, chk *store.LoginCheck) string {
	var ne *browser.NavError
	var ue *tool.Error
	var se *browser.ScriptError
	switch {
	case errors.As(err, &ue):
		return ue.Msg
	case errors.As(err, &ne):
		return fmt.Sprintf("%s did not load (%s)", chk.URL, ne.Text)
	case errors.Is(err, browser.ErrNoAnswer), errors.Is(err, context.DeadlineExceeded):
		return fmt.Sprintf("%s did not answer within %s", chk.URL, Time)
	case errors.Is(err, browser.ErrDialogOpen):
		return fmt.Sprintf("%s opened a dialog", chk.URL)
	case errors.As(err, &se) && chk.Selector != "":
		return fmt.Sprintf("the selector %s is not valid CSS", chk.Selector)
	case errors.Is(err, errNoBrowser), errors.Is(err, browser.ErrClosedTab), errors.Is(err, sessions.ErrClosed):
		return "the session's browser is not running"
	}
	return err.Error()
}

// lookFor opens chk's page in a new tab of s's context and reports
// whether it shows chk's text (or has an element that matches its
// selector) within showWait of its load, and the URL it ended at (page
// data). The tab is closed.
func (k *Checker) lookFor(ctx context.Context, s *sessions.Session, chk *store.LoginCheck) (found bool, final string, err error) {
	k.Mu.Lock()
	sl := k.Slots[k.Pages.SlotKey(s)]
	var br *browser.Browser
	if sl != nil {
		br = sl.Br
	}
	k.Mu.Unlock()
	if br == nil {
		return false, "", errNoBrowser
	}
	select {
	case <-br.Done(): // it exited
		return false, "", errNoBrowser
	default:
	}
	u, err := k.Pages.CheckURL(ctx, s, chk.URL)
	if err != nil {
		return false, "", err
	}
	defer k.Pages.HoldSlot(sl)()
	ctxID, err := k.Pages.ContextFor(ctx, sl, s)
	if err != nil {
		return false, "", err
	}
	k.Mu.Lock()
	opts := browser.PageOptions{Width: k.Cfg.Width, Height: k.Cfg.Height, InitScript: s.InitScript, Emulation: s.Emu, Credentials: s.Creds}
	if s.Width > 0 {
		opts.Width, opts.Height = s.Width, s.Height
	}
	k.Mu.Unlock()
	if br.Attached() && ctxID == "" {
		opts.Guard = k.Pages.FetchGuard(s)
	}
	pg, err := br.NewPage(ctx, ctxID, opts)
	if err != nil {
		return false, "", err
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 3*time.Second)
		_ = pg.Close(cctx)
		cancel()
	}()
	nctx, stop := pg.ActionContext(ctx)
	err = pg.Navigate(nctx, u)
	stop()
	if err == nil && pg.Dialog() != nil {
		err = browser.ErrDialogOpen
	}
	if err != nil {
		if errors.Is(context.Cause(nctx), browser.ErrDialogOpen) {
			err = browser.ErrDialogOpen
		}
		return false, "", err
	}
	if err := documentFailed(pg, chk); err != nil {
		return false, pg.URL().Unwrap(), err
	}
	found, err = waitFor(ctx, pg, chk)
	return found, pg.URL().Unwrap(), err
}

// documentFailed is the failure of the page's own document: refused by
// the guard (a redirect to an internal address), or a server error — a
// site that is down says nothing about the login. A 401 or 403 is a
// lapsed login's usual answer, and counts as an answer.
func documentFailed(pg *browser.Page, chk *store.LoginCheck) error {
	reqs, _ := pg.NetLog()
	for i := len(reqs) - 1; i >= 0; i-- {
		r := reqs[i]
		if r.Type != "Document" || r.Frame != pg.TargetID {
			continue
		}
		switch {
		case r.Refused != "":
			return &tool.Error{Msg: fmt.Sprintf("browserd's guard refused where %s led (%s)", chk.URL, r.Refused)}
		case r.Status >= 500:
			return &tool.Error{Msg: fmt.Sprintf("%s answered HTTP %d: the site has trouble, which says nothing of the login", chk.URL, r.Status)}
		}
		return nil
	}
	return nil
}

// waitFor looks for chk's text (case and spacing aside) or selector on
// the page until it shows or showWait has passed.
func waitFor(ctx context.Context, pg *browser.Page, chk *store.LoginCheck) (bool, error) {
	expr := fmt.Sprintf(`(() => {
		const sel = %s, want = %s;
		if (sel) return document.querySelector(sel) !== null;
		const norm = s => String(s).replace(/\s+/g, ' ').trim().toLowerCase();
		return norm(document.body ? document.body.innerText : '').includes(norm(want));
	})()`, jsString(chk.Selector), jsString(chk.Text))
	until := time.Now().Add(showWait)
	for {
		var found bool
		if err := pg.Run(ctx, expr, &found); err != nil {
			return false, err
		}
		if found || time.Now().After(until) {
			return found, nil
		}
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case <-time.After(150 * time.Millisecond):
		}
	}
}

// Stored is launch's loginCheck as the store keeps it; nil for one that
// removes the check.
func Stored(c *tool.LoginCheck) *store.LoginCheck {
	if c == nil || c.Removes() {
		return nil
	}
	return &store.LoginCheck{URL: strings.TrimSpace(c.URL), Text: c.Text, Selector: c.Selector, Name: c.Name}
}

// Status is the line status shows for s's last login check, "" when none
// ran. Call with the registry's Mu held.
func Status(s *sessions.Session) string {
	if s.Login == nil {
		return ""
	}
	return fmt.Sprintf("  session %s: %s\n", s.ID, s.Login.Message)
}

// LastLogin is the last login check of session id when this daemon runs
// (or ran) it, for list_sessions; nil otherwise.
func (k *Checker) LastLogin(id string) *tool.Login {
	k.Mu.Lock()
	defer k.Mu.Unlock()
	if s := k.Sessions[id]; s != nil && s.Login != nil {
		l := *s.Login
		return &l
	}
	return nil
}

// jsString is s as a JavaScript (and JSON) string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
