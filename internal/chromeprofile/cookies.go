package chromeprofile

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"net/netip"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver

	"github.com/browserd/browserd/internal/storagestate"
)

// windowsEpochDelta is the number of microseconds from 1601-01-01 UTC,
// base::Time's origin, to the Unix epoch.
const windowsEpochDelta = 11644473600 * 1_000_000

// chromeTime is t as Chromium stores it: microseconds since 1601-01-01 UTC.
func chromeTime(t time.Time) int64 { return t.UnixMicro() + windowsEpochDelta }

// maxCookieAge is how far past its creation Chromium lets a cookie expire
// (RFC 6265bis): a longer expiry is cut to this when Chromium sets a cookie.
const maxCookieAge = 400 * 24 * time.Hour

// Limits from Chromium's cookie parser.
const (
	maxNameValueSize = 4096 // name + value, kMaxCookieNamePlusValueSize
	maxAttributeSize = 1024 // path, kMaxCookieAttributeValueSize
	maxHostSize      = 253  // a DNS name
)

// Cookie table column values (net/extras/sqlite/sqlite_persistent_cookie_store.cc).
const (
	sameSiteUnspecified = -1
	sameSiteNone        = 0
	sameSiteLax         = 1
	sameSiteStrict      = 2

	sourceSchemeNonSecure = 1
	sourceSchemeSecure    = 2
)

// cookieRow is one row of the cookies table.
type cookieRow struct {
	host, name, value, path string
	creation                int64 // Chromium time; also last access and last update
	expires                 int64 // Chromium time, 0 for a session cookie
	secure, httpOnly        bool
	sameSite                int
}

// cookieRows checks the cookies the way Chromium's loader will and returns
// the rows to write, in input order. A cookie that would not load, or would
// make Chromium drop its whole site, is left out with a line in skipped. Of
// cookies with the same domain, name and path the last wins. Creation times
// step up by a microsecond from the first row to now, keeping the order.
func cookieRows(cs []storagestate.Cookie, now time.Time, skipped *[]string) []cookieRow {
	rows := make([]cookieRow, 0, len(cs))
	from := make([]int, 0, len(cs)) // index in cs of each row
	seen := make(map[string]int, len(cs))
	nowUnix := now.UnixMicro()
	for i, c := range cs {
		r, why := cookieRowFor(c, nowUnix)
		if why != "" {
			*skipped = append(*skipped, fmt.Sprintf("cookies[%d] %s: %s", i, cookieLabel(c), why))
			continue
		}
		k := r.host + "\x00" + r.name + "\x00" + r.path
		if j, ok := seen[k]; ok {
			*skipped = append(*skipped, fmt.Sprintf("cookies[%d] %s: replaced by cookies[%d], which has the same domain, name and path", from[j], cookieLabel(cs[from[j]]), i))
			rows[j].host = "" // dropped below
		}
		seen[k] = len(rows)
		rows = append(rows, r)
		from = append(from, i)
	}
	kept := rows[:0]
	for _, r := range rows {
		if r.host != "" {
			kept = append(kept, r)
		}
	}
	base := chromeTime(now) - int64(len(kept)) + 1
	for i := range kept {
		r := &kept[i]
		r.creation = base + int64(i)
		if r.expires != 0 {
			// expires holds Unix microseconds until here.
			r.expires = min(r.expires+windowsEpochDelta, r.creation+maxCookieAge.Microseconds())
		}
	}
	return kept
}

// cookieLabel names a cookie in Result.Skipped, without its value.
func cookieLabel(c storagestate.Cookie) string {
	return fmt.Sprintf("%q (domain %q, path %q)", clip(c.Name), clip(c.Domain), clip(c.Path))
}

