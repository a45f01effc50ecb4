package browser

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync"

	"github.com/browserd/browserd/internal/cdp"
	"github.com/browserd/browserd/internal/snapshot"
	"github.com/browserd/browserd/internal/timing"
)

// Patching the tab's last read with what its journal (journal.go) says
// changed: the changed subtrees and the nodes around them are read again
// and spliced into the tree (snapshot.Patch), with the DOM facts of the
// changed elements.

// Patch reads what changed in the tab since the read of prev (a snapshot's
// frames; journal is the number StartJournal gave before that read) and
// returns the frames as they are now, with the number of the journal that
// now runs for the next read. An error says why the change needs a whole
// read (AXFrames) instead. Only a tab with one frame is patched.
func (p *Page) Patch(ctx context.Context, prev []snapshot.Frame, journal int64) ([]snapshot.Frame, int64, error) {
	const group = "browserd-patch"
	c, next, err := p.changedRoots(ctx, prev, journal, group)
	timing.Mark(ctx, "journal taken")
	if c.arr != "" {
		// Not waited for: the session's later calls come after it.
		defer p.sess.Send(context.WithoutCancel(ctx), "Runtime.releaseObjectGroup", map[string]any{"objectGroup": group})
	}
	if err != nil {
		return nil, next, err
	}
	if c.n == 0 {
		return []snapshot.Frame{prev[0]}, next, nil // nothing changed
	}
	// The old tree is indexed while the changed elements are described:
	// the renderer, drawing the action's frame, takes longer to answer
	// than the index takes to make (2-3 ms on a 1,000-row table).
	var ix nodeIndex
	var indexed sync.WaitGroup
	indexed.Go(func() { ix = indexNodes(prev[0].Nodes) })
	defer indexed.Wait()
	// Clickable and current elements in the changed subtrees, meanwhile:
	// their three calls into the page run beside the two that describe
	// and read the subtrees (read again if a root moves up, below).
	var facts domFacts
	var wg sync.WaitGroup
	readFacts := func() {
		facts = p.domFacts(ctx, frameJob{sess: p.sess, frameID: p.TargetID, isRoot: true}, "(globalThis.__browserdChanged || [])")
	}
	wg.Go(readFacts)
	defer wg.Wait()
	roots, err := p.describeRoots(ctx, c)
	if err != nil {
		return nil, next, err
	}
	timing.Mark(ctx, "described")
	old := prev[0]
	indexed.Wait()
	lifted, moved, err := p.liftIgnored(ctx, roots, ix)
	if err != nil {
		return nil, next, err
	}
	if moved {
		// The facts are read again under the elements the tree has.
		wg.Wait()
		wg.Go(readFacts)
	}
	roots = lifted
	subs, nodes, first, err := p.readChanged(ctx, roots, ix)
	timing.Mark(ctx, "changed read")
	wg.Wait()
	timing.Mark(ctx, "facts read")
	if err != nil {
		return nil, next, err
	}
	changed, more := ix.related(subs, roots, first)
	if len(more) > 0 {
		extra, err := p.axNodes(ctx, more)
		if err != nil {
			return nil, next, err
		}
		nodes = append(nodes, extra...)
	}
	// A node read whole with a subtree is not read again alone.
	nodes = slices.DeleteFunc(nodes, func(n snapshot.Node) bool { return changed[n.BackendID] })
	f := old
	f.Nodes, err = snapshot.Patch(old.Nodes, snapshot.Change{Subtrees: subs, Nodes: nodes})
	if err != nil {
		return nil, next, err
	}
	mergeFacts(&f, old, changed, facts)
	placeHidden(&f, f.Anchors)
	return []snapshot.Frame{f}, next, nil
}

// journalTake is what the page's journal said changed: how many subtrees
// (n), the array of their elements (arr, an object of the patch's group),
// and the first few of them (items: asked for with the journal, so most
// changes need no call to list them).
type journalTake struct {
	n     int
	arr   string
	items []string
}

// changedAhead is how many of the changed elements are asked for with the
// journal: most actions change one to three subtrees.
const changedAhead = 4

