package codegen

import (
	"bytes"
	"fmt"
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
}

// Test is a task's recording as a runnable @playwright/test file (name it
// *.spec.ts): the actions that succeeded, in order, as code; after each
// one that took the page to another URL, the expectation of it (which
// waits for it, as the answer did); the texts the agent waited for as
// expectations; secrets read from the environment. Failed steps are left
// out: the agent tried something else after them.
func Test(x recording.Export) []byte {
	var b bytes.Buffer
	var body []string
	secrets := map[string]bool{}
	lastURL := ""
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
		lines := Lines(in, t)
		if len(lines) == 0 {
			continue
		}
		prev = len(body)
		body = append(body, fmt.Sprintf("// step %d: %s", e.Seq, in.Action))
		body = append(body, lines...)
		if e.URL != "" && e.URL != lastURL && !(in.Action == "navigate" && e.URL == in.URL) {
			body = append(body, "await expect(page).toHaveURL("+URLMatch(e.URL)+");")
		}
		if e.URL != "" {
			lastURL = e.URL
		}
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
