//go:build linux

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/browserd/browserd/internal/tool"
	"github.com/browserd/browserd/internal/userdata"
)

// runBrowserd runs the browserd binary with extra environment and returns
// its stdout, stderr and exit code.
func runBrowserd(t *testing.T, env []string, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, browserdBin(t), args...)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("browserd %v: %v", args, err)
	}
	return stdout.String(), stderr.String(), code
}

// folderCLI runs one --json CLI command on the test daemon of data with
// AGENT_BROWSER_PROFILE set to dir.
func folderCLI(t *testing.T, data, dir string, args ...string) tool.Result {
	t.Helper()
	out, errOut, _ := runBrowserd(t, []string{"AGENT_BROWSER_PROFILE=" + dir}, append(append([]string{"--json"}, daemonFlags(data)...), args...)...)
	var r tool.Result
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("browserd %v: stdout %q stderr %q: %v", args, out, errOut, err)
	}
	return r
}

// accountOf reads the test site's account page in the folder's session:
// who is logged in, and the localStorage the login left.
func accountOf(t *testing.T, data, dir string) (status, ls string) {
	t.Helper()
	if r := folderCLI(t, data, dir, "open", site.URL("/account")); !r.Success {
		t.Fatalf("open /account on folder %s: %s", dir, r.Error)
	}
	r := folderCLI(t, data, dir, "eval", `JSON.stringify([(document.getElementById('status')||{}).textContent||'', localStorage.getItem('inj')||''])`)
	if !r.Success {
		t.Fatalf("eval on folder %s: %s", dir, r.Error)
	}
	for _, line := range strings.Split(r.Content, "\n") {
		var s string
		var got []string
		if strings.HasPrefix(line, `"[`) && json.Unmarshal([]byte(line), &s) == nil && json.Unmarshal([]byte(s), &got) == nil && len(got) == 2 {
			return got[0], got[1]
		}
	}
	t.Fatalf("no result in %q", r.Content)
	return "", ""
}

