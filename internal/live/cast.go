package live

import (
	"context"
	"sync"
	"time"

	"github.com/browserd/browserd/internal/browser"
)

// caster shares one screencast of a tab among its viewers: it runs while
// at least one watches, and goes only as fast as the fastest viewer takes
// frames (each viewer always gets the newest one).
type caster struct {
	key    string
	viewer map[*viewer]struct{}
	cancel context.CancelFunc
	done   chan struct{}
	taken  chan struct{}  // a viewer took a frame (buffered 1)
	last   *browser.Frame // the newest frame, for a viewer who joins (guarded by casts.mu)
}

// viewer is one person watching: the newest frame not yet taken.
type viewer struct {
	frames chan browser.Frame // buffered 1: the newest frame
	c      *caster
}

// next waits for the viewer's next frame.
func (v *viewer) next(ctx context.Context) (browser.Frame, bool) {
	select {
	case f := <-v.frames:
		select {
		case v.c.taken <- struct{}{}:
		default:
		}
		return f, true
	case <-v.c.done:
		return browser.Frame{}, false
	case <-ctx.Done():
		return browser.Frame{}, false
	}
}

// casts are the running screencasts, by owner, session and tab.
type casts struct {
	mu  sync.Mutex
	all map[string]*caster
	wg  sync.WaitGroup
}

// join adds a viewer to the tab's screencast, starting it when none runs;
// leave must be called when the viewer goes.
func (cs *casts) join(key string, pg *browser.Page) *viewer {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.all == nil {
		cs.all = map[string]*caster{}
	}
	c := cs.all[key]
	if c != nil {
		select {
		case <-c.done: // its tab went away; this is a new one under the id
			c = nil
		default:
		}
	}
	if c == nil {
		ctx, cancel := context.WithCancel(context.Background())
		c = &caster{key: key, viewer: map[*viewer]struct{}{}, cancel: cancel, done: make(chan struct{}), taken: make(chan struct{}, 1)}
		cs.all[key] = c
		cs.wg.Go(func() {
			defer close(c.done)
			_ = pg.Screencast(ctx, 1280, 1280, func(f browser.Frame) { cs.deliver(ctx, c, f) })
		})
	}
	v := &viewer{frames: make(chan browser.Frame, 1), c: c}
	if c.last != nil {
		// A still page sends no frame until it paints again: the viewer
		// who joins starts from the newest one.
		v.frames <- *c.last
	}
	c.viewer[v] = struct{}{}
	return v
}

// deliver hands f to every viewer, in place of a frame not yet taken, and
// waits (a second at most) until one takes it: Chromium sends the next
// frame only after this returns.
func (cs *casts) deliver(ctx context.Context, c *caster, f browser.Frame) {
	select {
	case <-c.taken:
	default:
	}
	cs.mu.Lock()
	c.last = &f
	for v := range c.viewer {
		select {
		case <-v.frames:
		default:
		}
		v.frames <- f
	}
	cs.mu.Unlock()
	t := time.NewTimer(time.Second)
	defer t.Stop()
	select {
	case <-c.taken:
	case <-t.C:
	case <-ctx.Done():
	}
}

// leave removes a viewer; the last one stops the screencast.
func (cs *casts) leave(v *viewer) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	c := v.c
	delete(c.viewer, v)
	if len(c.viewer) == 0 && cs.all[c.key] == c {
		delete(cs.all, c.key)
		c.cancel()
	}
}

// close stops every screencast and waits for them.
func (cs *casts) close() {
	cs.mu.Lock()
	for k, c := range cs.all {
		c.cancel()
		delete(cs.all, k)
	}
	cs.mu.Unlock()
	cs.wg.Wait()
}
