package browser

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/chromedp/cdproto/target"

	"github.com/browserd/browserd/internal/cdp"
	"github.com/browserd/browserd/internal/snapshot"
)

// FrameKey names a frame's node-id space for refs: the CDP session of its
// process and the frame id.
func FrameKey(sess target.SessionID, frameID string) string { return string(sess) + "|" + frameID }

// ElemOf turns a snapshot key back into an element.
func ElemOf(k snapshot.Key) Elem {
	sess, frame, _ := strings.Cut(k.Frame, "|")
	return Elem{Sess: target.SessionID(sess), Backend: k.Backend, Frame: frame}
}

// KeyOf is the snapshot key of an element found outside a snapshot (a
// covering element, say); frame is unknown there, so the tab's main frame
// key is used for same-session nodes.
func (p *Page) KeyOf(e Elem) snapshot.Key {
	if e.Frame != "" {
		return snapshot.Key{Frame: FrameKey(e.Sess, e.Frame), Backend: e.Backend}
	}
	if e.Sess == p.sess.ID() || e.Sess == "" {
		return snapshot.Key{Frame: FrameKey(p.sess.ID(), p.TargetID), Backend: e.Backend}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for id, fs := range p.oopifs {
		if fs.sess.ID() == e.Sess {
			return snapshot.Key{Frame: FrameKey(e.Sess, id), Backend: e.Backend}
		}
	}
	return snapshot.Key{Frame: FrameKey(e.Sess, ""), Backend: e.Backend}
}

type frameTree struct {
	Frame struct {
		ID       string `json:"id"`
		ParentID string `json:"parentId"`
		URL      string `json:"url"`
	} `json:"frame"`
	ChildFrames []frameTree `json:"childFrames"`
}

type frameJob struct {
	sess      *cdp.Session
	frameID   string
	isRoot    bool // the root frame of its session: no frameId param needed
	parent    string
	ownerSess *cdp.Session // where DOM.getFrameOwner must be asked
}

// AXFrames fetches the accessibility tree of every frame of the tab — the
// main frame, same-process iframes, out-of-process iframes — with the
// elements that are clickable without an ARIA role, ready for
// snapshot.Build. The frames are fetched concurrently.
func (p *Page) AXFrames(ctx context.Context) ([]snapshot.Frame, error) {
	var jobs []frameJob
	var tree struct {
		FrameTree frameTree `json:"frameTree"`
	}
	if err := p.sess.Call(ctx, "Page.getFrameTree", nil, &tree); err != nil {
		return nil, err
	}
	p.mu.Lock()
	var walk func(t frameTree, s *cdp.Session, root bool)
	walk = func(t frameTree, s *cdp.Session, root bool) {
		jobs = append(jobs, frameJob{sess: s, frameID: t.Frame.ID, isRoot: root, parent: t.Frame.ParentID, ownerSess: s})
		for _, c := range t.ChildFrames {
			walk(c, s, false)
		}
	}
	walk(tree.FrameTree, p.sess, true)
	for id, fs := range p.oopifs {
		owner := p.sess
		if pfs, ok := p.oopifs[fs.parentFrame]; ok {
			owner = pfs.sess
		}
		jobs = append(jobs, frameJob{sess: fs.sess, frameID: id, isRoot: true, parent: fs.parentFrame, ownerSess: owner})
	}
	p.mu.Unlock()

	frames := make([]snapshot.Frame, len(jobs))
	errs := make([]error, len(jobs))
	var wg sync.WaitGroup
	for i, j := range jobs {
		wg.Go(func() {
			frames[i], errs[i] = p.axFrame(ctx, j)
		})
	}
	wg.Wait()
	// Key of each frame by id, so children can name their parent.
	keyOf := map[string]string{}
	for i, j := range jobs {
		keyOf[j.frameID] = frames[i].Key
	}
	out := frames[:0]
	for i, j := range jobs {
		if errs[i] != nil {
			if i == 0 {
				return nil, errs[i]
			}
			continue // a frame that went away meanwhile
		}
		if j.parent != "" {
			frames[i].ParentKey = keyOf[j.parent]
		}
		out = append(out, frames[i])
	}
	return out, nil
}

func (p *Page) axFrame(ctx context.Context, j frameJob) (snapshot.Frame, error) {
	f := snapshot.Frame{Key: FrameKey(j.sess.ID(), j.frameID)}
	var wg sync.WaitGroup
	var axErr error
	wg.Go(func() {
		var raw cdp.Raw
		params := map[string]any{}
		if !j.isRoot {
			params["frameId"] = j.frameID
		}
		if axErr = j.sess.Call(ctx, "Accessibility.getFullAXTree", params, &raw); axErr != nil {
			return
		}
		f.Nodes, axErr = snapshot.Decode(raw)
	})
	if j.parent != "" {
		wg.Go(func() {
			var owner struct {
				BackendNodeID int64 `json:"backendNodeId"`
			}
			if j.ownerSess.Call(ctx, "DOM.getFrameOwner", map[string]any{"frameId": j.frameID}, &owner) == nil {
				f.OwnerBackendID = owner.BackendNodeID
			}
		})
	}
	wg.Go(func() {
		f.Clickable = p.clickable(ctx, j)
	})
	wg.Wait()
	if axErr != nil {
		return f, fmt.Errorf("reading the accessibility tree: %w", axErr)
	}
	return f, nil
}

// clickableJS finds elements that take clicks without saying so to
// assistive technology: where cursor:pointer starts, onclick handlers, and
// <a> without href — skipping elements that already have an interactive
// role. Capped, so a page of pointer rows cannot stall a snapshot.
const clickableJS = `(() => {
  const out = [];
  const skip = 'a[href],button,input,select,textarea,summary,option,label,[role],[tabindex],[contenteditable]';
  const walk = (root) => {
    const it = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT);
    for (let el = it.nextNode(); el && out.length < 200; el = it.nextNode()) {
      if (el.shadowRoot) walk(el.shadowRoot);
      const tag = el.tagName;
      if (tag === 'HTML' || tag === 'BODY' || tag === 'IFRAME') continue;
      let hit = el.hasAttribute('onclick') || (tag === 'A' && !el.hasAttribute('href'));
      if (!hit) {
        if (getComputedStyle(el).cursor !== 'pointer') continue;
        const par = el.parentElement || (el.parentNode && el.parentNode.host);
        if (par && getComputedStyle(par).cursor === 'pointer') continue;
        hit = true;
      }
      if (el.matches(skip) || el.closest('a[href],button')) continue;
      out.push(el);
    }
  };
  walk(document.documentElement);
  return out;
})()`

func (p *Page) clickable(ctx context.Context, j frameJob) map[int64]bool {
	// A group per frame: frames of one process share the session, and one
	// frame's release must not free another's objects.
	group := "browserd-click-" + j.frameID
	obj, err := p.objectInWorld(ctx, j.sess, j.frameID, clickableJS, group)
	if err != nil || obj == "" {
		return nil
	}
	defer func() {
		_ = j.sess.Call(context.WithoutCancel(ctx), "Runtime.releaseObjectGroup", map[string]any{"objectGroup": group}, nil)
	}()
	var props struct {
		Result []struct {
			Name  string       `json:"name"`
			Value remoteObject `json:"value"`
		} `json:"result"`
	}
	if err := j.sess.Call(ctx, "Runtime.getProperties", map[string]any{"objectId": obj, "ownProperties": true}, &props); err != nil {
		return nil
	}
	var objs []string
	for _, pr := range props.Result {
		if pr.Value.ObjectID != "" && pr.Name != "__proto__" && pr.Value.Subtype == "node" {
			objs = append(objs, pr.Value.ObjectID)
		}
	}
	if len(objs) == 0 {
		return nil
	}
	ids := make([]int64, len(objs))
	var wg sync.WaitGroup
	for i, o := range objs {
		wg.Go(func() { ids[i], _ = describe(ctx, j.sess, o) })
	}
	wg.Wait()
	out := make(map[int64]bool, len(ids))
	for _, id := range ids {
		if id != 0 {
			out[id] = true
		}
	}
	return out
}
