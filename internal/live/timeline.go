package live

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/browserd/browserd/internal/recording"
	"github.com/browserd/browserd/internal/store"
)

// The timeline beside a live view: the steps of the task the watched tab
// belongs to, and the frame of the page after each.

// trace is GET /dashboard/api/trace?session=S&tab=T: the task of tab T and
// its recording's steps.
func (s *Server) trace(w http.ResponseWriter, r *http.Request) {
	session, tab := r.URL.Query().Get("session"), r.URL.Query().Get("tab")
	_, tabs, err := s.eng.SessionInfo(r.Context(), session)
	if err != nil {
		status := http.StatusInternalServerError
		if errors.Is(err, store.ErrNotFound) {
			status = http.StatusNotFound
		}
		writeJSON(w, status, map[string]string{"error": err.Error()})
		return
	}
	task := ""
	for i, t := range tabs {
		if t.ID == tab || tab == "" && i == 0 {
			task = t.Task
		}
	}
	if task == "" {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "no such tab in this session"})
		return
	}
	es, err := s.eng.TraceEntries(r.Context(), session, task)
	if err != nil {
		writeJSON(w, http.StatusInternalServerError, map[string]string{"error": err.Error()})
		return
	}
	if es == nil {
		es = []recording.Entry{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"task": task, "entries": es})
}

// frame is GET /dashboard/api/frame?session=S&task=K&seq=N: the JPEG of
// the page after step N.
func (s *Server) frame(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	seq, err := strconv.Atoi(q.Get("seq"))
	if err != nil || seq <= 0 {
		http.Error(w, "seq must be a step's number", http.StatusBadRequest)
		return
	}
	b, err := s.eng.TraceFrame(r.Context(), q.Get("session"), q.Get("task"), seq)
	if err != nil {
		status := http.StatusInternalServerError
		if errors.Is(err, recording.ErrNoFrame) || errors.Is(err, store.ErrNotFound) {
			status = http.StatusNotFound
		}
		http.Error(w, err.Error(), status)
		return
	}
	w.Header().Set("Content-Type", "image/jpeg")
	_, _ = w.Write(b)
}
