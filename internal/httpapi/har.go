package httpapi

import (
	"cmp"
	"fmt"
	"mime"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/browserd/browserd/internal/tool"
)

// sessionHAR is GET /api/sessions/{id}/har[?task=T][&tab=tN][&redact=false]:
// the network log of the task's tab (its active one, or tab) as HAR 1.2,
// the `network` action with a path — so the file stays in the owner's
// har folder too.
func (a *api) sessionHAR(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	id := r.PathValue("id")
	in := tool.Input{Action: "network", Session: id, Task: q.Get("task"), Tab: q.Get("tab"),
		Path: "api-" + time.Now().UTC().Format("20060102-150405.000") + ".har"}
	switch q.Get("redact") {
	case "", "true":
	case "false":
		in.Redact = new(false)
	default:
		writeError(w, http.StatusBadRequest, fmt.Sprintf("redact=%q: give true (the default) or false", q.Get("redact")))
		return
	}
	if err := in.Validate(); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if !a.allowedCall(w, r, in, "writing a HAR file") {
		return
	}
	if a.s != nil {
		_, tabs, err := a.s.SessionInfo(r.Context(), id)
		if err != nil {
			fail(w, r, err, "")
			return
		}
		// The network action would start a task that is not there, and
		// answer with its empty log.
		if msg := noTask(id, cmp.Or(in.Task, "default"), tabs); msg != "" {
			writeError(w, http.StatusNotFound, msg)
			return
		}
	}
	res, err := a.h.Do(r.Context(), in)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "reading the network log: "+err.Error())
		return
	}
	if !res.Success {
		writeError(w, http.StatusConflict, res.Error)
		return
	}
	f, err := os.Open(res.Path)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "reading the HAR file just written: "+err.Error())
		return
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "private, no-store")
	h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": filepath.Base(res.Path)}))
	http.ServeContent(w, r, filepath.Base(res.Path), fi.ModTime(), f)
}

// noTask says why session id has no network log for task, given the
// session's open tabs; "" when one of them is the task's.
func noTask(id, task string, tabs []tool.Tab) string {
	var tasks []string
	for _, t := range tabs {
		if t.Task == task {
			return ""
		}
		if !slices.Contains(tasks, t.Task) {
			tasks = append(tasks, t.Task)
		}
	}
	if len(tasks) == 0 {
		return fmt.Sprintf("session %q has no open tab, so no network log: a task's log is kept while its tab is open (POST /api/sessions/%s/resume brings the session back, with an empty log)", id, id)
	}
	return fmt.Sprintf("session %q has no task %q: its tasks are %s (give one as ?task=; GET /api/sessions/%s lists its tabs)", id, task, strings.Join(tasks, ", "), id)
}
