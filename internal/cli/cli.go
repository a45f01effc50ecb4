// Package cli is the browserd command line. `serve` runs the daemon, `stop`
// stops it, `mcp` bridges MCP over stdio to it, and every other command is
// one browser tool action sent to the daemon through internal/client, which
// starts the daemon when none is running. The CLI never drives a browser
// itself.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/browserd/browserd/internal/client"
	"github.com/browserd/browserd/internal/config"
	"github.com/browserd/browserd/internal/daemon"
	"github.com/browserd/browserd/internal/tool"
)

// Exit codes of Run.
const (
	exitOK      = 0
	exitFailed  = 1 // the action failed, or the daemon could not be reached
	exitUsage   = 2 // the command line is wrong
	programName = "browserd"
)

// Globals are the flags every command takes: the daemon's settings (passed
// on to a daemon that a command starts) plus the output and identity flags.
type Globals struct {
	config.Config `embed:"" group:"Daemon settings (passed on to a daemon a command starts)"`

	JSON bool `name:"json" help:"Print the result as JSON (the browser tool's result object)."`
	// Code is codegen: true on any action, before or after the command
	// (browserd --code click e3, browserd wait --text Done --code).
	Code bool `name:"code" help:"Also print the Playwright line that does the same as the action (codegen: true)."`
	// Session is the task to act in: --task, or --session as
	// agent-browser's users type it (the tool's "session" is the profile's
	// session; --profile names that).
	Session string `name:"task" aliases:"session" env:"BROWSERD_TASK,BROWSERD_SESSION,AGENT_BROWSER_SESSION" placeholder:"NAME" help:"Task to act in; each task has its own tabs and shares the profile's logins (default: default). --session is the same flag, as agent-browser names it."`
	Profile string `name:"profile" env:"BROWSERD_PROFILE" placeholder:"NAME" help:"Persistent browser identity whose logins are used (default: default)."`
	Tab     string `name:"tab" placeholder:"ID" help:"Tab of the task to act on, e.g. t2 (default: the task's active tab)."`
	// UserDataDir is source 003's AGENT_BROWSER_PROFILE: the session runs
	// on this Chromium user-data-dir (inside the daemon's --user-data-root).
	UserDataDir string           `name:"user-data-dir" env:"BROWSERD_USER_DATA_DIR,AGENT_BROWSER_PROFILE" placeholder:"DIR" help:"Run the session's browser on this Chrome user-data-dir (e.g. one browserd profile build wrote), inside the daemon's --user-data-root; without --profile."`
	Version     kong.VersionFlag `name:"version" help:"Print the version and exit."`

	// listenSet is whether --listen or BROWSERD_LISTEN was given: serve
	// falls back to config.DefaultListen only when it was not.
	listenSet bool
}

