package browser

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/browserd/browserd/internal/cdp"
)

// browserd's own page scripts — hit tests, waits, text extraction, option
// picking, storage capture — run in an isolated world of each frame, as
// Playwright's utility world does: the page shares the DOM with it but not
// its JavaScript globals, so a page that rewrites String.prototype.includes,
// JSON.stringify or Element.prototype.getBoundingClientRect cannot bend what
// browserd reads. Only the agent's own `evaluate` runs in the page's main
// world (Page.Eval).
//
// Chromium makes the world with each document of the tab's own session (a
// new-document script names it: newPage), and the tab's event loop caches
// its context by frame as Chromium reports it, and drops it when Chromium
// reports it destroyed. A frame whose world is not cached yet has it made
// (Page.createIsolatedWorld is idempotent per frame: it answers the same
// context until the frame navigates). Frames of
// out-of-process iframes ask their own session each time: they are rare and
// their context events are not followed.
const utilityWorld = "__browserd_utility__"

// world returns the id of browserd's isolated world in the frame, making it
// when the frame has none yet.
func (p *Page) world(ctx context.Context, s *cdp.Session, frame string) (int64, error) {
	if frame == "" {
		frame = p.rootFrame(s)
	}
	own := s == p.sess
	if own {
		p.mu.Lock()
		id, ok := p.worlds[frame]
		p.mu.Unlock()
		if ok {
			return id, nil
		}
	}
	var r struct {
		ID int64 `json:"executionContextId"`
	}
	err := s.Call(ctx, "Page.createIsolatedWorld", map[string]any{
		"frameId": frame, "worldName": utilityWorld, "grantUniveralAccess": true,
	}, &r)
	if err != nil {
		if isStale(err) || strings.Contains(err.Error(), "No frame") {
			return 0, ErrStale
		}
		return 0, err
	}
	if own {
		p.mu.Lock()
		p.worlds[frame] = r.ID
		p.mu.Unlock()
	}
	return r.ID, nil
}

// worldID is the cached id of browserd's isolated world in a frame of the
// tab's own session; ok is false when none is cached (or s is another
// session's, whose worlds are not).
func (p *Page) worldID(s *cdp.Session, frame string) (id int64, ok bool) {
	if s != p.sess {
		return 0, false
	}
	if frame == "" {
		frame = p.rootFrame(s)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	id, ok = p.worlds[frame]
	return id, ok
}

// forgetWorld drops a cached context that Chromium no longer knows.
func (p *Page) forgetWorld(s *cdp.Session, frame string) {
	if s != p.sess {
		return
	}
	if frame == "" {
		frame = p.TargetID
	}
	p.mu.Lock()
	delete(p.worlds, frame)
	p.mu.Unlock()
}

// rootFrame is the frame id of session s's root document: the tab's main
// frame, or the out-of-process iframe the session belongs to.
func (p *Page) rootFrame(s *cdp.Session) string {
	if s == p.sess {
		return p.TargetID
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for id, fs := range p.oopifs {
		if fs.sess == s {
			return id
		}
	}
	return ""
}

// goneContext reports an error that means the execution context died under
// the call (the frame navigated): worth one retry in a fresh world.
func goneContext(err error) bool {
	if err == nil {
		return false
	}
	s := err.Error()
	return strings.Contains(s, "Cannot find context") || strings.Contains(s, "Execution context was destroyed") ||
		strings.Contains(s, "Cannot find execution context")
}

// inWorld runs call with the frame's isolated world, retrying once in a new
// world when the cached one died under it.
func (p *Page) inWorld(ctx context.Context, s *cdp.Session, frame string, call func(ctxID int64) error) error {
	for try := 0; ; try++ {
		id, err := p.world(ctx, s, frame)
		if err != nil {
			return err
		}
		err = call(id)
		if try == 0 && goneContext(err) && ctx.Err() == nil {
			p.forgetWorld(s, frame)
			continue
		}
		return err
	}
}

// Run evaluates one of browserd's own expressions in the isolated world of
// the tab's main frame, awaiting a promise, and decodes its JSON value into
// out (may be nil). Page scripts cannot reach or rewrite what it uses.
func (p *Page) Run(ctx context.Context, expr string, out any) error {
	var r evalResult
	err := p.inWorld(ctx, p.sess, p.TargetID, func(id int64) error {
		r = evalResult{}
		return p.sess.Call(ctx, "Runtime.evaluate", map[string]any{
			"expression": expr, "contextId": id, "returnByValue": true, "awaitPromise": true,
		}, &r)
	})
	if err != nil {
		return err
	}
	return r.decode(out)
}

// evalResult is the part of Runtime.evaluate's and callFunctionOn's answer
// browserd reads.
type evalResult struct {
	Result    json.RawMessage `json:"result"`
	Exception *struct {
		Text      string       `json:"text"`
		Exception remoteObject `json:"exception"`
	} `json:"exceptionDetails"`
}

// decode turns the script's exception into a ScriptError, or decodes its
// JSON value into out (may be nil); a script that returned nothing leaves
// out alone.
func (r *evalResult) decode(out any) error {
	if r.Exception != nil {
		return &ScriptError{Msg: firstNonEmpty(r.Exception.Exception.Description, r.Exception.Text)}
	}
	if out == nil {
		return nil
	}
	var v struct {
		Value json.RawMessage `json:"value"`
	}
	if err := json.Unmarshal(r.Result, &v); err != nil {
		return err
	}
	if len(v.Value) == 0 {
		return nil
	}
	return json.Unmarshal(v.Value, out)
}

// objectInWorld evaluates expr in the frame's isolated world and returns
// the object it yields (in object group group), "" when it yields none.
func (p *Page) objectInWorld(ctx context.Context, s *cdp.Session, frame, expr, group string) (string, error) {
	var r struct {
		Result    remoteObject `json:"result"`
		Exception *struct {
			Exception remoteObject `json:"exception"`
		} `json:"exceptionDetails"`
	}
	err := p.inWorld(ctx, s, frame, func(id int64) error {
		r.Exception = nil
		return s.Call(ctx, "Runtime.evaluate", map[string]any{"expression": expr, "contextId": id, "objectGroup": group}, &r)
	})
	if err != nil {
		return "", err
	}
	if r.Exception != nil {
		return "", &ScriptError{Msg: r.Exception.Exception.Description}
	}
	return r.Result.ObjectID, nil
}
