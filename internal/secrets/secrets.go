// Package secrets says what a secret may be — the value an agent types by
// name without ever seeing it (issue 28 point 4): its name, its value and
// the origins it is bound to. The store keeps secrets (store.Secrets, the
// value sealed under store.SecretLabel), the engine types them and redacts
// them from every answer, and the HTTP API and the CLI (`browserd secret
// set|list|rm`) manage them; all check them here. (Package sealkey is the key
// that seals what browserd keeps at rest; package ownersecrets keeps each
// owner's secrets for the engine.)
package secrets

import (
	"fmt"
	"github.com/browserd/browserd/internal/urlpolicy"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The bounds of a secret.
const (
	// MaxName is the longest name, in bytes (names are ASCII).
	MaxName = 64
	// MinValue is the shortest value, in bytes: every answer replaces the
	// value wherever it appears, so a shorter one would blank out ordinary
	// text all over the pages.
	MinValue = 4
	// MaxValue is the longest value, in bytes: a password, a code, a key —
	// not a document.
	MaxValue = 4096
	// MaxOrigins is how many origins a secret may be bound to.
	MaxOrigins = 16
)

// CheckName says what is wrong with a secret's name, if anything: it is 1
// to 64 letters, digits, '_', '.' and '-', starting with a letter.
func CheckName(name string) error {
	if name == "" || len(name) > MaxName {
		return fmt.Errorf("a secret's name is 1 to %d characters, not %d: name it for what it is, e.g. GITHUB_PASSWORD", MaxName, len(name))
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if i == 0 && !letter {
			return fmt.Errorf("secret name %q: start it with a letter, e.g. GITHUB_PASSWORD", name)
		}
		if !letter && !(c >= '0' && c <= '9') && c != '_' && c != '.' && c != '-' {
			return fmt.Errorf("secret name %q: use letters, digits, '_', '.' and '-' only, e.g. GITHUB_PASSWORD", name)
		}
	}
	return nil
}

// CheckValue says what is wrong with a secret's value, if anything: it is
// text of 4 to 4096 bytes. The error never shows the value.
func CheckValue(value string) error {
	switch {
	case value == "":
		return fmt.Errorf("the secret's value is empty: give the text to type (a password, a code)")
	case len(value) < MinValue:
		return fmt.Errorf("the secret's value is %d bytes; give at least %d: every answer hides the value wherever it appears, so a shorter one would blank out ordinary text all over the pages", len(value), MinValue)
	case len(value) > MaxValue:
		return fmt.Errorf("the secret's value is %d bytes, over the %d a secret may hold: keep a password, a code or a key, not a document", len(value), MaxValue)
	case !utf8.ValidString(value):
		return fmt.Errorf("the secret's value is not UTF-8 text: give the text to type, as the page should receive it")
	case strings.ContainsRune(value, 0):
		return fmt.Errorf("the secret's value holds a NUL byte, which cannot be typed: give the text to type")
	}
	return nil
}

// Origin checks an origin a person gives — scheme://host[:port], http or
// https, nothing after — and returns it normalized, in the form Chromium
// reports a page's origin: the scheme and host lower-case, the scheme's
// default port left out, an IPv6 address in its short form.
func Origin(s string) (string, error) {
	bad := func(why string) (string, error) {
		return "", fmt.Errorf("origin %q: %s; give scheme://host[:port] with http or https and nothing after, e.g. https://accounts.example.com", s, why)
	}
	if strings.ContainsAny(s, "?#\\ \t\r\n") {
		return bad("it has a query, a fragment or a space")
	}
	u, err := url.Parse(s)
	if err != nil {
		return bad("it is not a URL")
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return bad("the scheme is not http or https")
	}
	if u.Opaque != "" || u.Host == "" {
		return bad("there is no host")
	}
	if u.User != nil {
		return bad("it has a user name or password")
	}
	if u.Path != "" && u.Path != "/" || u.RawPath != "" {
		return bad("it has a path")
	}
	host, err := originHost(u.Hostname())
	if err != nil {
		return bad(err.Error())
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return bad("the port is not a number from 1 to 65535")
		}
		if !(u.Scheme == "http" && n == 80 || u.Scheme == "https" && n == 443) {
			host += ":" + strconv.Itoa(n)
		}
	} else if strings.HasSuffix(u.Host, ":") {
		return bad("the port is empty")
	}
	return u.Scheme + "://" + host, nil
}

// originHost checks and normalizes a host name or IP address (an IPv6
// one is returned in brackets).
func originHost(h string) (string, error) {
	if h == "" {
		return "", fmt.Errorf("there is no host")
	}
	if strings.Contains(h, ":") {
		a, err := netip.ParseAddr(h)
		if err != nil || !a.Is6() || a.Zone() != "" {
			return "", fmt.Errorf("the host is not an IPv6 address")
		}
		return "[" + a.String() + "]", nil
	}
	h = strings.ToLower(h)
	if ip, isIP, err := urlpolicy.IPv4Host(h); isIP {
		return ip, err
	}
	for _, label := range strings.Split(h, ".") {
		if label == "" {
			return "", fmt.Errorf("the host has an empty label (a dot too many)")
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
				if c >= utf8.RuneSelf {
					return "", fmt.Errorf("the host is not ASCII: write it as the browser does, in punycode (xn--…)")
				}
				return "", fmt.Errorf("the host has a character %q that no host name has", c)
			}
		}
	}
	return h, nil
}

// Origins checks and normalizes a secret's origins: each as Origin does,
// repeats dropped, at most 16. None (nil) means any origin.
func Origins(list []string) ([]string, error) {
	var out []string
	for _, s := range list {
		o, err := Origin(s)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(out, o) {
			out = append(out, o)
		}
	}
	if len(out) > MaxOrigins {
		return nil, fmt.Errorf("%d origins: a secret is bound to at most %d; bind it to the origins of its login pages only, or to none (then it may be typed anywhere)", len(out), MaxOrigins)
	}
	return out, nil
}

// OriginOf is the normalized origin of a page's http or https URL, or
// false for another URL (about:blank, data:, a file).
func OriginOf(pageURL string) (string, bool) {
	u, err := url.Parse(pageURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", false
	}
	o, err := Origin(u.Scheme + "://" + u.Host)
	return o, err == nil
}

// Allows reports whether a secret bound to origins (normalized, as
// Origins returns them) may be typed on the page at pageURL: any page when
// there are none, else only a page of one of them.
func Allows(origins []string, pageURL string) bool {
	if len(origins) == 0 {
		return true
	}
	o, ok := OriginOf(pageURL)
	return ok && slices.Contains(origins, o)
}
