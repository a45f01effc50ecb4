// Package network shows a tab's network log (browser.Page.NetLog) as an
// agent reads it and as a person's tools import it: the compact listing
// of the `network` action, one request with its headers and body, and
// HAR 1.2 (har.go). Cookies, logins and tokens in headers are redacted
// unless the caller asks for them.
package network

import (
	"fmt"
	"strings"
	"time"

	"github.com/browserd/browserd/internal/browser"
)

// Redacted stands in for a credential's value.
const Redacted = "<redacted>"

// DefaultMax is how many requests a listing shows, the latest ones.
const DefaultMax = 100

// ListOptions narrow a listing.
type ListOptions struct {
	// Filter keeps requests whose URL contains it, or of that type
	// (document, script, fetch, xhr, image, …), or that failed ("failed",
	// the guard's refusals included) — case-insensitive.
	Filter string
	// Max is the most requests shown (DefaultMax when 0): the latest.
	Max int
}

// Match reports whether r passes filter (ListOptions.Filter).
func Match(r *browser.Request, filter string) bool {
	if filter == "" {
		return true
	}
	f := strings.ToLower(filter)
	switch {
	case strings.EqualFold(r.Type, f):
		return true
	case f == "failed" || f == "errors":
		return r.Failed != "" || r.Refused != "" || r.Status >= 400
	case f == "refused" || f == "blocked":
		return r.Refused != ""
	case f == "pending":
		return !r.Done
	}
	return strings.Contains(strings.ToLower(r.URL), f)
}

// List is the listing of the `network` action: a line a request.
func List(reqs []browser.Request, dropped int, opt ListOptions) string {
	if opt.Max <= 0 {
		opt.Max = DefaultMax
	}
	var kept []*browser.Request
	failed, refused := 0, 0
	for i := range reqs {
		r := &reqs[i]
		if !Match(r, opt.Filter) {
			continue
		}
		kept = append(kept, r)
		switch {
		case r.Refused != "":
			refused++
		case r.Failed != "" && !r.Canceled:
			failed++
		}
	}
	var b strings.Builder
	what := "requests since the last navigation"
	if opt.Filter != "" {
		what = fmt.Sprintf("of %d %s match %q", len(reqs), what, opt.Filter)
	}
	fmt.Fprintf(&b, "%d %s", len(kept), what)
	var also []string
	if failed > 0 {
		also = append(also, fmt.Sprintf("%d failed", failed))
	}
	if refused > 0 {
		also = append(also, fmt.Sprintf("%d refused by the guard", refused))
	}
	if len(also) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(also, ", "))
	}
	if len(kept) == 0 {
		if dropped > 0 {
			fmt.Fprintf(&b, "; %d older ones were dropped (the log keeps the last %d)", dropped, len(reqs))
		}
		return b.String()
	}
	b.WriteString(":\n")
	if dropped > 0 {
		fmt.Fprintf(&b, "(%d older ones dropped: the log keeps the last %d)\n", dropped, len(reqs))
	}
	if len(kept) > opt.Max {
		fmt.Fprintf(&b, "(the first %d left out: filter to narrow)\n", len(kept)-opt.Max)
		kept = kept[len(kept)-opt.Max:]
	}
	for _, r := range kept {
		b.WriteString(Line(r))
		b.WriteByte('\n')
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// Line is one request as a listing shows it:
// `r3 POST 500 fetch 120B 8ms http://…` — the status is `refused`,
// `failed`, `canceled` or `pending` when there is none.
func Line(r *browser.Request) string {
	var b strings.Builder
	b.WriteString(r.ID)
	b.WriteByte(' ')
	b.WriteString(r.Method)
	b.WriteByte(' ')
	switch {
	case r.Refused != "":
		b.WriteString("refused")
	case r.Canceled:
		b.WriteString("canceled")
	case r.Failed != "":
		b.WriteString("failed")
	case r.Status > 0:
		fmt.Fprintf(&b, "%d", r.Status)
	case !r.Done:
		b.WriteString("pending")
	default:
		b.WriteString("-")
	}
	b.WriteByte(' ')
	b.WriteString(strings.ToLower(r.Type))
	switch {
	case r.FromCache:
		b.WriteString(" cache")
	case r.Bytes > 0:
		b.WriteByte(' ')
		b.WriteString(Size(r.Bytes))
	}
	if r.Done || r.Duration > 0 {
		fmt.Fprintf(&b, " %dms", r.Duration.Round(time.Millisecond).Milliseconds())
	}
	b.WriteByte(' ')
	b.WriteString(ShortURL(r.URL, 200))
	if r.RedirectTo != "" && r.Status >= 300 && r.Status < 400 {
		b.WriteString(" → ")
		b.WriteString(ShortURL(r.RedirectTo, 120))
	}
	switch {
	case r.Refused != "":
		b.WriteString(" — ")
		b.WriteString(r.Refused)
	case r.Failed != "" && !r.Canceled:
		b.WriteString(" — ")
		b.WriteString(r.Failed)
	}
	if r.Route != "" {
		b.WriteString(" [route ")
		b.WriteString(ShortURL(r.Route, 120))
		b.WriteString("]") // answered by a route (internal/routes), not the site
	}
	return b.String()
}

// ShortURL cuts a long URL (a data: URL) to max bytes, saying so.
func ShortURL(u string, max int) string {
	if len(u) <= max {
		return u
	}
	cut := max
	for cut > 0 && u[cut]&0xC0 == 0x80 { // not inside a UTF-8 sequence
		cut--
	}
	return fmt.Sprintf("%s…(%d bytes)", u[:cut], len(u))
}

// Size is a byte count as people read it: 512B, 5.2kB, 1.3MB.
func Size(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%dB", n)
	case n < 1000*1000:
		return fmt.Sprintf("%.1fkB", float64(n)/1000)
	default:
		return fmt.Sprintf("%.1fMB", float64(n)/1e6)
	}
}

