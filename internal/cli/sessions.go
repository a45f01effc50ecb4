package cli

import "github.com/browserd/browserd/internal/tool"

// sessionsCmd is list_sessions: the store's sessions, live or not, or one
// session's kept captures.
type sessionsCmd struct {
	State    string `name:"state" default:"all" enum:"active,recoverable,stale,closed,failed,all" help:"Only sessions in this state: active, recoverable, stale, closed, failed or all."`
	Captures string `name:"captures" placeholder:"ID" help:"List the kept captures of session ID instead, newest first (for resume --capture)."`
}

func (c *sessionsCmd) input() (tool.Input, error) {
	if c.Captures != "" {
		return tool.Input{Action: "list_sessions", Session: c.Captures}, nil
	}
	return tool.Input{Action: "list_sessions", Filter: c.State}, nil
}

// resumeCmd is session_resume: bring a recoverable session back.
type resumeCmd struct {
	ID      string `arg:"" name:"id" help:"Id of a recoverable session (browserd sessions --state recoverable lists them)."`
	Capture string `name:"capture" placeholder:"ID|TIME" help:"Resume from this kept capture instead of the newest: its id (browserd sessions --captures ID lists them), or a time (2026-03-01 12:00:00, RFC 3339, or an age such as 10m) for the newest capture at or before it. Also brings back a closed, stale or failed session."`
}

func (c *resumeCmd) input() (tool.Input, error) {
	return tool.Input{Action: "session_resume", Session: c.ID, Capture: tool.CaptureRef(c.Capture)}, nil
}
