// Package storagestate reads and writes Playwright's storageState JSON —
// {cookies:[…], origins:[{origin, localStorage:[{name,value}]}]} — byte
// compatible both ways, extended (as agent-browser does) with
// sessionStorage per origin. It validates what comes from outside with
// errors that name the field, and converts cookies to and from CDP.
package storagestate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"strings"
)

// State is a storageState.
type State struct {
	Cookies []Cookie `json:"cookies"`
	Origins []Origin `json:"origins"`
}

// Cookie is a Playwright cookie. Expires is seconds since the epoch, -1 for
// a session cookie.
type Cookie struct {
	Name     string  `json:"name"`
	Value    string  `json:"value"`
	Domain   string  `json:"domain"`
	Path     string  `json:"path"`
	Expires  float64 `json:"expires"`
	HTTPOnly bool    `json:"httpOnly"`
	Secure   bool    `json:"secure"`
	SameSite string  `json:"sameSite"` // Strict, Lax or None
}

// Origin is one origin's storage.
type Origin struct {
	Origin         string      `json:"origin"`
	LocalStorage   []NameValue `json:"localStorage"`
	SessionStorage []NameValue `json:"sessionStorage,omitempty"`
}

// NameValue is one storage item.
type NameValue struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Limits keep a hostile state from exhausting memory.
const (
	MaxBytes   = 32 << 20
	MaxCookies = 20000
	MaxOrigins = 5000
)

// FieldError is a validation error at a JSON path such as cookies[3].domain.
type FieldError struct {
	Path, Msg string
}

func (e *FieldError) Error() string { return e.Path + ": " + e.Msg }

// Errors collects every FieldError of a state.
type Errors []*FieldError

func (es Errors) Error() string {
	var b strings.Builder
	for i, e := range es {
		if i > 0 {
			b.WriteString("; ")
		}
		if i == 10 {
			fmt.Fprintf(&b, "and %d more", len(es)-10)
			break
		}
		b.WriteString(e.Error())
	}
	return "invalid storageState: " + b.String()
}

// Parse reads and validates a storageState. Unknown fields are ignored (as
// Playwright does); missing required ones and bad values are errors naming
// their path.
func Parse(data []byte) (*State, error) {
	raw, err := decodeRaw(data)
	if err != nil {
		return nil, err
	}
	var errs Errors
	st := &State{Cookies: []Cookie{}, Origins: []Origin{}}
	for i, m := range raw.Cookies {
		st.Cookies = append(st.Cookies, parseCookie(fmt.Sprintf("cookies[%d]", i), m, &errs))
	}
	for i, m := range raw.Origins {
		st.Origins = append(st.Origins, parseOrigin(fmt.Sprintf("origins[%d]", i), m, &errs))
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return st, nil
}

// rawState is a storageState as read, each cookie and origin still a map of
// its fields, so that each field can be checked and named on its own.
type rawState struct {
	Cookies []map[string]json.RawMessage `json:"cookies"`
	Origins []map[string]json.RawMessage `json:"origins"`
}

// decodeRaw reads the JSON of a storageState within the limits: the size
// before reading it, the number of cookies and origins after.
func decodeRaw(data []byte) (*rawState, error) {
	if len(data) > MaxBytes {
		return nil, fmt.Errorf("storageState is %d bytes; the limit is %d", len(data), MaxBytes)
	}
	var raw rawState
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("storageState is not valid JSON of the form {\"cookies\":[…],\"origins\":[…]}: %s", jsonProblem(err))
	}
	if len(raw.Cookies) > MaxCookies || len(raw.Origins) > MaxOrigins {
		return nil, fmt.Errorf("storageState has %d cookies and %d origins; the limits are %d and %d", len(raw.Cookies), len(raw.Origins), MaxCookies, MaxOrigins)
	}
	return &raw, nil
}

// add records a validation error at path.
func (es *Errors) add(path, format string, args ...any) {
	*es = append(*es, &FieldError{path, fmt.Sprintf(format, args...)})
}

