package browser

import (
	"context"
	"fmt"
)

// After an action that loads no new document, the answer is what changed
// since the snapshot the agent saw. Reading the whole accessibility tree
// again for it costs as much as the first snapshot (≈ 300 ms on a
// 1,000-row table, most of it Chromium serialising 7,000 nodes), for a
// change that is usually one line. So from every read of the tree until the
// next, a journal in browserd's isolated world records which elements
// changed — DOM mutations (in open shadow roots too), the targets of input,
// change, focus and toggle events, and form controls whose value or
// checked state a script set without either — and the next read asks
// Chromium only for the subtrees under those elements and for the single
// nodes around them (their ancestors, whose name or children may follow
// from them; the nodes they label or describe).
//
// The journal watches the documents of the page's frames too, those its
// world can reach (same origin, same process): a page with frames is not
// patched, but one where nothing changed since its read — in any frame —
// is not read again (Unchanged).
//
// The journal says "unknown" — and the tab's whole tree is read as before —
// whenever a patch could miss something: too many changes, a change to
// <html> or <body> themselves or to a style sheet, a frame inside a changed
// subtree or a change in a frame, a <dialog> opened or closed (a modal one makes the rest of the
// page inert without touching it), or style rules that show or hide content on a state no mutation
// reports (:hover, :focus-within, :checked, :has() … with display,
// visibility or content). Sibling rules (`.open + .panel`) widen a changed
// element to its parent. The patch itself refuses a result that does not
// hang together (snapshot.Patch). A popover shown or hidden (a click
// outside closes it, changing no attribute) reports a toggle event: the
// popover and the buttons that invoke it are read again.

