package engine

import (
	"context"
	"time"

	"github.com/browserd/browserd/internal/codegen"
)

// Playwright code for each action (internal/codegen): the call's targets
// are placed before it runs (its refs will be gone when the code runs),
// kept in the recording, and, with --codegen or codegen: true, the
// answer carries the line.

// resolveTargets places the call's targets as Playwright locators.
func (c *call) resolveTargets(ctx context.Context) {
	if c.tab == nil || c.tab.Page == nil || c.e.Recorder == nil && !c.wantsCode() {
		return
	}
	// A page too busy to answer leaves the target unplaced, not the
	// action without time.
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	c.targets = codegen.Resolve(ctx, c.tab.Page, tabRefs{c}, c.in)
}

func (c *call) wantsCode() bool { return c.in.Codegen || c.e.Cfg.Codegen }

// addCode puts the Playwright line of a call that succeeded in its answer.
func (c *call) addCode() {
	if !c.wantsCode() || !c.res.Success {
		return
	}
	if l := codegen.Line(c.in, c.targets); l != "" {
		c.res.Details = append(c.res.Details, "playwright: "+l)
	}
}
