package engine

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/browserd/browserd/internal/act"
	"github.com/browserd/browserd/internal/browser"
	"github.com/browserd/browserd/internal/codegen"
	"github.com/browserd/browserd/internal/egress"
	"github.com/browserd/browserd/internal/envelope"
	"github.com/browserd/browserd/internal/inject"
	"github.com/browserd/browserd/internal/owners"
	"github.com/browserd/browserd/internal/policy"
	"github.com/browserd/browserd/internal/profiles"
	"github.com/browserd/browserd/internal/recording"
	"github.com/browserd/browserd/internal/recovery"
	"github.com/browserd/browserd/internal/refusals"
	"github.com/browserd/browserd/internal/sessionproxy"
	"github.com/browserd/browserd/internal/sessions"
	"github.com/browserd/browserd/internal/snapshot"
	"github.com/browserd/browserd/internal/store"
	"github.com/browserd/browserd/internal/timing"
	"github.com/browserd/browserd/internal/tool"
	"github.com/browserd/browserd/internal/urlpolicy"
)

// WaitTime is how long wait waits when the call names no timeout.
const WaitTime = 30 * time.Second

// CaptureTime is the least time a screenshot or pdf is given by default:
// a whole long page drawn and encoded (up to 16,384 px of PNG) takes
// seconds on a busy machine, not the moments of an input action.
// Playwright gives its screenshots 30 s too.
const CaptureTime = 30 * time.Second

// call is one action in flight: the input, its task and tab, and the
// result being built.
type call struct {
	e    *Engine
	in   tool.Input
	task *sessions.Task
	tab  *sessions.Tab
	res  tool.Result
	// snapped is set when the action already put a snapshot in Content.
	snapped bool
	// navRefused is set when the guard refused the document the tab ended
	// on (a redirect or a page-made navigation to an internal host).
	navRefused string
	// owner is the caller's owner (see owners.go).
	owner string
	// inj is the state a launch injects (see inject.go).
	inj *inject.Launch
	// opened is set when the call created its session (see open).
	opened bool
	// proxy is launch's upstream proxy, read by prepareProxy; nil for
	// none (or another action).
	proxy *egress.Upstream
	// certs are launch's client certificates, read by prepareClientCerts
	// (clientcert.go); nil for none.
	certs []store.ClientCert
	// proxyFailed is what an upstream proxy did to the requests of the
	// action (see report), for a navigation that failed; "" if nothing.
	proxyFailed string
	// acting is the page-level action running on the tab (internal/act),
	// nil before one starts.
	acting *act.Tab
	// ranOut is set when the call ran out of time (see timedOut): its
	// steps are logged whatever the log level.
	ranOut bool
	// slot is the browser the call's session lives in.
	slot *sessions.Slot
	// started is when the call came in.
	started time.Time
	// secrets are the stored secrets the call types (redact.go).
	secrets map[string]act.Secret
	// mark is where the tab's console and network log stood before the
	// action (recording.go), on the tab marked (nil: none was).
	mark   recording.Mark
	marked *browser.Page
	// ahead is the page as read while the action's reaction settled
	// (readAhead), nil if it was not.
	ahead *readAhead
	// loaded is the new document as read while its load settled
	// (readLoaded), nil if it was not.
	loaded *loadedRead
	// pol is the policy the call runs under (policy.go); nil allows all.
	pol *policy.Policy
	// targets are the call's targets as Playwright locators (codegen.go).
	targets codegen.Targets
}

// userError is an action failure whose message is for the agent as is.
type userError = tool.Error

func fail(format string, args ...any) error { return tool.Fail(format, args...) }

// Do carries out one action. Failures of the action itself come back as a
// Result with Success false and an Error that says what to do next; the
// returned error is only for calls that could not be made at all.
func (e *Engine) Do(ctx context.Context, in tool.Input) (tool.Result, error) {
	res := tool.Result{Action: in.Action}
	if err := in.Validate(); err != nil {
		res.Error = err.Error()
		return res, nil
	}
	return e.do(ctx, in, nil), nil
}

// do runs one call; inj is set by Inject.
func (e *Engine) do(ctx context.Context, in tool.Input, inj *inject.Launch) tool.Result {
	res := tool.Result{Action: in.Action}
	orig := in
	var c *call
	// Where the call's time went, step by step (see timing.Mark): its
	// admission and routing (each marked only when it took a millisecond
	// or more), its session, its browser, its tab, then the action's own
	// steps — in the debug log, and in a warning for a call that ran out
	// of time, whatever the level: where it waited is what its reader
	// needs, and the run that timed out may not come again.
	ctx, steps := timing.Start(ctx)
	defer func() {
		debug := e.Log.Enabled(ctx, slog.LevelDebug)
		if !debug && (c == nil || !c.ranOut) {
			return
		}
		tab := ""
		if c != nil && c.tab != nil {
			tab = c.tab.ID
		}
		attrs := []slog.Attr{slog.String("action", in.Action), slog.String("tab", tab), slog.String("steps", steps.String())}
		if c != nil && c.ranOut {
			e.Log.LogAttrs(ctx, slog.LevelWarn, "action timed out", attrs...)
			return
		}
		e.Log.LogAttrs(ctx, slog.LevelDebug, "action steps", attrs...)
	}()
	began := time.Now()
	slow := func(step string) {
		if time.Since(began) >= time.Millisecond {
			timing.Mark(ctx, step)
		}
	}
	owner, err := owners.For(ctx, e, &in)
	if err != nil {
		res.Error = err.Error()
		e.Counters.Action(in.Action, false, 0)
		return res
	}
	// What the agent writes is never taken for a secret's run when it
	// comes back (redact.Known): redaction answers no questions.
	e.Said(owner, orig)
	pol := e.PolicyOf(ctx)
	slow("owner")
	if err := e.Admit(ctx, owner, orig, pol); err != nil {
		res.Error = err.Error()
		e.Counters.Action(in.Action, false, 0)
		e.Redactor(ctx, owner).Result(&res)
		return res
	}
	slow("admitted")
	if inj == nil {
		// A session another node runs is served there (cluster.go).
		if res, done := e.Forward(ctx, owner, orig, owners.Target(in)); done {
			return res
		}
		slow("routed")
	}
	c = &call{e: e, in: in, res: res, owner: owner, inj: inj, started: time.Now(), pol: pol}
	defer c.endRecord()
	err = c.run(ctx)
	if errors.Is(err, sessions.ErrHeld) && inj == nil {
		// Another node took the session between the routing and the
		// call (both saw its dead node's lease run out; one won).
		if res, done := e.Forward(ctx, owner, orig, owners.Target(in)); done {
			return res
		}
	}
	c.res.Success = err == nil
	e.Counters.Action(in.Action, err == nil, time.Since(c.started))
	if err != nil {
		c.res.Error = c.explain(err)
	}
	c.addCode()
	c.hideOutside()
	owners.Unqualify(owner, &c.res)
	// browserd's own words never quote a credential the call gave.
	c.res.Error = orig.HideSensitive(c.res.Error)
	for i, n := range c.res.Notes {
		c.res.Notes[i] = orig.HideSensitive(n)
	}
	red := e.Redactor(ctx, owner)
	red.Result(&c.res)
	if !e.Cfg.NoWrap {
		envelope.Wrap(&c.res, c.show())
	}
	c.record(red, orig)
	return c.res
}

