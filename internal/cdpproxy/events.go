package cdpproxy

import (
	"context"
	"encoding/json"

	"github.com/chromedp/cdproto/target"

	"github.com/browserd/browserd/internal/cdp"
)

// browserEvent passes on what the browser says of the client's pages —
// and takes in the pages they open (popups) and those of its contexts.
func (c *client) browserEvent(ctx context.Context, ev cdp.Event) {
	var e struct {
		TargetInfo struct {
			TargetID         string `json:"targetId"`
			Type             string `json:"type"`
			OpenerID         string `json:"openerId"`
			BrowserContextID string `json:"browserContextId"`
		} `json:"targetInfo"`
		TargetID          string           `json:"targetId"`
		SessionID         target.SessionID `json:"sessionId"`
		FrameID           string           `json:"frameId"`
		GUID              string           `json:"guid"`
		URL               string           `json:"url"`
		SuggestedFilename string           `json:"suggestedFilename"`
		State             string           `json:"state"`
	}
	if ev.Decode(&e) != nil {
		return
	}
	params := json.RawMessage(ev.Params)
	c.mu.Lock()
	discover, auto := c.discover, c.autoAttach
	c.mu.Unlock()
	switch ev.Method {
	case "Target.targetCreated":
		ti := e.TargetInfo
		c.mu.Lock()
		mine := ti.Type == "page" && (c.pages[ti.OpenerID] || c.contexts[ti.BrowserContextID])
		if mine {
			c.pages[ti.TargetID] = true
		}
		c.mu.Unlock()
		if !mine {
			return
		}
		if discover {
			c.announce(ctx, ti.TargetID)
		}
		if auto {
			if err := c.autoAttachTo(ctx, ti.TargetID); err != nil {
				c.log.Debug("cdp: auto-attach failed", "target", ti.TargetID, "error", err)
			}
		}
	case "Target.targetInfoChanged":
		c.mu.Lock()
		mine := c.pages[e.TargetInfo.TargetID]
		c.mu.Unlock()
		if mine && discover {
			c.event("", ev.Method, params)
		}
	case "Target.targetDestroyed", "Target.targetCrashed":
		c.mu.Lock()
		mine := c.pages[e.TargetID]
		if ev.Method == "Target.targetDestroyed" {
			delete(c.pages, e.TargetID)
			delete(c.attachedTo, e.TargetID)
		}
		c.mu.Unlock()
		if mine && discover {
			c.event("", ev.Method, params)
		}
	case "Target.detachedFromTarget":
		c.mu.Lock()
		parent, mine := c.top[e.SessionID]
		delete(c.top, e.SessionID)
		delete(c.sessions, e.SessionID)
		for id, a := range c.attachedTo {
			if a.sid == e.SessionID {
				delete(c.attachedTo, id)
			}
		}
		c.mu.Unlock()
		if mine {
			c.event(parent, ev.Method, params)
		}
	case "Browser.downloadWillBegin":
		c.mu.Lock()
		mine := c.pages[e.FrameID]
		if mine {
			c.downloads[e.GUID] = &Step{Action: "download", Target: e.FrameID, URL: e.URL, File: e.SuggestedFilename}
		}
		c.mu.Unlock()
		if mine {
			c.event("", ev.Method, params)
		}
	case "Browser.downloadProgress":
		c.mu.Lock()
		st := c.downloads[e.GUID]
		if st != nil && (e.State == "completed" || e.State == "canceled") {
			delete(c.downloads, e.GUID)
			st.Failed = e.State == "canceled"
			c.note(*st)
		}
		c.mu.Unlock()
		if st != nil {
			c.event("", ev.Method, params)
		}
	}
}
