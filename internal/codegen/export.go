package codegen

import (
	"bytes"
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strings"

	"github.com/browserd/browserd/internal/recording"
)

// skipped are the actions a test has no step for: they read, or manage
// browserd itself.
var skipped = map[string]bool{
	"snapshot": true, "status": true, "tabs": true, "console": true, "network": true,
	"list_sessions": true, "session_resume": true, "launch": true, "close": true,
	"task_end": true, "state_save": true, "state_load": true, "handoff": true,
	"tab_switch": true, "tab_close": true,
	"download": true, // a CDP client's (internal/cdpproxy): the step that started it does it again
}

// Test is a task's recording as a runnable @playwright/test file (name it
// *.spec.ts): the actions that succeeded, in order, as code; after each
// one that took the page to another URL, the expectation of it (which
// waits for it, as the answer did) — its path, whatever its query; the
// texts the agent waited for as expectations; at the end, the title the
// last answer showed; secrets read from the environment. The first
// page's origin is the test's baseURL, and addresses on it are relative,
// so the test runs against another deployment by changing one line.
// Failed steps are left out: the agent tried something else after them.
func Test(x recording.Export) []byte {
	var b bytes.Buffer
	var body []string
	secrets := map[string]bool{}
	lastURL, lastTitle := "", ""
	base := baseOf(x)
	var prev = -1 // index in body where the last exported step's code starts
	for _, e := range x.Entries {
		if e.Type != "action" {
			continue
		}
		if e.OK == nil || !*e.OK {
			continue
		}
		in := InputOf(e)
		if in.Secret != "" {
			secrets[EnvName(in.Secret)] = true
		}
		for _, f := range in.Fields {
			if f.Secret != "" {
				secrets[EnvName(f.Secret)] = true
			}
		}
		if in.Action == "dialog" {
			// The dialog opened during the step before: its answer must be
			// set up before that step runs.
			accept := in.Accept == nil || *in.Accept
			h := "page.once('dialog', d => d.dismiss());"
			if accept {
				h = "page.once('dialog', d => d.accept(" + Str(in.Text) + "));"
			}
			at := prev
			if at < 0 {
				at = len(body)
			}
			body = append(body[:at], append([]string{h}, body[at:]...)...)
			if prev >= 0 {
				prev++
			}
			continue
		}
		if skipped[in.Action] {
			if e.URL != "" {
				lastURL = e.URL
			}
			continue
		}
		t := Targets{Locator: e.Locator, Fields: e.Fields, To: e.To}
		went := in.URL // where a navigate went, before it is made relative
		if in.Action == "navigate" {
			in.URL = relative(in.URL, base)
		}
		lines := Lines(in, t)
		if len(lines) == 0 {
			continue
		}
		prev = len(body)
		body = append(body, fmt.Sprintf("// step %d: %s", e.Seq, in.Action))
		body = append(body, lines...)
		if e.URL != "" && e.URL != lastURL && !(in.Action == "navigate" && e.URL == went) {
			body = append(body, "await expect(page).toHaveURL("+urlExpect(e.URL, base)+");")
		}
		if e.URL != "" {
			lastURL = e.URL
		}
		if e.Title != "" {
			lastTitle = e.Title
		}
	}
	if lastTitle != "" && !secretMark.MatchString(lastTitle) && len(body) > 0 {
		// Where the task ended, as the agent last saw it.
		body = append(body, "await expect(page).toHaveTitle("+Str(lastTitle)+");")
	}
	fmt.Fprintf(&b, "// A browserd recording as a Playwright test: session %s, task %s, exported %s.\n",
		oneLine(x.Session), oneLine(x.Task), x.Exported.Format("2006-01-02 15:04:05Z07:00"))
	if len(secrets) > 0 {
		names := make([]string, 0, len(secrets))
		for n := range secrets {
			names = append(names, n)
		}
		sort.Strings(names)
		fmt.Fprintf(&b, "// Secrets come from the environment: %s.\n", strings.Join(names, ", "))
	}
	b.WriteString("import { test, expect } from '@playwright/test';\n\n")
	if base != "" {
		fmt.Fprintf(&b, "test.use({ baseURL: %s });\n\n", Str(base))
	}
	name := x.Task
	if name == "" {
		name = "task"
	}
	fmt.Fprintf(&b, "test(%s, async ({ page }) => {\n", Str(name))
	for _, l := range body {
		b.WriteString("  " + l + "\n")
	}
	b.WriteString("});\n")
	return b.Bytes()
}

// baseOf is the origin of the first page a recording navigated to
// (http://host:port), or "" when it navigated nowhere.
func baseOf(x recording.Export) string {
	for _, e := range x.Entries {
		if e.Type != "action" || e.OK == nil || !*e.OK || e.Name != "navigate" {
			continue
		}
		in := InputOf(e)
		if u, err := url.Parse(in.URL); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
			return u.Scheme + "://" + u.Host
		}
	}
	return ""
}

// relative is raw as an address relative to base when it is on base's
// origin (/path?query), else raw.
func relative(raw, base string) string {
	if base == "" || !strings.HasPrefix(raw, base) {
		return raw
	}
	rest := raw[len(base):]
	switch {
	case rest == "":
		return "/"
	case rest[0] == '/' || rest[0] == '?' || rest[0] == '#':
		if rest[0] != '/' {
			rest = "/" + rest
		}
		return rest
	}
	return raw // another host that starts the same (x.test.evil)
}

// urlExpect is what toHaveURL is given for a URL a step went to: on the
// base's origin, its path relative to the baseURL — or, when it has a
// query or a fragment, a regular expression of its path that takes any
// (a session id, a timestamp; the page's content is what the test
// checks) — else URLMatch's whole URL.
func urlExpect(raw, base string) string {
	rel := relative(raw, base)
	if rel == raw {
		return URLMatch(raw)
	}
	path, _, cut := strings.Cut(rel, "?")
	if !cut {
		path, _, cut = strings.Cut(rel, "#")
	} else {
		path, _, _ = strings.Cut(path, "#")
	}
	if !cut && !secretMark.MatchString(rel) {
		return Str(rel)
	}
	var re strings.Builder
	re.WriteString("^[a-z][a-z0-9+.-]*://[^/?#]+") // whatever the baseURL is
	at := 0
	for _, m := range secretMark.FindAllStringIndex(path, -1) {
		re.WriteString(regexp.QuoteMeta(path[at:m[0]]))
		re.WriteString("[^&#/?]*")
		at = m[1]
	}
	re.WriteString(regexp.QuoteMeta(path[at:]))
	re.WriteString("(?:[?#].*)?$")
	return "new RegExp(" + Str(re.String()) + ")"
}
