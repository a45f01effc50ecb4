package engine

import (
	"context"
	"fmt"

	"github.com/browserd/browserd/internal/logincheck"
	"github.com/browserd/browserd/internal/sessions"
)

// Launch's loginCheck (internal/logincheck runs it): kept with the
// profile or the session, run, and put in the call's answer.

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
	if err := c.e.Store.SetProfileLoginCheck(ctx, owner, name, logincheck.Stored(in.LoginCheck)); err != nil {
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
		c.addLoginRun(e.DueLoginCheck(ctx, sess))
		return
	}
	e.Mu.Lock()
	profile := sess.Profile
	if profile == "" {
		sess.Check = logincheck.Stored(lc)
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
	c.addLoginRun(e.RunLoginCheck(ctx, sess))
}

// addLoginRun puts what a login check found in the call's answer.
func (c *call) addLoginRun(r *logincheck.Result) {
	if r == nil {
		return
	}
	if r.Note != "" {
		c.res.Notes = append(c.res.Notes, r.Note)
	}
	if r.Detail != "" {
		c.res.Details = append(c.res.Details, r.Detail)
	}
}
