package logincheck

import (
	"context"
	"fmt"
	"testing"

	"github.com/browserd/browserd/internal/browser"
	"github.com/browserd/browserd/internal/sessions"
	"github.com/browserd/browserd/internal/store"
	"github.com/browserd/browserd/internal/tool"
)

func TestStored(t *testing.T) {
	if got := Stored(nil); got != nil {
		t.Errorf("Stored(nil) = %+v, want nil", got)
	}
	got := Stored(&tool.LoginCheck{URL: " https://example.com/account ", Text: "Signed in"})
	if got == nil || got.URL != "https://example.com/account" || got.Text != "Signed in" {
		t.Errorf("Stored = %+v, want the URL trimmed and the text kept", got)
	}
}

func TestFailure(t *testing.T) {
	chk := &store.LoginCheck{URL: "https://example.com/account", Selector: "#me"}
	for _, c := range []struct {
		err  error
		want string
	}{
		{&tool.Error{Msg: "refused by policy"}, "refused by policy"},
		{fmt.Errorf("loading: %w", context.DeadlineExceeded), "https://example.com/account did not answer within 10s"},
		{browser.ErrDialogOpen, "https://example.com/account opened a dialog"},
		{errNoBrowser, "the session's browser is not running"},
		{sessions.ErrClosed, "the session's browser is not running"},
	} {
		if got := failure(c.err, chk); got != c.want {
			t.Errorf("failure(%v) = %q, want %q", c.err, got, c.want)
		}
	}
}

func TestStatus(t *testing.T) {
	s := &sessions.Session{ID: "s1"}
	if got := Status(s); got != "" {
		t.Errorf("Status without a check = %q, want none", got)
	}
	s.Login = &tool.Login{Message: "still logged in to example.com (checked 10:00)"}
	if got, want := Status(s), "  session s1: still logged in to example.com (checked 10:00)\n"; got != want {
		t.Errorf("Status = %q, want %q", got, want)
	}
}
