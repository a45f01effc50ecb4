//go:build linux

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/browserd/browserd/internal/mcpserver"
	"github.com/browserd/browserd/internal/tool"
	"github.com/browserd/browserd/internal/untrusted"
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// browserdBin builds cmd/browserd once per test run, or returns
// BROWSERD_TEST_BIN, a browserd binary built from this tree (make test
// builds one for all the test processes it starts).
func browserdBin(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("BROWSERD_TEST_BIN"); p != "" {
		return p
	}
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "browserd-bin-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "browserd")
		// The go command of the toolchain running the tests, PATH or not.
		goCmd := filepath.Join(runtime.GOROOT(), "bin", "go")
		if _, err := os.Stat(goCmd); err != nil {
			goCmd = "go"
		}
		out, err := exec.Command(goCmd, "build", "-o", binPath, "github.com/browserd/browserd/cmd/browserd").CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// daemonFlags are the flags every test daemon gets.
func daemonFlags(data string) []string {
	return []string{"--data", data, "--allow-host", "127.0.0.1", "--allow-host", "localhost", "--listen", ""}
}

// stopDaemon stops the daemon of a data dir and waits for it.
func stopDaemon(t testing.TB, data string) {
	out, err := exec.Command(browserdBin(t), "stop", "--data", data).CombinedOutput()
	if err != nil {
		t.Errorf("browserd stop: %v\n%s", err, out)
	}
	if t.Failed() {
		// The log of the daemon a client started for data.
		keepLog(t, filepath.Join(data, "browserd.log"))
	}
}

// mcpDriver is a go-sdk MCP client talking to `browserd mcp` over stdio,
// which starts (and forwards to) a daemon for its data dir.
type mcpDriver struct {
	sess *mcp.ClientSession
	data string
	// shown is the URL and title each tab's answers showed last: an
	// answer repeats them only when they change, and an agent keeps them.
	// Several workers may share a driver, so mu guards it.
	mu    sync.Mutex
	shown map[string][2]string
}

// newMCPDriver starts `browserd mcp` for a new data dir, with the test
// daemon's flags and extra.
func newMCPDriver(t *testing.T, extra ...string) *mcpDriver {
	data := t.TempDir()
	cmd := exec.Command(browserdBin(t), append(append([]string{"mcp"}, daemonFlags(data)...), extra...)...)
	c := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil)
	sess, err := c.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connecting to browserd mcp: %v", err)
	}
	t.Cleanup(func() {
		sess.Close()
		stopDaemon(t, data)
	})
	return &mcpDriver{sess: sess, data: data, shown: map[string][2]string{}}
}

func (d *mcpDriver) dataDir() string { return d.data }

func (d *mcpDriver) do(t *testing.T, in tool.Input) tool.Result {
	args := map[string]any{}
	b, _ := json.Marshal(in)
	_ = json.Unmarshal(b, &args)
	res, err := d.sess.CallTool(context.Background(), &mcp.CallToolParams{Name: "browser", Arguments: args})
	if err != nil {
		// Schema violations come back as protocol errors or error results.
		return tool.Result{Action: in.Action, Error: err.Error()}
	}
	r := parseMCP(in.Action, res)
	if r.Success && r.Wrapped && r.Tab != "" {
		d.mu.Lock()
		defer d.mu.Unlock()
		if d.shown == nil {
			d.shown = map[string][2]string{}
		}
		key := in.Task + "/" + r.Tab
		last := d.shown[key]
		if r.URL == "" {
			r.URL = last[0]
		}
		if r.Title == "" {
			r.Title = last[1]
		}
		d.shown[key] = [2]string{r.URL, r.Title}
	}
	if *verbose {
		fmt.Printf("--- mcp %s %s → ok=%v err=%q\n%s\n", in.Action, brief(in), r.Success, r.Error, r.Content)
	}
	return r
}

