package act

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/browserd/browserd/internal/tool"
)

// Wait waits for a selector to be visible, text to appear or go, the URL to
// contain a string, or a fixed time.
func (c *Tab) Wait(ctx context.Context) error {
	pg, in := c.Page, c.In
	if in.Time > 0 {
		t := time.NewTimer(time.Duration(in.Time) * time.Millisecond)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-t.C:
		}
		if in.Selector == "" && in.Text == "" && in.TextGone == "" && in.URL == "" && !in.Load {
			return nil
		}
	}
	if in.Load {
		if err := pg.WaitLoad(ctx); err != nil {
			if errors.Is(err, context.DeadlineExceeded) || errors.Is(context.Cause(ctx), context.DeadlineExceeded) {
				return tool.Fail("timed out waiting for the next page load: none started, or it did not finish; raise timeout (ms), or check the page with snapshot")
			}
			return err
		}
		if in.Selector == "" && in.Text == "" && in.TextGone == "" && in.URL == "" {
			return nil
		}
	}
	if in.Selector == "" && in.Text == "" && in.TextGone == "" && in.URL == "" {
		return nil // a time, a load or a person's hand-back (personGate) was all
	}
	var conds []string
	var desc []string
	if in.Selector != "" {
		conds = append(conds, `(() => { const el = document.querySelector(`+jsString(in.Selector)+`); if (!el) return false;
		  const r = el.getBoundingClientRect(); const s = getComputedStyle(el);
		  return r.width > 0 && r.height > 0 && s.visibility !== 'hidden'; })()`)
		desc = append(desc, fmt.Sprintf("selector %q to be visible", in.Selector))
	}
	if in.Text != "" {
		conds = append(conds, `!!document.body && document.body.innerText.includes(`+jsString(in.Text)+`)`)
		desc = append(desc, fmt.Sprintf("text %q", in.Text))
	}
	if in.TextGone != "" {
		conds = append(conds, `!document.body || !document.body.innerText.includes(`+jsString(in.TextGone)+`)`)
		desc = append(desc, fmt.Sprintf("text %q to disappear", in.TextGone))
	}
	if in.URL != "" {
		conds = append(conds, `location.href.includes(`+jsString(in.URL)+`)`)
		desc = append(desc, fmt.Sprintf("URL containing %q", in.URL))
	}
	expr := strings.Join(conds, " && ")
	for {
		var met bool
		err := pg.Run(ctx, expr, &met)
		if err == nil && met {
			return nil
		}
		if err != nil && ctx.Err() == nil && !strings.Contains(err.Error(), "context") && !strings.Contains(err.Error(), "Execution context was destroyed") && !strings.Contains(err.Error(), "Cannot find context") {
			if strings.Contains(err.Error(), "SyntaxError") || strings.Contains(err.Error(), "is not a valid selector") {
				return tool.Fail("bad selector %q", in.Selector)
			}
		}
		t := time.NewTimer(100 * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			if context.Cause(ctx) == context.DeadlineExceeded || ctx.Err() == context.DeadlineExceeded {
				return tool.Fail("timed out waiting for %s; raise timeout (ms) or check the page with snapshot", strings.Join(desc, " and "))
			}
			return context.Cause(ctx)
		case <-t.C:
		}
	}
}
