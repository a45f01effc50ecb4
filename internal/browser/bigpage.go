package browser

import (
	"context"
	"fmt"
	"strconv"
	"sync"

	"github.com/browserd/browserd/internal/cdp"
	"github.com/browserd/browserd/internal/snapshot"
)

// A page too big to read whole. Chromium answers getFullAXTree for a page
// of 100,000 links with 240 MB after 23 s: the snapshot would time out (or
// the daemon hold it all). A frame with more than MaxReadElements
// elements is read in part instead: its elements in document order from
// the start (or from the element a snapshot asked for) up to that many,
// each subtree that fits in one Accessibility.queryAXTree, each element
// above them on its own (getPartialAXTree) — and the snapshot says what
// was left out (snapshot.Part).

// MaxReadElements is the most elements a snapshot reads of a frame (shadow
// trees included): a frame with more is read in part.
const MaxReadElements = 20_000

// maxPartRoots bounds the subtrees a part read asks for, one call each
// (a flat list of 100,000 items is 100,000 subtrees), at about a
// millisecond each on a page that big. A snapshot shows the first 20 and
// the last 5 items of a long list anyway.
const maxPartRoots = 250

// maxCounted bounds the count of a frame's elements.
const maxCounted = 50 * MaxReadElements

// partCalls is how many of a part read's calls are in flight at once.
const partCalls = 16

// partPlanJS counts the elements of the frame (up to a bound, so that a
// page of millions costs little) and, when there are more than max, plans
// the part to read: from start (or the document's root element) on, in
// document order, each node whose subtree fits in what is left of max
// elements is read whole (kind 1), each one that does not is read alone
// (kind 0) and its children are taken in turn, until max elements or
// maxRoots subtrees are taken; the elements above start come first, alone.
// It returns the count for a frame to read whole, else the nodes, with their
// kinds in k, the frame's element count in total and the count read in
// read; the elements read whole are kept for the facts of the frame's DOM
// (see partRootsJS).
const partPlanJS = `function(start, max, maxRoots, maxCounted) {
  const count = (root, cap) => {
    let c = 0;
    const walk = (r) => {
      const it = document.createTreeWalker(r, NodeFilter.SHOW_ELEMENT);
      for (let el = r.nodeType === 1 ? r : it.nextNode(); el && c < cap; el = it.nextNode()) {
        c++;
        if (el.shadowRoot) walk(el.shadowRoot);
      }
    };
    walk(root);
    return c;
  };
  globalThis.__browserdPart = null;
  const total = count(document.documentElement || document, maxCounted);
  if (total <= max) return total;
  const up = n => n.parentNode || n.host || null;
  const items = [], k = [], roots = [];
  let budget = max, read = 0, taken = 0;
  start = start || document.documentElement;
  const above = [];
  for (let a = up(start); a; a = up(a)) if (a.nodeType !== 11) above.unshift(a);
  for (const a of above) { items.push(a); k.push(0); if (a.nodeType === 1) { read++; budget--; } }
  const take = (n) => {
    if (budget <= 0 || taken >= maxRoots) return false;
    if (n.nodeType === 3) {
      if (n.data.trim()) { items.push(n); k.push(1); taken++; }
      return true;
    }
    if (n.nodeType !== 1) return true;
    const size = count(n, budget + 1);
    if (size <= budget) {
      items.push(n); k.push(1); roots.push(n); taken++;
      budget -= size; read += size;
      return true;
    }
    items.push(n); k.push(0); budget--; read++;
    const kids = n.shadowRoot ? [...n.shadowRoot.childNodes, ...n.childNodes] : [...n.childNodes];
    for (const c of kids) if (!take(c)) return false;
    return true;
  };
  for (let n = start; n; ) {
    if (!take(n)) break;
    while (n && n !== document && !n.nextSibling) n = up(n);
    n = n && n !== document ? n.nextSibling : null;
  }
  globalThis.__browserdPart = roots;
  items.k = k; items.total = total; items.read = read;
  return items;
}`

// partRootsJS is, for domFacts, the elements a part read reads whole.
const partRootsJS = "(globalThis.__browserdPart || [document.documentElement])"

// framePlan is a part read's plan: the array partPlanJS returned, in
// group, on the frame's session, with its kinds and counts.
type framePlan struct {
	obj, group string
	from       bool  // planned from the element a snapshot asked for
	kinds      []int // of the nodes of obj: 1 read whole, 0 alone
	total      int   // the frame's elements
	read       int   // of them, the ones the plan reads
}