// clip shortens s for a message.
func clip(s string) string {
	if len(s) <= 64 {
		return s
	}
	n := 64
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// cookieRowFor returns the row for c, with expires in Unix microseconds (0
// for a session cookie), or why c cannot be written.
func cookieRowFor(c storagestate.Cookie, nowUnix int64) (cookieRow, string) {
	r := cookieRow{name: c.Name, value: c.Value, path: c.Path, secure: c.Secure, httpOnly: c.HTTPOnly}
	host, why := cookieHost(c.Domain)
	if why != "" {
		return r, why
	}
	r.host = host
	switch {
	case c.Name == "":
		return r, "empty name"
	case !utf8.ValidString(c.Name) || !utf8.ValidString(c.Value):
		return r, "name or value is not valid UTF-8"
	case badOctets(c.Name, true):
		return r, "name has a control character, ';' or '='"
	case badOctets(c.Value, false):
		return r, "value has a control character or ';'"
	case hasOuterSpace(c.Name):
		return r, "name starts or ends with a space"
	case hasOuterSpace(c.Value):
		return r, "value starts or ends with a space"
	case len(c.Name)+len(c.Value) > maxNameValueSize:
		return r, fmt.Sprintf("name and value are %d bytes; Chromium's limit is %d", len(c.Name)+len(c.Value), maxNameValueSize)
	}
	if r.path == "" {
		r.path = "/"
	}
	switch {
	case r.path[0] != '/':
		return r, "path does not start with /"
	case len(r.path) > maxAttributeSize:
		return r, fmt.Sprintf("path is %d bytes; Chromium's limit is %d", len(r.path), maxAttributeSize)
	case !utf8.ValidString(r.path) || badOctets(r.path, false):
		return r, "path has a control character, ';' or invalid UTF-8"
	}
	// Chromium checks the prefixes without regard to case.
	lower := strings.ToLower(c.Name)
	switch {
	case strings.HasPrefix(lower, "__secure-") && !c.Secure:
		return r, "a __Secure- cookie must be secure"
	case strings.HasPrefix(lower, "__host-") && (!c.Secure || r.path != "/" || host[0] == '.'):
		return r, "a __Host- cookie must be secure, host-only and on path /"
	}
	switch {
	case strings.EqualFold(c.SameSite, "None"):
		r.sameSite = sameSiteNone
	case strings.EqualFold(c.SameSite, "Lax"):
		r.sameSite = sameSiteLax
	case strings.EqualFold(c.SameSite, "Strict"):
		r.sameSite = sameSiteStrict
	default:
		r.sameSite = sameSiteUnspecified
	}
	switch exp := c.Expires; {
	case math.IsNaN(exp) || math.IsInf(exp, 0):
		return r, "expires is not a number"
	case exp < 0: // -1: a session cookie
	default:
		us := math.Round(exp * 1e6)
		if us <= float64(nowUnix) {
			return r, "expired"
		}
		// Any expiry past the 400-day cap is cut to it later; keep the
		// number in range until then.
		r.expires = int64(min(us, float64(nowUnix+2*maxCookieAge.Microseconds())))
	}
	return r, ""
}

// badOctets reports whether s has a byte Chromium refuses in a cookie name
// (name) or value: a control character, ';', or for a name '='.
func badOctets(s string, name bool) bool {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20, c == 0x7f, c == ';', name && c == '=':
			return true
		}
	}
	return false
}

// hasOuterSpace reports whether s starts or ends with a space, which
// Chromium's parser trims (so the stored form would not be canonical).
func hasOuterSpace(s string) bool {
	return s != "" && (s[0] == ' ' || s[len(s)-1] == ' ')
}

// cookieHost returns the host_key for a cookie domain: the domain in
// lower case, with its leading dot for a domain cookie and without for a
// host-only one. It returns why not if Chromium would not take the domain
// as canonical, which would make it drop every cookie of the site.
func cookieHost(domain string) (string, string) {
	if domain == "" {
		return "", "empty domain"
	}
	for i := 0; i < len(domain); i++ {
		if domain[i] >= 0x80 {
			return "", "domain is not ASCII; give its punycode (xn--) form"
		}
	}
	d := strings.ToLower(domain)
	host, dot := strings.CutPrefix(d, ".")
	if why := checkHost(host); why != "" {
		return "", why
	}
	if dot && (host[0] == '[' || isIPv4(host)) {
		return "", "a domain cookie (leading dot) cannot be on an IP address"
	}
	return d, ""
}

// checkHost returns why host (lower case, no leading dot) is not a host name
// or IP address in the canonical form of Chromium's URL parser, or "".
func checkHost(host string) string {
	if host == "" {
		return "empty domain"
	}
	if host[0] == '[' {
		inner, ok := strings.CutSuffix(host[1:], "]")
		a, err := netip.ParseAddr(inner)
		if !ok || err != nil || !a.Is6() || a.Is4In6() || a.Zone() != "" || a.String() != inner {
			return "not an IPv6 address in canonical form, such as [::1]"
		}
		return ""
	}
	if len(host) > maxHostSize {
		return fmt.Sprintf("domain is %d characters; the limit is %d", len(host), maxHostSize)
	}
	labels := strings.Split(host, ".")
	for _, l := range labels {
		if l == "" {
			return "domain has an empty label (.. or a trailing dot)"
		}
		for i := 0; i < len(l); i++ {
			if c := l[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				return fmt.Sprintf("domain has the character %q", c)
			}
		}
	}
	// A host whose last label is a number is an IPv4 address to the URL
	// parser, which rewrites forms such as 127.1 or 0x7f.0.0.1.
	last := labels[len(labels)-1]
	if strings.Trim(last, "0123456789") == "" || strings.HasPrefix(last, "0x") {
		if !isIPv4(host) {
			return "not an IPv4 address in dotted-decimal form"
		}
	}
	return ""
}

