package browser

import (
	"context"
	"strings"
	"time"

	"github.com/chromedp/cdproto/target"

	"github.com/browserd/browserd/internal/cdp"
	"github.com/browserd/browserd/internal/untrusted"
)

// pageEvents routes each CDP event a tab listens to (and only those: the
// tab's listener subscribes to the table's keys) to its handler. The
// tab's event loop calls one at a time, with Page.mu held; a handler that
// must call Chromium does it on a goroutine of its own, bounded by a
// timeout, never on the loop.
var pageEvents = map[string]func(*Page, cdp.Event){
	"Page.loadEventFired":                (*Page).onLoadEventFired,
	"Page.domContentEventFired":          (*Page).onDOMContentEventFired,
	"Page.windowOpen":                    (*Page).onWindowOpen,
	"Page.downloadWillBegin":             (*Page).onDownloadWillBegin,
	"Page.frameRequestedNavigation":      (*Page).onFrameRequestedNavigation,
	"Page.frameStartedLoading":           (*Page).onFrameLoading,
	"Page.frameStoppedLoading":           (*Page).onFrameLoading,
	"Page.frameNavigated":                (*Page).onFrameNavigated,
	"Page.navigatedWithinDocument":       (*Page).onNavigatedWithinDocument,
	"Page.javascriptDialogOpening":       (*Page).onDialogOpening,
	"Page.javascriptDialogClosed":        (*Page).onDialogClosed,
	"Runtime.consoleAPICalled":           (*Page).onConsoleAPICalled,
	"Runtime.exceptionThrown":            (*Page).onExceptionThrown,
	"Runtime.executionContextCreated":    (*Page).onContextCreated,
	"Runtime.executionContextDestroyed":  (*Page).onContextDestroyed,
	"Runtime.executionContextsCleared":   (*Page).onContextsCleared,
	"Network.requestWillBeSent":          (*Page).onRequestWillBeSent,
	"Network.loadingFinished":            (*Page).onLoadingDone,
	"Network.loadingFailed":              (*Page).onLoadingDone,
	"Network.responseReceived":           (*Page).onNetResponse,
	"Network.requestServedFromCache":     (*Page).onNetFromCache,
	"Network.requestWillBeSentExtraInfo": (*Page).onNetExtra,
	"Network.responseReceivedExtraInfo":  (*Page).onNetExtra,
	"Target.attachedToTarget":            (*Page).onAttachedToTarget,
	"Target.detachedFromTarget":          (*Page).onDetachedFromTarget,
	"Fetch.requestPaused":                (*Page).onRequestPaused,
	"Fetch.authRequired":                 (*Page).onAuthRequired,
	"Inspector.targetCrashed":            (*Page).onTargetCrashed,
}

// pageEventNames are the events a tab listens to.
func pageEventNames() []string {
	names := make([]string, 0, len(pageEvents))
	for m := range pageEvents {
		names = append(names, m)
	}
	return names
}

func (p *Page) onLoadEventFired(_ cdp.Event) {
	p.loadSeq++
	p.loading = false
}

func (p *Page) onDOMContentEventFired(_ cdp.Event) {
	p.readySeq++
}

func (p *Page) onWindowOpen(_ cdp.Event) {
	p.windowOpens++
}

func (p *Page) onDownloadWillBegin(ev cdp.Event) {
	// The tab's own word that a download is its: the browser-wide
	// event names another tab's frame when a navigation browserd
	// asked for (Page.navigate) turns into a download.
	var e struct {
		GUID string `json:"guid"`
	}
	if ev.Decode(&e) == nil && e.GUID != "" && p.b != nil {
		p.b.claimDownload(e.GUID, p.TargetID)
	}
	p.downloadsBegun++
}

func (p *Page) onFrameRequestedNavigation(ev cdp.Event) {
	var e struct {
		FrameID     string `json:"frameId"`
		Disposition string `json:"disposition"`
	}
	if ev.Decode(&e) == nil && e.FrameID == p.TargetID && e.Disposition == "currentTab" {
		p.loading = true
		p.navPending = true
		p.navRequests++
	}
}

func (p *Page) onFrameLoading(ev cdp.Event) {
	var e struct {
		FrameID string `json:"frameId"`
	}
	if ev.Decode(&e) == nil && e.FrameID == p.TargetID {
		if ev.Method == "Page.frameStartedLoading" && !p.loading {
			p.navRequests++
		}
		p.loading = ev.Method == "Page.frameStartedLoading"
		p.navPending = p.loading
	}
}

