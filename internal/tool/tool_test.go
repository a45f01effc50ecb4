package tool

import (
	"strings"
	"testing"
)

// TestValidate: the fields of click, select and launch are checked with an
// error that says what to send instead.
func TestValidate(t *testing.T) {
	for _, c := range []struct {
		in   Input
		want string // "" = valid
	}{
		{Input{Action: "click", Ref: "e1", Double: true, Button: "right", Modifiers: []string{"Shift", "control"}}, ""},
		{Input{Action: "click", Ref: "e1", Button: "side"}, "use left, right or middle"},
		{Input{Action: "click", Ref: "e1", Modifiers: []string{"Hyper"}}, "use Alt, Control, Meta or Shift"},
		{Input{Action: "select", Ref: "e1", Values: []string{"a", "b"}}, ""},
		{Input{Action: "select", Ref: "e1"}, "select needs value"},
		{Input{Action: "select", Ref: "e1", Value: "a", Values: []string{"a"}}, ""},
		{Input{Action: "launch", HTTPCredentials: []HTTPCredential{{Origin: "https://a.example", Username: "u", Password: "p"}}}, ""},
		{Input{Action: "launch", HTTPCredentials: []HTTPCredential{{Origin: "https://a.example"}}}, "needs origin"},
		{Input{Action: "wait", Time: 1 << 62}, "at most 3600000"},
		{Input{Action: "wait", Text: "x", Timeout: 9223372036854775807}, "at most 3600000"},
		{Input{Action: "wait", Text: "x", Timeout: MaxMillis}, ""},
		{Input{Action: "scroll", Amount: 1 << 40}, "amount 1000000"},
		{Input{Action: "snapshot", Depth: 1 << 40}, "depth is at most"},
		{Input{Action: "navigate", URL: "https://a.example", HTTPCredentials: []HTTPCredential{{Origin: "x", Username: "u"}}}, "set with launch"},
	} {
		err := c.in.Validate()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%+v: %v", c.in, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%+v: got %v, want an error with %q", c.in, err, c.want)
		}
	}
}
