package httpapi

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"

	"github.com/browserd/browserd/internal/store"
)

// Traces is what the trace endpoint needs: a task's recording as JSON or
// HTML, for the owner in ctx; store.ErrNotFound for another owner's
// session.
type Traces interface {
	Trace(ctx context.Context, session, task, format string) ([]byte, error)
}

// sessionTrace is GET /api/sessions/{id}/trace[?task=T][&format=html]:
// what the task's agent did and saw — JSON (entries with a type), one
// self-contained HTML file a person opens offline, or (playwright) a
// runnable @playwright/test file (internal/codegen).
func (a *api) sessionTrace(w http.ResponseWriter, r *http.Request) {
	t, ok := a.h.(Traces)
	if !ok {
		writeError(w, http.StatusNotImplemented, "this daemon keeps no recordings")
		return
	}
	q := r.URL.Query()
	format := q.Get("format")
	switch format {
	case "", "json", "html", "playwright":
	default:
		writeError(w, http.StatusBadRequest, fmt.Sprintf("format=%q: give json (the default), html or playwright", format))
		return
	}
	id, task := r.PathValue("id"), q.Get("task")
	if task == "" {
		task = "default"
	}
	asked := format
	if format == "playwright" {
		format = "json" // made into code here
	}
	b, err := t.Trace(r.Context(), id, task, format)
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			writeError(w, http.StatusNotFound, err.Error())
			return
		}
		fail(w, r, err, "")
		return
	}
	h := w.Header()
	h.Set("Cache-Control", "private, no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	if asked == "playwright" {
		playwrightTrace(w, b, id, task)
		return
	}
	if format == "html" {
		h.Set("Content-Type", "text/html; charset=utf-8")
		h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": "trace-" + id + "-" + task + ".html"}))
		// Opened from the API's origin, the file's script would run there:
		// it is a download, and sandboxed if a browser shows it anyway.
		h.Set("Content-Security-Policy", "sandbox allow-scripts; default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'")
	} else {
		h.Set("Content-Type", "application/json")
	}
	w.Write(b)
}