func (p *Page) onFrameNavigated(ev cdp.Event) {
	var e struct {
		Frame struct {
			ID       string `json:"id"`
			ParentID string `json:"parentId"`
			URL      string `json:"url"`
			Fragment string `json:"urlFragment"`
			LoaderID string `json:"loaderId"`
		} `json:"frame"`
		Type string `json:"type"`
	}
	if ev.Decode(&e) == nil && e.Frame.ParentID == "" {
		// Requests of the old document that never reported their end.
		for id, t := range p.inflight {
			if time.Since(t) > time.Second {
				delete(p.inflight, id)
			}
		}
		p.navSeq++
		if e.Type != "BackForwardCacheRestore" {
			p.net.committed(e.Frame.LoaderID)
		} else {
			p.net.committed("")
		}
		p.navPending = false
		p.commitLoad = p.loadSeq // loads counted before this commit are the old document's
		p.commitReady = p.readySeq
		p.recovered() // a new document: the renderer is back
		p.url = e.Frame.URL + e.Frame.Fragment
		if e.Type == "BackForwardCacheRestore" {
			// A page from the back/forward cache is loaded already and
			// fires no load event: its restore is its load.
			p.loadSeq++
			p.loading = false
		}
	}
}

func (p *Page) onNavigatedWithinDocument(ev cdp.Event) {
	var e struct {
		FrameID string `json:"frameId"`
		URL     string `json:"url"`
	}
	if ev.Decode(&e) == nil && e.FrameID == p.TargetID {
		p.url = e.URL
		p.sameDocSeq++
	}
}

func (p *Page) onDialogOpening(ev cdp.Event) {
	var e struct {
		Message       string `json:"message"`
		Type          string `json:"type"`
		DefaultPrompt string `json:"defaultPrompt"`
	}
	if ev.Decode(&e) == nil {
		p.dialog = &Dialog{Type: e.Type, Message: untrusted.Page(e.Message), DefaultPrompt: untrusted.Page(e.DefaultPrompt)}
		p.dialogEnd(ErrDialogOpen)
	}
}

func (p *Page) onDialogClosed(_ cdp.Event) {
	p.dialog = nil
	p.dialogsShut++
	p.dialogCtx, p.dialogEnd = context.WithCancelCause(context.Background())
}

func (p *Page) onConsoleAPICalled(ev cdp.Event) {
	var e struct {
		Type string         `json:"type"`
		Args []remoteObject `json:"args"`
	}
	if ev.Decode(&e) == nil {
		parts := make([]string, len(e.Args))
		for i, a := range e.Args {
			parts[i] = a.text()
		}
		p.addConsole(e.Type, strings.Join(parts, " "))
	}
}

func (p *Page) onExceptionThrown(ev cdp.Event) {
	var e struct {
		Details struct {
			Text      string       `json:"text"`
			Exception remoteObject `json:"exception"`
		} `json:"exceptionDetails"`
	}
	if ev.Decode(&e) == nil {
		msg := e.Details.Exception.Description
		if msg == "" {
			msg = e.Details.Text
		}
		p.addConsole("pageerror", msg)
	}
}

func (p *Page) onContextCreated(ev cdp.Event) {
	var e struct {
		Context struct {
			ID      int64  `json:"id"`
			Name    string `json:"name"`
			AuxData struct {
				FrameID string `json:"frameId"`
				Type    string `json:"type"`
			} `json:"auxData"`
		} `json:"context"`
	}
	if ev.Decode(&e) == nil {
		if e.Context.AuxData.Type == "isolated" && e.Context.Name == utilityWorld {
			p.worlds[e.Context.AuxData.FrameID] = e.Context.ID
		}
	}
}

func (p *Page) onContextDestroyed(ev cdp.Event) {
	var e struct {
		ID int64 `json:"executionContextId"`
	}
	if ev.Decode(&e) == nil {
		for f, id := range p.worlds {
			if id == e.ID {
				delete(p.worlds, f)
			}
		}
	}
}

func (p *Page) onContextsCleared(_ cdp.Event) {
	clear(p.worlds)
}

func (p *Page) onRequestWillBeSent(ev cdp.Event) {
	var e netRequestEvent
	if ev.Decode(&e) != nil {
		return
	}
	p.net.request(&e)
	// Long-lived streams never finish; an out-of-process frame's
	// document finishes in that frame's session, not this one; the
	// favicon changes nothing on the page.
	if e.Type != "WebSocket" && e.Type != "EventSource" &&
		!(e.Type == "Document" && e.FrameID != p.TargetID) && !strings.HasSuffix(e.Request.URL, "/favicon.ico") {
		p.inflight[e.RequestID] = time.Now()
		p.lastNet = time.Now()
		if e.Type == "Document" && e.FrameID == p.TargetID {
			p.docRequest = e.RequestID
		} else {
			p.lastSubNet = p.lastNet
		}
	}
}

func (p *Page) onLoadingDone(ev cdp.Event) {
	var e struct {
		RequestID         string  `json:"requestId"`
		Timestamp         float64 `json:"timestamp"`
		EncodedDataLength float64 `json:"encodedDataLength"`
		ErrorText         string  `json:"errorText"`
		Canceled          bool    `json:"canceled"`
	}
	if ev.Decode(&e) != nil {
		return
	}
	p.netEnded(ev.Method, e.RequestID, e.Timestamp, e.EncodedDataLength, e.ErrorText, e.Canceled)
	if _, ok := p.inflight[e.RequestID]; ok {
		delete(p.inflight, e.RequestID)
		p.lastNet = time.Now()
		if e.RequestID != p.docRequest {
			p.lastSubNet = p.lastNet
		}
	}
}

