package engine

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/browserd/browserd/internal/admission"
	"github.com/browserd/browserd/internal/browser"
	"github.com/browserd/browserd/internal/policy"
	"github.com/browserd/browserd/internal/snapshot"
	"github.com/browserd/browserd/internal/tool"
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

// outsideFrames are the keys of the tab's frames whose page is outside
// the policy's hosts, and of those inside them (nil without hosts). A
// page on a listed host may frame another site, which the agent then
// neither reads nor acts on. The addresses are read afresh: a frame may
// have been taken elsewhere since the page was read.
func (c *call) outsideFrames(ctx context.Context) (map[string]bool, error) {
	if c.pol == nil || len(c.pol.Hosts) == 0 || c.tab == nil {
		return nil, nil
	}
	frames, err := c.tab.Page.FrameURLs(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	var outside func(key string, depth int) bool
	outside = func(key string, depth int) bool {
		f, ok := frames[key]
		switch {
		case !ok || depth > 64:
			return true
		case f.Parent == "":
			return false // the main frame: outsideHosts and leftHosts hold it
		case c.pol.CheckURL(f.URL).Verdict == policy.Denied:
			return true
		}
		return outside(f.Parent, depth+1)
	}
	for key := range frames {
		if outside(key, 0) {
			out[key] = true
		}
	}
	return out, nil
}

// withinHosts leaves out of frames (the tab's read, main frame first)
// those outsideFrames names; when their addresses cannot be read, only
// the main frame is kept.
func (c *call) withinHosts(ctx context.Context, frames []snapshot.Frame) []snapshot.Frame {
	if c.pol == nil || len(c.pol.Hosts) == 0 || len(frames) < 2 {
		return frames
	}
	gone, err := c.outsideFrames(ctx)
	if err != nil {
		return frames[:1]
	}
	out := make([]snapshot.Frame, 0, len(frames))
	for i, f := range frames {
		if i == 0 || !gone[f.Key] {
			out = append(out, f)
		}
	}
	if n := len(frames) - len(out); n > 0 {
		c.res.Notes = append(c.res.Notes, fmt.Sprintf("%d frame(s) of this page show pages outside the policy's hosts: they are not shown and their elements cannot be used", n))
	}
	return out
}

// frameWithinHosts refuses an element in a frame outsideFrames names, or
// a frame's element showing one, however the call found it (a ref, a role
// and name, a selector, a point).
func (c *call) frameWithinHosts(ctx context.Context, el browser.Elem) error {
	gone, err := c.outsideFrames(ctx)
	if err != nil || gone == nil {
		return err
	}
	// An <iframe> at a point stands for the frame it shows (out of
	// process, what is inside it is not seen from here).
	inner, _ := c.tab.Page.ContentFrameKey(ctx, el)
	if gone[c.tab.Page.KeyOf(el).Frame] || inner != "" && gone[inner] {
		return &tool.Error{Msg: fmt.Sprintf("the element is in a frame showing a page outside the listed hosts, so %s did not run (refused by policy: %s; rule: hosts) — act on the page's own elements", c.in.Action, admission.Source(c.pol.Source))}
	}
	return nil
}

// hideOutside leaves out the address and title of the tabs an answer
// lists (tabs, popups) that are outside the policy's hosts: a popup the
// page opened is named, not quoted.
func (c *call) hideOutside() {
	if c.pol == nil || len(c.pol.Hosts) == 0 {
		return
	}
	hide := func(tabs []tool.Tab) {
		for i, t := range tabs {
			if t.URL != "" && c.pol.CheckURL(t.URL).Verdict == policy.Denied {
				tabs[i].URL, tabs[i].Title = "", ""
				tabs[i].State = strings.TrimSpace(t.State + " (outside the policy's hosts: emptied when an action uses it)")
			}
		}
	}
	hide(c.res.Tabs)
	hide(c.res.Popups)
}