// show says which of the page's place the answer repeats: its URL and
// title when they differ from what the agent's last answer on the tab
// showed — and the title not when the answer shows the whole page, whose
// first line carries it.
func (c *call) show() envelope.Show {
	sh := envelope.Show{Title: true, URL: true, OwnContent: c.res.Content == NoChanges}
	if c.tab == nil {
		return sh
	}
	c.e.Mu.Lock()
	defer c.e.Mu.Unlock()
	tb := c.tab
	sh.URL = c.res.URL != tb.ShownURL
	sh.Title = c.res.Title != tb.ShownTitle && !strings.HasPrefix(c.res.Content, "document ")
	tb.ShownURL, tb.ShownTitle = c.res.URL, c.res.Title
	return sh
}

// run carries out one call, as a pipeline: calls that need no session
// (status, list_sessions, session_resume); the session (launch prepares
// it first); the task, locked for the call; what the task answers itself
// (close, task_end, tabs); the browser; launch's own work, or the state
// actions; the tab; and the action on the tab with its answer (act).
func (c *call) run(ctx context.Context) error {
	if done, err := c.sessionless(ctx); done {
		return err
	}
	if c.in.Action == "launch" {
		if err := c.prepareLaunch(ctx); err != nil {
			return err
		}
	}
	sess, done, err := c.openSession(ctx)
	if done || err != nil {
		return err
	}
	timing.Mark(ctx, "session")
	ctx, leave, err := c.enterTask(ctx, sess)
	if err != nil {
		return err
	}
	defer leave()
	if done, err := c.taskOnly(ctx, sess); done {
		return err
	}
	sl, err := c.browserFor(ctx, sess)
	if err != nil {
		return err
	}
	timing.Mark(ctx, "browser")
	c.slot = sl
	switch c.in.Action {
	case "launch":
		return c.launched(ctx, sess)
	case "state_save":
		return c.stateSave(ctx)
	case "state_load":
		return c.stateLoad(ctx)
	}
	if err := c.pickTab(ctx, sl); err != nil {
		return err
	}
	timing.Mark(ctx, "tab")
	err = c.act(ctx, sess, sl.Br)
	if errors.Is(err, browser.ErrCrashed) && rereads[c.in.Action] && c.tab != nil && c.tab.Page.Crashed() {
		// The renderer died while the action read the page: its crash
		// was not known yet when the tab was picked, which revives a
		// crashed tab. A read changes nothing, so it is done again on
		// the tab brought back rather than failed.
		if err := c.pickTab(ctx, sl); err != nil {
			return err
		}
		return c.act(ctx, sess, sl.Br)
	}
	return err
}

// rereads are the actions that only read the page: one whose tab's
// renderer crashed while it ran is done again once the tab is back.
var rereads = map[string]bool{"snapshot": true, "extract": true, "screenshot": true, "console": true, "network": true, "pdf": true}

// sessionless answers the calls that need no session; done says it did.
func (c *call) sessionless(ctx context.Context) (done bool, err error) {
	switch c.in.Action {
	case "status": // reads; creates no session
		c.res.Content = c.e.status(ctx, c.owner) + "\n" + c.e.PolicyStatus(ctx)
		return true, nil
	case "list_sessions":
		return true, c.listSessions(ctx)
	case "session_resume":
		return true, c.resume(ctx)
	}
	return false, nil
}

// prepareLaunch is what launch does before its session exists: the
// headless check, the state to inject, and a profile's excluded cookie
// domains — set before its browser starts and puts its saved cookies back.
func (c *call) prepareLaunch(ctx context.Context) error {
	e, in := c.e, c.in
	if err := e.CheckHeadless(&in); err != nil {
		return err
	}
	if err := c.prepareInjection(ctx); err != nil {
		return err
	}
	if err := c.prepareProxy(ctx); err != nil {
		return err
	}
	if err := c.prepareClientCerts(); err != nil {
		return err
	}
	if err := c.keepProfileLoginCheck(ctx); err != nil {
		return err
	}
	if profile := launchProfile(in); profile != "" && in.ExcludeCookieDomains != nil {
		owner, name := sessions.SplitName(profile)
		if err := e.Store.SetProfileExcludes(ctx, owner, name, profiles.NormDomains(in.ExcludeCookieDomains)); err != nil {
			return fmt.Errorf("saving the profile's excluded cookie domains: %w", err)
		}
	}
	return nil
}

// openSession finds or creates the call's session; done says the call
// was answered (a recoverable session closed instead of resumed).
func (c *call) openSession(ctx context.Context) (sess *sessions.Session, done bool, err error) {
	e, in := c.e, c.in
	sess, err = e.sessionFor(ctx, c)
	if err == nil && c.inj != nil {
		c.inj.Created = true
	}
	if errors.Is(err, recovery.ErrClosedStored) {
		c.res.Session = in.Session
		c.res.Content = fmt.Sprintf("closed session %q; it was recoverable and was not resumed", cmp.Or(in.Session, in.Profile, "default"))
		return nil, true, nil
	}
	if err != nil {
		return nil, false, err
	}
	c.res.Session = sess.ID
	if in.Action == "launch" && sess.Profile == "" && in.ExcludeCookieDomains != nil {
		e.Mu.Lock()
		sess.Exclude = profiles.NormDomains(in.ExcludeCookieDomains)
		e.Mu.Unlock()
	}
	if in.Action == "launch" && !c.opened {
		if err := e.sameEnvironment(sess, &in); err != nil {
			return nil, false, err
		}
		if err := e.SameProxy(sess, c.proxy); err != nil {
			return nil, false, err
		}
		if err := c.applyClientCerts(ctx, sess, false); err != nil {
			return nil, false, err
		}
	}
	return sess, false, nil
}

