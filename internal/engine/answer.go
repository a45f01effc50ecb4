package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"

	"github.com/browserd/browserd/internal/browser"
	"github.com/browserd/browserd/internal/snapshot"
	"github.com/browserd/browserd/internal/timing"
	"github.com/browserd/browserd/internal/tool"
)

// This file is what an agent sees of the page: the snapshot, and the
// answer after an action — the whole page after a new document, else what
// changed since the snapshot the agent last saw.

// newDocument are the actions whose answer is the whole page: they show
// the agent a document (or a tab) it has not seen.
var newDocument = map[string]bool{
	"navigate": true, "back": true, "forward": true, "reload": true, "tab_new": true, "tab_switch": true,
}

// NoChanges is the answer's page part when an action changed nothing
// since the snapshot the agent last saw.
const NoChanges = "no changes"

// DiffHeader opens an answer that carries only what an action changed
// since the snapshot the agent last saw (the tool's description says what
// its lines mean).
const DiffHeader = "changes:"

// answerSnapshot is the page part of an action's answer: the whole
// snapshot after a new document (or when the agent asks with full, or has
// seen none of this document), else what changed since the snapshot the
// agent last saw — one line when nothing did. A change whose diff would be
// longer than the page itself is sent whole.
func (c *call) answerSnapshot(ctx context.Context) (string, error) {
	tb := c.tab
	prev := tb.LastSnap
	sameDoc := c.tab.Page.NavSeq() == tb.NavSeq
	whole := c.in.Full || newDocument[c.in.Action] || !sameDoc || prev == ""
	text, err := c.snapshot(ctx, snapshot.Options{})
	if err != nil {
		return "", err
	}
	if whole {
		return text, nil
	}
	d := snapshot.DiffWith(prev, text, snapshot.DiffOptions{Target: c.in.Ref})
	if d == snapshot.NoChanges {
		return NoChanges, nil
	}
	if len(d) >= len(text) {
		return text, nil
	}
	return DiffHeader + "\n" + d, nil
}

// snapshot builds the tab's page snapshot (or its diff against the last).
//
// A snapshot with a ref or a selector is that element's part of the page;
// for an item of a long list (snapshot.Options.Page), the list from that
// item on. The page snapshot then shows the list from there too (the tab's
// windows), and the agent is taken to have seen it so: when nothing else
// changed since the last page snapshot, that becomes the page with the new
// window, so that the next answer's diff shows what an action changes in
// the items on view.
func (c *call) snapshot(ctx context.Context, opt snapshot.Options) (string, error) {
	tb, pg := c.tab, c.tab.Page
	refs := c.task.Sess.Refs
	var page *snapshot.Key
	var focus *browser.Elem // a page too big to read whole is read from it
	if c.in.Action == "snapshot" && (c.in.Ref != "" || c.in.Selector != "") {
		if c.in.Ref != "" && c.in.Selector != "" {
			return "", fail("snapshot takes ref or selector, not both")
		}
		var el browser.Elem
		var err error
		if c.in.Ref != "" {
			el, err = c.onTab().Target(ctx) // checks that the ref is this tab's and fresh
		} else if el, err = pg.Query(ctx, c.in.Selector); err != nil {
			err = &userError{Msg: err.Error()}
		}
		if err != nil {
			return "", err
		}
		k := pg.KeyOf(el)
		page, focus = &k, &el
	}
	if nav := pg.NavSeq(); nav != tb.NavSeq {
		refs.ForgetOwner(tb.ID)
		tb.NavSeq = nav
		tb.LastSnap = ""
		tb.LastFrames, tb.Journal = nil, 0
		tb.Built = snapshot.Memo{}
		tb.Windows = nil
	}
	reuse := c.ahead != nil && page == nil && isAnswer(opt)
	frames, err := c.read(ctx, focus)
	if err != nil {
		return "", err
	}
	frames = c.withinHosts(ctx, frames)
	timing.Mark(ctx, "read")
	opt.Page, opt.Windows = page, tb.Windows
	var r snapshot.Result
	if reuse && c.ahead.same(frames) {
		r = c.ahead.built
	} else {
		r = tb.Built.Build(frames, refs, c.buildOptions(opt))
	}
	c.ahead = nil
	pg.Release(ctx)
	if r.WholePage {
		tb.Windows = r.Windows
	}
	full := opt.Root == nil && page == nil && !opt.Interactive && opt.Depth == 0 && opt.MaxChars == 0
	seen := "" // the page snapshot the agent has now seen, if known
	switch {
	case full:
		seen = r.Text
	case r.Whole != "" && tb.LastSnap != "" && r.Before == tb.LastSnap:
		seen = r.Whole
	}
	if c.in.Diff && c.in.Action == "snapshot" && page == nil {
		prev := tb.LastSnap
		if seen != "" {
			tb.LastSnap = seen
		}
		if prev == "" {
			return r.Text, nil
		}
		return snapshot.Diff(prev, r.Text), nil
	}
	if seen != "" {
		tb.LastSnap = seen
	}
	return r.Text, nil
}

