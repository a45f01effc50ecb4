package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/browserd/browserd/internal/browser"
	"github.com/browserd/browserd/internal/sessions"
	"github.com/browserd/browserd/internal/store"
	"github.com/browserd/browserd/internal/tool"
)

// Is the login still good? (issue 28 point 5). A session may have a login
// check — launch's loginCheck: a page, and the text it shows (or an
// element it has) only when logged in. A profile's is kept in the store
// with the profile and applies to every session of it; a session without
// a profile keeps its own in its captures. The check runs when launch
// sets it, when the session's browser starts (the first session of a
// profile on this daemon, a browser that crashed) and when the session
// is resumed (session_resume, the next action, --auto-rehydrate): in a
// tab of its own in the session's context, never one of the agent's,
// through the guard, within LoginCheckTime, and the tab is closed. Its
// result is a note of the call that ran it, and status, list_sessions
// and the dashboard show the last one. What the note says is browserd's
// words and the check's own (its URL, text, selector and name are the
// caller's); where the page ended is the page's, and goes in Details.

// LoginCheckTime bounds a login check: its tab, the page's load, and the
// look for what it shows.
const LoginCheckTime = 10 * time.Second

// loginShowWait is how long a login check looks for its text or
// selector once the page loaded: a page that draws the account's name
// after its load (a single-page app) has that long.
const loginShowWait = 1500 * time.Millisecond

// loginRun is what a login check found.
type loginRun struct {
	login tool.Login
	// note is the sentence for the answer of the call that ran it.
	note string
	// detail is page-derived (where the page ended): inside the envelope.
	detail string
}

// CheckLogin runs s's login check if one is due, and returns its note
// ("" when none ran); recovery.Rooms (--auto-rehydrate).
func (e *Engine) CheckLogin(ctx context.Context, s *sessions.Session) string {
	if r := e.dueLoginCheck(ctx, s); r != nil {
		return r.note
	}
	return ""
}

// dueLoginCheck runs s's login check if one is due (its browser started,
// or it was resumed, since the last); nil when none ran. Of two calls at
// once, one runs it.
func (e *Engine) dueLoginCheck(ctx context.Context, s *sessions.Session) *loginRun {
	e.Mu.Lock()
	due := s.LoginDue
	s.LoginDue = false
	e.Mu.Unlock()
	if !due {
		return nil
	}
	return e.runLoginCheckOf(ctx, s)
}

// checkLogin runs s's login check now (launch set it), if it has one.
func (e *Engine) checkLogin(ctx context.Context, s *sessions.Session) *loginRun {
	e.Mu.Lock()
	s.LoginDue = false
	e.Mu.Unlock()
	return e.runLoginCheckOf(ctx, s)
}

// runLoginCheckOf runs the login check that applies to s, if any, and
// keeps its result for status and list_sessions; nil when it has none.
func (e *Engine) runLoginCheckOf(ctx context.Context, s *sessions.Session) *loginRun {
	chk, err := e.loginCheckOf(ctx, s)
	if err != nil {
		e.Log.Warn("reading a profile's login check failed", "session", s.ID, "err", err)
		return &loginRun{note: "the profile's login check could not be read (" + err.Error() + "); launch with loginCheck sets it again"}
	}
	if chk == nil {
		return nil
	}
	r := e.runLoginCheck(ctx, s, chk)
	e.Mu.Lock()
	s.Login = &r.login
	e.Mu.Unlock()
	return r
}

// loginCheckOf is the login check that applies to s: its profile's (in
// the store), else its own; nil for none.
func (e *Engine) loginCheckOf(ctx context.Context, s *sessions.Session) (*store.LoginCheck, error) {
	e.Mu.Lock()
	profile, own := s.Profile, s.Check
	e.Mu.Unlock()
	if profile == "" {
		if own == nil {
			return nil, nil
		}
		c := *own
		return &c, nil
	}
	owner, name := sessions.SplitName(profile)
	return e.Store.ProfileLoginCheck(ctx, owner, name)
}