// planFrame plans the read of a frame: nil to read it whole. focus, when
// set, is the element of this frame the snapshot asked for: a frame read
// in part is read from there. elements is the frame's element count.
func (p *Page) planFrame(ctx context.Context, j frameJob, focus *Elem) (plan *framePlan, elements int, err error) {
	group := "browserd-part-" + j.frameID
	args := fmt.Sprintf("%d, %d, %d", MaxReadElements, maxPartRoots, maxCounted)
	var r struct {
		Result struct {
			Value    *int   `json:"value"`
			ObjectID string `json:"objectId"`
		} `json:"result"`
		Exception *evalException `json:"exceptionDetails"`
	}
	if focus != nil {
		var s *cdp.Session
		var el string
		if s, el, err = p.Resolve(ctx, *focus); err == nil {
			err = s.Call(ctx, "Runtime.callFunctionOn", map[string]any{"objectId": el, "objectGroup": group,
				"functionDeclaration": "function() { return (" + partPlanJS + ")(this, " + args + "); }"}, &r)
		}
	} else {
		err = p.inWorld(ctx, j.sess, j.frameID, func(id int64) error {
			return j.sess.Call(ctx, "Runtime.evaluate", map[string]any{"expression": "(" + partPlanJS + ")(null, " + args + ")",
				"contextId": id, "objectGroup": group}, &r)
		})
	}
	if err == nil {
		err = r.Exception.err()
	}
	switch {
	case err != nil:
		return nil, 0, err
	case r.Result.ObjectID == "":
		if r.Result.Value != nil {
			elements = *r.Result.Value
		}
		return nil, elements, nil
	}
	plan = &framePlan{obj: r.Result.ObjectID, group: group, from: focus != nil}
	var meta struct {
		K     []int `json:"k"`
		Total int   `json:"total"`
		Read  int   `json:"read"`
	}
	if err := callFunction(ctx, j.sess, plan.obj, `function() { return {k: this.k, total: this.total, read: this.read}; }`, &meta); err != nil {
		release(ctx, j.sess, group)
		return nil, 0, err
	}
	plan.kinds, plan.total, plan.read = meta.K, meta.Total, meta.Read
	return plan, meta.Total, nil
}

// readPart reads the part of a frame its plan names: the nodes, the root
// document's first, and what they are of the frame.
func (p *Page) readPart(ctx context.Context, j frameJob, plan *framePlan) ([]snapshot.Node, *snapshot.Part, error) {
	items, err := p.arrayItems(ctx, j.sess, plan.obj)
	if err != nil {
		return nil, nil, err
	}
	if len(items) == 0 || len(plan.kinds) != len(items) {
		return nil, nil, fmt.Errorf("reading the page in part: a plan of %d nodes and %d kinds", len(items), len(plan.kinds))
	}
	var wg sync.WaitGroup
	got := make([][]snapshot.Node, len(items))
	errs := make([]error, len(items))
	sem := make(chan struct{}, partCalls)
	for i, o := range items {
		if o == "" {
			continue
		}
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			got[i], errs[i] = p.axPart(ctx, j.sess, o, plan.kinds[i] == 1)
		})
	}
	wg.Wait()
	if errs[0] != nil {
		// The root (the document, or the first element above the part):
		// without it there is no tree.
		return nil, nil, errs[0]
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, context.Cause(ctx)
	}
	part := &snapshot.Part{Elements: plan.total, Read: plan.read, Max: MaxReadElements, From: plan.from}
	return joinParts(got), part, nil
}

// axPart reads one node of a part read: its whole subtree, or itself
// alone. A node gone meanwhile, or with no accessibility node, gives none.
func (p *Page) axPart(ctx context.Context, s *cdp.Session, obj string, whole bool) ([]snapshot.Node, error) {
	method, params := "Accessibility.getPartialAXTree", map[string]any{"objectId": obj, "fetchRelatives": false}
	if whole {
		method, params = "Accessibility.queryAXTree", map[string]any{"objectId": obj}
	}
	var raw cdp.Raw
	if err := s.Call(ctx, method, params, &raw); err != nil {
		return nil, err
	}
	nodes, err := snapshot.Decode(raw)
	if err != nil {
		return nil, err
	}
	if !whole && len(nodes) > 1 {
		nodes = nodes[:1]
	}
	return nodes, nil
}

// joinParts joins the nodes of a part read in order, each node once.
func joinParts(parts [][]snapshot.Node) []snapshot.Node {
	n := 0
	for _, ns := range parts {
		n += len(ns)
	}
	out := make([]snapshot.Node, 0, n)
	seen := make(map[string]bool, n)
	for _, ns := range parts {
		for _, nd := range ns {
			if !seen[nd.ID] {
				seen[nd.ID] = true
				out = append(out, nd)
			}
		}
	}
	return out
}

// TreeReadError is a read of the page's accessibility tree that ran out
// of time: the page has Elements elements (0 when the read did not get as
// far as counting them), and Chromium was still building or sending the
// tree — busy with that, not with a script of the page's.
type TreeReadError struct {
	Elements int
	Err      error
}

func (e *TreeReadError) Error() string {
	if e.Elements > 0 {
		return "reading the accessibility tree of a page of " + strconv.Itoa(e.Elements) + " elements: " + e.Err.Error()
	}
	return "reading the page's accessibility tree: " + e.Err.Error()
}

func (e *TreeReadError) Unwrap() error { return e.Err }
