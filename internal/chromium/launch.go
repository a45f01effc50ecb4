package chromium

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/browserd/browserd/internal/cdp"
)

// LaunchOptions says how to start Chromium.
type Options struct {
	// Exec is the binary; empty means Find(""), or FindHeadless("") for
	// HeadlessShell.
	Exec string
	// HeadlessShell, when not Headed, runs Chromium's headless shell when
	// it is installed (FindHeadless).
	HeadlessShell bool
	// UserDataDir is the profile folder. Required.
	UserDataDir string
	// Headed shows a window.
	Headed bool
	// Width and Height size the window (and so the viewport of new tabs).
	Width, Height int
	// ExtraArgs are appended to the command line.
	ExtraArgs []string
	// PIDFile, when set, records the browser's process group so that a later
	// daemon can kill what a SIGKILLed one left behind (see KillLeftovers).
	PIDFile string
	// Forget: UserDataDir is browserd's own (a profile's, a throwaway
	// one), and the browser leaves no record in it of where its pages went
	// or what was typed into them once it stops — no history, no
	// session-restore files, no autofill entries, no HTTP cache (see
	// forget.go). Not for a caller's folder, which keeps what Chrome keeps.
	Forget bool
}

// DiskCacheBytes bounds the HTTP cache Chromium keeps in a user-data-dir,
// the part of a profile that grows with browsing (source 000: profile
// disk growth); cookies and site storage are not part of it.
const DiskCacheBytes = 64 << 20

// Args returns the Chromium command line for the options (without the binary).
func (o Options) Args() []string {
	args := []string{
		"--remote-debugging-pipe",
		"--user-data-dir=" + o.UserDataDir,
		fmt.Sprintf("--disk-cache-size=%d", DiskCacheBytes),
		"--no-first-run",
		"--no-default-browser-check",
		"--disable-background-networking",
		"--disable-component-update",
		"--disable-sync",
		"--disable-default-apps",
		"--disable-extensions",
		"--disable-breakpad",
		"--disable-client-side-phishing-detection",
		"--disable-domain-reliability",
		"--disable-hang-monitor",
		"--disable-popup-blocking",
		"--disable-prompt-on-repost",
		"--disable-dev-shm-usage",
		// Chromium calls home on its own (network time, autofill, hints);
		// none of it is the agent's, and on a network that lets it through
		// it carries the profile's Google cookies. The account listing
		// (IdentityManager, every on-disk profile) and the component
		// updater ignore every switch but their server's address: both
		// point at an address nothing answers, and no request leaves
		// (TestNoCallsHome).
		// The omnibox's popup drawn as a web page (Chromium 150 and on)
		// runs a renderer of its own that does 50 ms of work for every tab
		// opened, though no omnibox is ever shown headless: the native popup
		// instead (measured: docs/benchmarks.md, "Issue 50, third steps").
		"--disable-features=Translate,MediaRouter,OptimizationHints,AcceptCHFrame,DialMediaRouteProvider,NetworkTimeServiceQuerying,AutofillServerCommunication,OptimizationGuideModelDownloading,OptimizationHintsFetching,CertificateTransparencyComponentUpdater," +
			"WebUIOmniboxPopup,WebUIOmniboxAimPopup,WebUIOmniboxFullPopup",
		"--disable-component-extensions-with-background-pages",
		"--disable-search-engine-choice-screen",
		"--disable-field-trial-config",
		"--gaia-url=http://0.0.0.0:9",
		"--component-updater=url-source=http://0.0.0.0:9",
		"--metrics-recording-only",
		"--password-store=basic",
		"--use-mock-keychain",
		"--mute-audio",
		"--hide-scrollbars",
		// Tabs of concurrent tasks share windows: none may be slowed for
		// being in the background.
		"--disable-background-timer-throttling",
		"--disable-backgrounding-occluded-windows",
		"--disable-renderer-backgrounding",
		"--disable-ipc-flooding-protection",
		// WebRTC's UDP never passes through an HTTP proxy: forbid it, so
		// no page reaches an internal address around the egress guard.
		"--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
		"--webrtc-ip-handling-policy=disable_non_proxied_udp",
		fmt.Sprintf("--window-size=%d,%d", max(o.Width, 1), max(o.Height, 1)),
	}
	if !o.Headed {
		args = append(args, "--headless", "--disable-gpu",
			// A headless browser has no pointing device, so pages saw a
			// touch screen: (hover: none), no fine pointer, hover menus
			// and desktop layouts lost. A mouse, as Playwright gives its
			// headless browsers (a device with touch changes this for its
			// tabs: Emulation.setTouchEmulationEnabled).
			"--blink-settings=primaryHoverType=2,availableHoverTypes=2,primaryPointerType=4,availablePointerTypes=4")
	}
	if os.Geteuid() == 0 {
		args = append(args, "--no-sandbox")
	}
	// The first tab opens about:blank, not the heavy New Tab page: lighter,
	// and ready for the first task to take.
	return append(append(args, o.ExtraArgs...), "about:blank")
}