// parseCookie reads the cookie at path p from its fields m, filling the
// defaults (path /, a session cookie), and adds to errs what is missing or
// of the wrong type, then what checkCookie finds wrong.
func parseCookie(p string, m map[string]json.RawMessage, errs *Errors) Cookie {
	var c Cookie
	str := func(field string, dst *string, required bool) {
		v, ok := m[field]
		if !ok {
			if required {
				errs.add(p+"."+field, "missing")
			}
			return
		}
		if err := json.Unmarshal(v, dst); err != nil {
			errs.add(p+"."+field, "want a string")
		}
	}
	boolean := func(field string, dst *bool) {
		if v, ok := m[field]; ok && json.Unmarshal(v, dst) != nil {
			errs.add(p+"."+field, "want true or false")
		}
	}
	str("name", &c.Name, true)
	str("value", &c.Value, true)
	str("domain", &c.Domain, true)
	str("path", &c.Path, false)
	str("sameSite", &c.SameSite, false)
	boolean("httpOnly", &c.HTTPOnly)
	boolean("secure", &c.Secure)
	c.Expires = -1
	if v, ok := m["expires"]; ok && json.Unmarshal(v, &c.Expires) != nil {
		errs.add(p+".expires", "want seconds since the epoch, or -1 for a session cookie")
	}
	if c.Path == "" {
		c.Path = "/"
	}
	checkCookie(p, m, &c, errs)
	return c
}

// checkCookie adds to errs what is wrong with the values of the cookie at
// path p — an empty name, characters a cookie cannot hold, a domain that is
// no host, a path not starting with /, a bad expiry or SameSite — and gives
// a cookie without SameSite the default, Lax. m are the fields as given, to
// tell an empty value from a missing one.
func checkCookie(p string, m map[string]json.RawMessage, c *Cookie, errs *Errors) {
	switch {
	case c.Name == "" && m["name"] != nil:
		errs.add(p+".name", "empty")
	case strings.ContainsAny(c.Name, ";=\x00\r\n") || strings.ContainsAny(c.Value, ";\x00\r\n"):
		errs.add(p, "name or value has a character cookies cannot hold")
	}
	if m["domain"] != nil && (c.Domain == "" || strings.ContainsAny(c.Domain, "/:; \x00")) {
		errs.add(p+".domain", "want a host such as example.com or .example.com")
	}
	if !strings.HasPrefix(c.Path, "/") {
		errs.add(p+".path", "want a path starting with /")
	}
	if math.IsNaN(c.Expires) || math.IsInf(c.Expires, 0) || (c.Expires < 0 && c.Expires != -1) {
		errs.add(p+".expires", "want seconds since the epoch, or -1 for a session cookie")
	}
	switch c.SameSite {
	case "":
		c.SameSite = "Lax"
	case "Strict", "Lax", "None":
	default:
		errs.add(p+".sameSite", "want Strict, Lax or None")
	}
}

// parseOrigin reads the origin at path p from its fields m — its address,
// without a trailing slash, and its local and session storage — adding to
// errs what is missing or malformed.
func parseOrigin(p string, m map[string]json.RawMessage, errs *Errors) Origin {
	var o Origin
	if v, ok := m["origin"]; !ok || json.Unmarshal(v, &o.Origin) != nil {
		errs.add(p+".origin", "missing or not a string")
	} else if u, err := url.Parse(o.Origin); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") {
		errs.add(p+".origin", "want scheme://host[:port], e.g. https://example.com")
	} else {
		o.Origin = strings.TrimSuffix(o.Origin, "/")
	}
	items := func(field string) []NameValue {
		v, ok := m[field]
		if !ok {
			return nil
		}
		var nv []NameValue
		if err := json.Unmarshal(v, &nv); err != nil {
			errs.add(p+"."+field, "want a list of {name, value}")
		}
		return nv
	}
	o.LocalStorage = items("localStorage")
	if o.LocalStorage == nil {
		o.LocalStorage = []NameValue{}
	}
	o.SessionStorage = items("sessionStorage")
	return o
}

