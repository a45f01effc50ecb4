// Package clientcerts is a session's client certificates (launch's
// clientCertificates): its guard listener presents each to its origin
// when the site asks for one (internal/egress's clientcert.go); the key
// never enters Chromium. With a profile they are kept with the profile,
// sealed in the store, and every later session of it has them. The
// package reads and checks launch's certificates before any session is
// made, keeps or loads a profile's, and puts them on the session's guard
// listener.
//
// The engine wires Certs (its room) and calls it from launch.
package clientcerts

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/browserd/browserd/internal/egress"
	"github.com/browserd/browserd/internal/sessions"
	"github.com/browserd/browserd/internal/store"
	"github.com/browserd/browserd/internal/tool"
)

// Certs reads, keeps and applies sessions' client certificates.
type Certs struct {
	*sessions.Registry
}

// ReadClientCerts reads launch's clientCertificates (nil for none) before
// any session is made: one browserd cannot use is a *tool.Error.
func (k *Certs) ReadClientCerts(in *tool.Input) ([]store.ClientCert, error) {
	if len(in.ClientCertificates) == 0 {
		return nil, nil
	}
	switch {
	case k.Cfg.CDP != "":
		return nil, tool.Fail("clientCertificates cannot apply to a browser browserd attaches to (--cdp): its requests do not go through browserd")
	case k.NoProxy:
		return nil, tool.Fail("clientCertificates need browserd's egress proxy, which this daemon runs without")
	}
	certs := make([]store.ClientCert, 0, len(in.ClientCertificates))
	for i, cc := range in.ClientCertificates {
		cert, key := cc.Cert, cc.Key
		if cc.PFX != "" {
			var err error
			if cert, key, err = egress.PFXToPEM(cc.PFX, cc.Passphrase); err != nil {
				return nil, tool.Fail("launch: clientCertificates[%d]: %v", i, err)
			}
		}
		if _, err := egress.ParseClientCert(cc.Origin, cert, key, cc.CA); err != nil {
			return nil, tool.Fail("launch: clientCertificates[%d]: %v", i, err)
		}
		certs = append(certs, store.ClientCert{Origin: cc.Origin, Cert: cert, Key: key, CA: cc.CA})
	}
	return certs, nil
}

// ApplyClientCerts gives s launch's client certificates certs (kept with
// its profile when it has one), or, for a session the call made of a
// profile (created), the profile's; and puts them on its guard listener.
// It returns the notes for the call's answer: what each presents where
// (for a launch), and what could not be read.
func (k *Certs) ApplyClientCerts(ctx context.Context, s *sessions.Session, certs []store.ClientCert, created, launch bool) ([]string, error) {
	k.Mu.Lock()
	profile := s.Profile
	k.Mu.Unlock()
	var notes []string
	switch {
	case certs != nil && profile != "":
		plain, err := json.Marshal(certs)
		if err != nil {
			return nil, err
		}
		owner, name := sessions.SplitName(profile)
		if err := k.Store.SaveProfileState(ctx, owner, store.ClientCertsName(name), plain, time.Now()); err != nil {
			return nil, fmt.Errorf("keeping the client certificates with profile %s: %w", sessions.BareName(profile), err)
		}
	case certs == nil && profile != "" && created:
		owner, name := sessions.SplitName(profile)
		plain, _, err := k.Store.LoadProfileState(ctx, owner, store.ClientCertsName(name))
		switch {
		case errors.Is(err, store.ErrNotFound):
			return nil, nil
		case err != nil:
			return []string{"the profile's client certificates could not be read (" + err.Error() + "): give them again with launch's clientCertificates"}, nil
		}
		if err := json.Unmarshal(plain, &certs); err != nil {
			return nil, fmt.Errorf("reading the profile's client certificates: %w", err)
		}
	case certs == nil:
		return nil, nil
	}
	parsed, err := sessions.ParseClientCerts(certs)
	if err != nil {
		notes = append(notes, err.Error())
	}
	k.Mu.Lock()
	s.ClientCerts = certs
	eg := s.Egress
	k.Mu.Unlock()
	if eg != nil {
		eg.SetClientCerts(parsed)
	}
	if launch {
		for _, p := range parsed {
			notes = append(notes, fmt.Sprintf("presents %s to https://%s when it asks for one", p, p.HostPort))
		}
	}
	return notes, nil
}
