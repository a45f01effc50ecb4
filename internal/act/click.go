package act

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/browserd/browserd/internal/browser"
	"github.com/browserd/browserd/internal/timing"
	"github.com/browserd/browserd/internal/tool"
)

// Click clicks the target with the real mouse (the input's button,
// modifiers and double), after scrolling it into view and checking that
// nothing covers it, and waits for what the click set off.
func (c *Tab) Click(ctx context.Context) error { return c.pointer(ctx, "click") }

// Hover moves the mouse over the target and waits for what it set off (a
// menu, a tooltip).
func (c *Tab) Hover(ctx context.Context) error { return c.pointer(ctx, "hover") }

func (c *Tab) pointer(ctx context.Context, action string) error {
	if c.Pointed() {
		return c.pointerAt(ctx, action)
	}
	in, pg := c.In, c.Page
	el, err := c.Target(ctx)
	if err != nil {
		return err
	}
	timing.Mark(ctx, "found")
	// A page's delayed reaction (a menu, a tooltip) is waited for while
	// what the click started is pending (see browser.Page.Settle). The
	// watch starts before the element is scrolled into view, while the
	// page is idle: what the scroll sets off is the action's too.
	m, aim, err := pg.MarkAim(ctx, el, action)
	if err != nil {
		return err
	}
	timing.Mark(ctx, "aimed")
	if action == "hover" {
		if err := pg.Hover(ctx, aim.X, aim.Y); err != nil {
			return err
		}
	} else {
		o := browser.ClickOptions{Button: in.Button, Modifiers: in.Modifiers}
		if in.Double {
			o.Count = 2
		}
		if err := pg.Click(ctx, aim.X, aim.Y, o); err != nil {
			return err
		}
	}
	timing.Mark(ctx, action+"ed")
	return pg.Settle(ctx, m)
}

// Press presses a key or chord, on the target when the input names one
// (focused first), else where the focus is.
func (c *Tab) Press(ctx context.Context) error {
	pg := c.Page
	if c.Targeted() {
		el, err := c.Target(ctx)
		if err != nil {
			return err
		}
		if err := pg.Focus(ctx, el); err != nil {
			return err
		}
	}
	m := pg.Mark(ctx)
	press := pg.Press
	if c.In.Time > 0 {
		// Held down that long (a game's arrow key, a long press of a key).
		press = func(ctx context.Context, chord string) error {
			return pg.Hold(ctx, chord, time.Duration(c.In.Time)*time.Millisecond)
		}
	}
	if err := press(ctx, c.In.Key); err != nil {
		return &tool.Error{Msg: err.Error()}
	}
	return pg.Settle(ctx, m)
}

// Console puts the tab's console messages and page errors, from their
// bounded buffer, in the content.
func (c *Tab) Console(context.Context) error {
	msgs, dropped := c.Page.Console()
	var b strings.Builder
	if dropped > 0 {
		fmt.Fprintf(&b, "[%d older messages dropped; the buffer keeps the last %d]\n", dropped, len(msgs))
	}
	for _, m := range msgs {
		fmt.Fprintf(&b, "[%s] %s\n", m.Level, m.Text)
	}
	if len(msgs) == 0 {
		b.WriteString("no console messages")
	}
	c.Res.Content = strings.TrimRight(b.String(), "\n")
	return nil
}