// changedRoots asks the page's journal what changed since journal, and
// starts the next one (next). The changed elements are asked for in the
// same breath. An error says why the tree cannot be patched (read it
// whole).
func (p *Page) changedRoots(ctx context.Context, prev []snapshot.Frame, journal int64, group string) (c journalTake, next int64, err error) {
	if len(prev) != 1 {
		return c, 0, errors.New("the tab has frames besides its main one")
	}
	if prev[0].Part != nil {
		// Which part a read takes depends on what the snapshot asks for.
		return c, 0, errors.New("the page was read in part")
	}
	if journal == 0 {
		return c, 0, errors.New("the page was not watched since the last read")
	}
	p.mu.Lock()
	p.journalSeq++
	next = p.journalSeq
	oopifs := len(p.oopifs)
	p.mu.Unlock()
	if oopifs > 0 {
		return c, 0, errors.New("the tab has frames besides its main one")
	}
	var jr evalResult
	var objs [1 + changedAhead]struct {
		Result remoteObject `json:"result"`
	}
	err = p.inWorld(ctx, p.sess, p.TargetID, func(id int64) error {
		// Chromium runs a session's calls in order: the later ones read
		// what the first left.
		take := p.sess.Send(ctx, "Runtime.evaluate", map[string]any{
			"expression": fmt.Sprintf(journalJS, journal, next), "contextId": id, "returnByValue": true,
		})
		waits := []func(any) error{take}
		for i := range objs {
			expr := "globalThis.__browserdChanged"
			if i > 0 {
				expr = fmt.Sprintf("(globalThis.__browserdChanged || [])[%d]", i-1)
			}
			waits = append(waits, p.sess.Send(ctx, "Runtime.evaluate", map[string]any{
				"expression": expr, "contextId": id, "objectGroup": group,
			}))
		}
		jr = evalResult{}
		errs := []error{take(&jr)}
		for i, w := range waits[1:] {
			objs[i].Result = remoteObject{}
			errs = append(errs, w(&objs[i]))
		}
		return errors.Join(errs...)
	})
	c.arr = objs[0].Result.ObjectID
	if err != nil {
		return c, 0, err
	}
	var out journalResult
	if err := jr.decode(&out); err != nil {
		return c, 0, err
	}
	if out.Unknown != "" || out.Roots == nil {
		return c, next, errors.New(cmp.Or(out.Unknown, "the journal said nothing"))
	}
	c.n = *out.Roots
	for _, o := range objs[1:min(1+c.n, len(objs))] {
		c.items = append(c.items, o.Result.ObjectID)
	}
	return c, next, nil
}

// describeRoots is the backend node ids of the elements the journal
// marked changed (see changedRoots), described all at once.
func (p *Page) describeRoots(ctx context.Context, c journalTake) ([]int64, error) {
	if c.arr == "" {
		return nil, errors.New("the changed elements are gone")
	}
	objs := c.items
	if c.n > len(objs) {
		var err error
		if objs, err = p.arrayItems(ctx, p.sess, c.arr); err != nil {
			return nil, err
		}
	}
	roots := make([]int64, len(objs))
	var wg sync.WaitGroup
	for i, o := range objs {
		if o != "" {
			wg.Go(func() { roots[i], _ = describe(ctx, p.sess, o) })
		}
	}
	wg.Wait()
	return roots, nil
}

// nodeIndex finds the nodes of the tree being patched by backend id and
// by AX id.
type nodeIndex struct {
	nodes     []snapshot.Node
	byBackend map[int64]int
	byID      map[string]int
}

func indexNodes(nodes []snapshot.Node) nodeIndex {
	ix := nodeIndex{nodes: nodes, byBackend: make(map[int64]int, len(nodes)), byID: make(map[string]int, len(nodes))}
	for i, n := range nodes {
		ix.byID[n.ID] = i
		if n.BackendID != 0 {
			ix.byBackend[n.BackendID] = i
		}
	}
	return ix
}

// ancestors adds the backend ids of the node id and its ancestors to into:
// their names and children may follow from what changed below them.
func (ix nodeIndex) ancestors(id string, into map[int64]bool) {
	for i, ok := ix.byID[id]; ok; i, ok = ix.byID[ix.nodes[i].ParentID] {
		if b := ix.nodes[i].BackendID; b != 0 {
			into[b] = true
		}
	}
}

// liftIgnored replaces a changed element the accessibility tree ignores (a
// React <span> around "Page 1 of 3"), which has no subtree Chromium will
// answer for, with its nearest ancestor it does not ignore, and marks the
// roots anew when one moved.
func (p *Page) liftIgnored(ctx context.Context, roots []int64, ix nodeIndex) (_ []int64, moved bool, err error) {
	for i, b := range roots {
		for j, ok := ix.byBackend[b]; ok && ix.nodes[j].Ignored; j, ok = ix.byID[ix.nodes[j].ParentID] {
			pj, pok := ix.byID[ix.nodes[j].ParentID]
			if !pok || ix.nodes[pj].BackendID == 0 {
				return nil, false, errors.New("a changed element has no accessibility node to read")
			}
			b = ix.nodes[pj].BackendID
			roots[i], moved = b, true
		}
	}
	if moved {
		roots = outermost(roots, ix.nodes, ix.byBackend, ix.byID)
		if err := p.setChanged(ctx, roots); err != nil {
			return nil, false, err
		}
	}
	return roots, moved, nil
}

