package chromium

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCandidates: where each system's installers put the browsers, in
// order of preference; a path whose variable is unset is left out.
func TestCandidates(t *testing.T) {
	env := map[string]string{
		"ProgramFiles":      `C:\Program Files`,
		"ProgramFiles(x86)": `C:\Program Files (x86)`,
		"LocalAppData":      `C:\Users\ada\AppData\Local`,
	}
	tests := []struct {
		goos string
		env  map[string]string
		home string
		want []string
	}{
		{"linux", nil, "/home/ada", []string{"/usr/lib/chromium/chromium", "/usr/bin/chromium"}},
		{"darwin", nil, "/Users/ada", []string{
			"/Applications/Chromium.app/Contents/MacOS/Chromium",
			"/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
			"/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge",
			"/Users/ada/Applications/Chromium.app/Contents/MacOS/Chromium",
			"/Users/ada/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
			"/Users/ada/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge",
		}},
		{"darwin", nil, "", []string{
			"/Applications/Chromium.app/Contents/MacOS/Chromium",
			"/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
			"/Applications/Microsoft Edge.app/Contents/MacOS/Microsoft Edge",
		}},
		{"windows", env, "", []string{
			`C:\Program Files\Chromium\Application\chrome.exe`,
			`C:\Program Files\Google\Chrome\Application\chrome.exe`,
			`C:\Program Files\Microsoft\Edge\Application\msedge.exe`,
			`C:\Program Files (x86)\Chromium\Application\chrome.exe`,
			`C:\Program Files (x86)\Google\Chrome\Application\chrome.exe`,
			`C:\Program Files (x86)\Microsoft\Edge\Application\msedge.exe`,
			`C:\Users\ada\AppData\Local\Chromium\Application\chrome.exe`,
			`C:\Users\ada\AppData\Local\Google\Chrome\Application\chrome.exe`,
			`C:\Users\ada\AppData\Local\Microsoft\Edge\Application\msedge.exe`,
		}},
		{"windows", map[string]string{"LocalAppData": `D:\L`}, "", []string{
			`D:\L\Chromium\Application\chrome.exe`,
			`D:\L\Google\Chrome\Application\chrome.exe`,
			`D:\L\Microsoft\Edge\Application\msedge.exe`,
		}},
	}
	for _, tt := range tests {
		got := Candidates(tt.goos, func(k string) string { return tt.env[k] }, tt.home)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Candidates(%s, home %q) (-want +got):\n%s", tt.goos, tt.home, diff)
		}
	}
}

// TestFindHeadless: with no path given, a headless browser is the
// headless shell when one is installed, a headed one never is; a path
// given wins.
func TestFindHeadless(t *testing.T) {
	dir := t.TempDir()
	shell := filepath.Join(dir, "chrome-headless-shell")
	if err := os.WriteFile(shell, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	full := filepath.Join(dir, "chromium")
	if err := os.WriteFile(full, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	got, err := FindHeadless("")
	if err != nil || !strings.HasSuffix(got, "headless-shell") {
		t.Errorf("FindHeadless(\"\") = %q, %v; want a headless shell", got, err)
	}
	got, err = Find("")
	if err != nil || strings.Contains(got, "headless-shell") {
		t.Errorf("Find(\"\") = %q, %v; want the full browser", got, err)
	}
	if got, err := FindHeadless(full); err != nil || got != full {
		t.Errorf("FindHeadless(%q) = %q, %v; the path given wins", full, got, err)
	}
}