// runLoginCheck opens chk's page in a tab of s's context, looks for what
// it shows when logged in, closes the tab and says what it found.
func (e *Engine) runLoginCheck(ctx context.Context, s *sessions.Session, chk *store.LoginCheck) *loginRun {
	ctx, cancel := context.WithTimeout(ctx, LoginCheckTime)
	defer cancel()
	site := (*tool.LoginCheck)(chk).Site()
	found, final, err := e.lookForLogin(ctx, s, chk)
	at := time.Now()
	r := &loginRun{login: tool.Login{Site: site, Checked: at}}
	when := at.Local().Format("15:04")
	switch {
	case err != nil:
		r.login.State = tool.LoginError
		r.login.Message = fmt.Sprintf("could not check the login to %s: %s (checked %s)", site, loginFailure(err, chk), when)
		r.note = r.login.Message
	case found:
		r.login.State = tool.LoginOK
		r.login.Message = fmt.Sprintf("still logged in to %s (checked %s)", site, when)
		r.note = r.login.Message
	default:
		r.login.State = tool.LoginLapsed
		what := fmt.Sprintf("%s does not show %q", chk.URL, chk.Text)
		if chk.Selector != "" {
			what = fmt.Sprintf("nothing on %s matches %s", chk.URL, chk.Selector)
		}
		r.login.Message = fmt.Sprintf("the login to %s has lapsed: %s (checked %s)", site, what, when)
		r.note = r.login.Message + "; log in again (handoff asks a person to), then launch with the loginCheck to check again"
		if final != "" {
			r.detail = "the login check's page ended at " + final
		}
	}
	return r
}

// errNoBrowser: the session's browser is not running (it exited).
var errNoBrowser = errors.New("its browser is not running")

// loginFailure says why a login check could not be made, in browserd's
// words (the check's URL is the caller's; no page text).
func loginFailure(err error, chk *store.LoginCheck) string {
	var ne *browser.NavError
	var ue *tool.Error
	var se *browser.ScriptError
	switch {
	case errors.As(err, &ue):
		return ue.Msg
	case errors.As(err, &ne):
		return fmt.Sprintf("%s did not load (%s)", chk.URL, ne.Text)
	case errors.Is(err, browser.ErrNoAnswer), errors.Is(err, context.DeadlineExceeded):
		return fmt.Sprintf("%s did not answer within %s", chk.URL, LoginCheckTime)
	case errors.Is(err, browser.ErrDialogOpen):
		return fmt.Sprintf("%s opened a dialog", chk.URL)
	case errors.As(err, &se) && chk.Selector != "":
		return fmt.Sprintf("the selector %s is not valid CSS", chk.Selector)
	case errors.Is(err, errNoBrowser), errors.Is(err, browser.ErrClosedTab), errors.Is(err, sessions.ErrClosed):
		return "the session's browser is not running"
	}
	return err.Error()
}