// Process is a Chromium browser process that browserd started. Its owner must
// call Kill (directly or through Browser.Close); Chromium also dies with the
// daemon, however the daemon ends (see proc_linux.go, proc_darwin.go and
// proc_windows.go for how, on each system).
type Process struct {
	cmd     *exec.Cmd
	pid     int
	done    chan struct{}
	waitErr error
	stderr  *tailBuffer
	pidFile string
	killed  sync.Once
	// forget is the user-data-dir whose records Kill discards once the
	// browser is gone (LaunchOptions.Forget); "" for none.
	forget string
	// tree is what holds the browser and its helpers together, for
	// killTree: a process group, a job object (per system).
	tree tree
}

// Launch starts Chromium and connects to it over its debugging pipe.
func Launch(ctx context.Context, o Options) (*Process, *cdp.Conn, error) {
	find := Find
	if o.HeadlessShell && !o.Headed {
		find = FindHeadless
	}
	exe, err := find(o.Exec)
	if err != nil {
		return nil, nil, err
	}
	if err := prepareProfile(o); err != nil {
		return nil, nil, err
	}
	pp, err := openLaunchPipes()
	if err != nil {
		return nil, nil, err
	}
	p, err := startChromium(exe, o, pp)
	if err != nil {
		pp.closeDebug()
		return nil, nil, fmt.Errorf("starting %s: %w", exe, err)
	}
	// Chromium holds its ends of the debugging pipe now.
	pp.cmdR.Close()
	pp.respW.Close()
	if o.PIDFile != "" {
		_ = os.MkdirAll(filepath.Dir(o.PIDFile), 0o700)
		_ = os.WriteFile(o.PIDFile, []byte(strconv.Itoa(p.pid)+"\n"+o.UserDataDir+"\n"), 0o600)
	}
	conn := cdp.NewConn(cdp.NewPipe(pp.respR, pp.cmdW))
	if err := awaitBrowser(ctx, conn, p, exe); err != nil {
		return nil, nil, err
	}
	return p, conn, nil
}

// prepareProfile makes the profile folder o.UserDataDir ready for the
// browser: it creates the folder, quiets what would get in the way of
// tasks (quietPrefs) and, with o.Forget, readies it to keep no record
// (prepareForget).
func prepareProfile(o Options) error {
	if o.UserDataDir == "" {
		return errors.New("launch: no user-data-dir")
	}
	if err := os.MkdirAll(o.UserDataDir, 0o700); err != nil {
		return fmt.Errorf("creating profile folder: %w", err)
	}
	quietPrefs(o.UserDataDir)
	if o.Forget {
		if err := prepareForget(o.UserDataDir); err != nil {
			return fmt.Errorf("launch: %w", err)
		}
	}
	return nil
}

// launchPipes are the pipes between browserd and the Chromium it starts:
// the debugging pipe's two directions, and one that takes Chromium's
// output.
type launchPipes struct {
	cmdR, cmdW   *os.File // commands: Chromium reads cmdR, as its fd 3
	respR, respW *os.File // replies: Chromium writes respW, as its fd 4
	outR, outW   *os.File // Chromium's stdout and stderr
}

// openLaunchPipes opens the pipes Launch gives Chromium; when one cannot
// be opened, it closes those it opened.
func openLaunchPipes() (launchPipes, error) {
	// Pipes: Chromium reads commands on fd 3 and writes replies on fd 4.
	cmdR, cmdW, err := os.Pipe()
	if err != nil {
		return launchPipes{}, err
	}
	respR, respW, err := os.Pipe()
	if err != nil {
		cmdR.Close()
		cmdW.Close()
		return launchPipes{}, err
	}
	pp := launchPipes{cmdR: cmdR, cmdW: cmdW, respR: respR, respW: respW}
	outR, outW, err := os.Pipe()
	if err != nil {
		pp.closeDebug()
		return launchPipes{}, err
	}
	pp.outR, pp.outW = outR, outW
	return pp, nil
}

// closeDebug closes both ends of the debugging pipe's two directions.
func (pp launchPipes) closeDebug() {
	for _, f := range []*os.File{pp.cmdR, pp.cmdW, pp.respR, pp.respW} {
		f.Close()
	}
}

// startChromium starts exe with o's arguments and the debugging pipe as
// its fd 3 and 4 (see launchPipes), its output kept in the Process's tail
// buffer. It closes browserd's write end of the output pipe, and the read
// end too when Chromium did not start; the debugging pipe is the
// caller's to close.
func startChromium(exe string, o Options, pp launchPipes) (*Process, error) {
	cmd := exec.Command(exe, o.Args()...)
	cmd.SysProcAttr = sysProcAttr()
	if err := passPipes(cmd, pp); err != nil {
		pp.outR.Close()
		pp.outW.Close()
		return nil, err
	}
	stderr := &tailBuffer{max: 32 << 10}
	// An *os.File, so that Wait does not wait for helpers that inherited it.
	cmd.Stdout = pp.outW
	cmd.Stderr = pp.outW
	cmd.Env = append(os.Environ(), "GOOGLE_API_KEY=no", "GOOGLE_DEFAULT_CLIENT_ID=no", "GOOGLE_DEFAULT_CLIENT_SECRET=no")

	p := &Process{cmd: cmd, done: make(chan struct{}), stderr: stderr, pidFile: o.PIDFile}
	if o.Forget {
		p.forget = o.UserDataDir
	}
	started := make(chan error, 1)
	go p.run(started)
	err := <-started
	pp.outW.Close()
	if err != nil {
		pp.outR.Close()
		return nil, err
	}
	// Ends when the last process of the group has closed its output.
	go func() { _, _ = io.Copy(stderr, pp.outR); pp.outR.Close() }()
	return p, nil
}

