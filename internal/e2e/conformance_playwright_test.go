//go:build linux

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/browserd/browserd/internal/chromium"
)

// TestConformancePlaywright runs the conformance corpus against Playwright
// MCP (the peer agents finish most with), for the comparison in
// docs/conformance.md. It needs @playwright/mcp installed with npm: set
// BROWSERD_PLAYWRIGHT_MCP to its cli.js, or let the test install it into a
// temporary folder when npm is on the PATH. It skips, saying why, when
// neither works; it never fails on Playwright's results (browserd's own
// test does on browserd's).
func TestConformancePlaywright(t *testing.T) {
	res := runConformance(1, playwrightTools(t))
	passed := 0
	for _, cc := range confCases {
		if r, ran := res[cc.page]; !ran {
			continue
		} else if r.pass {
			passed++
		} else {
			msg := fmt.Sprint(res[cc.page].err)
			if len(msg) > 200 {
				msg = msg[:200] + "…"
			}
			t.Logf("playwright: %s: %s", cc.page, strings.ReplaceAll(msg, "\n", " "))
		}
	}
	t.Logf("Playwright MCP finished %d of %d conformance tasks", passed, len(res))
	writeConformance(t, "playwright-mcp", res)
}

// playwrightTool drives Playwright MCP 0.0.83's tools.
type playwrightTool struct {
	s  *mcp.ClientSession
	up string
}

func (p *playwrightTool) name() string { return "playwright-mcp" }

func (p *playwrightTool) call(name string, args map[string]any) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := p.s.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	if os.Getenv("BROWSERD_CONFORMANCE_TRACE") != "" {
		a, _ := json.Marshal(args)
		fmt.Fprintf(os.Stderr, ">>> %s %s (error: %v)\n%s\n", name, a, res.IsError, b.String())
	}
	if res.IsError {
		return b.String(), fmt.Errorf("%s: %s", name, b.String())
	}
	return b.String(), nil
}

// act calls an action tool; an answer without the page (Playwright MCP
// answers some actions with the code it ran only) is followed by a
// snapshot, as an agent would take one.
func (p *playwrightTool) act(name string, args map[string]any) (string, error) {
	text, err := p.call(name, args)
	if err != nil && args["target"] != nil && strings.Contains(text, "not found in the current page snapshot") {
		// "Try capturing new snapshot": an agent does, and acts again
		// with the ref if the new snapshot still shows it.
		if snap, serr := p.call("browser_snapshot", map[string]any{}); serr == nil && strings.Contains(snap, "[ref="+fmt.Sprint(args["target"])+"]") {
			text, err = p.call(name, args)
		}
	}
	if err != nil || strings.Contains(text, "[ref=") || strings.Contains(text, "### Modal state") {
		// (A dialog the action opened is answered first: no snapshot
		// is taken while it is open.)
		return text, err
	}
	snap, err := p.call("browser_snapshot", map[string]any{})
	return text + "\n" + snap, err
}

func (p *playwrightTool) navigate(url string) (string, error) {
	return p.act("browser_navigate", map[string]any{"url": url})
}
func (p *playwrightTool) click(ref string, o clickOpts) (string, error) {
	args := map[string]any{"target": ref, "element": ref}
	if o.double {
		args["doubleClick"] = true
	}
	if o.button != "" {
		args["button"] = o.button
	}
	if len(o.modifiers) > 0 {
		args["modifiers"] = o.modifiers
	}
	return p.act("browser_click", args)
}
func (p *playwrightTool) typeText(ref, text string, clear, submit bool) (string, error) {
	// browser_type fills: it always replaces the value, as clear does.
	return p.act("browser_type", map[string]any{"target": ref, "element": ref, "text": text, "submit": submit})
}

