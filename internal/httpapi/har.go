package httpapi

import (
	"fmt"
	"mime"
	"net/http"
	"os"
	"path/filepath"
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
		if _, _, err := a.s.SessionInfo(r.Context(), id); err != nil {
			fail(w, err, "")
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