func (p *Page) onAttachedToTarget(ev cdp.Event) {
	var e struct {
		SessionID  target.SessionID `json:"sessionId"`
		TargetInfo struct {
			TargetID      string `json:"targetId"`
			Type          string `json:"type"`
			ParentFrameID string `json:"parentFrameId"`
		} `json:"targetInfo"`
	}
	if ev.Decode(&e) == nil && e.TargetInfo.Type == "iframe" {
		fs := &frameSession{sess: p.b.conn.Session(e.SessionID), parentFrame: e.TargetInfo.ParentFrameID}
		p.oopifs[e.TargetInfo.TargetID] = fs
		// Nested out-of-process frames attach through this session too.
		guarded := p.opts.Guard != nil
		emu := p.opts.Emulation
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			// A cross-site frame is a renderer of its own: it sees the
			// session's overrides only when told — the focus emulation
			// too, without which its document.hasFocus() is false even
			// while its field has the focus (a secret is typed only
			// into a field whose frame has the focus, act/secret.go).
			_ = fs.sess.Call(ctx, "Emulation.setFocusEmulationEnabled", map[string]any{"enabled": true}, nil)
			for _, st := range emulationSteps(emu) {
				_ = fs.sess.Call(ctx, st[0].(string), st[1], nil)
			}
			_ = fs.sess.Call(ctx, "Target.setAutoAttach", map[string]any{"autoAttach": true, "waitForDebuggerOnStart": false, "flatten": true}, nil)
			if guarded {
				p.guardFrame(fs.sess)
			}
		}()
	}
}

func (p *Page) onDetachedFromTarget(ev cdp.Event) {
	var e struct {
		SessionID target.SessionID `json:"sessionId"`
	}
	if ev.Decode(&e) == nil {
		for id, fs := range p.oopifs {
			if fs.sess.ID() == e.SessionID {
				delete(p.oopifs, id)
			}
		}
	}
}

func (p *Page) onRequestPaused(ev cdp.Event) {
	var e struct {
		RequestID    string `json:"requestId"`
		NetworkID    string `json:"networkId"`
		ResourceType string `json:"resourceType"`
		Request      struct {
			URL     string            `json:"url"`
			Method  string            `json:"method"`
			Headers map[string]string `json:"headers"`
		} `json:"request"`
		// Set when the request paused at its answer: a fetch route's
		// (changeAnswer).
		ResponseStatusCode  int    `json:"responseStatusCode"`
		ResponseErrorReason string `json:"responseErrorReason"`
		ResponseHeaders     []struct {
			Name  string `json:"name"`
			Value string `json:"value"`
		} `json:"responseHeaders"`
	}
	if ev.Decode(&e) != nil {
		return
	}
	if e.ResponseStatusCode != 0 || e.ResponseErrorReason != "" {
		ans, ok := p.fetched(e.RequestID)
		if !ok || e.ResponseErrorReason != "" {
			go continueRequest(p.sess, e.RequestID) // a failure goes to the page as it is
			return
		}
		hs := make([]Header, len(e.ResponseHeaders))
		for i, h := range e.ResponseHeaders {
			hs[i] = Header{h.Name, h.Value}
		}
		go p.changeAnswer(e.RequestID, e.ResponseStatusCode, hs, ans)
		return
	}
	// The verdict may need a DNS lookup: answer off the loop. The
	// goroutine ends with its answer, bounded by its timeout.
	if p.opts.Router != nil {
		if ans, ok := p.opts.Router.Route(e.Request.URL, e.Request.Method, e.ResourceType); ok {
			go p.answerRoute(e.RequestID, e.NetworkID, e.Request.URL, e.Request.Headers, ans)
			return
		}
	}
	if p.opts.Guard != nil {
		go p.vet(e.RequestID, e.NetworkID, e.Request.URL)
	} else {
		go continueRequest(p.sess, e.RequestID) // paused for its credentials only
	}
}

func (p *Page) onAuthRequired(ev cdp.Event) {
	var e struct {
		RequestID     string `json:"requestId"`
		AuthChallenge struct {
			Source string `json:"source"`
			Origin string `json:"origin"`
		} `json:"authChallenge"`
	}
	if ev.Decode(&e) == nil {
		go p.answerAuth(p.sess, e.RequestID, e.AuthChallenge.Origin, e.AuthChallenge.Source)
	}
}

func (p *Page) onTargetCrashed(_ cdp.Event) {
	p.crashed = true
	if p.crashing {
		// unfreeze crashed it to load another page: the action that
		// asked goes on.
		p.crashing = false
	} else {
		p.dialogEnd(ErrCrashed)
	}
}
