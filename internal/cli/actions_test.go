package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/browserd/browserd/internal/tool"
)

// actionCommands are, for each action of the browser tool (tool.Actions)
// that has a command of its own, a command line of that command: running
// it sends the action (TestEveryActionHasACommand). "$DIR/" starts a path
// in a folder of the test; $DIR/state.json holds a storageState.
var actionCommands = map[string][]string{
	"launch":         {"launch"},
	"close":          {"close"},
	"navigate":       {"navigate", "https://example.com/"},
	"screenshot":     {"screenshot"},
	"snapshot":       {"snapshot"},
	"click":          {"click", "e1"},
	"type":           {"type", "e1", "hello"},
	"select":         {"select", "e1", "Blue"},
	"scroll":         {"scroll", "down"},
	"evaluate":       {"eval", "document.title"},
	"extract":        {"extract"},
	"wait":           {"wait", "--load"},
	"tabs":           {"tabs"},
	"tab_new":        {"tab", "new"},
	"tab_close":      {"tab", "close"},
	"tab_switch":     {"tab", "switch", "t2"},
	"pdf":            {"pdf"},
	"console":        {"console"},
	"status":         {"status"},
	"dialog":         {"dialog", "accept"},
	"upload":         {"upload", "e1", "a.pdf"},
	"back":           {"back"},
	"forward":        {"forward"},
	"reload":         {"reload"},
	"hover":          {"hover", "e1"},
	"press":          {"press", "Enter"},
	"state_save":     {"state", "save", "$DIR/saved.json"},
	"state_load":     {"state", "load", "$DIR/state.json"},
	"task_end":       {"task-end"},
	"list_sessions":  {"sessions"},
	"session_resume": {"resume", "work"},
	"handoff":        {"handoff", "enter the code sent by SMS"},
	"drag":           {"drag", "e1", "e2"},
	"fill":           {"fill", "e1=Ada"},
	"network":        {"network", "fetch"},
	"mouse_move":     {"mouse", "move", "10,20"},
	"mouse_down":     {"mouse", "down", "10,20"},
	"mouse_up":       {"mouse", "up", "10,20", "--button", "right"},
	"emulate":        {"emulate", "--color-scheme", "dark", "--offline"},
	"route":          {"route", "**/api/*", "--status", "404"},
	"unroute":        {"unroute", "**/api/*"},
}

// callOnly are the actions no command of their own sends, each with a
// call of it as JSON: `browserd call` sends them, and docs/reference.md's "From a
// shell" says so on a line with `browserd call` and the action's name.
// Each needs a comment saying why a command is not worth it; there are
// none today.
var callOnly = map[string]string{}

// TestEveryActionHasACommand: every action of tool.Actions is reachable
// from the command line — sent by a command of the CLI (actionCommands: the command line parses, and the
// daemon gets that action), or else by `browserd call` with docs/reference.md
// saying so (callOnly); both tables name only actions.
func TestEveryActionHasACommand(t *testing.T) {
	for _, a := range tool.Actions {
		_, own := actionCommands[a]
		_, call := callOnly[a]
		switch {
		case !own && !call:
			t.Errorf("action %q (tool.Actions) has no CLI command: add a kong command that sends it to CLI in internal/cli/cli.go and a command line of it to actionCommands in internal/cli/actions_test.go; or, when `browserd call` is enough, add it to callOnly there and to docs/reference.md's \"From a shell\" on a line with `browserd call`", a)
		case own && call:
			t.Errorf("action %q is in both actionCommands and callOnly: keep one", a)
		}
	}
	for a := range actionCommands {
		if !slices.Contains(tool.Actions, a) {
			t.Errorf("actionCommands has %q, which is not an action (tool.Actions)", a)
		}
	}
	for a := range callOnly {
		if !slices.Contains(tool.Actions, a) {
			t.Errorf("callOnly has %q, which is not an action (tool.Actions)", a)
		}
	}

	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "state.json"), []byte(`{"cookies":[],"origins":[]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	sends := func(t *testing.T, action string, args []string) {
		t.Helper()
		for i, arg := range args {
			if rest, ok := strings.CutPrefix(arg, "$DIR/"); ok {
				args[i] = filepath.Join(dir, rest)
			}
		}
		d := &fakeDaemon{}
		code, _, stderr := runWith(t, d, args...)
		if code != 0 || len(d.inputs) != 1 || d.inputs[0].Action != action {
			var got []string
			for _, in := range d.inputs {
				got = append(got, in.Action)
			}
			t.Errorf("browserd %s: exit %d, stderr %q, the daemon got %q, want one %s", strings.Join(args, " "), code, stderr, got, action)
		}
	}
	for a, args := range actionCommands {
		t.Run(a, func(t *testing.T) { sends(t, a, slices.Clone(args)) })
	}
	if len(callOnly) == 0 {
		return
	}
	readme, err := os.ReadFile("../../docs/reference.md")
	if err != nil {
		t.Fatal(err)
	}
	for a, call := range callOnly {
		t.Run(a, func(t *testing.T) {
			sends(t, a, []string{"call", call})
			if !slices.ContainsFunc(strings.Split(string(readme), "\n"), func(l string) bool {
				return strings.Contains(l, "browserd call") && strings.Contains(l, a)
			}) {
				t.Errorf("docs/reference.md has no line with `browserd call` and %s: say in \"From a shell\" that `browserd call` sends it", a)
			}
		})
	}
}
