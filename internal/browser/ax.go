package browser

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/chromedp/cdproto/target"

	"github.com/browserd/browserd/internal/cdp"
	"github.com/browserd/browserd/internal/snapshot"
	"github.com/browserd/browserd/internal/timing"
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
// snapshot.Build. The frames are fetched concurrently. A frame too big to
// read whole is read in part (see bigpage.go).
func (p *Page) AXFrames(ctx context.Context) ([]snapshot.Frame, error) {
	return p.AXFramesFrom(ctx, nil)
}

// AXFramesFrom is AXFrames for a snapshot of a part of the page: a frame
// too big to read whole is read from focus on when focus is in it.
func (p *Page) AXFramesFrom(ctx context.Context, focus *Elem) ([]snapshot.Frame, error) {
	// The main frame (whose id is the tab's) is read while the frame tree
	// is asked for: a frame tree and a read one after the other cost a
	// new tab's busy renderer 10-20 ms more.
	rootJob := frameJob{sess: p.sess, frameID: p.TargetID, isRoot: true, ownerSess: p.sess}
	var root snapshot.Frame
	var rootErr error
	var rootRead sync.WaitGroup
	rootRead.Go(func() { root, rootErr = p.axFrame(ctx, rootJob, focusIn(focus, rootJob)) })
	var tree struct {
		FrameTree frameTree `json:"frameTree"`
	}
	if err := p.sess.Call(ctx, "Page.getFrameTree", nil, &tree); err != nil {
		rootRead.Wait()
		return nil, err
	}
	timing.Mark(ctx, "frame tree")
	var jobs []frameJob
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
		if i == 0 && j == rootJob {
			continue // being read
		}
		wg.Go(func() {
			frames[i], errs[i] = p.axFrame(ctx, j, focusIn(focus, j))
		})
	}
	wg.Wait()
	rootRead.Wait()
	if jobs[0] == rootJob {
		frames[0], errs[0] = root, rootErr
	}
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

// focusIn is focus when it is an element of j's frame, else nil.
func focusIn(focus *Elem, j frameJob) *Elem {
	if focus == nil || focus.Sess != j.sess.ID() {
		return nil
	}
	if focus.Frame == j.frameID || focus.Frame == "" && j.isRoot {
		return focus
	}
	return nil
}

