package recording

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/browserd/browserd/internal/browser"
	"github.com/browserd/browserd/internal/network"
	"github.com/browserd/browserd/internal/redact"
	"github.com/browserd/browserd/internal/tool"
)

// What one call adds to its task's recording besides its outcome: the
// call's arguments as the recording keeps them (Args), and what its
// action added to the tab's console and network log (Since a Mark).

// Mark is where a tab's console and network log stood before an action,
// so that the recording takes what the action added. The zero Mark
// takes nothing.
type Mark struct {
	console, net int
	set          bool
}

// MarkBefore notes pg's console and network log before an action, and
// tells the recorder an action begins on it (Begin).
func (r *Recorder) MarkBefore(pg *browser.Page) Mark {
	r.Begin(pg)
	return Mark{console: pg.ConsoleSeq(), net: pg.NetSeq(), set: true}
}

// Since is what the action added to pg's logs since m: the console's
// errors, warnings and failed assertions, and the requests (the last
// 100), redacted with red.
func Since(pg *browser.Page, m Mark, red *redact.Redactor) (console, requests []Entry) {
	if pg == nil || !m.set {
		return nil, nil
	}
	for _, msg := range pg.ConsoleSince(m.console) {
		if msg.Level == "error" || msg.Level == "warning" || msg.Level == "assert" {
			console = append(console, Entry{Type: "console", Time: time.Now().UTC(), Level: msg.Level, Text: red.String(truncateRunes(msg.Text, 500))})
		}
	}
	reqs := pg.NetSince(m.net)
	if len(reqs) > 100 {
		reqs = reqs[len(reqs)-100:]
	}
	for _, r := range reqs {
		status := fmt.Sprint(r.Status)
		switch {
		case r.Refused != "":
			status = "refused"
		case r.Failed != "":
			status = "failed"
		case r.Status == 0:
			status = "pending"
		}
		requests = append(requests, Entry{Type: "request", Time: r.Started.UTC(), Method: r.Method, Status: status,
			Kind: strings.ToLower(r.Type), URL: red.String(network.ShortURL(r.URL, 300))})
	}
	return console, requests
}

// Args are the call's fields as the recording keeps them: what says which
// session and task it is left out; credentials (the fields tool.Input
// declares sensitive: a state, logins, a proxy's password, a client
// certificate's key) never kept; secrets' values replaced.
func Args(in tool.Input, red *redact.Redactor) map[string]any {
	in = in.Redacted()
	in.Action, in.Session, in.Task = "", "", ""
	b, err := json.Marshal(in)
	if err != nil {
		return nil
	}
	b = []byte(red.String(string(b)))
	var m map[string]any
	if json.Unmarshal(b, &m) != nil || len(m) == 0 {
		return nil
	}
	return m
}

// truncateRunes is s cut to at most n bytes, on a rune's start, with an
// ellipsis when cut.
func truncateRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}