// readChanged reads the changed subtrees and, meanwhile, the ancestors of
// every root the old tree knows (first: their backend ids).
func (p *Page) readChanged(ctx context.Context, roots []int64, ix nodeIndex) (subs [][]snapshot.Node, nodes []snapshot.Node, first map[int64]bool, err error) {
	first = map[int64]bool{}
	for _, b := range roots {
		if b == 0 {
			return nil, nil, nil, errors.New("a changed element is gone")
		}
		if j, ok := ix.byBackend[b]; ok {
			ix.ancestors(ix.nodes[j].ParentID, first)
		}
	}
	subs = make([][]snapshot.Node, len(roots))
	errs := make([]error, len(roots))
	var wg sync.WaitGroup
	for i, b := range roots {
		wg.Go(func() { subs[i], errs[i] = p.axSubtree(ctx, b) })
	}
	nodes, nerr := p.axNodes(ctx, first)
	wg.Wait()
	if err := errors.Join(append(errs, nerr)...); err != nil {
		return nil, nil, nil, err
	}
	// aria-owns moves nodes out of where their elements are: a subtree
	// read cannot tell what left the old place.
	for _, sub := range subs {
		if slices.ContainsFunc(sub, func(n snapshot.Node) bool { return n.Props["owns"] != "" }) {
			return nil, nil, nil, errors.New("aria-owns in a changed subtree")
		}
	}
	return subs, nodes, first, nil
}

// related says which nodes the change touched (changed: backend ids of the
// changed subtrees' nodes, old and new) and which others to read again
// (more): the ancestors of roots new to the tree, which hang from a node
// it knows, and the nodes whose names or descriptions come from a changed
// node — neither already read (first) nor changed.
func (ix nodeIndex) related(subs [][]snapshot.Node, roots []int64, first map[int64]bool) (changed, more map[int64]bool) {
	changed = map[int64]bool{}
	more = map[int64]bool{}
	for i, sub := range subs {
		if len(sub) > 0 {
			if _, ok := ix.byID[sub[0].ID]; !ok {
				ix.ancestors(sub[0].ParentID, more)
			}
		}
		for _, n := range sub {
			changed[n.BackendID] = true
		}
		if j, ok := ix.byBackend[roots[i]]; ok {
			for _, id := range subtreeIDs(ix.nodes, ix.byID, ix.nodes[j].ID) {
				changed[ix.nodes[ix.byID[id]].BackendID] = true
			}
		}
	}
	delete(changed, 0)
	for _, n := range ix.nodes {
		if n.BackendID == 0 || changed[n.BackendID] {
			continue
		}
		if slices.ContainsFunc(n.LabelledBy, func(b int64) bool { return changed[b] }) ||
			slices.ContainsFunc(n.DescribedBy, func(b int64) bool { return changed[b] }) {
			more[n.BackendID] = true
		}
	}
	for b := range more {
		if first[b] || changed[b] {
			delete(more, b)
		}
	}
	return changed, more
}

// mergeFacts sets the DOM facts of a patched frame f: those of the old
// frame outside the changed subtrees (changed: backend ids of their nodes,
// old and new), and those read in them now.
func mergeFacts(f *snapshot.Frame, old snapshot.Frame, changed map[int64]bool, d domFacts) {
	f.Clickable = make(map[int64]bool, len(old.Clickable)+len(d.clickable))
	f.ClickableText = make(map[int64]string, len(old.ClickableText)+len(d.text))
	f.Anchors = make(map[int64]int64, len(old.Anchors)+len(d.anchors))
	f.Current = make(map[int64]bool, len(old.Current)+len(d.current))
	f.Hints = make(map[int64]string, len(old.Hints)+len(d.hints))
	for b, h := range old.Hints {
		if !changed[b] {
			f.Hints[b] = h
		}
	}
	inside := func(b int64) bool {
		if changed[b] {
			return true
		}
		// Not in the accessibility tree: inside if its old anchor was.
		a, ok := old.Anchors[b]
		return ok && changed[a]
	}
	for b := range old.Clickable {
		if !inside(b) {
			f.Clickable[b] = true
			if t, ok := old.ClickableText[b]; ok {
				f.ClickableText[b] = t
			}
			if a, ok := old.Anchors[b]; ok {
				f.Anchors[b] = a
			}
		}
	}
	for b := range old.Current {
		if !changed[b] {
			f.Current[b] = true
		}
	}
	maps.Copy(f.Clickable, d.clickable)
	maps.Copy(f.ClickableText, d.text)
	maps.Copy(f.Anchors, d.anchors)
	maps.Copy(f.Current, d.current)
	maps.Copy(f.Hints, d.hints)
}

