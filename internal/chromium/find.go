package chromium

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
)

// Find returns the browser to run: path when given (a file, or a name
// looked up on PATH), else the first of Candidates(runtime.GOOS, …) that
// exists, else the first of Names(runtime.GOOS) found on PATH.
func Find(path string) (string, error) {
	return find(path, false)
}

// FindHeadless is Find for a browser without a window: with no path
// given, Chromium's headless shell (HeadlessShells) when it is
// installed, else what Find returns. The headless shell is Chromium's
// own headless build (what Playwright runs headless): the same engine
// without the windowing code, it starts in about half the time and
// answers a new tab sooner (docs/benchmarks.md).
func FindHeadless(path string) (string, error) {
	return find(path, true)
}

func find(path string, headless bool) (string, error) {
	if path != "" {
		p, err := exec.LookPath(path)
		if err != nil {
			return "", fmt.Errorf("--chromium %q is not an executable: %w", path, err)
		}
		return p, nil
	}
	if headless {
		for _, c := range HeadlessShells(runtime.GOOS) {
			if p, err := exec.LookPath(c); err == nil {
				return p, nil
			}
		}
	}
	home, _ := os.UserHomeDir()
	for _, c := range Candidates(runtime.GOOS, os.Getenv, home) {
		if st, err := os.Stat(c); err == nil && !st.IsDir() {
			return c, nil
		}
	}
	for _, name := range Names(runtime.GOOS) {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errors.New(installHint(runtime.GOOS))
}

// HeadlessShells are where goos's packages put Chromium's headless shell
// (Debian's chromium-headless-shell; the chrome-headless-shell of
// Chrome for Testing on PATH), paths or names looked up on PATH.
func HeadlessShells(goos string) []string {
	switch goos {
	case "linux":
		return []string{"/usr/bin/chromium-headless-shell", "chromium-headless-shell", "chrome-headless-shell"}
	default:
		return []string{"chrome-headless-shell"}
	}
}

// Candidates are the paths, in order of preference, where goos's usual
// installers put Chromium, Google Chrome or Microsoft Edge; getenv reads
// the environment and home is the user's home folder ("" when unknown).
// A path whose variable is unset is left out.
func Candidates(goos string, getenv func(string) string, home string) []string {
	switch goos {
	case "darwin":
		roots := []string{"/Applications"}
		if home != "" {
			roots = append(roots, home+"/Applications")
		}
		var out []string
		for _, root := range roots {
			out = append(out,
				root+"/Chromium.app/Contents/MacOS/Chromium",
				root+"/Google Chrome.app/Contents/MacOS/Google Chrome",
				root+"/Microsoft Edge.app/Contents/MacOS/Microsoft Edge")
		}
		return out
	case "windows":
		var out []string
		for _, v := range []string{"ProgramFiles", "ProgramFiles(x86)", "LocalAppData"} {
			root := getenv(v)
			if root == "" {
				continue
			}
			out = append(out,
				root+`\Chromium\Application\chrome.exe`,
				root+`\Google\Chrome\Application\chrome.exe`,
				root+`\Microsoft\Edge\Application\msedge.exe`)
		}
		return out
	default:
		// Debian's binary before its wrapper script, /usr/bin/chromium:
		// the script forks grep, find, findmnt and ls before it starts
		// the browser (30-40 ms of every start here), and puts Debian's
		// Google API keys in its environment over browserd's "no"
		// (startChromium). The flags it adds browserd passes itself
		// (--disable-dev-shm-usage, --no-default-browser-check) or does
		// not want (its extensions, remote extensions).
		return []string{"/usr/lib/chromium/chromium", "/usr/bin/chromium"}
	}
}

// Names are the browser's command names looked up on PATH when no
// Candidate exists.
func Names(goos string) []string {
	switch goos {
	case "windows":
		return []string{"chrome.exe", "msedge.exe"}
	case "darwin":
		return []string{"chromium", "google-chrome"}
	default:
		return []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "microsoft-edge"}
	}
}

// installHint says what to do when no browser is found.
func installHint(goos string) string {
	switch goos {
	case "darwin":
		return "no Chromium, Google Chrome or Microsoft Edge found in /Applications or ~/Applications: install one, or pass --chromium PATH"
	case "windows":
		return `no Chromium, Google Chrome or Microsoft Edge found under %ProgramFiles%, %ProgramFiles(x86)% or %LocalAppData%: install one, or pass --chromium PATH`
	default:
		return "no Chromium found: install it (apt-get install chromium) or pass --chromium PATH"
	}
}