// enterTask takes the call's task for the call: one action at a time per
// task. The context it returns ends when the session is closed meanwhile
// (DELETE /api/sessions); leave gives the task back.
func (c *call) enterTask(ctx context.Context, sess *sessions.Session) (context.Context, func(), error) {
	e := c.e
	t, err := e.TaskFor(sess, c.in.Task)
	if err != nil {
		return ctx, nil, err
	}
	c.task = t
	c.res.Task = t.Name
	t.Run.Lock()
	if c.in.NoCache {
		e.Mu.Lock()
		t.NoCache = true
		pages := []*browser.Page{}
		for _, tb := range t.Tabs {
			if tb.Page != nil {
				pages = append(pages, tb.Page)
			}
		}
		e.Mu.Unlock()
		for _, pg := range pages {
			if err := pg.SetCacheDisabled(ctx, true); err != nil {
				t.Run.Unlock()
				return ctx, nil, fmt.Errorf("turning the HTTP cache off for task %s: %w", t.Name, err)
			}
		}
	}
	ctx, end := context.WithCancelCause(ctx)
	e.Mu.Lock()
	t.Working = true
	t.Stop = end
	gone := sess.Closing || !sess.Stored || e.Sessions[sess.ID] != sess
	e.Mu.Unlock()
	leave := func() {
		e.Mu.Lock()
		t.Working = false
		t.Stop = nil
		t.LastUsed = time.Now()
		e.Mu.Unlock()
		end(nil)
		t.Run.Unlock()
	}
	if gone {
		leave()
		// It was closed (DELETE /api/sessions) while this call waited.
		return ctx, nil, fail("session %q was closed while this call waited; send it again to start the session afresh", sessions.BareName(sess.ID))
	}
	return ctx, leave, nil
}

// taskOnly answers what the task answers itself (close, task_end, tabs);
// done says it did. Every other call reopens an ended task and hears of
// saves that failed.
func (c *call) taskOnly(ctx context.Context, sess *sessions.Session) (done bool, err error) {
	e, t := c.e, c.task
	switch c.in.Action {
	case "close":
		return true, c.closeTask(ctx)
	case "task_end":
		// The task's tabs stay open for a person to review, until closed
		// or reaped by the idle policy.
		e.Mu.Lock()
		t.Ended, t.EndedAt = true, time.Now()
		n := len(t.Tabs)
		e.Mu.Unlock()
		e.MarkDirty(sess)
		until := "until a person closes them"
		if e.Cfg.ReviewGrace > 0 {
			until = fmt.Sprintf("until closed, for %s at most (--review-grace)", e.Cfg.ReviewGrace)
		}
		c.res.Content = fmt.Sprintf("task %q ended; its %d tabs stay open for review %s", t.Name, n, until)
		return true, nil
	}
	e.Mu.Lock()
	t.Ended = false
	saveErr := sess.SaveFailures()
	e.Mu.Unlock()
	if saveErr != "" {
		// Said on every action until a save works again: nothing is lost
		// silently.
		c.res.Notes = append(c.res.Notes, "browserd could not save this session's state lately ("+saveErr+"); its last good save is kept — free disk space (or fix the store) so the next save works")
	}
	if c.in.Action == "tabs" {
		c.res.Tabs = e.TabList(ctx, t)
		return true, nil
	}
	return false, nil
}

// browserFor is the session's browser, started (or brought back after a
// crash) as needed. A new folder session's folder is written before its
// browser starts on it.
func (c *call) browserFor(ctx context.Context, sess *sessions.Session) (*sessions.Slot, error) {
	e := c.e
	if c.in.Action == "launch" {
		if err := c.convertInto(ctx, sess); err != nil {
			return nil, err
		}
		if c.in.ExcludeCookieDomains != nil {
			// They apply as the profile's browser starts.
			e.DropWarm(ctx, sess)
		}
	}
	sl, note, err := e.EnsureBrowser(ctx, sess)
	if note != "" {
		c.res.Notes = append(c.res.Notes, note)
	}
	if err != nil {
		return nil, err
	}
	if note := e.RecoverCrash(ctx, sess); note != "" {
		c.res.Notes = append(c.res.Notes, note)
	}
	if c.in.Action != "launch" {
		// Its browser started, or it was resumed: is it still logged in?
		// (launch checks once the state it injects is in.)
		c.addLoginRun(e.DueLoginCheck(ctx, sess))
	}
	return sl, nil
}

// launched is launch's work once its session's browser runs: its notes,
// the guard's hosts, the window size, HTTP logins, the state to inject;
// it answers with the status.
func (c *call) launched(ctx context.Context, sess *sessions.Session) error {
	e, in := c.e, c.in
	if in.Headless != nil && e.Cfg.CDP != "" {
		c.res.Notes = append(c.res.Notes, "headless is left as it is: the attached browser (--cdp) shows a window or not as it was started")
	}
	if in.ExcludeCookieDomains != nil {
		whose := "session's"
		if sess.Profile != "" {
			whose = "profile's (kept across restarts and nodes)"
		}
		c.res.Notes = append(c.res.Notes, fmt.Sprintf("the %s excluded cookie domains are now %v; their saved cookies are left out whenever saved cookies are put back (the profile's browser starting, a resume, state_load), not removed from a browser that runs", whose, profiles.NormDomains(in.ExcludeCookieDomains)))
	}
	if len(in.AllowHosts)+len(in.BlockHosts)+len(in.OnlyHosts) > 0 {
		if err := e.SetPolicy(sess, &in); err != nil {
			return err
		}
	}
	if in.Width > 0 {
		if err := e.Resize(ctx, sess, in.Width, in.Height); err != nil {
			return err
		}
	}
	if len(in.HTTPCredentials) > 0 {
		if err := c.setCredentials(ctx, sess); err != nil {
			return err
		}
	}
	if c.proxy != nil && c.opened {
		c.res.Notes = append(c.res.Notes, sessionproxy.Note(c.proxy))
		e.MarkDirty(sess)
	}
	if err := c.injectState(ctx, sess); err != nil {
		return err
	}
	// After the state it injects: the check sees the login it brings.
	c.launchLoginCheck(ctx, sess)
	c.res.Content = joinContent(c.res.Content, e.status(ctx, c.owner))
	return nil
}

