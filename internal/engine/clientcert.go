package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/browserd/browserd/internal/egress"
	"github.com/browserd/browserd/internal/sessions"
	"github.com/browserd/browserd/internal/store"
)

// A session's client certificates (launch's clientCertificates): its
// guard listener presents each to its origin when the site asks for one
// (egress's clientcert.go); the key never enters Chromium. With a
// profile they are kept with the profile, sealed in the store, and every
// later session of it has them.

// prepareClientCerts reads launch's clientCertificates into c.certs,
// before any session is made: one browserd cannot use fails the call.
func (c *call) prepareClientCerts() error {
	if len(c.in.ClientCertificates) == 0 {
		return nil
	}
	switch {
	case c.e.Cfg.CDP != "":
		return fail("clientCertificates cannot apply to a browser browserd attaches to (--cdp): its requests do not go through browserd")
	case c.e.NoProxy:
		return fail("clientCertificates need browserd's egress proxy, which this daemon runs without")
	}
	certs := make([]store.ClientCert, 0, len(c.in.ClientCertificates))
	for i, cc := range c.in.ClientCertificates {
		cert, key := cc.Cert, cc.Key
		if cc.PFX != "" {
			var err error
			if cert, key, err = egress.PFXToPEM(cc.PFX, cc.Passphrase); err != nil {
				return fail("launch: clientCertificates[%d]: %v", i, err)
			}
		}
		if _, err := egress.ParseClientCert(cc.Origin, cert, key, cc.CA); err != nil {
			return fail("launch: clientCertificates[%d]: %v", i, err)
		}
		certs = append(certs, store.ClientCert{Origin: cc.Origin, Cert: cert, Key: key, CA: cc.CA})
	}
	c.certs = certs
	return nil
}

// applyClientCerts gives the session launch's client certificates (kept
// with its profile when it has one), or, for a session the call made of a
// profile (created), the profile's; and puts them on its guard listener.
func (c *call) applyClientCerts(ctx context.Context, s *sessions.Session, created bool) error {
	e := c.e
	e.Mu.Lock()
	profile := s.Profile
	e.Mu.Unlock()
	certs := c.certs
	switch {
	case certs != nil && profile != "":
		plain, err := json.Marshal(certs)
		if err != nil {
			return err
		}
		owner, name := sessions.SplitName(profile)
		if err := e.Store.SaveProfileState(ctx, owner, store.ClientCertsName(name), plain, time.Now()); err != nil {
			return fmt.Errorf("keeping the client certificates with profile %s: %w", sessions.BareName(profile), err)
		}
	case certs == nil && profile != "" && created:
		owner, name := sessions.SplitName(profile)
		plain, _, err := e.Store.LoadProfileState(ctx, owner, store.ClientCertsName(name))
		switch {
		case errors.Is(err, store.ErrNotFound):
			return nil
		case err != nil:
			c.res.Notes = append(c.res.Notes, "the profile's client certificates could not be read ("+err.Error()+"): give them again with launch's clientCertificates")
			return nil
		}
		if err := json.Unmarshal(plain, &certs); err != nil {
			return fmt.Errorf("reading the profile's client certificates: %w", err)
		}
	case certs == nil:
		return nil
	}
	parsed, err := sessions.ParseClientCerts(certs)
	if err != nil {
		c.res.Notes = append(c.res.Notes, err.Error())
	}
	e.Mu.Lock()
	s.ClientCerts = certs
	eg := s.Egress
	e.Mu.Unlock()
	if eg != nil {
		eg.SetClientCerts(parsed)
	}
	if c.in.Action == "launch" {
		for _, p := range parsed {
			c.res.Notes = append(c.res.Notes, fmt.Sprintf("presents %s to https://%s when it asks for one", p, p.HostPort))
		}
	}
	return nil
}