// lookForLogin opens chk's page in a new tab of s's context and reports
// whether it shows chk's text (or has an element that matches its
// selector) within loginShowWait of its load, and the URL it ended at
// (page data). The tab is closed.
func (e *Engine) lookForLogin(ctx context.Context, s *sessions.Session, chk *store.LoginCheck) (found bool, final string, err error) {
	e.Mu.Lock()
	sl := e.Slots[e.SlotKey(s)]
	var br *browser.Browser
	if sl != nil {
		br = sl.Br
	}
	e.Mu.Unlock()
	if br == nil || isDone(br.Done()) {
		return false, "", errNoBrowser
	}
	u, err := e.checkURL(ctx, s, chk.URL)
	if err != nil {
		return false, "", err
	}
	defer e.HoldSlot(sl)()
	ctxID, err := e.ContextFor(ctx, sl, s)
	if err != nil {
		return false, "", err
	}
	e.Mu.Lock()
	opts := browser.PageOptions{Width: e.Cfg.Width, Height: e.Cfg.Height, InitScript: s.InitScript, Emulation: s.Emu, Credentials: s.Creds}
	if s.Width > 0 {
		opts.Width, opts.Height = s.Width, s.Height
	}
	e.Mu.Unlock()
	if br.Attached() && ctxID == "" {
		opts.Guard = e.FetchGuard(s)
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
	found, err = waitForLogin(ctx, pg, chk)
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

// waitForLogin looks for chk's text (case and spacing aside) or selector
// on the page until it shows or loginShowWait has passed.
func waitForLogin(ctx context.Context, pg *browser.Page, chk *store.LoginCheck) (bool, error) {
	expr := fmt.Sprintf(`(() => {
		const sel = %s, want = %s;
		if (sel) return document.querySelector(sel) !== null;
		const norm = s => String(s).replace(/\s+/g, ' ').trim().toLowerCase();
		return norm(document.body ? document.body.innerText : '').includes(norm(want));
	})()`, jsString(chk.Selector), jsString(chk.Text))
	until := time.Now().Add(loginShowWait)
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

// storeLoginCheck is launch's loginCheck as the store keeps it; nil for
// one that removes the check.
func storeLoginCheck(c *tool.LoginCheck) *store.LoginCheck {
	if c == nil || c.Removes() {
		return nil
	}
	return &store.LoginCheck{URL: strings.TrimSpace(c.URL), Text: c.Text, Selector: c.Selector, Name: c.Name}
}

// keepProfileLoginCheck keeps launch's loginCheck of a profile in the
// store, before the profile's browser starts (prepareLaunch); a session
// without a profile keeps its own (launchLoginCheck).
func (c *call) keepProfileLoginCheck(ctx context.Context) error {
	in := c.in
	profile := launchProfile(in)
	if in.LoginCheck == nil || profile == "" {
		return nil
	}
	owner, name := sessions.SplitName(profile)
	if err := c.e.Store.SetProfileLoginCheck(ctx, owner, name, storeLoginCheck(in.LoginCheck)); err != nil {
		return fmt.Errorf("saving the profile's login check: %w", err)
	}
	return nil
}

// launchLoginCheck is launch's work with its loginCheck once the session
// runs and has the state launch injects: the session's own kept for its
// captures, what was set said, and the check run at once (a removal
// clears the last result). A launch without one runs the check due since
// the session's browser started, if any.
func (c *call) launchLoginCheck(ctx context.Context, sess *sessions.Session) {
	e, lc := c.e, c.in.LoginCheck
	if lc == nil {
		c.addLoginRun(e.dueLoginCheck(ctx, sess))
		return
	}
	e.Mu.Lock()
	profile := sess.Profile
	if profile == "" {
		sess.Check = storeLoginCheck(lc)
	}
	if lc.Removes() {
		sess.Login = nil
		sess.LoginDue = false
	}
	e.Mu.Unlock()
	if profile == "" {
		e.MarkDirty(sess) // captured with it
	}
	whose := "the session's login check"
	if profile != "" {
		whose = fmt.Sprintf("profile %s's login check", sessions.BareName(profile))
	}
	if lc.Removes() {
		c.res.Notes = append(c.res.Notes, whose+" is removed")
		return
	}
	when := "is kept with the session: it runs now, and whenever the session is resumed"
	if profile != "" {
		when = "is kept with the profile: it runs now, and whenever the profile's browser starts or its session is resumed, on any node"
	}
	c.res.Notes = append(c.res.Notes, whose+" "+when)
	c.addLoginRun(e.checkLogin(ctx, sess))
}

// addLoginRun puts what a login check found in the call's answer.
func (c *call) addLoginRun(r *loginRun) {
	if r == nil {
		return
	}
	if r.note != "" {
		c.res.Notes = append(c.res.Notes, r.note)
	}
	if r.detail != "" {
		c.res.Details = append(c.res.Details, r.detail)
	}
}

// loginStatus is the line status shows for s's last login check, "" when
// none ran. Call with e.Mu held.
func loginStatus(s *sessions.Session) string {
	if s.Login == nil {
		return ""
	}
	return fmt.Sprintf("  session %s: %s\n", s.ID, s.Login.Message)
}

// lastLogin is the last login check of session id when this daemon runs
// (or ran) it, for list_sessions; nil otherwise.
func (e *Engine) lastLogin(id string) *tool.Login {
	e.Mu.Lock()
	defer e.Mu.Unlock()
	if s := e.Sessions[id]; s != nil && s.Login != nil {
		l := *s.Login
		return &l
	}
	return nil
}