// typeKeys is browser_type with slowly: one key at a time at the caret
// (pressSequentially), which adds to what the field holds where fill
// would replace it, and which pages that listen to keys hear.
func (p *playwrightTool) typeKeys(ref, text string) (string, error) {
	return p.act("browser_type", map[string]any{"target": ref, "element": ref, "text": text, "slowly": true})
}
func (p *playwrightTool) waitText(text string, gone bool) (string, error) {
	key := "text"
	if gone {
		key = "textGone"
	}
	return p.act("browser_wait_for", map[string]any{key: text})
}
func (p *playwrightTool) selectValues(ref string, values []string) (string, error) {
	return p.act("browser_select_option", map[string]any{"target": ref, "element": ref, "values": values})
}
func (p *playwrightTool) hover(ref string) (string, error) {
	return p.act("browser_hover", map[string]any{"target": ref, "element": ref})
}
func (p *playwrightTool) press(ref, key string) (string, error) {
	if ref != "" {
		if _, err := p.click(ref, clickOpts{}); err != nil {
			return "", err
		}
	}
	return p.act("browser_press_key", map[string]any{"key": key})
}
func (p *playwrightTool) scroll(ref, dir string, amount int) (string, error) {
	// No scroll tool by default: an agent presses PageDown on the page.
	if ref != "" {
		return "", errUnsupported
	}
	key := map[string]string{"down": "PageDown", "up": "PageUp"}[dir]
	if key == "" {
		return "", errUnsupported
	}
	if _, err := p.call("browser_press_key", map[string]any{"key": key}); err != nil {
		return "", err
	}
	return p.call("browser_snapshot", map[string]any{})
}
func (p *playwrightTool) drag(ref, to string) (string, error) {
	if !quotedRef.MatchString("ref=" + to) {
		return "", errUnsupported // browser_drag takes two refs
	}
	return p.act("browser_drag", map[string]any{"startTarget": ref, "startElement": ref, "endTarget": to, "endElement": to})
}
func (p *playwrightTool) back() (string, error) {
	return p.act("browser_navigate_back", map[string]any{})
}
func (p *playwrightTool) extract(ref string) (string, error) {
	return "", errUnsupported // no text extraction tool; the snapshot is all
}
func (p *playwrightTool) upload(ref string, files []string) (string, error) {
	// The click opens a file chooser, answered by browser_file_upload.
	if _, err := p.call("browser_click", map[string]any{"target": ref, "element": ref}); err != nil {
		return "", err
	}
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = filepath.Join(p.up, f)
	}
	return p.act("browser_file_upload", map[string]any{"paths": paths})
}
func (p *playwrightTool) login(origin, user, password string) (string, error) {
	return "", errUnsupported // only a launch-time config option
}
func (p *playwrightTool) snapshot() (string, error) {
	return p.call("browser_snapshot", map[string]any{})
}
func (p *playwrightTool) dialog(accept bool) (string, error) {
	return p.act("browser_handle_dialog", map[string]any{"accept": accept})
}
func (p *playwrightTool) eval(js string) (string, error) {
	return p.call("browser_evaluate", map[string]any{"function": "() => (" + js + ")"})
}
func (p *playwrightTool) uploadDir() string { return p.up }

// playwrightTools starts Playwright MCP (see TestConformancePlaywright) and
// returns a maker of one Playwright MCP per task: it has one browser and no
// tasks, so tasks must not share its tabs. Each task's closes the previous
// one's, so tasks run one at a time. It skips the test when Playwright MCP
// cannot be had.
func playwrightTools(t *testing.T) func(i int) confTool {
	if os.Getenv("BROWSERD_CONFORMANCE_PEERS") == "" {
		t.Skip("set BROWSERD_CONFORMANCE_PEERS=1 to run the corpus against Playwright MCP (npm install @playwright/mcp)")
	}
	cli := os.Getenv("BROWSERD_PLAYWRIGHT_MCP")
	if cli == "" {
		dir := t.TempDir()
		npm, err := exec.LookPath("npm")
		if err != nil {
			t.Skip("Playwright MCP comparison skipped: npm is not installed and BROWSERD_PLAYWRIGHT_MCP is not set")
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		out, err := exec.CommandContext(ctx, npm, "install", "--no-audit", "--no-fund", "--prefix", dir, "@playwright/mcp@0.0.83").CombinedOutput()
		cancel()
		if err != nil {
			t.Skipf("Playwright MCP comparison skipped: npm install @playwright/mcp failed (registry unreachable?): %v\n%s", err, out)
		}
		cli = filepath.Join(dir, "node_modules", "@playwright", "mcp", "cli.js")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("Playwright MCP comparison skipped: node is not installed")
	}
	chrome, err := chromium.Find("")
	if err != nil {
		t.Skip(err)
	}
	cfgPath := filepath.Join(t.TempDir(), "pw.json")
	cfg, _ := json.Marshal(map[string]any{"browser": map[string]any{"browserName": "chromium", "isolated": true,
		"launchOptions": map[string]any{"executablePath": chrome, "headless": true, "chromiumSandbox": false,
			"args": []string{"--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"}}}})
	if err := os.WriteFile(cfgPath, cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	up := t.TempDir()
	c := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil)
	// One Playwright MCP per case: it has one browser and no tasks, so
	// cases must not share its tabs.
	var sessions []*mcp.ClientSession
	t.Cleanup(func() {
		for _, s := range sessions {
			s.Close()
		}
	})
	return func(i int) confTool {
		cmd := exec.Command("node", cli, "--config", cfgPath, "--output-dir", up)
		s, err := c.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Skipf("Playwright MCP comparison skipped: Playwright MCP did not start: %v", err)
		}
		if len(sessions) > 0 {
			sessions[len(sessions)-1].Close() // the previous case's
		}
		sessions = append(sessions, s)
		return &playwrightTool{s: s, up: up}
	}
}