// TestUserDataDir (issue #17 point 5, source 003 FR-3): a storageState is
// converted into a folder once (`browserd profile build` again finds it
// up to date), the session runs on it through AGENT_BROWSER_PROFILE
// logged in — a session-only cookie and localStorage included — and
// again after the daemon restarts; folders outside the allowed root, or
// holding a link out of it, are refused; POST /api/sessions with
// userDataDir converts an injected state into a new folder, and one
// folder runs one session at a time.
func TestUserDataDir(t *testing.T) {
	data := t.TempDir()
	t.Cleanup(func() { stopDaemon(t, data) })
	root := filepath.Join(data, "folders")
	stateFile := filepath.Join(t.TempDir(), "state.json")
	b, _ := json.Marshal(loginState(t, "folder"))
	if err := os.WriteFile(stateFile, b, 0o600); err != nil {
		t.Fatal(err)
	}
	prof := filepath.Join(root, "agent-profile")

	// Converted once; the same source again is up to date.
	out, errOut, code := runBrowserd(t, nil, "profile", "build", "--state", stateFile, "--out", prof)
	if code != 0 || strings.TrimSpace(out) != prof {
		t.Fatalf("profile build: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	src, ok, err := userdata.ReadSource(prof)
	if err != nil || !ok || src.Kind != "file" {
		t.Fatalf("the folder notes no source: %+v %v %v", src, ok, err)
	}
	out, errOut, code = runBrowserd(t, nil, "profile", "build", "--state", stateFile, "--out", prof)
	if code != 0 || strings.TrimSpace(out) != prof || !strings.Contains(errOut, "up to date") {
		t.Fatalf("profile build again: exit %d, stdout %q, stderr %q; want up to date", code, out, errOut)
	}
	// Another version of the source is not written over what may have
	// been used, unless asked.
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(stateFile, later, later); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code = runBrowserd(t, nil, "profile", "build", "--state", stateFile, "--out", prof); code == 0 || !strings.Contains(errOut, "--force") {
		t.Fatalf("profile build of a newer source: exit %d, stderr %q; want a refusal naming --force", code, errOut)
	}
	if _, errOut, code = runBrowserd(t, nil, "profile", "build", "--state", stateFile, "--out", prof, "--force"); code != 0 {
		t.Fatalf("profile build --force: exit %d, stderr %q", code, errOut)
	}

	// The session runs on the folder, logged in.
	if status, ls := accountOf(t, data, prof); status != "Logged in as folder" || ls != "folder-ls" {
		t.Fatalf("on the converted folder: status %q, localStorage %q", status, ls)
	}
	st := cli(t, data, "status")
	if !strings.Contains(st.Content, "folder "+prof) {
		t.Errorf("status does not show the folder session:\n%s", st.Content)
	}
	// The daemon stops and comes back: the folder's session is resumed
	// on it, still logged in.
	stopDaemon(t, data)
	if status, ls := accountOf(t, data, prof); status != "Logged in as folder" || ls != "folder-ls" {
		t.Fatalf("after a restart: status %q, localStorage %q", status, ls)
	}

	// Refused: outside the root, a link out of it, a link inside the folder.
	outside := t.TempDir()
	if r := folderCLI(t, data, outside, "open", site.URL("/")); r.Success || !strings.Contains(r.Error, "--user-data-root") {
		t.Errorf("a folder outside the root: %+v", r)
	}
	if err := os.Symlink(outside, filepath.Join(root, "link-out")); err != nil {
		t.Fatal(err)
	}
	if r := folderCLI(t, data, filepath.Join(root, "link-out"), "open", site.URL("/")); r.Success || !strings.Contains(r.Error, "symbolic link") {
		t.Errorf("a folder that is a link out of the root: %+v", r)
	}
	leaky := filepath.Join(root, "leaky")
	if err := os.MkdirAll(filepath.Join(leaky, "Default"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "Cookies"), filepath.Join(leaky, "Default", "Cookies")); err != nil {
		t.Fatal(err)
	}
	if r := folderCLI(t, data, leaky, "open", site.URL("/")); r.Success || !strings.Contains(r.Error, "Default/Cookies") {
		t.Errorf("a folder holding a link out of the root: %+v", r)
	}

	// The HTTP API: an injected state is converted into a new folder.
	api := socketAPI(t, data)
	var c created
	api.expect(201, "POST", "/api/sessions", map[string]any{"name": "conv", "userDataDir": "api-profile",
		"browserSession": map[string]any{"type": "inline", "storageState": loginState(t, "apiuser")}}, &c)
	apiDir := filepath.Join(root, "api-profile")
	if real, err := filepath.EvalSymlinks(apiDir); err == nil {
		apiDir = real
	}
	if src, ok, _ := userdata.ReadSource(apiDir); !ok || src.Kind != "inline" {
		t.Errorf("the new folder was not converted: %+v, %v", src, ok)
	}
	if _, err := os.Stat(filepath.Join(apiDir, "Default", "Cookies")); err != nil {
		t.Errorf("the converted folder has no cookie file: %v", err)
	}
	if !strings.Contains(strings.Join(c.Notes, "\n"), "converted the state into folder") {
		t.Errorf("the answer does not say the state was converted: %+v", c)
	}
	if status, acct := apiAccount(api, "conv"); status != "Logged in as apiuser" || acct != "apiuser-ls" {
		t.Fatalf("on the folder converted over the API: status %q, localStorage %q", status, acct)
	}
	// One session on a folder at a time.
	var refused struct {
		Error string `json:"error"`
	}
	api.expect(409, "POST", "/api/sessions", map[string]any{"name": "second", "userDataDir": "api-profile"}, &refused)
	if !strings.Contains(refused.Error, "in use by session") {
		t.Errorf("a second session on a folder in use: %q", refused.Error)
	}
}
