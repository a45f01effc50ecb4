package engine

import (
	"context"

	"github.com/browserd/browserd/internal/sessions"
)

// A session's upstream proxy is internal/sessionproxy's; launch reads it
// into the call before any session is made, and gives it to the session
// the call creates.

func (c *call) prepareProxy(ctx context.Context) (err error) {
	c.proxy, err = c.e.ParseProxy(ctx, &c.in)
	return err
}

func (c *call) applyProxy(s *sessions.Session) error { return c.e.ApplyProxy(s, c.proxy) }