// readAhead is the page read while an action's reaction settled, and
// its snapshot built for the answer.
type readAhead struct {
	frames []snapshot.Frame
	built  snapshot.Result
	// final: the page heard nothing of the action (browser.Unheard), so
	// this read, made after it, is the page the answer shows.
	final bool
}

// same reports whether frames are the read ahead, unchanged: the read
// after the page settled patched nothing into it.
func (a *readAhead) same(frames []snapshot.Frame) bool {
	if len(frames) != 1 || len(a.frames) != 1 || len(frames[0].Nodes) != len(a.frames[0].Nodes) || len(frames[0].Nodes) == 0 {
		return false
	}
	return &frames[0].Nodes[0] == &a.frames[0].Nodes[0]
}

// isAnswer reports whether opt asks for the page snapshot an answer
// holds (no part, depth or budget of it).
func isAnswer(opt snapshot.Options) bool {
	return !opt.Interactive && opt.Depth == 0 && opt.MaxChars == 0 && opt.Root == nil && opt.Page == nil && !opt.All
}

// readAhead reads the page while the action's reaction settles (see
// browser.WithMeanwhile), in the time the page takes to draw two frames:
// the changes so far are patched into the tab's last read and the
// answer's snapshot is built from it. The read after the page settled
// then has only what changed since to ask for — usually nothing, and the
// build is used as is. Only a patch is tried here — but on a small page
// with frames, which is never patched, the page is read whole meanwhile,
// and the read after asks the journal whether anything changed since (in
// its frames too) rather than reading it again: a click in a frame most
// often changed what it changes by the time its frame is drawn. Else,
// when the page must be read whole, that read is left for after.
func (c *call) readAhead(ctx context.Context) {
	tb, pg := c.tab, c.tab.Page
	if tb.LastFrames == nil || tb.LastSnap == "" || pg.NavSeq() != tb.NavSeq || c.in.Full {
		return
	}
	timing.Mark(ctx, "reading meanwhile")
	var frames []snapshot.Frame
	var err error
	if len(tb.LastFrames) > 1 && nodeCount(tb.LastFrames) <= wholeAheadMax {
		started := pg.SendStartJournal(ctx)
		frames, err = pg.AXFrames(ctx)
		if tb.Journal = started(); err == nil && tb.Journal == 0 {
			err = errors.New("no journal started with the read")
		}
	} else {
		var next int64
		frames, next, err = pg.Patch(ctx, tb.LastFrames, tb.Journal)
		tb.Journal = next
	}
	if err != nil {
		tb.LastFrames = nil
		return
	}
	timing.Mark(ctx, "read meanwhile")
	defer timing.Mark(ctx, "built meanwhile")
	tb.LastFrames = frames
	opt := c.buildOptions(snapshot.Options{Windows: tb.Windows})
	c.ahead = &readAhead{frames: frames, built: tb.Built.Build(frames, c.task.Sess.Refs, opt), final: browser.Unheard(ctx)}
}

// wholeAheadMax is the most accessibility nodes a page with frames may
// have for readAhead to read it whole while it settles: a read the page's
// reaction then makes stale costs that much again.
const wholeAheadMax = 3000

// nodeCount is how many accessibility nodes frames hold.
func nodeCount(frames []snapshot.Frame) int {
	n := 0
	for _, f := range frames {
		n += len(f.Nodes)
	}
	return n
}

// loadedRead is a new document as read while its load settled.
type loadedRead struct {
	nav     int // the tab's navigation it is of (browser.Page.NavSeq)
	frames  []snapshot.Frame
	journal int64 // the journal started with the read
}

// readLoaded reads a document the action loaded while the wait after its
// load event runs (see browser.WithLoaded): most pages change nothing in
// the frame after their load, and the answer then only asks the journal
// started with this read whether anything changed (read); what did is
// patched in, or the page read again.
func (c *call) readLoaded(ctx context.Context) {
	pg := c.tab.Page
	nav := pg.NavSeq()
	timing.Mark(ctx, "reading loaded")
	started := pg.SendStartJournal(ctx)
	frames, err := pg.AXFrames(ctx)
	journal := started()
	if err != nil || journal == 0 || pg.NavSeq() != nav {
		return
	}
	timing.Mark(ctx, "read loaded")
	c.loaded = &loadedRead{nav: nav, frames: frames, journal: journal}
}

// buildOptions completes opt for a build of the tab's snapshot.
func (c *call) buildOptions(opt snapshot.Options) snapshot.Options {
	opt.Owner = c.tab.ID
	if u, err := url.Parse(c.tab.Page.URL().Unwrap()); err == nil && u.Host != "" {
		opt.Origin = u.Scheme + "://" + u.Host
	}
	return opt
}