var (
	headerRe = regexp.MustCompile(`^✓ \S+(?: — (?:"((?:[^"\\]|\\.)*)")? ?(?:<([^>]*)>)?)?(?: \(tab (t\d+)\))?$`)
	dialogRe = regexp.MustCompile(`^dialog open: (\S+) "((?:[^"\\]|\\.)*)"`)
	dlRe     = regexp.MustCompile(`^(downloaded|downloading): (.*) \((\d+) bytes\) from (.*)$`)
	popupRe  = regexp.MustCompile(`^popup opened: tab (t\d+) "((?:[^"\\]|\\.)*)" <([^>]*)>`)
	tabRe    = regexp.MustCompile(`^([* ]) (t\d+) "((?:[^"\\]|\\.)*)" <([^>]*)>`)
	// Inside the untrusted envelope.
	wDialogRe = regexp.MustCompile(`^dialog \((\w+)\) open: (.*)$`)
	wPopupRe  = regexp.MustCompile(`^popup (t\d+) opened:(?: .* (\S*))?$`)
	wTabRe    = regexp.MustCompile(`^tab (t\d+)( \(active\))?: (?:.* )?(\S*)$`) // a tab that has not loaded yet has no URL
)

// parseMCP reads a tool result the way a careful client would: the header
// line, the note lines, then the content; image content for screenshots.
func parseMCP(action string, res *mcp.CallToolResult) tool.Result {
	r := tool.Result{Action: action, Success: !res.IsError}
	var text string
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			text = c.Text
		case *mcp.ImageContent:
			r.Image = c.Data
		}
	}
	if res.IsError {
		r.Error = strings.TrimPrefix(text, "error: ")
		return r
	}
	var out mcpserver.Output
	if b, err := json.Marshal(res.StructuredContent); err == nil {
		_ = json.Unmarshal(b, &out)
	}
	r.Tab = out.Tab
	head, body, _ := strings.Cut(text, "\n\n")
	lines := strings.Split(head, "\n")
	if m := headerRe.FindStringSubmatch(lines[0]); m != nil {
		r.Title, _ = strconv.Unquote(`"` + m[1] + `"`)
		r.URL = m[2]
		if m[3] != "" {
			r.Tab = m[3]
		}
	}
	for _, l := range lines[1:] {
		switch {
		case strings.HasPrefix(l, "saved: "):
			p := strings.TrimPrefix(l, "saved: ")
			if strings.HasSuffix(p, ".png") {
				r.ScreenshotPath = p
			} else {
				r.Path = p
			}
		case dialogRe.MatchString(l):
			m := dialogRe.FindStringSubmatch(l)
			msg, _ := strconv.Unquote(`"` + m[2] + `"`)
			r.Dialog = &tool.Dialog{Type: m[1], Message: msg}
		case dlRe.MatchString(l):
			m := dlRe.FindStringSubmatch(l)
			n, _ := strconv.ParseInt(m[3], 10, 64)
			r.Downloads = append(r.Downloads, tool.Download{Path: m[2], Size: n, URL: m[4], Done: m[1] == "downloaded"})
		case popupRe.MatchString(l):
			m := popupRe.FindStringSubmatch(l)
			r.Popups = append(r.Popups, tool.Tab{ID: m[1], URL: m[3]})
		case strings.HasPrefix(l, "note: "):
			r.Notes = append(r.Notes, strings.TrimPrefix(l, "note: "))
		}
	}
	r.Content = body
	if inner, ok := untrusted.Unwrap(body); ok {
		// Page facts come first inside the envelope, then the content.
		r.Wrapped = true
		// The page's facts open the envelope, one a line, before the
		// content (a snapshot, its changes, or text).
		var factLines []string
		for _, l := range strings.Split(inner, "\n") {
			if l == "changes:" || l == "no changes" || strings.HasPrefix(l, "document") {
				break
			}
			factLines = append(factLines, l)
		}
		facts, rest := strings.Join(factLines, "\n"), ""
		if len(factLines) < len(strings.Split(inner, "\n")) {
			// A whole page's first line is its document, with its title.
			first := strings.Split(inner, "\n")[len(factLines)]
			if t, ok := strings.CutPrefix(first, "document "); ok {
				r.Title, _ = strconv.Unquote(t)
			}
		}
		for _, l := range strings.Split(facts, "\n") {
			switch {
			case strings.HasPrefix(l, "title: "):
				r.Title = strings.TrimPrefix(l, "title: ")
			case strings.HasPrefix(l, "url: "):
				r.URL = strings.TrimPrefix(l, "url: ")
			case wDialogRe.MatchString(l):
				m := wDialogRe.FindStringSubmatch(l)
				r.Dialog = &tool.Dialog{Type: m[1], Message: m[2]}
			case wPopupRe.MatchString(l):
				m := wPopupRe.FindStringSubmatch(l)
				r.Popups = append(r.Popups, tool.Tab{ID: m[1], URL: m[2]})
			case wTabRe.MatchString(l):
				m := wTabRe.FindStringSubmatch(l)
				r.Tabs = append(r.Tabs, tool.Tab{ID: m[1], Active: m[2] != "", URL: m[3]})
			case dlRe.MatchString(l):
				m := dlRe.FindStringSubmatch(l)
				n, _ := strconv.ParseInt(m[3], 10, 64)
				r.Downloads = append(r.Downloads, tool.Download{Path: m[2], Size: n, URL: m[4], Done: m[1] == "downloaded"})
			case strings.HasPrefix(l, "blocked: "):
				r.Blocked = append(r.Blocked, strings.TrimPrefix(l, "blocked: "))
			}
		}
		r.Content = body // assertions look for page text anywhere in it
		_ = rest
		return r
	}
	if action == "tabs" || action == "tab_close" {
		for _, l := range strings.Split(body, "\n") {
			if m := tabRe.FindStringSubmatch(l); m != nil {
				title, _ := strconv.Unquote(`"` + m[3] + `"`)
				r.Tabs = append(r.Tabs, tool.Tab{ID: m[2], Title: title, URL: m[4], Active: m[1] == "*"})
			}
		}
	}
	return r
}

