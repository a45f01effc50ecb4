package cli

import "github.com/browserd/browserd/internal/tool"

// sessionsCmd is list_sessions: the store's sessions, live or not.
type sessionsCmd struct {
	State string `name:"state" default:"all" enum:"active,recoverable,stale,closed,failed,all" help:"Only sessions in this state: active, recoverable, stale, closed, failed or all."`
}

func (c *sessionsCmd) input() (tool.Input, error) {
	return tool.Input{Action: "list_sessions", Filter: c.State}, nil
}

// resumeCmd is session_resume: bring a recoverable session back.
type resumeCmd struct {
	ID string `arg:"" name:"id" help:"Id of a recoverable session (browserd sessions --state recoverable lists them)."`
}

func (c *resumeCmd) input() (tool.Input, error) {
	return tool.Input{Action: "session_resume", Session: c.ID}, nil
}