// read is the tab's accessibility tree. When the tab holds a read of the
// same document, it is that read — as it is, when the page's journal says
// nothing changed since (browser.Page.Unchanged: the journal runs on), or
// patched with what the journal says changed (browser.Page.Patch); else,
// or when the change needs it, or when the agent asks for a fresh
// snapshot with full, it is a whole read — of a part of a page too big to
// read whole, from focus when set. A patch or a whole read starts the
// journal anew; the result is kept for the next patch.
func (c *call) read(ctx context.Context, focus *browser.Elem) ([]snapshot.Frame, error) {
	tb, pg := c.tab, c.tab.Page
	if l := c.loaded; l != nil && focus == nil {
		// Read while the load settled: unchanged since (in every frame),
		// or patched, or read again below.
		c.loaded = nil
		if l.nav == pg.NavSeq() && tb.NavSeq == l.nav {
			tb.LastFrames, tb.Journal = l.frames, l.journal
			if pg.Unchanged(ctx, l.journal, len(l.frames)) {
				if err := c.verifyPatch(ctx, l.frames); err != nil {
					tb.LastFrames, tb.Journal = nil, 0
					return nil, err
				}
				return l.frames, nil
			}
		}
	}
	if a := c.ahead; a != nil && a.final && len(a.frames) > 0 && len(tb.LastFrames) > 0 && &tb.LastFrames[0] == &a.frames[0] {
		// Read after an action nothing of the page heard: nothing can
		// have changed since but what was already under way, which the
		// journal, running on, gives the next answer.
		if err := c.verifyPatch(ctx, tb.LastFrames); err != nil {
			tb.LastFrames, tb.Journal = nil, 0
			return nil, err
		}
		return tb.LastFrames, nil
	}
	// Read while the page settled, or asked for again by a snapshot (an
	// agent looking before it acts): most often nothing changed since, and
	// one short question says so — the journal runs on from that read.
	// After an action, the settle's last look at the page most often
	// said so already (browser.Page.CleanAtSettle): no call is made.
	again := c.ahead != nil || c.in.Action == "snapshot" && !c.in.Full
	settled := c.ahead != nil && pg.CleanAtSettle(tb.Journal, len(tb.LastFrames))
	if settled {
		timing.Mark(ctx, "clean at settle")
	}
	if again && wholeRead(tb.LastFrames) && (settled || pg.Unchanged(ctx, tb.Journal, len(tb.LastFrames))) {
		if err := c.verifyPatch(ctx, tb.LastFrames); err != nil {
			tb.LastFrames, tb.Journal = nil, 0
			return nil, err
		}
		return tb.LastFrames, nil
	}
	if tb.LastFrames != nil && !(c.in.Full && c.in.Action == "snapshot") {
		frames, next, err := pg.Patch(ctx, tb.LastFrames, tb.Journal)
		tb.Journal = next
		if err == nil {
			if err := c.verifyPatch(ctx, frames); err != nil {
				tb.LastFrames, tb.Journal = nil, 0
				return nil, err
			}
			tb.LastFrames = frames
			return frames, nil
		}
		tb.LastFrames = nil
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		c.e.Log.Debug("snapshot read whole", slog.String("tab", tb.ID), slog.String("action", c.in.Action), slog.Any("why", err))
	}
	started := pg.SendStartJournal(ctx) // before the read, which need not wait for it
	frames, err := pg.AXFramesFrom(ctx, focus)
	tb.Journal = started()
	if err != nil {
		tb.LastFrames, tb.Journal = nil, 0
		return nil, err
	}
	tb.LastFrames = frames
	return frames, nil
}

// wholeRead reports whether frames were read whole, none in part.
func wholeRead(frames []snapshot.Frame) bool {
	for _, f := range frames {
		if f.Part != nil {
			return false
		}
	}
	return len(frames) > 0
}

// verifyPatch, under BROWSERD_VERIFY_PATCH=1 (the e2e suite), compares a
// patched tree with a whole read of the page and fails on a difference —
// unless the page's journal says it changed since the patched read (its
// own timer went off between the two reads).
func (c *call) verifyPatch(ctx context.Context, patched []snapshot.Frame) error {
	if !c.e.VerifyPatch {
		return nil
	}
	pg, refs := c.tab.Page, c.task.Sess.Refs
	whole, err := pg.AXFrames(ctx)
	if err != nil {
		return err
	}
	w := snapshot.Build(whole, refs, c.buildOptions(snapshot.Options{All: true}))
	r := snapshot.Build(patched, refs, c.buildOptions(snapshot.Options{All: true}))
	pg.Release(ctx)
	if w.Text != r.Text {
		if !pg.Unchanged(ctx, c.tab.Journal, len(patched)) {
			// The page changed after the read checked (a timer of its
			// own went off meanwhile): the whole read is of another page,
			// and tells nothing of that one.
			c.e.Log.Debug("patch not verified: the page changed meanwhile", slog.String("tab", c.tab.ID))
			return nil
		}
		// One line: answers carry notes a line each.
		return fmt.Errorf("patched snapshot differs from a whole read (BROWSERD_VERIFY_PATCH): %s", strings.ReplaceAll(snapshot.Diff(w.Text, r.Text), "\n", " ⏎ "))
	}
	return nil
}

// toolDialog is the dialog as an answer shows it, inside the envelope.
func toolDialog(d *browser.Dialog) *tool.Dialog {
	return &tool.Dialog{Type: d.Type, Message: d.Message.Unwrap(), DefaultPrompt: d.DefaultPrompt.Unwrap()}
}
