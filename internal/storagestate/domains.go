package storagestate

import (
	"fmt"
	"net/url"
	"strings"
	"time"
)

// OriginHost is the host of an origin such as https://example.com:8443,
// lower-cased and without the port; "" if it has none.
func OriginHost(origin string) string {
	u, err := url.Parse(origin)
	if err != nil {
		return ""
	}
	return strings.ToLower(u.Hostname())
}

// InDomains reports whether host is one of domains or under one of them
// (a leading dot on either side is ignored).
func InDomains(host string, domains []string) bool {
	host = strings.ToLower(strings.TrimPrefix(host, "."))
	for _, d := range domains {
		d = strings.ToLower(strings.TrimPrefix(strings.TrimSpace(d), "."))
		if d != "" && (host == d || strings.HasSuffix(host, "."+d)) {
			return true
		}
	}
	return false
}

// Outside lists, as field errors, the cookies and origins of s that are not
// within allowed (see InDomains). With drop set it also removes them from s.
func (s *State) Outside(allowed []string, drop bool) Errors {
	var errs Errors
	keptC := s.Cookies[:0:0]
	for i, c := range s.Cookies {
		if InDomains(c.Domain, allowed) {
			keptC = append(keptC, c)
			continue
		}
		errs = append(errs, &FieldError{fmt.Sprintf("cookies[%d]", i), fmt.Sprintf("cookie %q for %s is outside allowedDomains", c.Name, c.Domain)})
	}
	keptO := s.Origins[:0:0]
	for i, o := range s.Origins {
		if InDomains(OriginHost(o.Origin), allowed) {
			keptO = append(keptO, o)
			continue
		}
		errs = append(errs, &FieldError{fmt.Sprintf("origins[%d]", i), fmt.Sprintf("origin %s is outside allowedDomains", o.Origin)})
	}
	if drop {
		s.Cookies, s.Origins = keptC, keptO
	}
	return errs
}

// Expired lists the cookies of s past their expiry at now, as field errors,
// when every cookie of s is (a state with a live session-only or unexpired
// cookie is not expired). A state without cookies is never expired.
func (s *State) Expired(now time.Time) Errors {
	if len(s.Cookies) == 0 {
		return nil
	}
	var errs Errors
	for i, c := range s.Cookies {
		if c.Expires < 0 || c.Expires == 0 || time.Unix(int64(c.Expires), 0).After(now) {
			return nil
		}
		errs = append(errs, &FieldError{fmt.Sprintf("cookies[%d]", i), fmt.Sprintf("cookie %q for %s expired at %s", c.Name, c.Domain, time.Unix(int64(c.Expires), 0).UTC().Format(time.RFC3339))})
	}
	return errs
}