// isIPv4 reports whether host is an IPv4 address in dotted-decimal form.
func isIPv4(host string) bool {
	a, err := netip.ParseAddr(host)
	return err == nil && a.Is4() && a.String() == host
}

// Schema version 24 of Chromium's cookie database, as Chromium 156 writes
// it (CreateV24Schema in net/extras/sqlite/sqlite_persistent_cookie_store.cc).
const cookieSchema = `
CREATE TABLE meta(key LONGVARCHAR NOT NULL UNIQUE PRIMARY KEY, value LONGVARCHAR);
INSERT INTO meta(key, value) VALUES ('mmap_status', -1), ('version', 24), ('last_compatible_version', 24);
CREATE TABLE cookies(creation_utc INTEGER NOT NULL,host_key TEXT NOT NULL,top_frame_site_key TEXT NOT NULL,name TEXT NOT NULL,value TEXT NOT NULL,encrypted_value BLOB NOT NULL,path TEXT NOT NULL,expires_utc INTEGER NOT NULL,is_secure INTEGER NOT NULL,is_httponly INTEGER NOT NULL,last_access_utc INTEGER NOT NULL,has_expires INTEGER NOT NULL,is_persistent INTEGER NOT NULL,priority INTEGER NOT NULL,samesite INTEGER NOT NULL,source_scheme INTEGER NOT NULL,source_port INTEGER NOT NULL,last_update_utc INTEGER NOT NULL,source_type INTEGER NOT NULL,has_cross_site_ancestor INTEGER NOT NULL);
CREATE UNIQUE INDEX cookies_unique_index ON cookies(host_key, top_frame_site_key, has_cross_site_ancestor, name, path, source_scheme, source_port);
`

// insertCookie writes one unpartitioned cookie: an empty top_frame_site_key and
// has_cross_site_ancestor 1, as Chromium writes them; the value in clear
// with an empty encrypted_value; priority 1 (medium); source_port -1
// (unspecified: the source port is unknown); source_type 0 (unknown).
const insertCookie = `INSERT INTO cookies(creation_utc, host_key, top_frame_site_key, name, value,
 encrypted_value, path, expires_utc, is_secure, is_httponly, last_access_utc, has_expires,
 is_persistent, priority, samesite, source_scheme, source_port, last_update_utc, source_type,
 has_cross_site_ancestor)
VALUES (?1, ?2, '', ?3, ?4, x'', ?5, ?6, ?7, ?8, ?1, ?9, ?9, 1, ?10, ?11, -1, ?1, 0, 1)`

// writeCookies creates the cookie database at path with rows, in one
// transaction.
func writeCookies(ctx context.Context, path string, rows []cookieRow) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("chromeprofile: %w", err)
	}
	f.Close()
	// Durability is not needed here: a Build that fails is removed. The
	// journal stays in SQLite's default (delete) mode, as Chromium's does.
	db, err := sql.Open("sqlite", "file:"+sqlitePath(path)+"?_pragma=synchronous(OFF)")
	if err != nil {
		return fmt.Errorf("chromeprofile: cookies: %w", err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("chromeprofile: cookies: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, cookieSchema); err != nil {
		return fmt.Errorf("chromeprofile: cookies: %w", err)
	}
	stmt, err := tx.PrepareContext(ctx, insertCookie)
	if err != nil {
		return fmt.Errorf("chromeprofile: cookies: %w", err)
	}
	defer stmt.Close()
	for _, r := range rows {
		if err := ctx.Err(); err != nil {
			return err
		}
		scheme := sourceSchemeNonSecure
		if r.secure {
			scheme = sourceSchemeSecure
		}
		persistent := r.expires != 0
		if _, err := stmt.Exec(r.creation, r.host, r.name, r.value, r.path, r.expires,
			r.secure, r.httpOnly, persistent, r.sameSite, scheme); err != nil {
			return fmt.Errorf("chromeprofile: cookies: writing %q for %q: %w", clip(r.name), r.host, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("chromeprofile: cookies: %w", err)
	}
	if err := db.Close(); err != nil {
		return fmt.Errorf("chromeprofile: cookies: %w", err)
	}
	return nil
}

// sqlitePath escapes path for a file: URI, where '?' and '#' end the path
// and '%' escapes.
func sqlitePath(path string) string {
	return strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(path)
}