// act runs the action on the call's tab within its timeout — after the
// person gate, and refused while a dialog blocks the page — then reports
// what it caused and answers with the page (answer).
func (c *call) act(ctx context.Context, sess *sessions.Session, br *browser.Browser) error {
	in := c.in
	timeout := c.e.timeoutOf(in)
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := c.personGate(tctx); err != nil {
		return err
	}
	if err := c.outsideHosts(tctx); err != nil {
		return err
	}
	pg := c.tab.Page
	if err := c.leaveDialogs(tctx); err != nil {
		return err
	}
	if d := pg.Dialog(); d != nil && in.Action != "dialog" && in.Action != "tab_new" && in.Action != "tab_close" && in.Action != "console" && in.Action != "network" {
		c.res.Dialog = toolDialog(d)
		return fail("%s %s dialog is open on tab %s and blocks the page; answer it with the dialog action first", dialogArticle(d.Type), d.Type, c.tab.ID)
	}
	// The dialog action itself must run while the dialog is open.
	actx, stop := tctx, context.CancelFunc(func() {})
	if in.Action != "dialog" {
		actx, stop = pg.ActionContext(tctx)
	}
	defer stop()
	if in.Action != "tab_close" && in.Action != "dialog" {
		// A tab tab_new answered as soon as its document was ready: the
		// rest of its load first, so that this answer shows it. A load
		// that does not end is no reason to refuse the action.
		rctx, cancel := context.WithTimeout(actx, c.e.Cfg.NavTime)
		_ = pg.AwaitRest(rctx)
		cancel()
	}
	started := time.Now()
	opens, navs := pg.WindowOpens(), pg.NavCounts()
	c.markRecord()
	c.resolveTargets(tctx)
	if in.Action == "type" || in.Action == "fill" {
		var err error
		if c.secrets, err = c.resolveSecrets(tctx); err != nil {
			return err
		}
	}

	if changesPage(in.Action) && in.WantsSnapshot() && !newDocument[in.Action] {
		actx = browser.WithMeanwhile(actx, c.readAhead)
	}
	if changesPage(in.Action) && in.WantsSnapshot() && in.Action != "tab_new" {
		actx = browser.WithLoaded(actx, c.readLoaded)
	}
	err := c.dispatch(actx, br)
	timing.Mark(ctx, "acted")
	dialogOpen := errors.Is(context.Cause(actx), browser.ErrDialogOpen) || pg.Dialog() != nil
	if err != nil && dialogOpen && (browser.DialogBlocked(err) || errors.Is(err, context.Canceled)) {
		// The action opened a dialog: report it, not an error.
		if in.Action == "type" || in.Action == "fill" || in.Action == "press" {
			// Keys after the one that opened it were not all typed.
			c.res.Notes = append(c.res.Notes, "a dialog opened before "+in.Action+" finished: answer it, then check what the action did")
		}
		err = nil
	}
	if err != nil && errors.Is(err, context.DeadlineExceeded) {
		err = c.timedOut(ctx, err, in.Action, timeout)
	}
	// The answer is due by the call's timeout plus a short grace to read
	// what the action did: a page that stalls the action cannot stall
	// the answer too.
	answerBy := started.Add(timeout + answerGrace)
	// What the action caused besides its own result.
	if !pg.Closed() {
		sctx, cancel := context.WithDeadline(ctx, earliest(time.Now().Add(time.Second), answerBy))
		_ = pg.Sync(sctx)
		cancel()
	}
	var ne *browser.NavError
	aborted := errors.As(err, &ne) && strings.Contains(ne.Text, "ERR_ABORTED")
	// A navigation the action set off (a click on a link to a file) that
	// committed no document may be a download whose events come later
	// than the page's settle on a busy machine: it is waited for as an
	// aborted navigate's is.
	now := pg.NavCounts()
	uncommitted := now.Requested > navs.Requested && now.Committed == navs.Committed
	c.report(ctx, br, started, pg.WindowOpens()-opens, aborted || uncommitted)
	if aborted && len(c.res.Downloads) > 0 {
		err = nil // the URL was a file: it downloaded instead of loading
		c.res.Notes = append(c.res.Notes, "the URL is a file: it was downloaded, the page did not change")
	}
	if err != nil {
		return err
	}
	if c.navRefused != "" {
		return &userError{Msg: c.navRefused}
	}
	if err := c.leftHosts(ctx); err != nil {
		return err
	}
	defer timing.Mark(ctx, "answered")
	return c.answer(ctx, sess, answerBy)
}

// answer completes a successful action's result: the session marked
// changed (it is saved and captured soon, off this path), an open dialog,
// and for an action that changes the page, the page as it is now, read
// by answerBy at the latest.
func (c *call) answer(ctx context.Context, sess *sessions.Session, answerBy time.Time) error {
	e, in, pg := c.e, c.in, c.tab.Page
	if tabActions[in.Action].changes || tabActions[in.Action].marks {
		e.MarkDirty(sess)
	}
	if d := pg.Dialog(); d != nil {
		c.res.Dialog = toolDialog(d)
		return nil
	}
	if !changesPage(in.Action) || !in.WantsSnapshot() || c.snapped {
		return nil
	}
	// The answer's snapshot takes no longer than the action may: a page
	// loaded by navigate may take as long to read as to load (a table
	// of 1,000 rows takes Chromium 0.6 s to read on a quiet machine,
	// several times that on a loaded one).
	limit := e.timeoutOf(in)
	begun := time.Now()
	by := earliest(begun.Add(limit), answerBy)
	sctx, cancel := context.WithDeadline(ctx, by)
	defer cancel()
	text, err := c.answerSnapshot(sctx)
	if err != nil && errors.Is(err, context.DeadlineExceeded) {
		err = c.timedOut(ctx, err, "reading the page", by.Sub(begun).Round(100*time.Millisecond))
	}
	if err != nil {
		c.res.Notes = append(c.res.Notes, "no snapshot: "+c.explain(err))
	} else {
		c.res.Content = joinContent(c.res.Content, text)
	}
	if in.Action == "tab_new" && in.URL != "" && pg.Loading() {
		// Still, after the read (tab_new answers once the document is
		// ready): said only when the load did not end meanwhile.
		c.res.Notes = append(c.res.Notes, "the page was still loading: this is its document as soon as it was ready; the next action on the tab waits for the rest")
	}
	return nil
}

// answerGrace is how long past its timeout a call may take to read the
// page after its action: a call answers within its timeout plus this.
const answerGrace = 1500 * time.Millisecond

