// Package refusals turns what was refused or failed while an action ran —
// the guard's refusals, the upstream proxy's failures, TLS handshakes with
// a client certificate, hosts that did not resolve, forms the browser's
// own checks stopped — into the lines of the action's answer an agent
// reads. The page chose those requests, so no line invites loosening the
// guard, and addresses stay in the details, inside the untrusted envelope.
package refusals

import (
	"encoding/json"
	"fmt"
	"net"
	"net/url"

	"github.com/browserd/browserd/internal/browser"
	"github.com/browserd/browserd/internal/egress"
	"github.com/browserd/browserd/internal/sessionproxy"
)

// Egress is what a session's guard and proxy saw since they were last
// asked (each method takes what it returns).
type Egress interface {
	Blocked() []egress.Decision
	UpstreamFailures() []egress.UpstreamFailure
	CertFailures() []string
	Unresolved() []egress.Decision
}

// Action is the action the egress report is for.
type Action struct {
	// PageURL is the tab's URL once the action ended.
	PageURL string
	// AskedURL is the URL the agent asked to open (navigate, tab_new);
	// empty for any other action.
	AskedURL string
	// OwnProxy says the session has a proxy of its own (launch's proxy),
	// not browserd's.
	OwnProxy bool
	// NavRefused is a refusal of the tab's document said already.
	NavRefused string
}

// Report is what the answer gets.
type Report struct {
	Blocked, Details, Notes []string
	// NavRefused is set when the tab's own document was refused or
	// failed: the action's error.
	NavRefused string
	// ProxyFailed is the first upstream proxy failure, in browserd's
	// words, for a navigation error's explanation.
	ProxyFailed string
}

// FromEgress reads what eg refused or failed during a.
func FromEgress(eg Egress, a Action) Report {
	r := Report{NavRefused: a.NavRefused}
	page := StripQuery(a.PageURL)
	isPage := func(u string) bool {
		return page != "" && (u == page || u == HostPort(a.PageURL)) && r.NavRefused == ""
	}
	for _, d := range eg.Blocked() {
		// The page chose these requests: no hint invites loosening the
		// guard for them, and their URLs stay inside the envelope.
		d.Hint = ""
		r.Blocked = append(r.Blocked, d.Error())
		if isPage(d.URL) {
			// The page chose the address: it is in the details, inside
			// the envelope, not in the error.
			r.NavRefused = fmt.Sprintf("the page led the tab to an address the guard refuses (rule: %s; the address is in the details); the page chose it, not you — go back or navigate elsewhere", d.Rule)
			r.Details = append(r.Details, "refused: "+a.PageURL)
		}
	}
	for _, f := range eg.UpstreamFailures() {
		// The proxy failed the request: said in browserd's words, which
		// name the proxy, never the page's address.
		msg := sessionproxy.Failure(a.OwnProxy, f.Err)
		if r.ProxyFailed == "" {
			r.ProxyFailed = msg
		}
		if isPage(f.URL) {
			r.NavRefused = "the page did not load: " + msg
			if a.AskedURL != "" {
				r.NavRefused = fmt.Sprintf("navigation to %s failed: %s", a.AskedURL, msg)
			}
			r.Details = append(r.Details, "through the proxy: "+a.PageURL)
		}
	}
	if f := eg.CertFailures(); len(f) > 0 {
		// The TLS error may quote the site's certificate: in the details.
		r.Details = append(r.Details, f...)
		r.Notes = append(r.Notes, "the TLS handshake with a site the session has a client certificate for failed (the details say why): check the certificate launch's clientCertificates gave for it, and its ca when the site's own certificate comes from a private CA")
	}
	for _, d := range eg.Unresolved() {
		// A page that led the tab to a host that does not resolve did
		// not load: say so, as the guard's refusals are said.
		if isPage(d.URL) {
			r.NavRefused = "the page led the tab to an address whose host does not resolve (the address is in the details); the page chose it, not you — go back or navigate elsewhere"
			r.Details = append(r.Details, "did not resolve: "+a.PageURL)
		}
	}
	return r
}

// Invalid tells the agent that a form it tried to send was stopped by the
// browser's own checks (a required field left empty, an email without an
// @): the page shows why only in a bubble no snapshot holds, and without
// this the action looks as if it did nothing. sends says the action could
// send a form (a click, a key, a type with submit); a page checking its
// fields itself while text is typed is not a form stopped.
func Invalid(sends bool, fields []browser.InvalidField) (notes, details []string) {
	if len(fields) == 0 || !sends {
		return nil, nil
	}
	what := "a field"
	if len(fields) > 1 {
		what = fmt.Sprintf("%d fields", len(fields))
	}
	notes = []string{"the form was not sent: the browser's own checks stopped it at " + what +
		" (what the browser says is in the details, as its bubble is not in the page) — correct them and send it again"}
	for _, f := range fields {
		name, _ := json.Marshal(f.Name)
		details = append(details, fmt.Sprintf("not sent: %s (%s): %s", name, f.Type, f.Message))
	}
	return notes, details
}

// StripQuery is a URL as the guard names requests: no query, no fragment.
func StripQuery(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return ""
	}
	u.RawQuery, u.Fragment, u.RawFragment = "", "", ""
	if u.Path == "" {
		u.Path = "/"
	}
	return u.String()
}

// HostPort is how the guard names an HTTPS request: host:port. Any other
// URL gives a string no request is named.
func HostPort(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "https" {
		return "\x00"
	}
	port := u.Port()
	if port == "" {
		port = "443"
	}
	return net.JoinHostPort(u.Hostname(), port)
}
