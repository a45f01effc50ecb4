package cdpproxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/chromedp/cdproto/target"

	"github.com/browserd/browserd/internal/cdp"
)

// targetParams are the params of the commands emulate answers.
type targetParams struct {
	TargetID         string           `json:"targetId"`
	SessionID        target.SessionID `json:"sessionId"`
	URL              string           `json:"url"`
	BrowserContextID string           `json:"browserContextId"`
	Discover         bool             `json:"discover"`
	AutoAttach       bool             `json:"autoAttach"`
	Flatten          *bool            `json:"flatten"`
	ProxyServer      string           `json:"proxyServer"`
}

// emulated are the commands browserd answers itself: the Target domain
// over the task's pages, and the download behaviour (downloads go to the
// session's download folder, whatever the client asks).
var emulated = map[string]func(c *client, ctx context.Context, cmd command, p *targetParams) (any, error){
	"Browser.setDownloadBehavior":  answered,
	"Page.setDownloadBehavior":     answered,
	"Target.setDiscoverTargets":    (*client).setDiscoverTargets,
	"Target.setAutoAttach":         (*client).setAutoAttach,
	"Target.getTargets":            (*client).getTargets,
	"Target.getTargetInfo":         (*client).getTargetInfo,
	"Target.attachToBrowserTarget": (*client).attachToBrowserTarget,
	"Target.attachToTarget":        (*client).attachToTarget,
	"Target.detachFromTarget":      (*client).detachFromTarget,
	"Target.createTarget": func(c *client, ctx context.Context, _ command, p *targetParams) (any, error) {
		id, err := c.createTarget(ctx, p.URL, p.BrowserContextID)
		return map[string]any{"targetId": id}, err
	},
	"Target.closeTarget": func(c *client, ctx context.Context, cmd command, p *targetParams) (any, error) {
		if err := c.own(cmd, &p.TargetID); err != nil {
			return nil, err
		}
		return map[string]any{"success": true}, c.conn.Browser().Call(ctx, "Target.closeTarget", map[string]any{"targetId": p.TargetID}, nil)
	},
	"Target.activateTarget":        (*client).onOwnTarget,
	"Target.autoAttachRelated":     (*client).onOwnTarget,
	"Browser.getWindowForTarget":   (*client).onOwnTarget,
	"Target.createBrowserContext":  (*client).createBrowserContext,
	"Target.disposeBrowserContext": (*client).disposeBrowserContext,
	"Target.getBrowserContexts": func(c *client, _ context.Context, _ command, _ *targetParams) (any, error) {
		c.mu.Lock()
		defer c.mu.Unlock()
		ids := []string{}
		for id := range c.contexts {
			ids = append(ids, id)
		}
		return map[string]any{"browserContextIds": ids}, nil
	},
}

func answered(*client, context.Context, command, *targetParams) (any, error) { return struct{}{}, nil }

// emulate answers a command of emulated.
func (c *client) emulate(ctx context.Context, cmd command) (any, error) {
	var p targetParams
	if len(cmd.Params) > 0 {
		if err := json.Unmarshal(cmd.Params, &p); err != nil {
			return nil, fmt.Errorf("its params are not what the protocol says: %w", err)
		}
	}
	h, ok := emulated[cmd.Method]
	if !ok {
		return nil, errors.New("not offered by browserd's CDP endpoint")
	}
	return h(c, ctx, cmd, &p)
}

// setDiscoverTargets announces the client's pages, now and as they come.
func (c *client) setDiscoverTargets(ctx context.Context, _ command, p *targetParams) (any, error) {
	c.refreshPages(ctx)
	c.mu.Lock()
	c.discover = p.Discover
	pages := c.pageList()
	c.mu.Unlock()
	if p.Discover {
		for _, id := range pages {
			c.announce(ctx, id)
		}
	}
	return struct{}{}, nil
}

// setAutoAttach attaches the client to its pages, now and as they come
// (browser level; a page's own auto-attach goes to Chromium).
func (c *client) setAutoAttach(ctx context.Context, _ command, p *targetParams) (any, error) {
	if p.Flatten != nil && !*p.Flatten {
		return nil, errors.New("only flat sessions are offered: send flatten: true")
	}
	c.refreshPages(ctx)
	c.mu.Lock()
	c.autoAttach = p.AutoAttach
	pages := c.pageList()
	c.mu.Unlock()
	if p.AutoAttach {
		for _, id := range pages {
			if err := c.autoAttachTo(ctx, id); err != nil {
				c.log.Debug("cdp: auto-attach failed", "target", id, "error", err)
			}
		}
	}
	return struct{}{}, nil
}

// getTargets lists the client's pages.
func (c *client) getTargets(ctx context.Context, _ command, _ *targetParams) (any, error) {
	c.refreshPages(ctx)
	c.mu.Lock()
	pages := c.pageList()
	c.mu.Unlock()
	infos := []json.RawMessage{}
	for _, id := range pages {
		if info, err := c.info(ctx, id); err == nil {
			infos = append(infos, info)
		}
	}
	return map[string]any{"targetInfos": infos}, nil
}