// CLI is the whole command line.
type CLI struct {
	Globals `embed:""`

	Serve  serveCmd  `cmd:"" group:"Daemon" help:"Run the daemon in the foreground (clients start it on demand)."`
	Stop   stopCmd   `cmd:"" group:"Daemon" help:"Stop the daemon of the data directory."`
	Health healthCmd `cmd:"" group:"Daemon" help:"Check that a daemon answers GET /api/health on its HTTP listener (a container's HEALTHCHECK); never starts one."`
	MCP    mcpCmd    `cmd:"" name:"mcp" group:"Daemon" help:"Serve MCP over stdio, forwarding tool calls to the daemon."`

	Open     navigateCmd `cmd:"" group:"Navigation" help:"Open URL in the task's tab (same as navigate)."`
	Navigate navigateCmd `cmd:"" group:"Navigation" help:"Navigate the task's tab to URL."`
	Back     backCmd     `cmd:"" group:"Navigation" help:"Go back in history."`
	Forward  forwardCmd  `cmd:"" group:"Navigation" help:"Go forward in history."`
	Reload   reloadCmd   `cmd:"" group:"Navigation" help:"Reload the page."`

	Snapshot   snapshotCmd   `cmd:"" group:"Reading" help:"Print the page snapshot: the accessibility tree with [ref=eN] on what you can act on."`
	Extract    extractCmd    `cmd:"" group:"Reading" help:"Print the text of the page or of one element."`
	Screenshot screenshotCmd `cmd:"" group:"Reading" help:"Save a PNG of the viewport, the full page or one element; prints its path."`
	PDF        pdfCmd        `cmd:"" name:"pdf" group:"Reading" help:"Save the page as PDF; prints its path."`
	Eval       evalCmd       `cmd:"" group:"Reading" help:"Evaluate a JavaScript expression in the page."`
	Wait       waitCmd       `cmd:"" group:"Reading" help:"Wait for a selector, text, URL or time."`
	Console    consoleCmd    `cmd:"" group:"Reading" help:"Print the page's console messages."`
	Trace      traceCmd      `cmd:"" group:"Reading" help:"Print a task's recording (--task names the task): its steps as JSON, --html one file with the frames, to open offline, or --format playwright a runnable Playwright test."`
	Replay     replayCmd     `cmd:"" group:"Reading" help:"Walk a recording (browserd trace's JSON) again without the model, in a task of its own: stops at the first step that no longer holds and shows what was expected beside what the page shows."`
	Network    networkCmd    `cmd:"" group:"Reading" help:"List the tab's requests since its last navigation (network [FILTER]: URL text, a type such as fetch, or failed); --request r3 shows one with its body; --har NAME writes the log as HAR."`

	Click   clickCmd   `cmd:"" group:"Interaction" help:"Click an element."`
	Hover   hoverCmd   `cmd:"" group:"Interaction" help:"Move the mouse over an element."`
	Drag    dragCmd    `cmd:"" group:"Interaction" help:"Drag an element onto another: drag REF TO (TO: a ref from the last snapshot, the text a drop zone shows, or an offset in pixels: +120,0; a negative one after --: drag e5 -- -40,0)."`
	Fill    fillCmd    `cmd:"" group:"Interaction" help:"Set several fields at once: fill e3=Ada e5=Japan e7=true."`
	Type    typeCmd    `cmd:"" group:"Interaction" help:"Type text into an element: type [REF] TEXT."`
	Select  selectCmd  `cmd:"" group:"Interaction" help:"Choose an option of a select element: select [REF] VALUE."`
	Press   pressCmd   `cmd:"" group:"Interaction" help:"Press a key or chord, e.g. Enter, Control+a."`
	Mouse   mouseCmd   `cmd:"" group:"Interaction" help:"The mouse as separate steps at a point: mouse down 100,200; mouse move 180,240; mouse up 180,240."`
	Scroll  scrollCmd  `cmd:"" group:"Interaction" help:"Scroll the page (down, up, left, right, top, bottom)."`
	Upload  uploadCmd  `cmd:"" group:"Interaction" help:"Set the files of a file input: upload REF FILE..."`
	Dialog  dialogCmd  `cmd:"" group:"Interaction" help:"Answer the open JavaScript dialog."`
	Handoff handoffCmd `cmd:"" group:"Interaction" help:"Ask a person for help on the tab (a code, a CAPTCHA): wait until one takes control in the dashboard and hands it back."`

	State     stateCmd     `cmd:"" group:"Profiles" help:"Save or load cookies and storage (Playwright storageState)."`
	Profile   profileCmd   `cmd:"" name:"profile" group:"Profiles" help:"Build a Chrome profile from a storageState."`
	Secret    secretCmd    `cmd:"" group:"Profiles" help:"Keep, list and delete secrets: values agents type by name (type and fill's secret field) without ever seeing them."`
	Token     tokenCmd     `cmd:"" group:"Daemon" help:"Create, list and revoke the API's bearer tokens."`
	Dashboard dashboardCmd `cmd:"" group:"Daemon" help:"Print a one-time URL to the dashboard: every session's tabs, watched live."`
	CDPURL    cdpURLCmd    `cmd:"" name:"cdp-url" group:"Daemon" help:"Print the URL of the daemon's CDP endpoint for the task (--task, --profile): what Playwright's connectOverCDP, Puppeteer's connect and agent-browser --cdp take. It holds admin's token."`
	Nodes     nodesCmd     `cmd:"" group:"Daemon" help:"List the nodes sharing this daemon's store: live or not, sessions, tabs, Chromium memory, last heartbeat."`

	Sessions sessionsCmd `cmd:"" group:"Recovery" help:"List sessions: active, recoverable after a restart or crash, stale, closed, failed."`
	Resume   resumeCmd   `cmd:"" group:"Recovery" help:"Bring a recoverable session back: its tabs at their URLs, its cookies and storage."`

	Tabs tabsCmd `cmd:"" group:"Tabs" help:"List the task's tabs."`
	Tab  tabCmd  `cmd:"" group:"Tabs" help:"Open, close or switch tabs."`

	Computer computerCmd `cmd:"" group:"Browser" help:"Send one computer-use action (Anthropic's computer tool or OpenAI's) as JSON; prints what happened and the screenshot's path."`
	Call     callCmd     `cmd:"" group:"Browser" help:"Send one browser tool call written as JSON, with any field the tool takes: call '{\"action\":\"click\",\"ref\":\"e3\"}' (- reads it from stdin)."`
	Status   statusCmd   `cmd:"" group:"Browser" help:"Show the browser, sessions and tasks."`
	Launch   launchCmd   `cmd:"" group:"Browser" help:"Start the browser now instead of at the first action."`
	Emulate  emulateCmd  `cmd:"" group:"Browser" help:"Change what the session's pages see: media features, offline, network and CPU throttling, extra headers, permissions, init scripts."`
	Route    routeCmd    `cmd:"" group:"Browser" help:"Answer requests whose URL matches PATTERN (a glob, or /regexp/) yourself: --status/--body/--path, --abort, --delay, or pass them on with --header."`
	Unroute  unrouteCmd  `cmd:"" group:"Browser" help:"Remove the route of PATTERN (none: every route of the scope)."`
	Close    closeCmd    `cmd:"" group:"Browser" help:"Close the task's tabs (logins are kept in the profile)."`
	TaskEnd  taskEndCmd  `cmd:"" name:"task-end" group:"Browser" help:"End the task; its tabs stay open for review until closed or idle."`
}

