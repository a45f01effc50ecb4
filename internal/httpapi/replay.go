package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/browserd/browserd/internal/auth"
	"github.com/browserd/browserd/internal/codegen"
	"github.com/browserd/browserd/internal/recording"
	"github.com/browserd/browserd/internal/replay"
	"github.com/browserd/browserd/internal/sessions"
	"github.com/browserd/browserd/internal/store"
	"github.com/browserd/browserd/internal/tool"
)

// TraceFrames is what the frame endpoint needs: the JPEG of the page
// after a task's step.
type TraceFrames interface {
	TraceFrame(ctx context.Context, session, task string, seq int) ([]byte, error)
}

// MaxReplayBytes bounds the body of POST /api/replay (a recording).
const MaxReplayBytes = 16 << 20

// playwrightTrace answers a task's recording as a @playwright/test file.
func playwrightTrace(w http.ResponseWriter, js []byte, id, task string) {
	var x recording.Export
	if err := json.Unmarshal(js, &x); err != nil {
		writeError(w, http.StatusInternalServerError, "reading the recording: "+err.Error())
		return
	}
	x.Session = id // as the caller names it
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("Content-Disposition", `attachment; filename="`+url.PathEscape(id+"-"+task)+`.spec.ts"`)
	w.Write(codegen.Test(x))
}

// traceFrame is GET /api/sessions/{id}/trace/frames/{seq}[?task=T]: the
// frame of the page after a step of the task's recording.
func (a *api) traceFrame(w http.ResponseWriter, r *http.Request) {
	t, ok := a.h.(TraceFrames)
	if !ok {
		writeError(w, http.StatusNotImplemented, "this daemon keeps no recordings")
		return
	}
	seq, err := strconv.Atoi(r.PathValue("seq"))
	if err != nil || seq <= 0 {
		writeError(w, http.StatusBadRequest, fmt.Sprintf("step %q: give the step's number (seq in the trace)", r.PathValue("seq")))
		return
	}
	task := r.URL.Query().Get("task")
	if task == "" {
		task = "default"
	}
	b, err := t.TraceFrame(r.Context(), r.PathValue("id"), task, seq)
	switch {
	case errors.Is(err, recording.ErrNoFrame), errors.Is(err, store.ErrNotFound):
		writeError(w, http.StatusNotFound, err.Error())
		return
	case err != nil:
		fail(w, r, err, "")
		return
	}
	h := w.Header()
	h.Set("Content-Type", "image/jpeg")
	h.Set("Cache-Control", "private, no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	w.Write(b)
}

// replayTask is POST /api/replay?task=NAME[&session=ID]: the recording in
// the body (the trace endpoint's JSON, or {"recording": …, "params": …})
// walked again in task NAME without the model; 200 with a replay.Report
// whether it passed or stopped at a step.
func (a *api) replayTask(w http.ResponseWriter, r *http.Request) {
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxReplayBytes))
	if err != nil {
		writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the recording is over %d MB, or could not be read: %v", MaxReplayBytes>>20, err))
		return
	}
	req, err := replay.Parse(b)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	q := r.URL.Query()
	x := req.Recording
	// A recording names its session as the daemon keeps it (owner~id for
	// an owner other than admin); the caller's URL names it by its id.
	x.Session = strings.TrimPrefix(x.Session, auth.Owner(r.Context())+sessions.OwnerSep)
	opt := replay.Options{Session: q.Get("session"), Task: q.Get("task"), Params: req.Params,
		FrameURL: func(seq int) string {
			return "/api/sessions/" + url.PathEscape(x.Session) + "/trace/frames/" + strconv.Itoa(seq) + "?task=" + url.QueryEscape(x.Task)
		},
		Link: func(in tool.Input, res *tool.Result) { a.link(r, in, res) },
	}
	if opt.Task == "" {
		writeError(w, http.StatusBadRequest, "name the task the replay runs in: POST /api/replay?task=NAME (a fresh one)")
		return
	}
	rep, err := replay.Run(r.Context(), a.h, x, opt)
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	a.log.Info("replay", "task", opt.Task, "steps", len(rep.Steps), "passed", rep.Passed)
	writeJSON(w, http.StatusOK, rep)
}
