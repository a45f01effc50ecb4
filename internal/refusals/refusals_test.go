package refusals

import (
	"strings"
	"testing"

	"github.com/browserd/browserd/internal/browser"
	"github.com/browserd/browserd/internal/egress"
)

type seen struct {
	blocked, unresolved []egress.Decision
	upstream            []egress.UpstreamFailure
	certs               []string
}

func (s seen) Blocked() []egress.Decision                 { return s.blocked }
func (s seen) UpstreamFailures() []egress.UpstreamFailure { return s.upstream }
func (s seen) CertFailures() []string                     { return s.certs }
func (s seen) Unresolved() []egress.Decision              { return s.unresolved }

func TestFromEgress(t *testing.T) {
	eg := seen{
		blocked: []egress.Decision{
			{URL: "http://10.0.0.1/", Rule: "private", Reason: "a private address", Hint: "--allow-private"},
			{URL: "http://169.254.169.254/latest", Rule: "cloud metadata", Reason: "metadata"},
		},
		certs: []string{"x509: unknown authority"},
	}
	r := FromEgress(eg, Action{PageURL: "http://169.254.169.254/latest?x=1#f"})
	if len(r.Blocked) != 2 || strings.Contains(r.Blocked[0], "--allow-private") {
		t.Errorf("blocked = %q: want both, without the hint that loosens the guard", r.Blocked)
	}
	if !strings.Contains(r.NavRefused, "rule: cloud metadata") || strings.Contains(r.NavRefused, "169.254") {
		t.Errorf("navRefused = %q: want the rule, the address only in the details", r.NavRefused)
	}
	if len(r.Details) != 2 || r.Details[0] != "refused: http://169.254.169.254/latest?x=1#f" || len(r.Notes) != 1 {
		t.Errorf("details = %q, notes = %q", r.Details, r.Notes)
	}

	// A refusal said already is kept; an unresolved host of another
	// page says nothing.
	r = FromEgress(seen{unresolved: []egress.Decision{{URL: "https://nowhere.example:443"}}}, Action{PageURL: "https://a.example/", NavRefused: "said"})
	if r.NavRefused != "said" || len(r.Details) != 0 {
		t.Errorf("got %+v", r)
	}
	r = FromEgress(seen{unresolved: []egress.Decision{{URL: "nowhere.example:443"}}}, Action{PageURL: "https://nowhere.example/a"})
	if !strings.Contains(r.NavRefused, "does not resolve") {
		t.Errorf("a tunnel's host:port is the page's: got %+v", r)
	}
}

func TestInvalid(t *testing.T) {
	fields := []browser.InvalidField{{Name: `e"mail`, Type: "email", Message: "needs an @"}}
	if n, d := Invalid(false, fields); n != nil || d != nil {
		t.Errorf("an action that sends no form: %q %q", n, d)
	}
	n, d := Invalid(true, fields)
	if len(n) != 1 || !strings.Contains(n[0], "a field") || d[0] != `not sent: "e\"mail" (email): needs an @` {
		t.Errorf("got %q %q", n, d)
	}
}
