package browser

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/browserd/browserd/internal/cdp"
)

// Credential answers HTTP basic and digest authentication challenges of
// one origin. Password is a secret: it never appears in an error, a log or
// a result.
type Credential struct {
	Origin   string `json:"origin"`
	Username string `json:"username"`
	Password string `json:"password"`
}

// CanonicalOrigin checks an origin given by a person ("https://host[:port]",
// nothing after) and returns it in the form Chromium reports
// (scheme://host[:port], the scheme's default port left out).
func CanonicalOrigin(s string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
		strings.Trim(u.Path, "/") != "" || u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("origin %q: want scheme://host[:port], e.g. https://intranet.example.com", s)
	}
	host := strings.ToLower(u.Host)
	if p := u.Port(); (u.Scheme == "http" && p == "80") || (u.Scheme == "https" && p == "443") {
		host = strings.ToLower(u.Hostname())
		if strings.Contains(host, ":") {
			host = "[" + host + "]"
		}
	}
	return u.Scheme + "://" + host, nil
}

// fetchSetup is the Fetch.enable call the tab needs for its guard, its
// routes (guarded: every request is paused) and its credentials, or nil
// when it needs none. Without either only the credentials' origins are
// intercepted: one Fetch.enable serves them all (onRequestPaused).
func fetchSetup(guarded bool, creds []Credential) map[string]any {
	if !guarded && len(creds) == 0 {
		return nil
	}
	var patterns []map[string]any
	if guarded {
		patterns = append(patterns, map[string]any{"urlPattern": "*", "requestStage": "Request"})
	} else {
		for _, c := range creds {
			patterns = append(patterns, map[string]any{"urlPattern": c.Origin + "/*", "requestStage": "Request"})
		}
	}
	return map[string]any{"patterns": patterns, "handleAuthRequests": len(creds) > 0}
}

// SetCredentials replaces the tab's HTTP credentials, for the requests it
// makes from now on.
func (p *Page) SetCredentials(ctx context.Context, creds []Credential) error {
	p.mu.Lock()
	p.opts.Credentials = creds
	guarded := p.opts.Guard != nil || routing(p.opts.Router)
	p.mu.Unlock()
	setup := fetchSetup(guarded, creds)
	if setup == nil {
		return p.sess.Call(ctx, "Fetch.disable", nil, nil)
	}
	return p.sess.Call(ctx, "Fetch.enable", setup, nil)
}

// answerAuth answers an authentication challenge: the credential of the
// challenging origin, once per request (a second challenge means it was
// refused: cancel rather than loop); Chromium's default for any other.
func (p *Page) answerAuth(s *cdp.Session, id, origin, source string) {
	var cred Credential
	found := false
	p.mu.Lock()
	if source == "Server" {
		for _, c := range p.opts.Credentials {
			if c.Origin == origin {
				cred, found = c, true
			}
		}
	}
	if p.authTried == nil || len(p.authTried) > 1000 {
		p.authTried = map[string]bool{}
	}
	tried := p.authTried[id]
	p.authTried[id] = true
	p.mu.Unlock()
	resp := map[string]any{"response": "Default"}
	switch {
	case found && !tried:
		resp = map[string]any{"response": "ProvideCredentials", "username": cred.Username, "password": cred.Password}
	case found:
		resp = map[string]any{"response": "CancelAuth"}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = s.Call(ctx, "Fetch.continueWithAuth", map[string]any{"requestId": id, "authChallengeResponse": resp}, nil)
}