// cliDriver runs `browserd <command> --json` for every call, as a shell
// script would; the first call starts the daemon.
type cliDriver struct {
	data string
}

func newCLIDriver(t *testing.T) *cliDriver {
	d := &cliDriver{data: t.TempDir()}
	t.Cleanup(func() { stopDaemon(t, d.data) })
	return d
}

func (d *cliDriver) dataDir() string { return d.data }

func (d *cliDriver) do(t *testing.T, in tool.Input) tool.Result {
	args, err := cliArgs(in)
	if err != nil {
		return tool.Result{Action: in.Action, Error: err.Error()}
	}
	args = append(append([]string{"--json"}, daemonFlags(d.data)...), args...)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, browserdBin(t), args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	var r tool.Result
	if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
		// Usage errors (exit 2) print to stderr only.
		var ee *exec.ExitError
		if errors.As(runErr, &ee) && stderr.Len() > 0 {
			return tool.Result{Action: in.Action, Error: strings.TrimSpace(stderr.String())}
		}
		t.Fatalf("browserd %s: %v; stdout %q stderr %q", strings.Join(args, " "), runErr, stdout.String(), stderr.String())
	}
	if r.Success != (runErr == nil) {
		t.Errorf("browserd %s: success %v but exit %v", strings.Join(args, " "), r.Success, runErr)
	}
	if r.ScreenshotPath != "" {
		r.Image, _ = os.ReadFile(r.ScreenshotPath)
	}
	if *verbose {
		fmt.Printf("--- cli %s → ok=%v err=%q\n%s\n", strings.Join(args, " "), r.Success, r.Error, r.Content)
	}
	return r
}

