package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/browserd/browserd/internal/storagestate"
)

// payloadVersion is the version of the capture payload layout written by
// EncodeCapture.
const payloadVersion = 1

// payload is the JSON layout of a capture's sealed part. SessionID and
// Taken are kept by the backend next to it, in the clear.
type payload struct {
	V         int                   `json:"v"`
	Tabs      []payloadTab          `json:"tabs"`
	Cookies   []storagestate.Cookie `json:"cookies"`
	Origins   []storagestate.Origin `json:"origins"`
	UserAgent string                `json:"userAgent,omitempty"`
	Timezone  string                `json:"timezone,omitempty"`
	Locale    string                `json:"locale,omitempty"`
	Dir       string                `json:"userDataDir,omitempty"`
	Geo       *Geolocation          `json:"geolocation,omitempty"`
	Creds     []Credential          `json:"httpCredentials,omitempty"`
	Proxy     *Proxy                `json:"proxy,omitempty"`
	Certs     []ClientCert          `json:"clientCerts,omitempty"`
	Login     *LoginCheck           `json:"loginCheck,omitempty"`
	Injected  []string              `json:"injectedDomains,omitempty"`
	Exclude   []string              `json:"excludeDomains,omitempty"`
	Emu       json.RawMessage       `json:"emulation,omitempty"`
}

type payloadTab struct {
	ID     string `json:"id"`
	Task   string `json:"task,omitempty"`
	URL    string `json:"url"`
	Title  string `json:"title,omitempty"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
	Active bool   `json:"active,omitempty"`
	Review bool   `json:"review,omitempty"`

	SessionStorage []storagestate.NameValue `json:"sessionStorage,omitempty"`
}

// EncodeCapture writes the part of c a backend seals — tabs, cookies,
// origins, user agent and timezone — as versioned JSON. It fails on a
// capture DecodeCapture would not read back (a negative viewport, an
// expiry that is not a finite number).
func EncodeCapture(c Capture) ([]byte, error) {
	p := payload{V: payloadVersion, Tabs: make([]payloadTab, len(c.Tabs)), Cookies: c.Cookies, Origins: c.Origins, UserAgent: c.UserAgent, Timezone: c.Timezone, Locale: c.Locale, Dir: c.UserDataDir, Geo: c.Geolocation, Creds: c.Credentials, Proxy: c.Proxy, Certs: c.ClientCerts, Login: c.LoginCheck, Injected: c.InjectedDomains, Exclude: c.ExcludeDomains, Emu: c.Emulation}
	for i, t := range c.Tabs {
		p.Tabs[i] = payloadTab(t)
	}
	if err := p.check(); err != nil {
		return nil, fmt.Errorf("store: capture of session %q: %w", c.SessionID, err)
	}
	b, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("store: encoding the capture of session %q: %w", c.SessionID, err)
	}
	return b, nil
}

// DecodeCapture reads what EncodeCapture wrote (after the backend opened
// the seal); SessionID and Taken are left for the caller to fill. Any
// input it cannot read fails with ErrCorrupt.
func DecodeCapture(data []byte) (Capture, error) {
	var p payload
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&p); err != nil {
		return Capture{}, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return Capture{}, fmt.Errorf("%w: data after the payload", ErrCorrupt)
	}
	if p.V != payloadVersion {
		return Capture{}, fmt.Errorf("%w: payload version %d, want %d", ErrCorrupt, p.V, payloadVersion)
	}
	if err := p.check(); err != nil {
		return Capture{}, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	c := Capture{Cookies: p.Cookies, Origins: p.Origins, UserAgent: p.UserAgent, Timezone: p.Timezone, Locale: p.Locale, UserDataDir: p.Dir, Geolocation: p.Geo, Credentials: p.Creds, Proxy: p.Proxy, ClientCerts: p.Certs, LoginCheck: p.Login, InjectedDomains: p.Injected, ExcludeDomains: p.Exclude, Emulation: p.Emu}
	if len(p.Tabs) > 0 {
		c.Tabs = make([]Tab, len(p.Tabs))
		for i, t := range p.Tabs {
			c.Tabs[i] = Tab(t)
		}
	}
	return c, nil
}

// check rejects what a capture cannot hold.
func (p *payload) check() error {
	for i, t := range p.Tabs {
		if t.Width < 0 || t.Height < 0 {
			return fmt.Errorf("tabs[%d]: negative viewport %dx%d", i, t.Width, t.Height)
		}
	}
	for i, c := range p.Cookies {
		if math.IsNaN(c.Expires) || math.IsInf(c.Expires, 0) {
			return fmt.Errorf("cookies[%d].expires: not a finite number", i)
		}
	}
	if len(p.Dir) > 4096 || strings.ContainsRune(p.Dir, 0) || p.Dir != "" && !strings.HasPrefix(p.Dir, "/") {
		return fmt.Errorf("userDataDir: %q is not an absolute path", p.Dir)
	}
	if g := p.Geo; g != nil && !(g.Latitude >= -90 && g.Latitude <= 90 && g.Longitude >= -180 && g.Longitude <= 180 && g.Accuracy >= 0) {
		return fmt.Errorf("geolocation: %v, %v (±%v m) is not a position", g.Latitude, g.Longitude, g.Accuracy)
	}
	return nil
}