// getTargetInfo is the browser's info, or one of the client's pages'.
func (c *client) getTargetInfo(ctx context.Context, cmd command, p *targetParams) (any, error) {
	if p.TargetID == "" && cmd.SessionID == "" {
		var r cdp.Raw
		err := c.conn.Browser().Call(ctx, "Target.getTargetInfo", nil, &r)
		return json.RawMessage(r), err
	}
	if err := c.own(cmd, &p.TargetID); err != nil {
		return nil, err
	}
	info, err := c.info(ctx, p.TargetID)
	return map[string]any{"targetInfo": info}, err
}

// attachToBrowserTarget opens a session of the client's own at the
// browser level, filtered as the connection's browser level is.
func (c *client) attachToBrowserTarget(ctx context.Context, _ command, _ *targetParams) (any, error) {
	c.mu.Lock()
	c.browserSessions++
	sid := target.SessionID(fmt.Sprintf("BROWSERD-BROWSER-%d", c.browserSessions))
	c.sessions[sid] = browserTarget
	c.mu.Unlock()
	var info struct {
		TargetInfo json.RawMessage `json:"targetInfo"`
	}
	var r cdp.Raw
	if err := c.conn.Browser().Call(ctx, "Target.getTargetInfo", nil, &r); err != nil {
		return nil, err
	}
	_ = json.Unmarshal(r, &info)
	c.event("", "Target.attachedToTarget", map[string]any{"sessionId": sid, "targetInfo": info.TargetInfo, "waitingForDebugger": false})
	return map[string]any{"sessionId": sid}, nil
}

// attachToTarget attaches the client to one of its pages.
func (c *client) attachToTarget(ctx context.Context, cmd command, p *targetParams) (any, error) {
	if err := c.own(cmd, &p.TargetID); err != nil {
		return nil, err
	}
	if p.Flatten == nil || !*p.Flatten {
		return nil, errors.New("only flat sessions are offered: send flatten: true")
	}
	sid, err := c.attach(ctx, p.TargetID, target.SessionID(cmd.SessionID))
	return map[string]any{"sessionId": sid}, err
}

// detachFromTarget ends one of the client's sessions.
func (c *client) detachFromTarget(ctx context.Context, cmd command, p *targetParams) (any, error) {
	c.mu.Lock()
	_, mine := c.top[p.SessionID]
	virtual := c.sessions[p.SessionID] == browserTarget
	if virtual {
		delete(c.sessions, p.SessionID)
	}
	c.mu.Unlock()
	if virtual {
		c.event(target.SessionID(cmd.SessionID), "Target.detachedFromTarget", map[string]any{"sessionId": p.SessionID})
		return struct{}{}, nil
	}
	if !mine {
		return nil, fmt.Errorf("session %s is not one of this connection's", p.SessionID)
	}
	return struct{}{}, c.conn.Browser().Call(ctx, "Target.detachFromTarget", map[string]any{"sessionId": p.SessionID}, nil)
}

// onOwnTarget passes a command about one of the client's pages on.
func (c *client) onOwnTarget(ctx context.Context, cmd command, p *targetParams) (any, error) {
	if err := c.own(cmd, &p.TargetID); err != nil {
		return nil, err
	}
	var params map[string]any
	_ = json.Unmarshal(cmd.Params, &params)
	if params == nil {
		params = map[string]any{}
	}
	params["targetId"] = p.TargetID
	var r cdp.Raw
	err := c.conn.Browser().Call(ctx, cmd.Method, params, &r)
	return json.RawMessage(r), err
}

// createBrowserContext makes a context of the session's, behind its guard.
func (c *client) createBrowserContext(ctx context.Context, _ command, p *targetParams) (any, error) {
	if p.ProxyServer != "" {
		return nil, errors.New("a context's own proxyServer would pass by browserd's guard: leave it out (the context's traffic goes through the session's guard and proxy, as every page's)")
	}
	id, err := c.task.NewContext(ctx)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.contexts[id] = true
	c.mu.Unlock()
	return map[string]any{"browserContextId": id}, nil
}

// disposeBrowserContext disposes of a context the client made.
func (c *client) disposeBrowserContext(ctx context.Context, _ command, p *targetParams) (any, error) {
	c.mu.Lock()
	mine := c.contexts[p.BrowserContextID]
	delete(c.contexts, p.BrowserContextID)
	c.mu.Unlock()
	if !mine {
		return nil, fmt.Errorf("browser context %s was not created by this connection", p.BrowserContextID)
	}
	return struct{}{}, c.task.DisposeContext(ctx, p.BrowserContextID)
}

// own fails a target that is not one of the client's pages; a command on
// a page's session with no targetId is about that page.
func (c *client) own(cmd command, id *string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if *id == "" && cmd.SessionID != "" {
		*id = c.sessions[target.SessionID(cmd.SessionID)]
	}
	if *id == "" || !c.pages[*id] {
		return fmt.Errorf("no target %q among this task's pages (Target.getTargets lists them)", *id)
	}
	return nil
}