// subtreeIDs lists the ids of node id and everything under it in nodes.
// setChanged makes the elements of roots the changed elements the DOM
// facts of a patch are read under (globalThis.__browserdChanged).
func (p *Page) setChanged(ctx context.Context, roots []int64) error {
	if err := p.Run(ctx, "globalThis.__browserdChanged = []", nil); err != nil {
		return err
	}
	for _, b := range roots {
		err := p.CallOn(ctx, Elem{Backend: b}, "function() { (globalThis.__browserdChanged || []).push(this); }", nil)
		if err != nil {
			return fmt.Errorf("reading the changed element %d: %w", b, err)
		}
	}
	return nil
}

// outermost drops the roots that are another root, or under one in the
// old tree.
func outermost(roots []int64, nodes []snapshot.Node, byBackend map[int64]int, byID map[string]int) []int64 {
	in := make(map[int64]bool, len(roots))
	for _, b := range roots {
		in[b] = true
	}
	var out []int64
	seen := map[int64]bool{}
	for _, b := range roots {
		if seen[b] {
			continue
		}
		seen[b] = true
		under := false
		if j, ok := byBackend[b]; ok {
			for k, ok := byID[nodes[j].ParentID]; ok; k, ok = byID[nodes[k].ParentID] {
				if in[nodes[k].BackendID] {
					under = true
					break
				}
			}
		}
		if !under {
			out = append(out, b)
		}
	}
	return out
}

func subtreeIDs(nodes []snapshot.Node, byID map[string]int, id string) []string {
	var out []string
	stack := []string{id}
	seen := map[string]bool{}
	for len(stack) > 0 {
		id := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		i, ok := byID[id]
		if !ok || seen[id] {
			continue
		}
		seen[id] = true
		out = append(out, id)
		stack = append(stack, nodes[i].ChildIDs...)
	}
	return out
}

// axSubtree reads the accessibility nodes under an element, the element's
// own first; none when it has no node in the tree (not rendered).
func (p *Page) axSubtree(ctx context.Context, backend int64) ([]snapshot.Node, error) {
	var raw cdp.Raw
	if err := p.sess.Call(ctx, "Accessibility.queryAXTree", map[string]any{"backendNodeId": backend}, &raw); err != nil {
		return nil, err
	}
	nodes, err := snapshot.Decode(raw)
	if err != nil {
		return nil, err
	}
	if len(nodes) == 0 {
		// An element the tree ignores: Chromium answers nothing for it.
		return nil, fmt.Errorf("element %d has no accessibility subtree", backend)
	}
	if nodes[0].BackendID != backend {
		// The element has no node of its own; its children hang from its
		// parent's node, which a subtree read does not show.
		return nil, fmt.Errorf("element %d has no accessibility node of its own", backend)
	}
	return nodes, nil
}

// axNodes reads the accessibility nodes of the elements, concurrently.
func (p *Page) axNodes(ctx context.Context, backends map[int64]bool) ([]snapshot.Node, error) {
	ids := slices.Sorted(maps.Keys(backends))
	nodes := make([]snapshot.Node, len(ids))
	errs := make([]error, len(ids))
	var wg sync.WaitGroup
	for i, b := range ids {
		wg.Go(func() { nodes[i], errs[i] = p.axNode(ctx, b) })
	}
	wg.Wait()
	return nodes, errors.Join(errs...)
}

// axNode reads one element's accessibility node, children ids included.
func (p *Page) axNode(ctx context.Context, backend int64) (snapshot.Node, error) {
	var raw cdp.Raw
	if err := p.sess.Call(ctx, "Accessibility.getPartialAXTree", map[string]any{"backendNodeId": backend, "fetchRelatives": false}, &raw); err != nil {
		return snapshot.Node{}, err
	}
	nodes, err := snapshot.Decode(raw)
	if err != nil {
		return snapshot.Node{}, err
	}
	if len(nodes) == 0 {
		return snapshot.Node{}, fmt.Errorf("no accessibility node for element %s", strconv.FormatInt(backend, 10))
	}
	return nodes[0], nil
}
