package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/browserd/browserd/internal/admission"
	"github.com/browserd/browserd/internal/policy"
)

// The hosts a tab may be on (the call's policy's, policy.CheckURL),
// checked as the call goes; whether the call runs at all is
// internal/admission's (Admit, before the call).

// checkHosts fails a navigation the call's policy refuses (its hosts).
func (c *call) checkHosts(u string) error {
	if d := c.pol.CheckURL(u); d.Verdict == policy.Denied {
		return &userError{Msg: d.Message("navigation to " + u)}
	}
	return nil
}

// outsideHosts refuses an action on a tab that is already outside the
// policy's hosts — a popup the page opened, a tab a resume brought back —
// before it reads anything: the tab is emptied. Opening a listed page
// in it, or closing it, goes ahead.
func (c *call) outsideHosts(ctx context.Context) error {
	if c.pol == nil || len(c.pol.Hosts) == 0 || c.tab == nil || c.tab.Page.Closed() {
		return nil
	}
	switch c.in.Action {
	case "navigate", "tab_new", "tab_close", "tab_switch":
		return nil
	}
	u, _, err := c.tab.Page.Info(ctx)
	if err != nil {
		return nil // the action finds out; leftHosts checks after it
	}
	d := c.pol.CheckURL(u.Unwrap())
	if d.Verdict != policy.Denied {
		return nil
	}
	c.res.URL = u.Unwrap()
	c.emptyTab(ctx)
	return &userError{Msg: fmt.Sprintf("tab %s is on a page outside the listed hosts (one the page opened or led it to), so it was emptied (about:blank) and %s did not run; the address is in the details (refused by policy: %s; rule: %s) — navigate to a listed host", c.tab.ID, c.in.Action, admission.Source(d.Source), d.Rule)}
}

// emptyTab replaces the page of the call's tab, which is outside the
// policy's hosts, by about:blank, and drops what the answer holds of it.
func (c *call) emptyTab(ctx context.Context) {
	bctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := c.tab.Page.Navigate(bctx, "about:blank"); err != nil {
		c.e.Log.Warn("emptying a tab that left the policy's hosts failed", "tab", c.tab.ID, "err", err)
	}
	c.res.Details = append(c.res.Details, "outside the listed hosts: "+c.res.URL)
	c.res.URL, c.res.Title, c.res.Content = "about:blank", "", ""
	c.res.Image, c.res.ScreenshotPath, c.res.ScreenshotURL, c.res.Path, c.res.PDFURL = nil, "", "", "", ""
	c.e.Mu.Lock()
	c.tab.LastSnap, c.tab.LastFrames, c.tab.Journal = "", nil, 0
	c.e.Mu.Unlock()
}

// leftHosts empties the call's tab when the page took it outside the
// policy's hosts (a link, a redirect, a script): the page is replaced by
// about:blank and the call fails, naming the rule. The request that left
// was made; what the page would have shown is not read.
func (c *call) leftHosts(ctx context.Context) error {
	if c.pol == nil || len(c.pol.Hosts) == 0 || c.tab == nil || c.tab.Page.Closed() || c.res.URL == "" {
		return nil
	}
	d := c.pol.CheckURL(c.res.URL)
	if d.Verdict != policy.Denied {
		return nil
	}
	c.emptyTab(ctx)
	return &userError{Msg: fmt.Sprintf("the page led the tab outside the listed hosts, so it was emptied (about:blank); the address is in the details (refused by policy: %s; rule: %s) — navigate to a listed host", admission.Source(d.Source), d.Rule)}
}