// run starts the browser process, says on started whether it could, and
// waits for it to exit; then it kills what is left of its helpers (its
// process group, its job object) and closes done.
//
// On Linux the goroutine that starts Chromium keeps its OS thread for as
// long as Chromium runs (lockThread): the parent-death signal is tied to
// the thread, not the process, and Go would otherwise be free to retire
// the thread and kill the browser.
func (p *Process) run(started chan<- error) {
	lockThread()
	if err := p.cmd.Start(); err != nil {
		started <- err
		close(p.done)
		return
	}
	p.pid = p.cmd.Process.Pid
	t, err := holdTree(p.cmd.Process)
	if err != nil {
		_ = p.cmd.Process.Kill()
		_ = p.cmd.Wait()
		started <- fmt.Errorf("keeping the browser's processes together: %w", err)
		close(p.done)
		return
	}
	p.tree = t
	started <- nil
	p.waitErr = p.cmd.Wait()
	// Renderers and helpers share the process group; take them too.
	p.tree.kill()
	close(p.done)
}

// awaitBrowser waits, up to 30 seconds, for the browser's first answer
// on conn. When none comes, it closes conn, kills p and says why, with
// the end of Chromium's output.
func awaitBrowser(ctx context.Context, conn *cdp.Conn, p *Process, exe string) error {
	// The first answer proves the browser is up.
	vctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var ver struct {
		Product string `json:"product"`
	}
	if err := conn.Browser().Call(vctx, "Browser.getVersion", nil, &ver); err != nil {
		conn.Close()
		p.Kill()
		return fmt.Errorf("chromium did not start (%s): %w; its output ends: %s", exe, err, p.stderr.Tail(800))
	}
	return nil
}

// PID is the browser process id.
func (p *Process) PID() int { return p.pid }

// Done is closed when the browser process has exited.
func (p *Process) Done() <-chan struct{} { return p.done }

// ExitMessage describes how the process ended, with the end of its output.
func (p *Process) ExitMessage() string {
	select {
	case <-p.done:
	default:
		return "running"
	}
	return fmt.Sprintf("%v; output ends: %s", p.waitErr, p.stderr.Tail(400))
}

// Kill kills the browser's whole process group and waits for the browser
// process to be reaped. Safe to call more than once.
func (p *Process) Kill() {
	p.killed.Do(func() {
		if p.tree != nil {
			p.tree.kill()
		}
		<-p.done
		if p.pidFile != "" {
			_ = os.Remove(p.pidFile)
		}
		if p.forget != "" {
			// Its helpers were killed with it; a file one still holds
			// open goes once it lets go.
			_ = discardRecords(p.forget)
		}
	})
}

// Wait waits up to d for the process to exit by itself.
func (p *Process) Wait(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.done:
		return true
	case <-t.C:
		return false
	}
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
	}
	return len(p), nil
}

// Tail returns the last n bytes, one line.
func (t *tailBuffer) Tail(n int) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := t.buf
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return strings.Join(strings.Fields(string(b)), " ")
}

// quietPrefs turns off, in the profile's Preferences, what no flag turns
// off: the password manager and its leak check. After a login form is
// sent, the leak check calls passwordsleakcheck-pa.googleapis.com and, for
// a password on its lists, opens a dialog that — invisible when headless —
// swallows every click and key sent to the tab from then on. A Preferences
// file Chromium could not read is left for Chromium to replace.
func quietPrefs(dir string) {
	p := filepath.Join(dir, "Default", "Preferences")
	prefs := map[string]any{}
	if b, err := os.ReadFile(p); err == nil {
		if json.Unmarshal(b, &prefs) != nil {
			return
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return
	}
	profile, _ := prefs["profile"].(map[string]any)
	if profile == nil {
		profile = map[string]any{}
	}
	if profile["password_manager_leak_detection"] == false && profile["password_manager_enabled"] == false && prefs["credentials_enable_service"] == false {
		return
	}
	profile["password_manager_leak_detection"] = false
	profile["password_manager_enabled"] = false
	prefs["profile"] = profile
	prefs["credentials_enable_service"] = false
	b, err := json.Marshal(prefs)
	if err != nil {
		return
	}
	_ = os.MkdirAll(filepath.Dir(p), 0o700)
	_ = os.WriteFile(p, b, 0o600)
}