// action is a command that is one browser tool call.
type action interface {
	input() (tool.Input, error)
}

// command is a command that does something else than one tool call.
type command interface {
	run(ctx context.Context, e *env) error
}

// connectFunc returns a handler that reaches the daemon, and a function to
// call when done with it.
type connectFunc func(ctx context.Context, cfg config.Config) (tool.Handler, func(), error)

// env is what commands run with: where output goes, how to reach the
// daemon, and the parsed global flags.
type env struct {
	stdin          io.Reader // a secret's value (browserd secret set)
	stdout, stderr io.Writer
	connect        connectFunc
	g              *Globals
	legend         bool // print an annotated screenshot's labels after its file
}

// Run runs the command line args (without the program name) and returns the
// process exit code: 0 done, 1 failed, 2 bad command line.
func Run(ctx context.Context, args []string) int {
	e := &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr}
	e.connect = e.connectDaemon
	return run(ctx, args, e)
}

// connectDaemon reaches the daemon of cfg's data directory, starting it if
// none runs, and warns on stderr when the daemon runs with other settings
// than the command line gives: those settings take effect only in a daemon
// that a command starts.
//
// The handler starts the daemon again if it dies during the call
// (client.Resilient).
func (e *env) connectDaemon(ctx context.Context, cfg config.Config) (tool.Handler, func(), error) {
	r, err := client.EnsureResilient(ctx, cfg)
	if err != nil {
		return nil, nil, err
	}
	if w := r.Client().SettingsWarning(ctx, cfg); w != "" {
		fmt.Fprintf(e.stderr, "%s: warning: %s\n", programName, w)
	}
	return r, r.Close, nil
}