// journalJS stops the journal numbered take (0: none) and returns what it
// recorded — the changed elements in globalThis.__browserdChanged, and
// {roots: n} or {unknown: why} — then starts journal number next. Both
// happen in one turn of the page's event loop, so no change falls between.
const journalJS = `((take, next) => {
  const out = {};
  const J = globalThis.__browserdJournal;
  delete globalThis.__browserdChanged;
  if (J) J.stop();
  if (take) {
    if (!J || J.seq !== take) out.unknown = 'the page was not watched since the last snapshot';
    else out.roots = J.finish();
    if (typeof out.roots === 'string') { out.unknown = out.roots; delete out.roots; }
    else if (out.roots) { globalThis.__browserdChanged = out.roots; out.roots = out.roots.length; }
  }
  if (!next) return out;

  const html = document.documentElement, body = document.body, head = document.head;
  const touched = new Set();
  let over = false, why = '';
  const add = n => { if (!n) return; if (touched.size >= 300) { over = true; return; } touched.add(n); };
  const onRecs = recs => {
    for (const r of recs) {
      const t = r.target;
      if (head && (t === head || head.contains(t))) {
        // A title is the document's name; scripts and metadata show nothing;
        // a style sheet may change anything.
        const nodes = [...r.addedNodes, ...r.removedNodes, t];
        if (nodes.some(n => n.nodeName === 'STYLE' || n.nodeName === 'LINK')) why = why || 'a style sheet changed';
        continue;
      }
      if (r.type === 'childList' && (t === document || t === html || t === body)) {
        for (const a of r.addedNodes) add(a);
        if (t !== body) why = why || 'the document element changed';
        if ([...r.addedNodes, ...r.removedNodes].some(n => n.nodeName === 'STYLE' || n.nodeName === 'LINK')) why = why || 'a style sheet changed';
        continue;
      }
      if (t === html || t === body) { why = why || 'the body changed'; continue; }
      if (t.nodeName === 'STYLE' || (r.type === 'characterData' && t.parentNode && t.parentNode.nodeName === 'STYLE')) { why = why || 'a style sheet changed'; continue; }
      if (r.type === 'childList' && [...r.addedNodes, ...r.removedNodes].some(n => n.nodeName === 'STYLE' || n.nodeName === 'LINK')) { why = why || 'a style sheet changed'; continue; }
      // A modal dialog opening or closing makes the rest of the page inert,
      // or lively again, without touching it.
      if (r.type === 'attributes' && t.nodeName === 'DIALOG' && r.attributeName === 'open') { why = why || 'a dialog opened or closed'; continue; }
      const el = r.type === 'characterData' ? t.parentNode : t;
      // Sibling rules style an element by its neighbours' attributes.
      add(r.type === 'attributes' && css.sib && el.parentNode ? el.parentNode : el);
    }
  };
  const obs = new MutationObserver(onRecs);
  const opts = {subtree: true, childList: true, attributes: true, characterData: true};
  obs.observe(document, opts);
  const ev = e => { const p = e.composedPath(), t = p.length && p[0].nodeType === 1 ? p[0] : e.target;
    add(t);
    // A popover shown or hidden (light dismiss too) changes no attribute;
    // its invokers' expanded state follows it.
    if (e.type === 'toggle' && t.id && t.hasAttribute('popover')) {
      const r = t.getRootNode(), id = CSS.escape(t.id);
      for (const b of (r.querySelectorAll ? r : document).querySelectorAll('[popovertarget="' + id + '"],[commandfor="' + id + '"]')) add(b);
    }
  };
  const types = ['input', 'change', 'focusin', 'focusout', 'toggle'];
  const roots = [document];
  const walk = root => {
    const it = (root.ownerDocument || root).createTreeWalker(root, NodeFilter.SHOW_ELEMENT);
    for (let el = it.nextNode(); el; el = it.nextNode()) if (el.shadowRoot) { roots.push(el.shadowRoot); walk(el.shadowRoot); }
  };
  walk(document);
  // The documents of the page's frames that this world can reach (same
  // origin, same process) are watched as the page's own; a change in one
  // says "a frame changed" (the frames' trees are read whole). A frame it
  // cannot reach leaves the journal blind: never clean.
  const frames = [];
  let blind = false;
  for (let i = 0; i < roots.length; i++) for (const f of roots[i].querySelectorAll('iframe,frame')) {
    let d = null;
    try { d = f.contentDocument; } catch (e) {}
    if (!d) { blind = true; continue; }
    frames.push([f, d]); roots.push(d); walk(d);
  }
  const framesGone = () => blind || frames.some(([f, d]) => f.contentDocument !== d);
  const css = cssFlags(roots);
  const ctl = [];
  for (const r of roots) {
    if (r !== document) obs.observe(r, opts);
    for (const t of types) r.addEventListener(t, ev, true);
    for (const el of r.querySelectorAll('input,select,textarea')) {
      if (ctl.length >= 3000) { over = true; break; }
      ctl.push([el, el.value, el.checked, el.indeterminate, el.selectedIndex]);
    }
  }
  const stop = () => { obs.disconnect(); for (const r of roots) for (const t of types) r.removeEventListener(t, ev, true); };
  const finish = () => {
    onRecs(obs.takeRecords());
    if (css.dyn) return 'style rules show content on :hover, :focus or another state';
    if (why) return why;
    for (const [el, v, c, i, s] of ctl) if (el.value !== v || el.checked !== c || el.indeterminate !== i || el.selectedIndex !== s) add(el);
    if (over) return 'too many changes';
    if (framesGone()) return 'a frame changed';
    const els = new Set();
    for (let n of touched) {
      if ((n.ownerDocument || n) !== document) return 'a frame changed';
      if (n.nodeType === 11 && n.host) n = n.host;
      if (n.nodeType !== 1) n = n.parentNode;
      if (n && n.nodeType === 11 && n.host) n = n.host;
      if (!n || n.nodeType !== 1 || !n.isConnected) continue;
      if (n === html || n === body) return 'the body changed';
      if (head && head.contains(n)) continue;
      els.add(n);
    }
    const up = el => el.parentElement || (el.parentNode && el.parentNode.host) || null;
    const out = [];
    for (const el of els) {
      let inner = false;
      for (let a = up(el); a; a = up(a)) if (els.has(a)) { inner = true; break; }
      if (inner) continue;
      if (el.nodeName === 'IFRAME' || el.nodeName === 'FRAME' || el.querySelector('iframe,frame')) return 'a frame changed';
      out.push(el);
    }
    if (out.length > 60) return 'too many changes';
    return out;
  };
  // clean: nothing recorded so far (the journal runs on).
  const clean = () => {
    onRecs(obs.takeRecords());
    if (css.dyn || why || over || touched.size || framesGone()) return false;
    for (const [el, v, c, i, s] of ctl) if (el.value !== v || el.checked !== c || el.indeterminate !== i || el.selectedIndex !== s) return false;
    return true;
  };
  globalThis.__browserdJournal = {seq: next, stop, finish, clean, frames: frames.length};
  return out;

  // cssFlags tells whether the style rules of the document and its shadow
  // roots show or hide content on a state no mutation reports (dyn), or by
  // a sibling (sib). Cached per set of rules.
  function cssFlags(roots) {
    // Shadow roots have sheets of their own (a web component's :hover rule
    // lives there, often adopted).
    const sheets = [];
    for (const r of roots) sheets.push(...(r.styleSheets || []), ...(r.adoptedStyleSheets || []));
    let key = sheets.length + ':';
    for (const s of sheets) { try { key += s.cssRules.length + ','; } catch (e) { return {dyn: true, sib: true}; } }
    const c = globalThis.__browserdCSS;
    if (c && c.key === key && c.doc === document) return c.flags;
    const flags = {dyn: false, sib: false};
    const dynRe = /:(hover|focus|focus-within|focus-visible|active|checked|indeterminate|has|target|valid|invalid|user-valid|user-invalid|placeholder-shown|empty|open|popover-open|modal|autofill|default|disabled|enabled|read-only|read-write|required|optional|in-range|out-of-range|blank|playing|paused)\b/;
    let n = 0;
    const visit = rules => {
      for (const r of rules) {
        if (++n > 50000) { flags.dyn = flags.sib = true; return; }
        if (r.cssRules && r.cssRules.length) visit(r.cssRules);
        const sel = r.selectorText, st = r.style;
        if (!sel || !st) continue;
        if (!(st.display || st.visibility || st.content || st.contentVisibility)) continue;
        if (dynRe.test(sel)) flags.dyn = true;
        if (/[+~]/.test(sel.replace(/\([^)]*\)|\[[^\]]*\]/g, ''))) flags.sib = true;
      }
    };
    for (const s of sheets) visit(s.cssRules);
    globalThis.__browserdCSS = {key, doc: document, flags};
    return flags;
  }
})(%d, %d)`

