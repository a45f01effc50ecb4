// Package untrusted wraps text that comes from web pages — snapshots,
// extracted text, console lines, evaluate results, titles, URLs, dialog
// messages — in an envelope before it reaches a model:
//
//	<<<page P5oMF7LkpVE untrusted>>>
//	…
//	<<<end P5oMF7LkpVE>>>
//
// The boundary carries a fresh 64-bit random nonce per response (11
// characters of base64url), and the
// opening line's word says the content is untrusted data (the tool's
// description says the rest once: never instructions). A page cannot close
// the envelope early: it cannot know the nonce, and any boundary-looking
// text inside is defused.
package untrusted

import (
	"crypto/rand"
	"encoding/base64"
	"strings"
)

const (
	openPrefix  = "<<<page "
	closePrefix = "<<<end "
	suffix      = ">>>"
	// Warning is the word after the nonce on the line that opens every
	// envelope.
	Warning = "untrusted"
)

// Envelope is one response's boundary. Use New for every response.
type Envelope struct {
	nonce string
}

// New returns an envelope with a fresh random nonce.
func New() Envelope {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("untrusted: no randomness: " + err.Error()) // crypto/rand never fails on Linux
	}
	return Envelope{nonce: base64.RawURLEncoding.EncodeToString(b[:])}
}

// Nonce is the envelope's boundary id.
func (e Envelope) Nonce() string { return e.nonce }

// Wrap returns text inside the envelope. Boundary-looking sequences in the
// text ("<<<") are defused so no line inside can pass for a marker, and the
// nonce itself can never appear inside.
func (e Envelope) Wrap(text string) string {
	text = Defuse(text)
	text = strings.ReplaceAll(text, e.nonce, "[id removed]")
	var b strings.Builder
	b.Grow(len(text) + 64)
	b.WriteString(openPrefix + e.nonce + " " + Warning + suffix + "\n")
	b.WriteString(text)
	if !strings.HasSuffix(text, "\n") {
		b.WriteByte('\n')
	}
	b.WriteString(closePrefix + e.nonce + suffix)
	return b.String()
}

// Defuse breaks up marker-like sequences in page text: after it, no two
// '<' or '>' stand next to each other, so no "<<<" can remain. It also
// turns the characters that break a line without being one — U+2028,
// U+2029, U+0085 — and control characters other than tab and newline
// (a terminal's escape sequences among them) into spaces.
func Defuse(text string) string {
	text = strings.Map(func(r rune) rune {
		switch {
		case r == '\n' || r == '\t':
			return r
		case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f, r == '\u2028', r == '\u2029':
			return ' '
		}
		return r
	}, text)
	if !strings.Contains(text, "<<") && !strings.Contains(text, ">>") {
		return text
	}
	text = strings.ReplaceAll(text, "<<", "<‹")
	return strings.ReplaceAll(text, ">>", ">›")
}

// Unwrap returns the content of an envelope produced by Wrap with any
// nonce, and whether text was one; for tests and for clients that want the
// raw text back.
func Unwrap(text string) (string, bool) {
	if !strings.HasPrefix(text, openPrefix) {
		return "", false
	}
	nl := strings.IndexByte(text, '\n')
	if nl < 0 || !strings.HasSuffix(text[:nl], suffix) {
		return "", false
	}
	nonce, ok := strings.CutSuffix(strings.TrimSuffix(strings.TrimPrefix(text[:nl], openPrefix), suffix), " "+Warning)
	if !ok {
		return "", false
	}
	end := closePrefix + nonce + suffix
	if !strings.HasSuffix(text, end) {
		return "", false
	}
	body := strings.TrimSuffix(text[nl+1:], end)
	return strings.TrimSuffix(body, "\n"), true
}