func run(ctx context.Context, args []string, e *env) int {
	var cli CLI
	target, code, err := parse(&cli, args, e.stdout, e.stderr)
	if target == nil {
		if err != nil {
			fmt.Fprintf(e.stderr, "%s: %v\n", programName, err)
		}
		return code
	}
	if err := cli.Config.Resolve(); err != nil {
		fmt.Fprintf(e.stderr, "%s: %v\n", programName, err)
		return exitUsage
	}
	e.g = &cli.Globals

	switch c := target.(type) {
	case command:
		err = c.run(ctx, e)
	case action:
		err = e.act(ctx, c)
	default:
		err = fmt.Errorf("internal error: command %T does nothing", target)
	}
	var ue usageError
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errReported):
		return exitFailed
	case errors.As(err, &ue):
		fmt.Fprintf(e.stderr, "%s: %v\n", programName, err)
		return exitUsage
	default:
		if e.g.JSON {
			writeJSON(e.stdout, tool.Result{Action: actionName(target), Error: err.Error()})
		} else {
			fmt.Fprintf(e.stderr, "%s: %v\n", programName, err)
		}
		return exitFailed
	}
}

// exitRequest is how kong's Exit (after --help or --version) reaches parse.
type exitRequest struct{ code int }

// parse parses args into cli and returns the selected command, or nil and
// the exit code when there is nothing to run (help, version, a bad command
// line).
func parse(cli *CLI, args []string, stdout, stderr io.Writer) (target any, code int, err error) {
	parser, err := kong.New(cli,
		kong.Name(programName),
		kong.Description("A browser server for AI agents. Commands other than serve, stop, health and mcp are browser actions sent to the daemon, which starts on demand."),
		kong.Writers(stdout, stderr),
		kong.Vars{"version": daemon.Version()},
		kong.ConfigureHelp(kong.HelpOptions{Compact: true}),
		kong.Exit(func(code int) { panic(exitRequest{code}) }),
	)
	if err != nil {
		return nil, exitFailed, fmt.Errorf("internal error: build the command line: %w", err)
	}
	defer func() {
		if r := recover(); r != nil {
			req, ok := r.(exitRequest)
			if !ok {
				panic(r)
			}
			target, code, err = nil, req.code, nil
			if len(args) == 0 {
				code = exitUsage
			}
		}
	}()
	if len(args) == 0 {
		// A bare `browserd` shows the usage, then exits as a usage error.
		_, _ = parser.Parse([]string{"--help"})
	}
	kctx, err := parser.Parse(args)
	if err != nil {
		return nil, exitUsage, explainParseError(err, args)
	}
	node := kctx.Selected()
	if node == nil {
		return nil, exitUsage, errors.New("no command given: run `browserd --help` for the list")
	}
	for _, f := range kctx.Flags() {
		if f.Name == "listen" {
			// --listen has no kong default, so Set means given (the flag or
			// BROWSERD_LISTEN), even when given empty.
			cli.listenSet = f.Set
		}
	}
	return node.Target.Addr().Interface(), exitOK, nil
}

// explainParseError turns kong's complaint about an unknown first word into
// one that says it is not a command.
func explainParseError(err error, args []string) error {
	var pe *kong.ParseError
	if errors.As(err, &pe) && pe.Context != nil && pe.Context.Selected() == nil {
		if first := firstWord(args); first != "" && strings.HasPrefix(err.Error(), "unexpected argument "+first) {
			msg := fmt.Sprintf("unknown command %q", first)
			// kong appends `, did you mean "x"?` when a command is close.
			if hint := strings.TrimPrefix(err.Error(), "unexpected argument "+first+", "); hint != err.Error() {
				msg += " (" + hint + ")"
			}
			return fmt.Errorf("%s; run `browserd --help` for the list", msg)
		}
	}
	return fmt.Errorf("%w; run `browserd --help` for usage", err)
}

