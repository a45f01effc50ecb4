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

// Show says which of the page's place an answer repeats: the agent's
// last answer on the tab may have shown it already.
type Show struct {
	Title, URL bool
	// OwnContent is set when Content is browserd's own words (an answer
	// that nothing changed), not the page's.
	OwnContent bool
}

// Wrap moves everything in r that a page wrote into one envelope, at the
// top of r.Content: the title and URL when show says so, then the rest.
// An answer with no page text in it (nothing changed, and the page's
// place is the one the agent has) needs no envelope and gets none. The
// answers of actions that show no page (status, launch, close,
// state_save, state_load, task_end) are browserd's own and stay as they
// are.
func Wrap(r *tool.Result, show Show) {
	switch r.Action {
	case "status", "launch", "close", "state_save", "state_load", "task_end":
		return // written by browserd, not by a page
	}
	var b strings.Builder
	line := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	if r.Title != "" && show.Title {
		line("title: %s", r.Title)
	}
	if r.URL != "" && show.URL {
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
	r.Wrapped = true // the page's fields are shown inside Content, if at all
	if b.Len() == 0 && (show.OwnContent || r.Content == "") {
		return
	}
	b.WriteString(r.Content)
	r.Content = untrusted.New().Wrap(strings.TrimSuffix(b.String(), "\n"))
}