// refreshPages takes in the task's tabs opened since the client came (an
// agent's tab_new in the same task): they are the client's pages too.
func (c *client) refreshPages(ctx context.Context) {
	ids, err := c.task.Pages(ctx)
	if err != nil {
		return
	}
	c.mu.Lock()
	for _, id := range ids {
		c.pages[id] = true
	}
	c.mu.Unlock()
}

// pageList is the client's pages; c.mu held.
func (c *client) pageList() []string {
	ids := make([]string, 0, len(c.pages))
	for id := range c.pages {
		ids = append(ids, id)
	}
	return ids
}

// info is a page's TargetInfo, as Chromium says it now.
func (c *client) info(ctx context.Context, id string) (json.RawMessage, error) {
	var r struct {
		TargetInfo json.RawMessage `json:"targetInfo"`
	}
	var raw cdp.Raw
	if err := c.conn.Browser().Call(ctx, "Target.getTargetInfo", map[string]any{"targetId": id}, &raw); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, err
	}
	return r.TargetInfo, nil
}

// announce sends targetCreated for a page once.
func (c *client) announce(ctx context.Context, id string) {
	c.mu.Lock()
	done := c.announced[id]
	c.announced[id] = true
	c.mu.Unlock()
	if done {
		return
	}
	if info, err := c.info(ctx, id); err == nil {
		c.event("", "Target.targetCreated", map[string]any{"targetInfo": info})
	}
}

// attach opens a flat session of the client's own with the page, relayed
// to it, and tells it so (Target.attachedToTarget) on parent: the session
// that asked, as Chromium does — the connection's own ("") or a browser
// session of the client's (Playwright's newCDPSession asks on one).
func (c *client) attach(ctx context.Context, id string, parent target.SessionID) (target.SessionID, error) {
	var r struct {
		SessionID target.SessionID `json:"sessionId"`
	}
	if err := c.conn.Browser().Call(ctx, "Target.attachToTarget", map[string]any{"targetId": id, "flatten": true}, &r); err != nil {
		return "", err
	}
	c.conn.SetRelay(r.SessionID, c.relay)
	c.mu.Lock()
	c.sessions[r.SessionID] = id
	c.top[r.SessionID] = parent
	c.mu.Unlock()
	info, err := c.info(ctx, id)
	if err != nil {
		return "", err
	}
	c.event(parent, "Target.attachedToTarget", map[string]any{"sessionId": r.SessionID, "targetInfo": info, "waitingForDebugger": false})
	return r.SessionID, nil
}

// attaching is an auto-attach of one page: done is closed once sid or
// err is set.
type attaching struct {
	done chan struct{}
	sid  target.SessionID
	err  error
}

// autoAttachTo attaches a page once, as auto-attach does: of callers at
// once (createTarget and the page's targetCreated), one attaches and the
// others wait for it — a client waits for the page's attachedToTarget
// before createTarget's answer.
func (c *client) autoAttachTo(ctx context.Context, id string) error {
	c.mu.Lock()
	a, found := c.attachedTo[id]
	if !found {
		a = &attaching{done: make(chan struct{})}
		c.attachedTo[id] = a
	}
	c.mu.Unlock()
	if found {
		select {
		case <-a.done:
			return a.err
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	a.sid, a.err = c.attach(ctx, id, "")
	if a.err != nil {
		c.mu.Lock()
		delete(c.attachedTo, id)
		c.mu.Unlock()
	}
	close(a.done)
	return a.err
}

// createTarget opens a page: a tab of the task in the session's context,
// or a page of a context the client created. Clients wait for its
// attachedToTarget (and targetCreated) before the answer, as Chromium
// sends them.
func (c *client) createTarget(ctx context.Context, url, ctxID string) (string, error) {
	if url == "" {
		url = "about:blank"
	}
	var id string
	if ctxID != "" && ctxID != c.task.ContextID() {
		c.mu.Lock()
		mine := c.contexts[ctxID]
		c.mu.Unlock()
		if !mine {
			return "", fmt.Errorf("browser context %s is not this session's", ctxID)
		}
		if err := c.task.CheckURL(ctx, url); err != nil {
			return "", err
		}
		var r struct {
			TargetID string `json:"targetId"`
		}
		if err := c.conn.Browser().Call(ctx, "Target.createTarget", map[string]any{"url": url, "browserContextId": ctxID}, &r); err != nil {
			return "", err
		}
		id = r.TargetID
	} else {
		var err error
		if id, err = c.task.NewPage(ctx, url); err != nil {
			return "", err
		}
	}
	c.mu.Lock()
	c.pages[id] = true
	discover, auto := c.discover, c.autoAttach
	c.mu.Unlock()
	if discover {
		c.announce(ctx, id)
	}
	if auto {
		if err := c.autoAttachTo(ctx, id); err != nil {
			return "", err
		}
	}
	return id, nil
}