// earliest is the earlier of two times.
func earliest(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// timedOut says why what (an action, or reading the page after it) ran
// out of time, as far as browserd can tell, and what to do next: raising
// the timeout helps a slow site or a busy page, never a page stuck in a
// script (an endless loop), which only leaving it ends.
func (c *call) timedOut(ctx context.Context, err error, what string, timeout time.Duration) error {
	c.ranOut = true
	took := timeout.Round(time.Millisecond)
	switch {
	case errors.Is(err, browser.ErrNoAnswer):
		return fail("%s timed out after %s: the site has not answered yet; the navigation was stopped and the tab shows its previous page — raise timeout (ms) if the site is slow, or check that it is up", what, took)
	case errors.As(err, new(*browser.TreeReadError)):
		return treeTimeout(err, what, took)
	case !c.tab.Page.Responsive(ctx):
		return fail("%s timed out after %s: the page is not responding — a script in it keeps it busy; navigate to another page (browserd stops the script first) or close the tab", what, took)
	}
	return fail("%s timed out after %s; the page may still be busy — raise timeout (ms) or check it with snapshot", what, took)
}

func joinContent(a, b string) string {
	if a == "" {
		return b
	}
	return a + "\n\n" + b
}

// revivalPage is the empty document a crashed tab is brought back with when
// its last page is not to be loaded again. Not about:blank: Chromium
// commits about:blank in a crashed tab without a live renderer, and the
// navigation after it never commits.
const revivalPage = "data:text/html,"

// pickTab chooses the tab the action works on: the tab named by the input,
// the tab a ref belongs to, or the task's active tab (opened when missing).
func (c *call) pickTab(ctx context.Context, sl *sessions.Slot) error {
	e, in, t := c.e, c.in, c.task
	var want *sessions.Tab
	e.Mu.Lock()
	switch {
	case in.Tab != "" && in.Action != "tab_new":
		tb := e.Tabs[sessions.TabKey{Sess: t.Sess.ID, Tab: in.Tab}]
		if tb == nil || tb.Task != t {
			e.Mu.Unlock()
			if tb != nil {
				return fail("tab %s belongs to another task; use the tabs action to list this task's tabs", in.Tab)
			}
			return fail("no tab %s in task %q; use the tabs action to list its tabs", in.Tab, t.Name)
		}
		want = tb
	case in.Ref != "":
		if _, owner, ok := t.Sess.Refs.Lookup(in.Ref); ok {
			if tb := e.Tabs[sessions.TabKey{Sess: t.Sess.ID, Tab: owner}]; tb != nil && tb.Task == t {
				want = tb
			}
		}
	}
	if want == nil && in.Action != "tab_new" {
		want = t.Active
	}
	e.Mu.Unlock()
	// A tab a resume left unloaded opens and loads now — unless the
	// action loads another page in it, or closes it, anyway.
	if want != nil {
		limit := e.Cfg.NavTime
		if in.Timeout > 0 {
			limit = min(limit, time.Duration(in.Timeout)*time.Millisecond)
		}
		if note := e.Wake(ctx, want, in.Action == "navigate" || in.Action == "tab_close", limit); note != "" {
			c.res.Notes = append(c.res.Notes, note)
		}
		e.Mu.Lock()
		opened := want.Page != nil
		e.Mu.Unlock()
		if !opened {
			return fail("tab %s could not be opened again after the resume; try again, or close it (tab_close)", want.ID)
		}
	}
	if want != nil && want.Page.Closed() {
		e.RemoveTab(want)
		want = nil
		if in.Tab != "" {
			return fail("tab %s was closed; use the tabs action to list this task's tabs", in.Tab)
		}
		e.Mu.Lock()
		want = t.Active
		e.Mu.Unlock()
	}
	if want == nil {
		// A navigation the guard refuses opens no tab: the task's first
		// call (or a tab_new with a URL) must not leave an empty one
		// behind, in the task and on the dashboard.
		if in.Action == "navigate" || in.Action == "tab_new" && in.URL != "" {
			if _, err := c.checkNav(ctx, in.URL); err != nil {
				return err
			}
		}
		tb, err := e.NewTab(ctx, sl, t)
		if err != nil {
			return err
		}
		want = tb
	}
	if want.Page.Crashed() {
		tb, note, err := c.revive(ctx, sl, want)
		if err != nil {
			return err
		}
		want = tb
		c.res.Notes = append(c.res.Notes, note)
	}
	c.tab = want
	c.res.Tab = want.ID
	e.Mu.Lock()
	c.res.OnlyTab = len(t.Tabs) == 1 && in.Action != "tab_new" && in.Action != "tab_switch"
	e.Mu.Unlock()
	return nil
}

// revive brings back a tab whose renderer crashed: it loads its last URL
// again — unless the action loads another page anyway: then an empty
// document brings the renderer back without running again what may have
// crashed it (a memory hog would, taking the navigation down with it). A
// tab that does not come back is replaced by a blank one.
func (c *call) revive(ctx context.Context, sl *sessions.Slot, want *sessions.Tab) (*sessions.Tab, string, error) {
	e, in, t := c.e, c.in, c.task
	// The load takes no longer than the action may.
	note := fmt.Sprintf("tab %s had crashed; it was reloaded", want.ID)
	u := want.Page.URL().Unwrap()
	if u == "" || in.Action == "navigate" {
		u = revivalPage
		note = fmt.Sprintf("tab %s had crashed; its renderer was started again", want.ID)
	}
	limit := e.Cfg.NavTime
	if in.Timeout > 0 {
		limit = min(limit, time.Duration(in.Timeout)*time.Millisecond)
	}
	rctx, cancel := context.WithTimeout(ctx, limit)
	err := want.Page.Navigate(rctx, u)
	cancel()
	if err != nil {
		_ = want.Page.Close(ctx)
		e.RemoveTab(want)
		tb, err := e.NewTab(ctx, sl, t)
		if err != nil {
			return nil, "", err
		}
		note = fmt.Sprintf("tab %s had crashed and did not come back; tab %s, a blank one, replaces it", want.ID, tb.ID)
		want = tb
	}
	return want, note, nil
}

// tabAction is what the engine declares of an action done on a tab: the
// function that does it, and what it does to the session.
type tabAction struct {
	do func(c *call, ctx context.Context, br *browser.Browser) error
	// changes: the action changes the page, so its answer shows the page
	// as it is after it (or what changed), and the session is captured.
	changes bool
	// marks: the session is captured after it, though the answer shows
	// no page (evaluate, tab_close).
	marks bool
}

// tabActions are the actions done on a tab, each declared once. The
// others are answered earlier in run: status, list_sessions and
// session_resume need no session; close, task_end and tabs only the task;
// launch, state_save and state_load the browser (TestEveryActionDeclared).
var tabActions = map[string]tabAction{
	"navigate":   {do: (*call).navigate, changes: true},
	"back":       {do: (*call).history, changes: true},
	"forward":    {do: (*call).history, changes: true},
	"reload":     {do: (*call).reload, changes: true},
	"snapshot":   {do: (*call).snapshotAction},
	"click":      {do: onPage((*act.Tab).Click), changes: true},
	"hover":      {do: onPage((*act.Tab).Hover), changes: true},
	"drag":       {do: onPage((*act.Tab).Drag), changes: true},
	"fill":       {do: onPage((*act.Tab).Fill), changes: true},
	"type":       {do: onPage((*act.Tab).Type), changes: true},
	"select":     {do: onPage((*act.Tab).Select), changes: true},
	"press":      {do: onPage((*act.Tab).Press), changes: true},
	"scroll":     {do: onPage((*act.Tab).Scroll), changes: true},
	"handoff":    {do: bare((*call).handoff), changes: true},
	"evaluate":   {do: onPage((*act.Tab).Evaluate), marks: true},
	"extract":    {do: onPage((*act.Tab).Extract)},
	"wait":       {do: onPage((*act.Tab).Wait), changes: true},
	"screenshot": {do: bare((*call).screenshot)},
	"pdf":        {do: bare((*call).pdf)},
	"console":    {do: onPage((*act.Tab).Console)},
	"network":    {do: bare((*call).network)},
	"tab_new":    {do: (*call).tabNew, changes: true},
	"tab_switch": {do: (*call).tabSwitch, changes: true},
	"tab_close":  {do: (*call).tabClose, marks: true},
	"dialog":     {do: (*call).dialog, changes: true},
	"upload":     {do: (*call).uploadAction, changes: true},
	"mouse_move": {do: onPage((*act.Tab).Mouse), changes: true},
	"mouse_down": {do: onPage((*act.Tab).Mouse), changes: true},
	"mouse_up":   {do: onPage((*act.Tab).Mouse), changes: true},
	"emulate":    {do: bare((*call).emulateAction), marks: true}, // internal/emulation
	"route":      {do: bare((*call).routeAction)},                // internal/routes
	"unroute":    {do: bare((*call).routeAction)},
}

// bare adapts an action function that needs no browser.
func bare(f func(*call, context.Context) error) func(*call, context.Context, *browser.Browser) error {
	return func(c *call, ctx context.Context, _ *browser.Browser) error { return f(c, ctx) }
}

// changesPage reports whether an action changes the page (tabActions).
func changesPage(action string) bool { return tabActions[action].changes }

// dispatch runs the call's action on its tab.
func (c *call) dispatch(ctx context.Context, br *browser.Browser) error {
	a, ok := tabActions[c.in.Action]
	if !ok {
		return fail("action %q is not implemented", c.in.Action)
	}
	return a.do(c, ctx, br)
}

func (c *call) navigate(ctx context.Context, _ *browser.Browser) error {
	u, err := c.checkNav(ctx, c.in.URL)
	if err != nil {
		return err
	}
	return c.tab.Page.Navigate(ctx, u)
}

// history goes back or forward.
func (c *call) history(ctx context.Context, _ *browser.Browser) error {
	delta := -1
	if c.in.Action == "forward" {
		delta = 1
	}
	if err := c.tab.Page.History(ctx, delta); err != nil {
		if errors.Is(err, browser.ErrNoHistory) {
			return fail("cannot go %s: no history entry in that direction", c.in.Action)
		}
		return err
	}
	return nil
}

func (c *call) reload(ctx context.Context, _ *browser.Browser) error {
	return c.tab.Page.Reload(ctx)
}

func (c *call) snapshotAction(ctx context.Context, _ *browser.Browser) error {
	in := c.in
	text, err := c.snapshot(ctx, snapshot.Options{Interactive: in.Interactive, Depth: in.Depth, MaxChars: in.MaxChars})
	if err != nil {
		return err
	}
	c.res.Content = text
	c.snapped = true
	return nil
}

// tabNew loads the tab pickTab opened, if given a URL.
func (c *call) tabNew(ctx context.Context, _ *browser.Browser) error {
	if c.in.URL == "" {
		return nil
	}
	u, err := c.checkNav(ctx, c.in.URL)
	if err != nil {
		return err
	}
	// Answered as soon as its document is ready: the rest of its load
	// (images, late requests) is the next action's to wait for.
	return c.tab.Page.NavigateReady(ctx, u)
}

func (c *call) tabSwitch(_ context.Context, _ *browser.Browser) error {
	c.e.Mu.Lock()
	c.task.Active = c.tab
	c.e.Mu.Unlock()
	return nil
}

func (c *call) tabClose(ctx context.Context, _ *browser.Browser) error {
	tb := c.tab
	last := c.e.LastTab(tb)
	if last {
		c.e.EndTabs(tb.Task.Sess)
	}
	if err := closePage(ctx, tb); err != nil && !tb.Page.Closed() {
		if last {
			c.e.Mu.Lock()
			tb.Task.Sess.TabsEnded = false // still open: its saves go on
			c.e.Mu.Unlock()
		}
		return err
	}
	c.e.RemoveTab(tb)
	c.res.Tabs = c.e.TabList(ctx, c.task)
	c.res.Tab = ""
	return nil
}

func (c *call) dialog(ctx context.Context, _ *browser.Browser) error {
	pg := c.tab.Page
	d := pg.Dialog()
	if d == nil {
		return fail("no dialog is open on tab %s", c.tab.ID)
	}
	accept := c.in.Accept == nil || *c.in.Accept
	m := pg.Mark(ctx)
	if err := pg.HandleDialog(ctx, accept, c.in.Text); err != nil {
		return err
	}
	if err := pg.AfterDialog(ctx); err != nil {
		return err
	}
	verb := "accepted"
	if !accept {
		verb = "dismissed"
	}
	c.res.Notes = append(c.res.Notes, fmt.Sprintf("%s the %s dialog", verb, d.Type))
	return pg.Settle(ctx, m)
}

// uploadAction finds the files in the owner's upload folder and sets them.
func (c *call) uploadAction(ctx context.Context, _ *browser.Browser) error {
	files := make([]string, len(c.in.Files))
	for i, f := range c.in.Files {
		p, err := c.e.UploadFile(c.owner, f)
		if err != nil {
			return &userError{Msg: err.Error()}
		}
		files[i] = p
	}
	return onPage(func(t *act.Tab, ctx context.Context) error {
		el, err := t.Target(ctx)
		if err != nil {
			return err
		}
		return t.Upload(ctx, el, files)
	})(c, ctx, nil)
}

// report adds what happened during the action besides its own result:
// popups the page opened and downloads it started. aborted says the
// action's navigation was aborted, as one that turns into a download is:
// the download's events may come a moment after.
func (c *call) report(ctx context.Context, br *browser.Browser, since time.Time, opened int, aborted bool) {
	e := c.e
	// Windows the page opened are adopted by the browser's event goroutine;
	// give them a moment to arrive so this result can name them.
	for wait := time.Now().Add(2 * time.Second); opened > 0 && time.Now().Before(wait); time.Sleep(10 * time.Millisecond) {
		e.Mu.Lock()
		n := len(c.task.Popups)
		e.Mu.Unlock()
		if n >= opened {
			break
		}
	}
	c.reportDownloads(ctx, br, since, aborted)
	e.Mu.Lock()
	pops := c.task.Popups
	c.task.Popups = nil
	e.Mu.Unlock()
	for _, p := range pops {
		url, title := e.TabInfo(ctx, p)
		// A popup whose first document has not committed yet has no URL:
		// it gets a moment (one a refused or endless load does not make
		// every answer wait out), so that the answer — and a tabs call
		// right after it — says where it went.
		for wait := time.Now().Add(300 * time.Millisecond); url.Unwrap() == "" && time.Now().Before(wait) && ctx.Err() == nil; {
			time.Sleep(10 * time.Millisecond)
			url, title = e.TabInfo(ctx, p)
		}
		c.res.Popups = append(c.res.Popups, tool.Tab{ID: p.ID, Task: c.task.Name, URL: url.Unwrap(), Title: title.Unwrap()})
	}
	if c.tab != nil && !c.tab.Page.Closed() {
		url, title, _ := c.tab.Page.Info(ctx)
		c.res.URL, c.res.Title = url.Unwrap(), title.Unwrap()
	}
	c.navRefused = ""
	if c.tab != nil {
		c.res.Blocked = append(c.res.Blocked, c.tab.Page.TakeBlocked()...)
		sends := c.in.Action == "click" || c.in.Action == "press" || c.in.Action == "type" && c.in.Submit
		notes, details := refusals.Invalid(sends, c.tab.Page.TakeInvalid())
		c.res.Notes, c.res.Details = append(c.res.Notes, notes...), append(c.res.Details, details...)
	}
	c.reportEgress()
}

// reportDownloads adds the downloads the action started since, giving
// one that started a moment to finish, within the action's time, and —
// aborted: the action's navigation became no document — one that may be
// on its way a moment to start.
func (c *call) reportDownloads(ctx context.Context, br *browser.Browser, since time.Time, aborted bool) {
	e := c.e
	var frames map[string]bool
	if c.tab != nil {
		frames = c.tab.Page.Frames()
	}
	downloads := br.Downloads(since, frames)
	deadline := time.Now().Add(min(e.Cfg.ActionTime, 10*time.Second))
	startBy := time.Now().Add(time.Second)
	for (pending(downloads) || aborted && len(downloads) == 0 && time.Now().Before(startBy)) && time.Now().Before(deadline) && ctx.Err() == nil {
		time.Sleep(50 * time.Millisecond)
		downloads = br.Downloads(since, frames)
	}
	for _, d := range downloads {
		c.res.Downloads = append(c.res.Downloads, tool.Download{URL: d.URL, Path: d.Path, Size: d.Size, Done: d.State == "completed"})
	}
}

// reportEgress adds what the session's guard and proxy refused or failed
// while the action ran (internal/refusals).
func (c *call) reportEgress() {
	e := c.e
	e.Mu.Lock()
	eg, own := c.task.Sess.Egress, c.task.Sess.Proxy != nil
	e.Mu.Unlock()
	if eg == nil || (c.slot != nil && c.slot.Br != nil && c.slot.Br.Attached() && c.task.Sess.CtxID == "") {
		return
	}
	a := refusals.Action{PageURL: c.res.URL, OwnProxy: own, NavRefused: c.navRefused}
	if c.in.Action == "navigate" || c.in.Action == "tab_new" {
		a.AskedURL = c.in.URL
	}
	r := refusals.FromEgress(eg, a)
	c.res.Blocked = append(c.res.Blocked, r.Blocked...)
	c.res.Details = append(c.res.Details, r.Details...)
	c.res.Notes = append(c.res.Notes, r.Notes...)
	c.navRefused = r.NavRefused
	if c.proxyFailed == "" {
		c.proxyFailed = r.ProxyFailed
	}
}

// checkNav checks a URL the agent wants to open: scheme, then the
// session's guard policy (the same check the proxy makes at dial time, made
// early for a clear error).
func (c *call) checkNav(ctx context.Context, raw string) (string, error) {
	u, err := c.e.CheckURL(ctx, c.task.Sess, raw)
	if err != nil {
		return "", err
	}
	return u, c.checkHosts(u)
}

// CheckURL checks a URL to open in one of s's tabs (checkNav; a login
// check's page: logincheck.Pages; a CDP client's navigation).
func (e *Engine) CheckURL(ctx context.Context, s *sessions.Session, raw string) (string, error) {
	u, err := urlpolicy.Parse(raw)
	if err != nil {
		return "", &userError{Msg: err.Error()}
	}
	if u.Scheme == "about" {
		return u.String(), nil
	}
	e.Mu.Lock()
	pol := s.Policy
	e.Mu.Unlock()
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	d := pol.Check(ctx, e.Resolver, u.Hostname(), port)
	if !d.Allowed {
		msg := fmt.Sprintf("navigation to %s refused: %s", u, d.Reason)
		if d.Hint != "" {
			msg += "; " + d.Hint
		}
		return "", &userError{Msg: msg}
	}
	e.Mu.Lock()
	eg := s.Egress
	e.Mu.Unlock()
	if eg != nil && eg.IsUpstream(ctx, d) {
		return "", &userError{Msg: fmt.Sprintf("navigation to %s refused: it is the session's upstream proxy, which only browserd itself uses", u)}
	}
	return u.String(), nil
}

func pending(ds []browser.Download) bool {
	for _, d := range ds {
		if d.State == "inProgress" || d.State == "" {
			return true
		}
	}
	return false
}

// explain turns an error into the sentence an agent reads: what happened
// and what to do next.
func (c *call) explain(err error) string {
	if errors.Is(err, ErrSessionClosed) {
		return "the session was closed while " + c.in.Action + " ran; it was stopped where it was"
	}
	var ne *browser.NavError
	if errors.As(err, &ne) {
		// The URL is named only when the agent gave it: a reload's or
		// a lazy tab's is the page's choice.
		failed := ne.Error()
		if c.in.URL != "" {
			failed = fmt.Sprintf("navigation to %s failed: %s", c.in.URL, ne.Text)
		}
		if strings.Contains(ne.Text, "ERR_INVALID_AUTH_CREDENTIALS") {
			return fmt.Sprintf("%s: the site asks for a user name and password (HTTP authentication) and has none, or refused the one given; give one with launch httpCredentials [{origin, username, password}]", failed)
		}
		if c.proxyFailed != "" {
			return fmt.Sprintf("%s: %s", failed, c.proxyFailed)
		}
		return fmt.Sprintf("%s; check the URL, or that the site is up", failed)
	}
	t := c.acting
	if t == nil {
		t = c.onTab()
	}
	if msg, ok := t.Explain(err); ok {
		return msg
	}
	switch {
	case errors.Is(err, browser.ErrClosedTab) && c.slot != nil && c.slot.Br != nil && isDone(c.slot.Br.Done()):
		return fmt.Sprintf("the browser exited (%s); the next action starts a new one", c.slot.Br.DeathReason())
	case errors.Is(err, browser.ErrClosedTab):
		return "the tab was closed; use the tabs action to list the task's tabs"
	case errors.Is(err, sessions.ErrClosed):
		return "browserd is shutting down; retry once it is back"
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Sprintf("%s timed out; raise timeout (ms) or check the page with snapshot", c.in.Action)
	}
	return err.Error()
}

// closeTask closes the task's tabs. The session is captured (always on
// close); when no task of it keeps a tab, it is closed in the store too.
func (c *call) closeTask(ctx context.Context) error {
	e, t, s := c.e, c.task, c.task.Sess
	e.Mu.Lock()
	tabs := append([]*sessions.Tab(nil), t.Tabs...)
	others := false
	for _, x := range s.Tasks {
		others = others || x != t && len(x.Tabs) > 0
	}
	e.Mu.Unlock()
	if !others {
		if err := e.CaptureSession(ctx, s); err != nil {
			e.Log.Warn("capturing a session on close failed", "session", s.ID, "err", err)
		}
		// A profile's state is saved while its tabs are open: session
		// cookies end with the last tab.
		if err := e.SaveProfileState(ctx, s); err != nil {
			e.Log.Warn("saving profile state on close failed", "profile", s.Profile, "err", err)
		}
		// No save of the saver's may read the jar as the tabs close.
		e.EndTabs(s)
	}
	for _, tb := range tabs {
		_ = closePage(ctx, tb)
		e.RemoveTab(tb)
	}
	e.Recorder.DropTask(s.ID, t.Name) // kept as long as the task's tabs
	e.Mu.Lock()
	if s.Tasks[t.Name] == t {
		delete(s.Tasks, t.Name) // status no longer lists it (a new call by its name starts it afresh)
	}
	e.Mu.Unlock()
	c.res.Content = fmt.Sprintf("closed task %q (%d tabs)", t.Name, len(tabs))
	if others {
		if err := e.CaptureSession(ctx, s); err != nil {
			e.Log.Warn("capturing a session on close failed", "session", s.ID, "err", err)
		}
		return nil
	}
	e.Mu.Lock()
	stored := s.Stored
	s.Stored = false
	e.Mu.Unlock()
	if stored {
		if err := e.Store.SetState(ctx, s.ID, store.Closed, "closed by the agent"); err != nil {
			return err
		}
		_ = e.Store.ReleaseLease(ctx, s.ID, e.Node)
		c.res.Content += fmt.Sprintf("; session %q has no tab left and is closed", sessions.BareName(s.ID))
	}
	// Close ends what it started (source 001): a browser no session uses
	// any more exits now, not after the idle timeout.
	e.Mu.Lock()
	key := e.SlotKey(s)
	e.Mu.Unlock()
	if closed := e.StopUnused(ctx, key, c.started); len(closed) > 0 {
		c.res.Content += "; no session uses its browser any more, so the browser exited (state saved); the next action starts one"
	}
	return nil
}

// status describes the daemon's browsers, sessions, tasks and tabs as
// owner may see them (internal/status).
func (e *Engine) status(_ context.Context, owner string) string { return e.StatusText(owner) }

// screenshot and pdf save into the owner's folders (internal/act takes
// the picture).
func (c *call) screenshot(ctx context.Context) error {
	path, err := c.e.DataFile(c.owner, "screenshots", c.in.Path, fmt.Sprintf("%s-%s.png", c.tab.ID, browser.Stamp(time.Now())), ".png")
	if err != nil {
		return &userError{Msg: err.Error()}
	}
	return c.onTab().Screenshot(ctx, path)
}

func (c *call) pdf(ctx context.Context) error {
	path, err := c.e.DataFile(c.owner, "pdf", c.in.Path, fmt.Sprintf("%s-%s.pdf", c.tab.ID, browser.Stamp(time.Now())), ".pdf")
	if err != nil {
		return &userError{Msg: err.Error()}
	}
	return c.onTab().PDF(ctx, path)
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func isDone(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// dialogArticle is "an" before a dialog type that starts with a vowel
// (alert), else "a" (confirm, prompt, beforeunload).
// leavesPage are the actions that leave the tab's page: a dialog that
// blocks it does not stop them (see leaveDialogs).
var leavesPage = map[string]bool{"navigate": true, "reload": true, "back": true, "forward": true, "tab_close": true}

// leaveDialogs dismisses, for an action that leaves the page, the dialog
// that blocks it — and the next ones of a page that opens them in a loop
// (`for(;;) alert(1)`), which would otherwise trap the tab — and says so
// in the answer's notes. Other actions are left to the dialog gate.
func (c *call) leaveDialogs(ctx context.Context) error {
	pg := c.tab.Page
	d := pg.Dialog()
	if d == nil || !leavesPage[c.in.Action] {
		return nil
	}
	n, err := pg.LeaveDialogs(ctx)
	if err != nil {
		c.res.Dialog = toolDialog(d)
		return fail("%s %s dialog blocks the page on tab %s and could not be dismissed to %s (%v); answer it with the dialog action", dialogArticle(d.Type), d.Type, c.tab.ID, c.in.Action, err)
	}
	more := ""
	switch {
	case pg.Crashed():
		more = fmt.Sprintf(" (the page kept opening them: after %d its renderer was stopped)", n)
	case n > 1:
		more = fmt.Sprintf(" (%d in all: the page opened one after another)", n)
	}
	c.res.Notes = append(c.res.Notes, fmt.Sprintf("%s %s dialog blocked the page; it was dismissed%s so that %s could leave the page", dialogArticle(d.Type), d.Type, more, c.in.Action))
	return nil
}

func dialogArticle(typ string) string {
	if typ != "" && strings.ContainsRune("aeiou", rune(typ[0])) {
		return "an"
	}
	return "a"
}

// launchProfile is the profile a launch runs in (names qualified): its
// profile, or "default" when it names no session either; "" for an
// ephemeral session.
func launchProfile(in tool.Input) string {
	switch {
	case in.Profile != "":
		return in.Profile
	case in.Session == "":
		return "default"
	}
	return ""
}

// timeoutOf is how long a call may take: the agent's timeout, else the
// action's default — --nav-timeout for what loads a page, source 001's
// 30 s for wait (never shorter than the time it asked to sleep),
// HandoffTime for handoff, --action-timeout for the rest.
func (e *Engine) timeoutOf(in tool.Input) time.Duration {
	asked := time.Duration(in.Timeout) * time.Millisecond
	switch in.Action {
	case "wait":
		return max(cmp.Or(asked, WaitTime), time.Duration(in.Time)*time.Millisecond+time.Second)
	case "handoff":
		return cmp.Or(asked, HandoffTime)
	case "navigate", "back", "forward", "reload", "tab_new":
		return cmp.Or(asked, e.Cfg.NavTime)
	case "screenshot", "pdf":
		return cmp.Or(asked, max(e.Cfg.ActionTime, CaptureTime))
	}
	return cmp.Or(asked, e.Cfg.ActionTime)
}
