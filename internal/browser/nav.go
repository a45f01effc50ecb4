package browser

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// QuietWindow is how long the network must be idle after the load event
// before a navigation counts as settled, and QuietMax caps that wait.
var (
	QuietWindow = 50 * time.Millisecond
	QuietMax    = 1500 * time.Millisecond
)

// NavError is a navigation Chromium refused or could not complete.
type NavError struct {
	URL  string
	Text string // net::ERR_… from Chromium
}

func (e *NavError) Error() string { return fmt.Sprintf("navigation to %s failed: %s", e.URL, e.Text) }

// Navigate loads url in the tab and waits for the load event and a short
// network-quiet window. A dialog that opens meanwhile ends the wait (the
// caller's ctx should come from ActionContext).
func (p *Page) Navigate(ctx context.Context, url string) error {
	p.mu.Lock()
	seq := p.loadSeq
	nav := p.navSeq
	p.recovered() // navigating is how a crashed tab comes back
	p.mu.Unlock()
	var r struct {
		FrameID   string `json:"frameId"`
		LoaderID  string `json:"loaderId"`
		ErrorText string `json:"errorText"`
	}
	if err := p.sess.Call(ctx, "Page.navigate", map[string]any{"url": url}, &r); err != nil {
		return err
	}
	if r.ErrorText != "" {
		return &NavError{URL: url, Text: r.ErrorText}
	}
	if r.LoaderID == "" { // same-document navigation
		return nil
	}
	// The load that counts is the new document's: one that fires after
	// the new document committed, not a late load of the old one.
	if err := p.waitUntil(ctx, func() bool { return p.navSeq > nav || p.crashed }); err != nil {
		return err
	}
	p.mu.Lock()
	if p.commitLoad > seq {
		seq = p.commitLoad
	}
	p.mu.Unlock()
	return p.settle(ctx, seq)
}

// settle waits until a load event newer than seq, then for network quiet.
func (p *Page) settle(ctx context.Context, seq int) error {
	err := p.waitUntil(ctx, func() bool { return p.loadSeq > seq || p.crashed })
	if err != nil {
		return err
	}
	if p.Crashed() {
		return ErrCrashed
	}
	return p.WaitQuiet(ctx)
}

// WaitQuiet waits until no request has been in flight for QuietWindow, at
// most QuietMax. It never fails for a busy page: long-polling pages exist.
func (p *Page) WaitQuiet(ctx context.Context) error {
	deadline := time.Now().Add(QuietMax)
	for {
		p.mu.Lock()
		busy := len(p.inflight) > 0
		since := time.Since(p.lastNet)
		ch := p.changed
		p.mu.Unlock()
		if time.Now().After(deadline) {
			return nil
		}
		wait := time.Until(deadline)
		if !busy {
			if since >= QuietWindow {
				return nil
			}
			wait = min(wait, QuietWindow-since)
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return context.Cause(ctx)
		case <-ch:
		case <-t.C:
		}
		t.Stop()
	}
}

// Mark records the tab's navigation state before an input action.
type Mark struct{ nav, load int }

// Mark returns the current navigation state, for Settle.
func (p *Page) Mark() Mark {
	p.mu.Lock()
	defer p.mu.Unlock()
	return Mark{nav: p.navSeq, load: p.loadSeq}
}

// Settle waits briefly for what an input action started: if a navigation
// began since m (or begins within a short grace period), wait for its load
// event; then for network quiet.
func (p *Page) Settle(ctx context.Context, m Mark) error {
	started := func() bool { return p.navSeq > m.nav || p.loading }
	// Everything Chromium said before now is handled first, however busy
	// the machine; then a short grace for a request still in flight.
	sctx, scancel := context.WithTimeout(ctx, time.Second)
	_ = p.Sync(sctx)
	scancel()
	// Input events return once the renderer handled them, so a navigation
	// they start is already requested; the browser reports it within ms.
	grace, cancel := context.WithTimeout(ctx, 5*time.Millisecond)
	_ = p.waitUntil(grace, started)
	cancel()
	p.mu.Lock()
	nav := started()
	p.mu.Unlock()
	if nav {
		// Wait for the new document's load. A request that never commits
		// (a download, a 204) may leave no trace but the request itself:
		// give up on it after a second without a commit.
		uncommitted, cancel := context.WithTimeout(ctx, time.Second)
		err := p.waitUntil(uncommitted, func() bool { return p.navSeq > m.nav || !p.loading || p.crashed })
		cancel()
		if err != nil && ctx.Err() != nil {
			return err
		}
		p.mu.Lock()
		committed := p.navSeq > m.nav
		p.mu.Unlock()
		if committed {
			if err := p.waitUntil(ctx, func() bool { return p.loadSeq > m.load || p.crashed }); err != nil {
				return err
			}
		}
	}
	return p.WaitQuiet(ctx)
}

// Reload reloads the tab and waits like Navigate.
func (p *Page) Reload(ctx context.Context) error {
	p.mu.Lock()
	seq := p.loadSeq
	p.mu.Unlock()
	if err := p.sess.Call(ctx, "Page.reload", map[string]any{}, nil); err != nil {
		return err
	}
	return p.settle(ctx, seq)
}

// ErrNoHistory is returned by History when there is no entry to go to.
var ErrNoHistory = errors.New("no history entry in that direction")

// History goes delta entries back (-1) or forward (+1).
func (p *Page) History(ctx context.Context, delta int) error {
	var h struct {
		CurrentIndex int `json:"currentIndex"`
		Entries      []struct {
			ID  int64  `json:"id"`
			URL string `json:"url"`
		} `json:"entries"`
	}
	if err := p.sess.Call(ctx, "Page.getNavigationHistory", nil, &h); err != nil {
		return err
	}
	i := h.CurrentIndex + delta
	if i < 0 || i >= len(h.Entries) {
		return ErrNoHistory
	}
	p.mu.Lock()
	seq, nav := p.loadSeq, p.navSeq
	p.mu.Unlock()
	if err := p.sess.Call(ctx, "Page.navigateToHistoryEntry", map[string]any{"entryId": h.Entries[i].ID}, nil); err != nil {
		return err
	}
	// Same-document entries fire no load event; give them a moment.
	grace, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	_ = p.waitUntil(grace, func() bool { return p.navSeq > nav || p.loading })
	cancel()
	p.mu.Lock()
	crossDoc := p.navSeq > nav || p.loading
	p.mu.Unlock()
	if !crossDoc {
		return nil
	}
	return p.settle(ctx, seq)
}

// URL is the main frame's last committed URL.
func (p *Page) URL() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.url
}