// firstWord is the first argument that is not a flag or a flag's value. It
// only needs to be right when kong could not find a command.
func firstWord(args []string) string {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			return a
		}
	}
	return ""
}

// usageError is a command line that parsed but cannot be run as given.
type usageError struct{ err error }

func (u usageError) Error() string { return u.err.Error() }
func (u usageError) Unwrap() error { return u.err }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// errReported is returned once a failure has been printed.
var errReported = errors.New("failure already reported")

// folder puts --user-data-dir (AGENT_BROWSER_PROFILE) into a call that
// can create a session, as an absolute path: the daemon does not share
// this command's working directory.
func (e *env) folder(in *tool.Input) error {
	if e.g.UserDataDir == "" || in.UserDataDir != "" || !in.MayCreateSession() {
		return nil
	}
	if in.Profile != "" {
		return usagef("--user-data-dir (or AGENT_BROWSER_PROFILE) and --profile both name the folder the browser runs on: give one")
	}
	dir, err := filepath.Abs(e.g.UserDataDir)
	if err != nil {
		return usagef("--user-data-dir %q: %v", e.g.UserDataDir, err)
	}
	in.UserDataDir = dir
	return nil
}

// act sends one action to the daemon and prints its result.
func (e *env) act(ctx context.Context, a action) error {
	in, err := a.input()
	if err != nil {
		return err
	}
	res, err := e.call(ctx, in)
	if err != nil {
		return err
	}
	e.legend = in.Annotate
	return e.print(res)
}

// fill puts the command line's global flags into a call that does not set
// them itself: the task (--session), --profile, --tab and the folder
// (--user-data-dir, AGENT_BROWSER_PROFILE); then checks the call.
func (e *env) fill(in *tool.Input) error {
	if in.Task == "" {
		in.Task = e.g.Session
	}
	if in.Profile == "" {
		in.Profile = e.g.Profile
	}
	if in.Tab == "" {
		in.Tab = e.g.Tab
	}
	if e.g.Code {
		in.Codegen = true
	}
	if err := e.folder(in); err != nil {
		return err
	}
	if err := in.Validate(); err != nil {
		return usageError{err}
	}
	return nil
}

// call sends one input to the daemon, filled in with the global flags
// (see fill), and returns its result.
func (e *env) call(ctx context.Context, in tool.Input) (tool.Result, error) {
	if err := e.fill(&in); err != nil {
		return tool.Result{}, err
	}
	h, done, err := e.connect(ctx, e.g.Config)
	if err != nil {
		return tool.Result{}, err
	}
	defer done()
	res, err := h.Do(ctx, in)
	if res.Action == "" {
		res.Action = in.Action
	}
	return res, err
}

// actionName is the tool action a command stands for, for error results.
func actionName(target any) string {
	if a, ok := target.(action); ok {
		if in, err := a.input(); err == nil {
			return in.Action
		}
	}
	return ""
}

// Input returns the browser tool call the command line args (without the
// program name) would send to the daemon — the global flags filled in and
// the call checked — without sending it. A command that is not one tool
// call (serve, trace, state save, …) is an error, as is a bad command line.
func Input(args []string) (tool.Input, error) {
	var cli CLI
	var out, errOut strings.Builder
	target, _, err := parse(&cli, args, &out, &errOut)
	if target == nil {
		if err == nil {
			err = fmt.Errorf("%s: nothing to send: %s%s", strings.Join(args, " "), out.String(), errOut.String())
		}
		return tool.Input{}, err
	}
	a, ok := target.(action)
	if !ok {
		return tool.Input{}, fmt.Errorf("%s: not one browser tool call", strings.Join(args, " "))
	}
	if err := cli.Config.Resolve(); err != nil {
		return tool.Input{}, err
	}
	in, err := a.input()
	if err != nil {
		return tool.Input{}, err
	}
	e := &env{g: &cli.Globals}
	if err := e.fill(&in); err != nil {
		return tool.Input{}, err
	}
	return in, nil
}