// cliArgs maps a tool call to the CLI command a person would type.
func cliArgs(in tool.Input) ([]string, error) {
	var a []string
	add := func(cond bool, s ...string) {
		if cond {
			a = append(a, s...)
		}
	}
	add(in.Task != "", "--session", in.Task)
	add(in.Profile != "", "--profile", in.Profile)
	target := func() {
		add(in.Pointed(), "--at", fmt.Sprintf("%d,%d", derefInt(in.X), derefInt(in.Y)))
		add(in.Selector != "", "--selector", in.Selector)
		add(in.Role != "", "--role", in.Role)
		add(in.Name != "", "--name", in.Name)
	}
	page := func() {
		add(in.Snapshot != nil && !*in.Snapshot, "--no-snapshot")
		add(in.Full, "--full")
		add(in.Timeout > 0, "--timeout", strconv.Itoa(in.Timeout))
	}
	switch in.Action {
	case "navigate":
		a = append(a, "open", in.URL)
		page()
	case "back", "forward", "reload", "hover", "click":
		a = append(a, in.Action)
		add(in.Ref != "", in.Ref)
		target()
		page()
	case "fill":
		a = append(a, "fill")
		for _, f := range in.Fields {
			if f.Secret != "" {
				a = append(a, "--secret", f.Ref+"="+f.Secret)
			} else {
				a = append(a, f.Ref+"="+f.Value)
			}
		}
		page()
	case "drag":
		a = append(a, "drag")
		add(in.Ref != "", in.Ref)
		a = append(a, in.To)
		target()
		page()
	case "snapshot":
		a = append(a, "snapshot")
		add(in.Ref != "", in.Ref)
		add(in.Interactive, "--interactive")
		add(in.Depth > 0, "--depth", strconv.Itoa(in.Depth))
		add(in.MaxChars > 0, "--max-chars", strconv.Itoa(in.MaxChars))
		add(in.Diff, "--diff")
		add(in.Selector != "", "--selector", in.Selector)
	case "type":
		a = append(a, "type")
		add(in.Ref != "", in.Ref)
		add(in.Secret == "", in.Text)
		add(in.Secret != "", "--secret", in.Secret)
		target()
		add(in.Clear, "--clear")
		add(in.Submit, "--submit")
		page()
	case "select":
		a = append(a, "select")
		add(in.Ref != "", in.Ref)
		a = append(a, in.Value)
		target()
		page()
	case "press":
		a = append(a, "press", in.Key)
		add(in.Ref != "", "--ref", in.Ref)
		page()
	case "scroll":
		a = append(a, "scroll")
		add(in.Direction != "", in.Direction)
		add(in.Amount > 0, "--amount", strconv.Itoa(in.Amount))
		add(in.Ref != "", "--ref", in.Ref)
		target()
		page()
	case "evaluate":
		a = append(a, "eval", in.Expression)
	case "extract":
		a = append(a, "extract")
		add(in.Ref != "", in.Ref)
		target()
	case "handoff":
		a = append(a, "handoff", in.Reason)
		add(in.Timeout > 0, "--timeout", strconv.Itoa(in.Timeout))
	case "wait":
		a = append(a, "wait")
		add(in.Selector != "", "--selector", in.Selector)
		add(in.Text != "", "--text", in.Text)
		add(in.TextGone != "", "--text-gone", in.TextGone)
		add(in.URL != "", "--url", in.URL)
		add(in.Time > 0, "--time", strconv.Itoa(in.Time))
		add(in.Load, "--load")
		add(in.Timeout > 0, "--timeout", strconv.Itoa(in.Timeout))
		add(in.Full, "--full")
	case "screenshot":
		a = append(a, "screenshot")
		add(in.Ref != "", in.Ref)
		target()
		add(in.FullPage != nil && *in.FullPage, "--full-page")
		add(in.FullPage != nil && !*in.FullPage, "--viewport")
		add(in.Path != "", "--path", in.Path)
		add(in.Annotate, "--annotate")
	case "pdf":
		a = append(a, "pdf")
		add(in.Path != "", "--path", in.Path)
	case "network":
		a = append(a, "network")
		add(in.Filter != "", in.Filter)
		add(in.Request != "", "--request", in.Request)
		add(in.Path != "", "--har", in.Path)
		add(in.Redact != nil && !*in.Redact, "--no-redact")
	case "launch":
		a = append(a, "launch")
		add(in.Device != "", "--device", in.Device)
		add(in.ColorScheme != "", "--color-scheme", in.ColorScheme)
	case "emulate":
		a = append(a, "emulate")
		add(in.ColorScheme != "", "--color-scheme", in.ColorScheme)
		add(in.Offline != nil && *in.Offline, "--offline")
		add(in.Offline != nil && !*in.Offline, "--no-offline")
		add(in.Throttle != "", "--throttle", in.Throttle)
		add(in.InitScript != "", "--init-script", in.InitScript)
		for _, p := range in.Permissions {
			a = append(a, "--permission", p)
		}
		add(in.URL != "", "--origin", in.URL)
		if g := in.Geolocation; g != nil {
			a = append(a, "--geolocation", fmt.Sprintf("%v,%v,%v", g.Latitude, g.Longitude, g.Accuracy))
		}
	case "route", "unroute":
		a = append(a, in.Action)
		add(in.URL != "", in.URL)
		add(in.Status != 0, "--status", strconv.Itoa(in.Status))
		add(in.Body != "", "--body", in.Body)
		add(in.Abort != "", "--abort", in.Abort)
		add(in.Scope != "", "--scope", in.Scope)
		add(in.Fetch, "--fetch")
		add(in.Text != "" || in.Value != "", "--replace", in.Text+"="+in.Value)
		for _, k := range slices.Sorted(maps.Keys(in.Headers)) {
			a = append(a, "--header", k+"="+in.Headers[k])
		}
	case "console", "tabs", "status", "close":
		a = append(a, in.Action)
	case "task_end":
		a = append(a, "task-end")
	case "tab_new":
		a = append(a, "tab", "new")
		add(in.URL != "", in.URL)
	case "tab_close":
		a = append(a, "tab", "close")
		add(in.Tab != "", in.Tab)
	case "tab_switch":
		a = append(a, "tab", "switch", in.Tab)
	case "dialog":
		if in.Accept != nil && !*in.Accept {
			a = append(a, "dialog", "dismiss")
		} else {
			a = append(a, "dialog", "accept")
			add(in.Text != "", in.Text)
		}
	case "mouse_move", "mouse_down", "mouse_up":
		a = append(a, "mouse", strings.TrimPrefix(in.Action, "mouse_"), fmt.Sprintf("%d,%d", derefInt(in.X), derefInt(in.Y)))
		add(in.Button != "", "--button", in.Button)
		page()
	case "upload":
		a = append(a, "upload")
		add(in.Ref != "", in.Ref)
		a = append(a, in.Files...)
		target()
	default:
		// An action the CLI has no command for: the CLI says so.
		a = append(a, in.Action)
	}
	return a, nil
}

