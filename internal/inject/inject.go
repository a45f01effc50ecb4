// Package inject decides whether a storageState may be injected into a new
// session (source 003 FR-6) and says what the agent should be told about it
// (FR-5). It holds no browser code: the engine injects, the front ends map
// an *Error's Kind to their status codes.
//
// The checks, in order: the state parses (else Malformed, with field
// paths); a stored session's expiresAt has not passed and not every cookie
// is past its expiry (else Rejected, naming the cookies); every cookie and
// origin is within allowedDomains, when given (else Rejected listing them,
// or — with the filter policy — dropped and listed).
package inject

import (
	"fmt"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/browserd/browserd/internal/browser"
	"github.com/browserd/browserd/internal/storagestate"
)

// Kind says whose fault an Error is.
type Kind int

// The kinds of Error.
const (
	// Malformed: the request or its storageState cannot be read (400).
	Malformed Kind = iota + 1
	// Rejected: well formed, but may not be injected: expired, or outside
	// the allowed domains (422).
	Rejected
	// NotFound: no such stored session for this owner (404).
	NotFound
	// Conflict: the session name is taken (409).
	Conflict
)

// Error is a refused injection. Fields are the offending parts of the
// storageState by JSON path.
type Error struct {
	Kind   Kind
	Msg    string
	Fields storagestate.Errors
}

func (e *Error) Error() string {
	if len(e.Fields) == 0 {
		return e.Msg
	}
	return e.Msg + ": " + strings.TrimPrefix(e.Fields.Error(), "invalid storageState: ")
}

// Policy is what to do with cookies and origins outside the allowed domains.
type Policy string

// The domain policies.
const (
	Reject Policy = "reject" // refuse the whole state (the default)
	Filter Policy = "filter" // drop them and say which
)

// Check validates st for injection at now and applies the domain policy
// (st is changed when it filters). expiresAt is the stored session's
// expiry (zero: none). It returns what was dropped, as field errors.
func Check(st *storagestate.State, expiresAt time.Time, allowed []string, policy Policy, now time.Time) (storagestate.Errors, error) {
	switch policy {
	case "", Reject, Filter:
	default:
		return nil, &Error{Kind: Malformed, Msg: fmt.Sprintf("domainPolicy %q: use reject or filter", policy)}
	}
	if !expiresAt.IsZero() && !expiresAt.After(now) {
		return nil, &Error{Kind: Rejected, Msg: fmt.Sprintf("the stored session expired at %s; store a fresh one", expiresAt.UTC().Format(time.RFC3339))}
	}
	if errs := st.Expired(now); len(errs) > 0 {
		return nil, &Error{Kind: Rejected, Msg: "every cookie of the state has expired; log in again and store a fresh state", Fields: errs}
	}
	if len(allowed) == 0 {
		return nil, nil
	}
	for i, d := range allowed {
		d = strings.TrimSpace(d)
		if d == "" || strings.ContainsAny(d, "/:; *") {
			return nil, &Error{Kind: Malformed, Msg: fmt.Sprintf("allowedDomains[%d] %q: want a host such as example.com (subdomains are included)", i, d)}
		}
	}
	outside := st.Outside(allowed, policy == Filter)
	if len(outside) > 0 && policy != Filter {
		return nil, &Error{Kind: Rejected, Msg: `the state has cookies or origins outside allowedDomains (send domainPolicy "filter" to drop them instead)`, Fields: outside}
	}
	return outside, nil
}

