// Package envelope puts what a page wrote into an answer — its title and
// URL, dialog text, popup and tab titles, download and blocked URLs, the
// details and the content — inside one untrusted-content envelope with a
// fresh nonce (package untrusted), so that no page can speak outside it.
// The separate fields stay for programs; a model reads Content.
package envelope

import (
	"fmt"
	"strings"

	"github.com/browserd/browserd/internal/tool"
	"github.com/browserd/browserd/internal/untrusted"
)

// Wrap moves everything in r that a page wrote into one envelope, at the
// top of r.Content. The answers of actions that show no page (status,
// launch, close, state_save, state_load, task_end) are browserd's own and
// stay as they are.
func Wrap(r *tool.Result) {
	switch r.Action {
	case "status", "launch", "close", "state_save", "state_load", "task_end":
		return // written by browserd, not by a page
	}
	var b strings.Builder
	line := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	if r.Title != "" {
		line("title: %s", r.Title)
	}
	if r.URL != "" {
		line("url: %s", r.URL)
	}
	if d := r.Dialog; d != nil {
		line("dialog (%s) open: %s", d.Type, d.Message)
	}
	for _, p := range r.Popups {
		line("popup %s opened: %s %s", p.ID, p.Title, p.URL)
	}
	for _, t := range r.Tabs {
		mark := ""
		if t.Active {
			mark = " (active)"
		}
		line("tab %s%s: %s %s", t.ID, mark, t.Title, t.URL)
	}
	for _, d := range r.Downloads {
		state := "downloading"
		if d.Done {
			state = "downloaded"
		}
		line("%s: %s (%d bytes) from %s", state, d.Path, d.Size, d.URL)
	}
	for _, x := range r.Blocked {
		line("blocked: %s", x)
	}
	for _, x := range r.Details {
		line("%s", x)
	}
	if r.Content != "" {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString(r.Content)
	}
	if b.Len() == 0 {
		return
	}
	r.Content = untrusted.New().Wrap(strings.TrimSuffix(b.String(), "\n"))
	r.Wrapped = true
}