// mcpScenarios are the scenarios TestMCP runs: those whose answers cross
// the MCP server's own code — its text header and note lines (dialogs,
// downloads, popups, tabs, files saved), image content, the input
// schema's errors, diffs, long answers, tasks. The MCP server passes a
// call to the same engine call as the HTTP API, so the others (page
// behaviour: tables, frames, scrolling, dragging, …) run in process
// (TestEngine), not again here: make test's time. The conformance corpora drive every one of their
// tasks through MCP too.
var mcpScenarios = map[string]bool{
	"form": true, "refs_stable_and_diff": true, "dialogs": true, "upload": true, "download": true,
	"popup_and_tabs": true, "console_flood": true, "wait": true, "screenshot_pdf": true,
	"bad_input": true, "tasks_isolated": true, "network": true,
}

func TestMCP(t *testing.T) {
	t.Parallel() // waits more than it works: run beside another (make test's budget)
	d := newMCPDriver(t)
	ran := 0
	for _, s := range scenarios {
		if mcpScenarios[s.name] {
			ran++
			t.Run(s.name, func(t *testing.T) { s.run(t, d, "mcp-"+s.name) })
		}
	}
	if ran != len(mcpScenarios) {
		t.Errorf("ran %d of the %d mcpScenarios: a name there is no scenario's", ran, len(mcpScenarios))
	}
}

// cliScenarios are the scenarios TestCLI runs, each call a browserd
// process that starts the daemon or reaches it: those whose answers the
// CLI prints or saves in its own ways (files written and their paths,
// dialogs, tabs, the tasks of --session, evaluate's values, a bad
// command line's exit 2 and stderr). Every call of every scenario goes
// through the CLI's parsing in TestEngine (sameThroughCLI): the command
// line a person types for it sends that very call.
var cliScenarios = map[string]bool{
	"form": true, "dialogs": true, "upload": true, "download": true, "popup_and_tabs": true,
	"screenshot_pdf": true, "bad_input": true, "tasks_isolated": true, "evaluate_extract": true,
}

func TestCLI(t *testing.T) {
	t.Parallel() // a process per call: waits more than it works, beside the others (make test's budget)
	d := newCLIDriver(t)
	ran := 0
	for _, s := range scenarios {
		if cliScenarios[s.name] {
			ran++
			t.Run(s.name, func(t *testing.T) { s.run(t, d, "cli-"+s.name) })
		}
	}
	if ran != len(cliScenarios) {
		t.Errorf("ran %d of the %d cliScenarios: a name there is no scenario's", ran, len(cliScenarios))
	}
}

func derefInt(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}