// SendStartJournal is StartJournal sent now, its answer waited for by the
// function it returns (which must be called): Chromium runs a session's
// calls in order, so the journal starts before the read sent after it, and
// the read need not wait a round trip for it. The function returns the
// journal's number, 0 when none started.
func (p *Page) SendStartJournal(ctx context.Context) func() int64 {
	p.mu.Lock()
	p.journalSeq++
	seq := p.journalSeq
	p.mu.Unlock()
	id, err := p.world(ctx, p.sess, p.TargetID)
	if err != nil {
		return func() int64 { return 0 }
	}
	wait := p.sess.Send(ctx, "Runtime.evaluate", map[string]any{
		"expression": fmt.Sprintf(journalJS, 0, seq), "contextId": id, "returnByValue": true, "awaitPromise": true,
	})
	return func() int64 {
		var r evalResult
		var out journalResult
		if err := wait(&r); err != nil {
			if goneContext(err) {
				// The document went: the read that followed is of
				// another one, which no journal watched.
				p.forgetWorld(p.sess, p.TargetID)
			}
			return 0
		}
		if r.decode(&out) != nil {
			return 0
		}
		return seq
	}
}

// journalResult is what journalJS returns.
type journalResult struct {
	Roots   *int   `json:"roots"`
	Unknown string `json:"unknown"`
}