// Sensitive reports whether a header's value is a credential: cookies,
// logins, and headers named for a token, a key or a secret.
func Sensitive(name string) bool {
	n := strings.ToLower(name)
	switch n {
	case "cookie", "set-cookie", "authorization", "proxy-authorization":
		return true
	case "www-authenticate", "proxy-authenticate": // a challenge, not a credential
		return false
	}
	for _, w := range []string{"token", "secret", "api-key", "apikey", "password", "session", "csrf", "xsrf", "auth"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// RedactHeaders is hs with every sensitive value replaced by Redacted.
func RedactHeaders(hs []browser.Header) []browser.Header {
	out := make([]browser.Header, len(hs))
	for i, h := range hs {
		out[i] = h
		if Sensitive(h.Name) {
			out[i].Value = Redacted
		}
	}
	return out
}

// Body is a response body as One shows it.
type Body struct {
	Data   []byte
	Binary bool
	Err    error // why there is none
}

// OneOptions say how One shows a request.
type OneOptions struct {
	Redact   bool
	MaxChars int // the body's cap (default 20,000 characters)
}

// One is one request whole: its line, the request's and the response's
// headers, the request's body when Chromium sent it along, and the
// response's body (text, cut at MaxChars; a binary one by its size).
func One(r *browser.Request, body Body, opt OneOptions) string {
	if opt.MaxChars <= 0 {
		opt.MaxChars = 20000
	}
	var b strings.Builder
	b.WriteString(Line(r))
	b.WriteString("\nrequest headers:\n")
	headers(&b, r.ReqHeaders, opt.Redact)
	if r.PostData != "" {
		body := r.PostData
		if opt.Redact {
			body = RedactBody(headerValue(r.ReqHeaders, "content-type"), body)
		}
		b.WriteString("request body:\n")
		b.WriteString(cut(body, opt.MaxChars))
		b.WriteByte('\n')
	}
	if r.Status == 0 {
		return strings.TrimSuffix(b.String(), "\n")
	}
	fmt.Fprintf(&b, "response: %d %s", r.Status, r.StatusText)
	if r.MimeType != "" {
		fmt.Fprintf(&b, ", %s", r.MimeType)
	}
	if r.Protocol != "" {
		fmt.Fprintf(&b, ", %s", r.Protocol)
	}
	if r.RemoteIP != "" {
		fmt.Fprintf(&b, ", from %s", r.RemoteIP)
	}
	b.WriteString("\nresponse headers:\n")
	headers(&b, r.RespHeaders, opt.Redact)
	switch {
	case body.Err != nil:
		fmt.Fprintf(&b, "response body: none (%v)", body.Err)
	case body.Binary:
		fmt.Fprintf(&b, "response body: binary, %s", Size(int64(len(body.Data))))
	case len(body.Data) == 0:
		b.WriteString("response body: empty")
	default:
		fmt.Fprintf(&b, "response body (%s):\n%s", Size(int64(len(body.Data))), cut(string(body.Data), opt.MaxChars))
	}
	return b.String()
}

func headers(b *strings.Builder, hs []browser.Header, redact bool) {
	if redact {
		hs = RedactHeaders(hs)
	}
	if len(hs) == 0 {
		b.WriteString("  (none)\n")
	}
	for _, h := range hs {
		for _, v := range strings.Split(h.Value, "\n") {
			fmt.Fprintf(b, "  %s: %s\n", h.Name, v)
		}
	}
}

// cut is s cut at max characters (runes), saying how much was left out.
func cut(s string, max int) string {
	n := 0
	for i := range s {
		if n == max {
			return fmt.Sprintf("%s\n… (%d more bytes; raise maxChars to read on)", s[:i], len(s)-i)
		}
		n++
	}
	return s
}

// headerValue is the value of the header of that name, "" without one.
func headerValue(hs []browser.Header, name string) string {
	for _, h := range hs {
		if strings.EqualFold(h.Name, name) {
			return h.Value
		}
	}
	return ""
}
