package engine

import (
	"context"

	"github.com/browserd/browserd/internal/sessions"
)

// A session's client certificates are internal/clientcerts'; launch reads
// them into the call before any session is made, and gives them to the
// session (created: the call made it).

func (c *call) prepareClientCerts() (err error) {
	c.certs, err = c.e.ReadClientCerts(&c.in)
	return err
}

func (c *call) applyClientCerts(ctx context.Context, s *sessions.Session, created bool) error {
	notes, err := c.e.ApplyClientCerts(ctx, s, c.certs, created, c.in.Action == "launch")
	c.res.Notes = append(c.res.Notes, notes...)
	return err
}