// Domains are the domains a state authenticates: its cookies' domains, or
// when it has no cookies its origins' hosts; sorted, without leading dots.
func Domains(st *storagestate.State) []string {
	var out []string
	for _, c := range st.Cookies {
		out = append(out, strings.ToLower(strings.TrimPrefix(c.Domain, ".")))
	}
	if len(out) == 0 {
		for _, o := range st.Origins {
			if h := storagestate.OriginHost(o.Origin); h != "" {
				out = append(out, h)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Hint is source 003 FR-5's block for an agent's prompt: which domains the
// session is logged in to and how to use it. Only injected — the domains
// of the states put into the session on purpose — are named as logins and
// used in the example; the session's other cookie domains (among held,
// the domains of all its cookies) were set by the pages it visited, which
// chose them: they are listed apart, as data, never in an instruction.
//
// st, when known, is the session's state: the example URL is the site's
// own (SiteURL), with its scheme and port.
func Hint(session string, st *storagestate.State, injected, held []string) string {
	var b strings.Builder
	b.WriteString("## Browser Session\n\n")
	var others []string
	for _, d := range held {
		if !slices.Contains(injected, d) {
			others = append(others, d)
		}
	}
	if len(injected) == 0 {
		fmt.Fprintf(&b, "Browser session %q has no stored logins.\n", session)
	} else {
		b.WriteString("You have an authenticated browser session available for the following domains:\n")
		for _, d := range injected {
			fmt.Fprintf(&b, "- %s\n", d)
		}
		fmt.Fprintf(&b, "\nTo use this session, call the browser tool with session %q and navigate without logging in:\n\n", session)
		fmt.Fprintf(&b, "    {\"action\": \"navigate\", \"session\": %q, \"url\": %q}\n\n", session, SiteURL(st, injected[0]))
		b.WriteString("You should already be logged in.\n")
	}
	if len(others) > 0 {
		fmt.Fprintf(&b, "\nThe session also holds cookies that visited pages set (not stored logins; the pages chose these domains): %s\n", strings.Join(others, ", "))
	}
	return b.String()
}

// SiteURL is the address an agent opens to use st's login for domain:
// the origin of st's storage on that host or under it, with its scheme and
// port; else https:// for a Secure cookie of the domain or a host that is
// not local; else http://, as a cookie set on a local address over plain
// HTTP is (a cookie does not record its port).
func SiteURL(st *storagestate.State, domain string) string {
	secure := false
	if st != nil {
		for _, under := range []bool{false, true} {
			for _, o := range st.Origins {
				h := storagestate.OriginHost(o.Origin)
				if h == domain || under && strings.HasSuffix(h, "."+domain) {
					if u, err := url.Parse(o.Origin); err == nil && (u.Scheme == "http" || u.Scheme == "https") {
						return u.Scheme + "://" + u.Host
					}
				}
			}
		}
		for _, c := range st.Cookies {
			if strings.ToLower(strings.TrimPrefix(c.Domain, ".")) == domain && c.Secure {
				secure = true
			}
		}
	}
	if secure || !isLocal(domain) {
		return "https://" + domain
	}
	return "http://" + domain
}

// isLocal: a loopback or private address, or a name of this machine's.
func isLocal(host string) bool {
	if a, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		return a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast()
	}
	return host == "localhost" || strings.HasSuffix(host, ".localhost")
}

// Request is a new session with an injected state: POST /api/sessions, or
// the launch action with state or storedSession.
type Request struct {
	// Session is the new session's name; "" makes one up. A profile's
	// session is named like the profile.
	Session string
	Profile string
	// State is an inline storageState; StoredID names a stored session.
	// At most one is set; with neither the session starts empty.
	State    *storagestate.State
	StoredID string
	// Width and Height are the viewport of the session's tabs (0: the
	// daemon's default).
	Width, Height  int
	AllowedDomains []string
	Policy         Policy
	// Emulation is what the session's pages see: user agent, timezone,
	// position, locale. Captured with the session and restored with it
	// (the locale only while the daemon runs).
	Emulation browser.Emulation
	// Headless false shows the session's browser in a window (nil: the
	// daemon's --headed); refused without a display.
	Headless *bool
	// UserDataDir runs the session's browser on the caller's folder (see
	// tool.Input.UserDataDir).
	UserDataDir string
}

// Session is what a created session reports (source 003's answer plus what
// was dropped).
type Session struct {
	ID                   string   `json:"id"`
	State                string   `json:"state"`
	Profile              string   `json:"profile,omitempty"`
	AuthenticatedDomains []string `json:"authenticatedDomains"`
	PromptHint           string   `json:"promptHint"`
	// Dropped lists what domainPolicy filter left out.
	Dropped []string `json:"dropped,omitempty"`
	// LiveViewURL shows the session's front tab live on the dashboard
	// (set by the HTTP API when the daemon has one).
	LiveViewURL string   `json:"liveViewUrl,omitempty"`
	Notes       []string `json:"notes,omitempty"`
}

// StoredHint is Hint for a stored session not yet in a browser: the agent
// launches a session with it first.
func StoredHint(id string, st *storagestate.State, domains []string) string {
	var b strings.Builder
	b.WriteString("## Browser Session\n\n")
	b.WriteString("A stored browser login is available for the following domains:\n")
	for _, d := range domains {
		fmt.Fprintf(&b, "- %s\n", d)
	}
	fmt.Fprintf(&b, "\nTo use it, start a session with it, then navigate without logging in:\n\n")
	fmt.Fprintf(&b, "    {\"action\": \"launch\", \"session\": \"work\", \"storedSession\": %q}\n", id)
	if len(domains) > 0 {
		fmt.Fprintf(&b, "    {\"action\": \"navigate\", \"session\": \"work\", \"url\": %q}\n", SiteURL(st, domains[0]))
	}
	b.WriteString("\nYou should already be logged in.\n")
	return b.String()
}