// StartJournal starts recording the main frame's changes for the next
// Patch, and returns the journal's number (0 when none could start: the
// next read will be whole). Call it just before reading the tree.
func (p *Page) StartJournal(ctx context.Context) int64 {
	p.mu.Lock()
	p.journalSeq++
	seq := p.journalSeq
	p.mu.Unlock()
	var r journalResult
	if err := p.Run(ctx, fmt.Sprintf(journalJS, 0, seq), &r); err != nil {
		return 0
	}
	return seq
}

// unchangedJS tells whether the journal numbered %d runs, watches the
// documents of %d frames besides the page's own, and has recorded no
// change.
const unchangedJS = `((seq, n) => { const J = globalThis.__browserdJournal; return !!(J && J.seq === seq && J.frames === n && J.clean()); })(%d, %d)`

// Unchanged reports whether the page is as the tab's last read left it:
// the journal numbered journal (started with that read) still runs and has
// recorded no change, in the page's document or in those of its frames —
// frames is how many the read had, the main one included, and the journal
// must watch them all (a frame out of the page's process, or one it cannot
// reach, it cannot). It leaves the journal running, so the read stays the
// base of the next Patch. One short call into the page, for a read just
// patched while the page settled (most often nothing changed since);
// false when it cannot tell.
func (p *Page) Unchanged(ctx context.Context, journal int64, frames int) bool {
	if journal == 0 || frames < 1 {
		return false
	}
	p.mu.Lock()
	oopifs := len(p.oopifs)
	p.mu.Unlock()
	if oopifs > 0 {
		return false
	}
	var ok bool
	return p.Run(ctx, fmt.Sprintf(unchangedJS, journal, frames-1), &ok) == nil && ok
}

// journalNowJS tells which journal runs, how many frames' documents it
// watches, and whether it has recorded no change so far; null when none.
const journalNowJS = `(() => { const J = globalThis.__browserdJournal; return J ? {seq: J.seq, frames: J.frames, clean: J.clean()} : null; })()`

// journalNow is what journalNowJS tells.
type journalNow struct {
	Seq    int64 `json:"seq"`
	Frames int   `json:"frames"`
	Clean  bool  `json:"clean"`
}

// sendJournalNow asks the page's journal how it stands (journalNowJS),
// sent now; the function it returns waits for the answer and keeps it as
// the settle's (CleanAtSettle). Sent with the settle's last call into the
// page (lateTimers), after the page was found quiet, when the quiet's own
// word on the journal (quietJS) is of an older one.
func (p *Page) sendJournalNow(ctx context.Context) func() {
	id, ok := p.worldID(p.sess, p.TargetID)
	if !ok {
		return func() {}
	}
	wait := p.sess.Send(ctx, "Runtime.evaluate", map[string]any{
		"expression": journalNowJS, "contextId": id, "returnByValue": true,
	})
	return func() {
		var r evalResult
		var now *journalNow
		if wait(&r) != nil || r.decode(&now) != nil || now == nil {
			return
		}
		p.mu.Lock()
		p.settledJournal = *now
		p.mu.Unlock()
	}
}

// keepSettledJournal keeps what the settle's quiet said of the journal
// (nil: none runs).
func (p *Page) keepSettledJournal(j *journalNow) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if j == nil {
		p.settledJournal = journalNow{}
		return
	}
	p.settledJournal = *j
}

// forgetSettledJournal drops what the settle's last look said of the
// journal: the page is looked at again after it.
func (p *Page) forgetSettledJournal() {
	p.mu.Lock()
	p.settledJournal = journalNow{}
	p.mu.Unlock()
}

// CleanAtSettle reports whether the last input action's settle, at its
// last look at the page (after the page was found quiet), found the
// journal numbered journal running over the documents of frames frames
// (the main one included) with no change recorded: a read whose journal
// that is — one patched while the page settled — is the page as it
// settled, with no call into the page to ask (Unchanged). A change
// after that look is the journal's, for the next answer. False when it
// cannot tell.
func (p *Page) CleanAtSettle(journal int64, frames int) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.settledJournal
	return journal != 0 && len(p.oopifs) == 0 && s.Seq == journal && s.Frames == frames-1 && s.Clean
}
