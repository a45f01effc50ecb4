package untrusted

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
)

// Hidden is how a Text prints anywhere but in the envelope.
const Hidden = "‹page text›"

// Text is a string a page chose: a title, a URL (a page sets its own with
// history.pushState), a field's value, an element's name, a message, a
// file name. It cannot be joined to a string with +, and it prints as
// Hidden with every fmt verb, in slog records and in JSON, so that a note,
// an error, a log line or a header that formats one by accident carries
// none of the page's words. What it holds is taken only with Unwrap, for
// the envelope's fields and for work that never prints it (navigating to
// a URL, comparing).
type Text struct{ s string }

// Page marks s as the page's words.
func Page(s string) Text { return Text{s} }

// Unwrap is the page's words: for a field the envelope renders (content,
// details, title, URL, tabs, dialogs) or for work that does not print
// them. Never put it in a note, an error or a log line.
func (t Text) Unwrap() string { return t.s }

// IsEmpty reports whether the page's string is empty.
func (t Text) IsEmpty() bool { return t.s == "" }

// Format prints Hidden, whatever the verb.
func (t Text) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, Hidden) }

// LogValue keeps the page's words out of logs.
func (t Text) LogValue() slog.Value { return slog.StringValue(Hidden) }

// MarshalJSON keeps the page's words out of any JSON a Text lands in by
// accident; the envelope's fields are strings, set with Unwrap.
func (t Text) MarshalJSON() ([]byte, error) { return json.Marshal(Hidden) }