// Marshal writes the state in Playwright's layout, indented.
func (s *State) Marshal() ([]byte, error) {
	out := *s
	if out.Cookies == nil {
		out.Cookies = []Cookie{}
	}
	if out.Origins == nil {
		out.Origins = []Origin{}
	}
	return json.MarshalIndent(out, "", "  ")
}

// CDPCookie is the part of CDP's Network.Cookie used here.
type CDPCookie struct {
	Name     string  `json:"name"`
	Value    string  `json:"value"`
	Domain   string  `json:"domain"`
	Path     string  `json:"path"`
	Expires  float64 `json:"expires"`
	HTTPOnly bool    `json:"httpOnly"`
	Secure   bool    `json:"secure"`
	Session  bool    `json:"session"`
	SameSite string  `json:"sameSite,omitempty"`
}

// FromCDP converts cookies read with Storage.getCookies.
func FromCDP(cs []CDPCookie) []Cookie {
	out := make([]Cookie, 0, len(cs))
	for _, c := range cs {
		exp := c.Expires
		if c.Session || exp <= 0 {
			exp = -1
		}
		ss := c.SameSite
		if ss == "" {
			ss = "Lax"
		}
		out = append(out, Cookie{Name: c.Name, Value: c.Value, Domain: c.Domain, Path: c.Path, Expires: exp, HTTPOnly: c.HTTPOnly, Secure: c.Secure, SameSite: ss})
	}
	return out
}

// ToCDP converts cookies to Storage.setCookies parameters. A session cookie
// stays a session cookie: it lives as long as the browser.
func ToCDP(cs []Cookie) []map[string]any {
	out := make([]map[string]any, 0, len(cs))
	for _, c := range cs {
		p := map[string]any{"name": c.Name, "value": c.Value, "domain": c.Domain, "path": c.Path, "httpOnly": c.HTTPOnly, "secure": c.Secure}
		if c.SameSite != "" {
			p["sameSite"] = c.SameSite
		}
		if c.Expires > 0 {
			p["expires"] = c.Expires
		}
		out = append(out, p)
	}
	return out
}

// Exclude drops cookies whose domain is one of domains or under one
// (source 000's exclude_cookie_domains), and returns how many it dropped.
func (s *State) Exclude(domains []string) int {
	if len(domains) == 0 {
		return 0
	}
	kept := s.Cookies[:0]
	n := 0
	for _, c := range s.Cookies {
		d := strings.ToLower(strings.TrimPrefix(c.Domain, "."))
		drop := false
		for _, x := range domains {
			x = strings.ToLower(strings.TrimPrefix(strings.TrimSpace(x), "."))
			if x != "" && (d == x || strings.HasSuffix(d, "."+x)) {
				drop = true
			}
		}
		if drop {
			n++
			continue
		}
		kept = append(kept, c)
	}
	s.Cookies = kept
	return n
}

// MergeOrigins puts the origins o into s, replacing the ones s has.
func (s *State) MergeOrigins(o []Origin) {
	idx := map[string]int{}
	for i, x := range s.Origins {
		idx[x.Origin] = i
	}
	for _, x := range o {
		if i, ok := idx[x.Origin]; ok {
			s.Origins[i] = x
		} else {
			idx[x.Origin] = len(s.Origins)
			s.Origins = append(s.Origins, x)
		}
	}
}

// jsonProblem says where JSON went wrong without quoting it: the input may
// be a file whose content is nobody's business (a secret's first byte).
func jsonProblem(err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("syntax error at byte %d", se.Offset)
	case errors.As(err, &te):
		if te.Field != "" {
			return fmt.Sprintf("%s is a JSON %s, want %s", te.Field, te.Value, te.Type)
		}
		return fmt.Sprintf("a JSON %s where an object belongs", te.Value)
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return "it ends early"
	}
	return "unreadable"
}
