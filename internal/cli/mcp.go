package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/browserd/browserd/internal/client"
	"github.com/browserd/browserd/internal/computer"
	"github.com/browserd/browserd/internal/config"
	"github.com/browserd/browserd/internal/daemon"
	"github.com/browserd/browserd/internal/mcpserver"
	"github.com/browserd/browserd/internal/tool"
)

type mcpCmd struct{}

// run serves MCP on stdin/stdout until the client disconnects. Tool calls go
// to the daemon, which is started on the first call that finds none; the
// daemon outlives this process.
func (mcpCmd) run(ctx context.Context, e *env) error {
	f := &forwarder{cfg: e.g.Config, task: e.g.Session, profile: e.g.Profile, warn: e.stderr}
	if e.g.UserDataDir != "" {
		if e.g.Profile != "" {
			return usagef("--user-data-dir (or AGENT_BROWSER_PROFILE) and --profile both name the folder the browser runs on: give one")
		}
		dir, err := filepath.Abs(e.g.UserDataDir)
		if err != nil {
			return usagef("--user-data-dir %q: %v", e.g.UserDataDir, err)
		}
		f.dir = dir
	}
	// The daemon starts as the client connects, not on its first call,
	// and — for the default profile — with its browser (--warm): the
	// agent's first call finds them running or well on their way.
	f.cfg.Warm = f.dir == "" && (f.profile == "" || f.profile == "default")
	f.prestart(ctx)
	defer f.close()
	// The daemon's default policy applies to stdio: its denied actions
	// are left out of the schema, as --deny-actions are.
	o := mcpserver.Options{Deny: mcpserver.Denied(e.g.DefaultPolicy(), e.g.DenyActions)}
	if e.g.Computer {
		d, err := computer.ParseDisplay(e.g.Display)
		if err != nil {
			return usagef("--display: %v", err)
		}
		o.Computer = &d
	}
	return mcpserver.ServeStdio(ctx, f, daemon.Version(), o)
}

// forwarder is a tool.Handler that sends calls to the daemon, filling the
// task and profile given on the command line when a call names none, and
// the user-data-dir (AGENT_BROWSER_PROFILE) when it names neither a
// session nor a profile. The daemon is started on the first call that
// finds none, and again when it dies during a call (client.Resilient).
// It is safe for concurrent use.
//
// The first call answered by a daemon also checks that the daemon runs with
// the settings given to `browserd mcp` (client.SettingsWarning); when it
// does not, the warning goes to warn (the MCP host's log) and, so that the
// agent reads it too, onto that call's result.
type forwarder struct {
	cfg           config.Config
	task, profile string
	dir           string    // --user-data-dir, absolute
	warn          io.Writer // nil: the warning goes on the result only

	once sync.Once
	res  *client.Resilient

	mu      sync.Mutex     // guards checked
	checked *client.Client // the client whose daemon's settings were compared with cfg

	stopStart context.CancelFunc // ends prestart's wait for the daemon
	started   sync.WaitGroup     // prestart's goroutine
}

// prestart starts the daemon in the background unless one answers; a call
// meanwhile waits for it (client.Resilient starts one daemon at a time).
// What goes wrong is the first call's to report, as without it.
func (f *forwarder) prestart(ctx context.Context) {
	ctx, f.stopStart = context.WithCancel(ctx)
	r := f.resilient()
	f.started.Go(func() { _, _ = r.Prestart(ctx) })
}

// fill puts the command line's task, profile and folder into a call that
// names none.
func (f *forwarder) fill(in *tool.Input) {
	if in.Task == "" {
		in.Task = f.task
	}
	if in.Profile == "" {
		in.Profile = f.profile
	}
	if f.dir != "" && in.UserDataDir == "" && in.Profile == "" && in.Session == "" && in.MayCreateSession() {
		in.UserDataDir = f.dir
	}
}

func (f *forwarder) resilient() *client.Resilient {
	f.once.Do(func() { f.res = client.NewResilient(f.cfg) })
	return f.res
}

func (f *forwarder) Do(ctx context.Context, in tool.Input) (tool.Result, error) {
	f.fill(&in)
	res, err := f.resilient().Do(ctx, in)
	if err != nil {
		return res, err
	}
	if res.ScreenshotPath != "" && len(res.Image) == 0 {
		// The daemon of this socket runs here: its screenshot goes to
		// the model as image content, as over /mcp.
		res.Image, _ = os.ReadFile(res.ScreenshotPath)
	}
	if w := f.checkSettings(ctx, f.resilient().Client()); w != "" {
		if res.Success {
			res.Notes = append(res.Notes, "warning: "+w)
		} else {
			res.Error += "\n(warning: " + w + ")"
		}
	}
	return res, nil
}

// checkSettings compares the settings of c's daemon with f's, once per
// client: a new client (a daemon started again) is a new daemon.
func (f *forwarder) checkSettings(ctx context.Context, c *client.Client) string {
	f.mu.Lock()
	if f.checked == c {
		f.mu.Unlock()
		return ""
	}
	f.checked = c
	f.mu.Unlock()
	w := c.SettingsWarning(ctx, f.cfg)
	if w != "" && f.warn != nil {
		fmt.Fprintf(f.warn, "%s: warning: %s\n", programName, w)
	}
	return w
}

// SessionHint makes the session_context prompt work over stdio too.
func (f *forwarder) SessionHint(ctx context.Context, session, stored string) (string, error) {
	if session == "" && stored == "" {
		session = f.profile
	}
	return f.resilient().Client().SessionHint(ctx, session, stored)
}

func (f *forwarder) close() {
	if f.stopStart != nil {
		f.stopStart()
		f.started.Wait()
	}
	f.resilient().Close()
}