// axFrame reads one frame: its accessibility tree — whole, or in part when
// it is too big (planFrame) — the owner of its <iframe>, and the facts of
// its DOM the tree lacks (domFacts; of the part read only).
func (p *Page) axFrame(ctx context.Context, j frameJob, focus *Elem) (snapshot.Frame, error) {
	f := snapshot.Frame{Key: FrameKey(j.sess.ID(), j.frameID)}
	plan, elements, err := p.planFrame(ctx, j, focus)
	if j.isRoot {
		timing.Mark(ctx, "planned")
	}
	if err != nil && ctx.Err() != nil {
		return f, fmt.Errorf("reading the accessibility tree: %w", context.Cause(ctx))
	}
	// A frame that cannot be counted (its isolated world gone) is read
	// whole, as it was before pages were counted.
	roots := "[document.documentElement]"
	if plan != nil {
		roots = partRootsJS
		defer release(ctx, j.sess, plan.group)
	}
	var wg sync.WaitGroup
	var axErr error
	wg.Go(func() {
		if plan != nil {
			f.Nodes, f.Part, axErr = p.readPart(ctx, j, plan)
			return
		}
		var raw cdp.Raw
		params := map[string]any{}
		if !j.isRoot {
			params["frameId"] = j.frameID
		}
		if axErr = j.sess.Call(ctx, "Accessibility.getFullAXTree", params, &raw); axErr != nil {
			return
		}
		if f.Nodes, axErr = snapshot.Decode(raw); axErr == nil {
			f.Nodes = snapshot.TreeOrder(f.Nodes) // the next Patch splices
		}
		if j.isRoot {
			timing.Mark(ctx, "ax tree")
		}
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
	var d domFacts
	wg.Go(func() {
		d = p.domFacts(ctx, j, roots)
		if j.isRoot {
			timing.Mark(ctx, "facts")
		}
	})
	wg.Wait()
	if axErr != nil {
		if ctx.Err() != nil {
			// Counted, then out of time in Chromium's accessibility work:
			// not a script of the page's (which the count would have waited
			// for).
			axErr = &TreeReadError{Elements: elements, Err: context.Cause(ctx)}
		}
		return f, fmt.Errorf("reading the accessibility tree: %w", axErr)
	}
	f.Clickable, f.ClickableText, f.Anchors, f.Current, f.Hints = d.clickable, d.text, d.anchors, d.current, d.hints
	placeHidden(&f, f.Anchors)
	return f, nil
}

// placeHidden puts clickable elements the accessibility tree leaves out
// (inside aria-hidden, or empty: a close "×" drawn by CSS) into it, as
// children of the node of their anchor (see snapshot.Frame.Anchors), so
// the snapshot can give them refs.
func placeHidden(f *snapshot.Frame, anchors map[int64]int64) {
	if len(anchors) == 0 {
		return
	}
	byBackend := make(map[int64]int, len(f.Nodes))
	for i, n := range f.Nodes {
		if n.BackendID != 0 {
			byBackend[n.BackendID] = i
		}
	}
	ids := make([]int64, 0, len(anchors))
	for id := range anchors {
		ids = append(ids, id)
	}
	slices.Sort(ids) // backend ids grow in creation order: a stable, roughly document order
	for _, id := range ids {
		if _, ok := byBackend[id]; ok {
			continue
		}
		pi, ok := byBackend[anchors[id]]
		if !ok {
			continue
		}
		n := snapshot.Node{ID: snapshot.HiddenPrefix + strconv.FormatInt(id, 10), ParentID: f.Nodes[pi].ID,
			Role: "generic", Name: f.ClickableText[id], BackendID: id}
		f.Nodes[pi].ChildIDs = append(f.Nodes[pi].ChildIDs, n.ID)
		f.Nodes = append(f.Nodes, n)
		byBackend[id] = len(f.Nodes) - 1
	}
}

// clickableJS finds elements that take clicks without saying so to
// assistive technology: where cursor:pointer (or grab, move, a resize cursor: a handle to
// drag) starts, onclick handlers, draggable="true", <a> without href and
// focusable leaves without a role (react-select's options) — skipping
// elements that already have an interactive role. Capped, so a page of pointer rows cannot stall a snapshot. It also
// finds the elements with aria-current (any value but false), which the
// accessibility tree does not report, and controls without a name (icon
// buttons) with a hint of what they do: the icon's name (fa-trash →
// "trash", <use href="#icon-cart">, data-icon, an image's file name), a
// test id, or an id that does not look generated. It returns the elements,
// each once, with their kinds in the array's property k (1 clickable, 2
// current, 4 hinted) and their hints in h.
const clickableJS = `((roots) => {
  const out = [], cur = [];
  const skip = 'a[href],button,input,select,textarea,summary,option,label,[role],[tabindex],[contenteditable]';
  const check = (el) => {
    const tag = el.tagName;
    if (tag === 'HTML' || tag === 'BODY' || tag === 'IFRAME') return;
    // A control hidden from assistive technology (aria-hidden) is still
    // clickable by hand: the accessibility tree ignores it, so it is
    // reported here whatever its role.
    const hidden = el.closest('[aria-hidden="true"]');
    // A focusable leaf without a role (react-select's options: a div with
    // tabindex="-1", the default cursor and its text) is a target the
    // accessibility tree leaves nameless.
    // An item role counts as none: Chromium drops role=option from an
    // element a <li> separates from its listbox (jQuery UI's selectmenu).
    const leaf = el.hasAttribute('tabindex') && (!el.hasAttribute('role') || /^(option|menuitem|menuitemradio|menuitemcheckbox|treeitem)$/.test(el.getAttribute('role'))) && !el.firstElementChild &&
      el.textContent.trim() !== '' && el.textContent.length <= 200 && !el.matches(skip.replace(',[role],[tabindex]', ''));
    // An empty element in the tab order without a role (jQuery UI's
    // slider handle) is a handle a hand can grab or a key can move.
    const knob = !leaf && el.tabIndex >= 0 && el.hasAttribute('tabindex') && !el.hasAttribute('role') && !el.firstElementChild &&
      el.textContent.trim() === '' && !el.matches(skip.replace(',[role],[tabindex]', '')) && (r => r.width >= 4 && r.height >= 4)(el.getBoundingClientRect());
    let hit = leaf || knob || el.hasAttribute('onclick') || (tag === 'A' && !el.hasAttribute('href')) || el.getAttribute('draggable') === 'true' ||
      (hidden && el.matches('button,a[href],input,[role=button],[tabindex]') && el.getClientRects().length > 0);
    if (!hit) {
      const cur = getComputedStyle(el).cursor;
      if (cur !== 'pointer' && cur !== 'grab' && cur !== 'move' && !cur.endsWith('resize')) return;
      const par = el.parentElement || (el.parentNode && el.parentNode.host);
      if (par && getComputedStyle(par).cursor === cur) return;
      // An empty box of no size (a suggestions list before its results
      // arrive) is nothing a hand can reach.
      if (!el.firstElementChild && el.textContent.trim() === '' && (r => r.width === 0 || r.height === 0)(el.getBoundingClientRect())) return;
      hit = true;
    }
    if (!hidden && (!leaf && !knob && el.matches(skip) || el.closest('a[href],button'))) return;
    // Inside aria-hidden, only what shows counts (a closed modal's
    // buttons keep their pointer cursor under display: none).
    // (Nor what is moved out of the page's reach, left of or above its
    // origin: DokuWiki's pickers, aria-hidden at left: -1.4e6px.)
    if (hidden && (el.getClientRects().length === 0 || getComputedStyle(el).visibility !== 'visible' ||
      (r => r.width <= 2 || r.height <= 2 || r.right + scrollX <= 0 || r.bottom + scrollY <= 0)(el.getBoundingClientRect()))) return; // a select a widget clipped to a pixel
    out.push(el);
  };
  // A control with no name (an icon button: <button><i class="fa
  // fa-trash">) gets a hint of what it does, from its icon, test id or id.
  const hints = new Map();
  const iconRe = /^(?:fa[srlbdt]?|bi|icon|icons|glyphicon|mdi|lucide|ti|ri|la[srb]?|ion|ionicons|octicon|feather|ph|tabler|heroicon|iconify|svg-icon|codicon|gg|uil|bx|bxs)[-_](.+)$/;
  const styleWord = /^(solid|regular|light|thin|duotone|brands|lg|xs|sm|xl|\dx|fw|spin|pulse|border|inverse|stack|outline|outlined|filled|round|rounded|sharp|fill|line|icon|svg|\d+)$/;
  const autoId = /^[:_\d]|[0-9a-f]{6,}|\d{3,}|:r|radix|mui-|headlessui|react-aria|^ember\d|^yui|^ext-/i;
  const actionWord = /(close|delete|remove|trash|edit|search|menu|cart|add|plus|minus|next|prev|back|forward|expand|collapse|settings|share|like|more|download|upload|play|pause|copy|save|refresh|filter|sort|send|attach|favou?rite|star|bookmark|notif|bell|user|profile|logout|login|home|help|info|zoom|resize|handle|grip|drag|slider|thumb)/i;
  // A direction or step in a class name (jQuery UI's ui-spinner-up and
  // ui-icon-triangle-1-n, a chevron-down, an increment button) tells twin
  // arrows apart.
  const direction = /(?:^|[-_])(?:up|down|left|right|inc|dec|increment|decrement|increase|decrease|chevron|arrow|caret|triangle|[nsew])(?:[-_]|$)|(?:chevron|arrow|caret|triangle)/i;
  const controlRoles = /^(button|link|menuitem|tab|switch|checkbox|radio|option|treeitem)$/;
  const iconOf = el => {
    const ds = [el, ...el.querySelectorAll('i,span,svg,use,img,em')];
    for (let k = 0; k < ds.length && k < 12; k++) {
      const d = ds[k], tag = d.tagName.toLowerCase();
      if (tag === 'use') { const m = /#(?:icon[-_])?([\w-]{2,40})$/.exec(d.getAttribute('href') || d.getAttribute('xlink:href') || ''); if (m) return m[1]; }
      if (tag === 'img') { const m = /([\w-]{2,40})\.(?:svg|png|gif|webp)(?:[?#]|$)/.exec(d.getAttribute('src') || ''); if (m) return m[1]; }
      const di = d.getAttribute('data-icon') || d.getAttribute('data-lucide') || d.getAttribute('icon') || d.getAttribute('name') && (tag === 'ion-icon' ? d.getAttribute('name') : '');
      if (di && di.length <= 40) return di;
      for (const c of d.classList) { const m = iconRe.exec(c); if (m && !styleWord.test(m[1])) return m[1]; }
    }
    return '';
  };
  const hintOf = el => {
    let h = iconOf(el);
    for (const a of ['data-testid', 'data-test-id', 'data-test', 'data-cy', 'data-qa', 'data-action', 'name']) {
      if (h) break;
      const v = el.getAttribute(a); if (v && v.length <= 40) h = v;
    }
    if (!h && el.id && el.id.length <= 40 && !autoId.test(el.id)) h = el.id;
    if (!h) for (const c of el.classList) if (c.length <= 40 && (actionWord.test(c) || direction.test(c))) { h = c; break; }
    if (!h) for (const d of el.querySelectorAll('*')) { let f = false; for (const c of d.classList) if (c.length <= 40 && direction.test(c)) { h = c; f = true; break; } if (f) break; }
    return h.replace(/[^\w -]/g, '').slice(0, 40);
  };
  const unnamed = el => {
    const t = el.tagName, role = el.getAttribute('role') || '';
    if (!(t === 'BUTTON' || (t === 'A' && el.hasAttribute('href')) || (t === 'INPUT' && /^(button|submit|reset|image)$/.test(el.type)) || controlRoles.test(role))) return false;
    if (el.getAttribute('aria-label') || el.getAttribute('aria-labelledby') || el.getAttribute('title')) return false;
    if (t === 'INPUT') return !el.value && !el.getAttribute('alt') && el.type !== 'submit' && el.type !== 'reset';
    if (el.textContent.trim()) return false;
    return !el.querySelector('img[alt]:not([alt=""]),[title],svg title,[aria-label]');
  };
  const walk = (root) => {
    if (root.nodeType === 1) {
      if (root.shadowRoot) walk(root.shadowRoot);
      check(root);
      named(root);
    }
    const it = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT);
    for (let el = it.nextNode(); el; el = it.nextNode()) {
      if (el.shadowRoot) walk(el.shadowRoot);
      current(el);
      if (out.length < 200) check(el);
      named(el);
    }
  };
  const named = (el) => {
    if (hints.size >= 200 || !unnamed(el)) return;
    const h = hintOf(el);
    if (h) hints.set(el, h);
  };
  const current = (el) => {
    const v = el.getAttribute('aria-current');
    if (v !== null && cur.length < 100) {
      const t = v.trim().toLowerCase();
      if (t !== '' && t !== 'false') cur.push(el);
    }
  };
  for (const r of roots) {
    if (r.nodeType === 1) current(r);
    walk(r);
  }
  const kinds = new Map();
  for (const el of out) kinds.set(el, 1);
  for (const el of cur) kinds.set(el, (kinds.get(el) || 0) | 2);
  for (const el of hints.keys()) kinds.set(el, (kinds.get(el) || 0) | 4);
  for (const el of out) if (!hints.has(el) && !el.textContent.trim()) { const h = hintOf(el); if (h) { hints.set(el, h); kinds.set(el, kinds.get(el) | 4); } }
  const els = [...kinds.keys()];
  els.k = [...kinds.values()];
  els.h = els.map(el => hints.get(el) || '');
  return els;
})`

// domFacts is what a snapshot reads of a frame's DOM besides its
// accessibility tree (see snapshot.Frame): the elements that take clicks
// without saying so (see clickableJS), with their text — the accessibility
// tree names none of those it leaves out — and, for those inside
// aria-hidden, the element their hidden subtree hangs from; the elements
// with aria-current; and a hint for controls without a name.
type domFacts struct {
	clickable map[int64]bool
	text      map[int64]string
	anchors   map[int64]int64
	current   map[int64]bool
	hints     map[int64]string // of controls without a name
}

// domFacts reads the facts of the elements under (and including) the
// roots, a JavaScript expression for an array of elements in the frame's
// isolated world.
func (p *Page) domFacts(ctx context.Context, j frameJob, roots string) domFacts {
	// A group per frame: frames of one process share the session, and one
	// frame's release must not free another's objects.
	group := "browserd-click-" + j.frameID
	obj, err := p.objectInWorld(ctx, j.sess, j.frameID, clickableJS+"("+roots+")", group)
	if err != nil || obj == "" {
		return domFacts{}
	}
	defer func() {
		release(ctx, j.sess, group)
	}()
	var info []clickInfo
	var infoErr error
	var wg sync.WaitGroup
	wg.Go(func() {
		infoErr = callFunction(ctx, j.sess, obj, `function() { return this.map((el, i) => this.k[i] & 1 ? {k: this.k[i],
		  t: (el.innerText || el.getAttribute('aria-label') || el.getAttribute('title') || el.getAttribute('alt') || '').trim().replace(/\s+/g, ' ').slice(0, 200),
		  h: !!el.closest('[aria-hidden="true"]'), e: !el.firstElementChild && !el.textContent.trim(), i: this.h[i]} : {k: this.k[i], i: this.h[i]}); }`, &info)
	})
	els, err := p.arrayItems(ctx, j.sess, obj)
	wg.Wait()
	if err != nil || infoErr != nil || len(els) == 0 || len(info) != len(els) {
		return domFacts{}
	}
	var anchorEls []string
	// Where to show clickable elements the accessibility tree may leave
	// out: those inside aria-hidden (under the element their hidden
	// subtree hangs from), and empty ones — an icon drawn by CSS, a close
	// "×" of a background image — under their parent (placeHidden adds
	// them only when the tree has no node for them).
	if slices.ContainsFunc(info, func(x clickInfo) bool { return x.Hidden || x.Empty }) {
		var r struct {
			Result remoteObject `json:"result"`
		}
		err := j.sess.Call(ctx, "Runtime.callFunctionOn", map[string]any{"objectId": obj, "objectGroup": group,
			"functionDeclaration": `function() { return this.map((el, i) => { if (!(this.k[i] & 1)) return null;
			  if (!el.closest('[aria-hidden="true"]')) return !el.firstElementChild && !el.textContent.trim() ? el.parentElement : null;
			  let top = el; for (let a = el; a && a.nodeType === 1; a = a.parentElement) if (a.getAttribute('aria-hidden') === 'true') top = a;
			  return top.parentElement; }); }`}, &r)
		if err == nil && r.Result.ObjectID != "" {
			anchorEls, _ = p.arrayItems(ctx, j.sess, r.Result.ObjectID)
		}
	}
	ids := make([]int64, len(els))
	anchorIDs := make([]int64, len(anchorEls))
	for i, o := range els {
		if o != "" {
			wg.Go(func() { ids[i], _ = describe(ctx, j.sess, o) })
		}
	}
	for i, o := range anchorEls {
		if o != "" {
			wg.Go(func() { anchorIDs[i], _ = describe(ctx, j.sess, o) })
		}
	}
	wg.Wait()
	d := domFacts{clickable: make(map[int64]bool, len(ids)), text: make(map[int64]string, len(ids)),
		anchors: map[int64]int64{}, current: map[int64]bool{}, hints: map[int64]string{}}
	for i, id := range ids {
		if id == 0 {
			continue
		}
		if info[i].Kind&2 != 0 {
			d.current[id] = true
		}
		if info[i].Kind&4 != 0 && info[i].Hint != "" {
			d.hints[id] = info[i].Hint
		}
		if info[i].Kind&1 == 0 {
			continue
		}
		d.clickable[id] = true
		if info[i].Text != "" {
			d.text[id] = info[i].Text
		}
		if i < len(anchorIDs) && anchorIDs[i] != 0 {
			d.anchors[id] = anchorIDs[i]
		}
	}
	return d
}

// clickInfo is what domFacts reads of one element.
type clickInfo struct {
	Kind   int    `json:"k"` // 1 clickable, 2 aria-current, 4 a hint (see clickableJS)
	Text   string `json:"t"` // innerText or label, for a name
	Hidden bool   `json:"h"` // inside aria-hidden: not in the accessibility tree
	Empty  bool   `json:"e"` // no text, no child elements: the tree may leave it out
	Hint   string `json:"i"` // what a control without a name is for
}

// arrayItems returns the object ids of a JavaScript array's items, by
// index; "" where an item is not a node.
func (p *Page) arrayItems(ctx context.Context, s *cdp.Session, array string) ([]string, error) {
	var props struct {
		Result []struct {
			Name  string       `json:"name"`
			Value remoteObject `json:"value"`
		} `json:"result"`
	}
	if err := s.Call(ctx, "Runtime.getProperties", map[string]any{"objectId": array, "ownProperties": true}, &props); err != nil {
		return nil, err
	}
	var out []string
	for _, pr := range props.Result {
		i, err := strconv.Atoi(pr.Name)
		if err != nil || i < 0 || i > 100000 {
			continue
		}
		for len(out) <= i {
			out = append(out, "")
		}
		if pr.Value.ObjectID != "" && pr.Value.Subtype == "node" {
			out[i] = pr.Value.ObjectID
		}
	}
	return out, nil
}

// FrameInfo is a frame's address and its parent's key ("" for the tab's
// main frame).
type FrameInfo struct {
	URL, Parent string
}

// FrameURLs is each frame of the tab by its snapshot key (FrameKey): the
// tab's own frames from its frame tree, and each out-of-process frame's
// from its own, read now.
func (p *Page) FrameURLs(ctx context.Context) (map[string]FrameInfo, error) {
	out := map[string]FrameInfo{}
	var walk func(t frameTree, s *cdp.Session, parent string)
	walk = func(t frameTree, s *cdp.Session, parent string) {
		key := FrameKey(s.ID(), t.Frame.ID)
		out[key] = FrameInfo{URL: t.Frame.URL, Parent: parent}
		for _, c := range t.ChildFrames {
			walk(c, s, key)
		}
	}
	type job struct {
		s      *cdp.Session
		parent string
	}
	p.mu.Lock()
	jobs := []job{{s: p.sess}}
	for _, fs := range p.oopifs {
		owner := p.sess
		if pfs, ok := p.oopifs[fs.parentFrame]; ok {
			owner = pfs.sess
		}
		jobs = append(jobs, job{s: fs.sess, parent: FrameKey(owner.ID(), fs.parentFrame)})
	}
	p.mu.Unlock()
	for i, j := range jobs {
		var tree struct {
			FrameTree frameTree `json:"frameTree"`
		}
		if err := j.s.Call(ctx, "Page.getFrameTree", nil, &tree); err != nil {
			if i == 0 {
				return nil, err
			}
			continue // a frame that went away meanwhile
		}
		walk(tree.FrameTree, j.s, j.parent)
	}
	return out, nil
}

// ContentFrameKey is the key (FrameKey) of the frame an <iframe> or
// <frame> element shows — in the tab's process or out of it — or "" for
// another element.
func (p *Page) ContentFrameKey(ctx context.Context, e Elem) (string, error) {
	s := p.SessionFor(e.Sess)
	if s == nil {
		return "", ErrStale
	}
	var d struct {
		Node struct {
			FrameID string `json:"frameId"`
		} `json:"node"`
	}
	if err := s.Call(ctx, "DOM.describeNode", map[string]any{"backendNodeId": e.Backend}, &d); err != nil {
		if isStale(err) {
			return "", ErrStale
		}
		return "", err
	}
	if d.Node.FrameID == "" {
		return "", nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if fs, ok := p.oopifs[d.Node.FrameID]; ok {
		return FrameKey(fs.sess.ID(), d.Node.FrameID), nil
	}
	return FrameKey(e.Sess, d.Node.FrameID), nil
}
