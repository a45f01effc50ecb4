package live

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/browserd/browserd/internal/recording"
	"github.com/browserd/browserd/internal/store"
	"github.com/browserd/browserd/internal/tool"
)

// The dashboard's first page: every tab of the owner's live sessions as a
// picture (its recording's latest frame), with its task, its last step
// and whether it waits for a person.

// SessionView is one session in the dashboard's list.
type SessionView struct {
	tool.SessionInfo
	Tabs []TabView `json:"tabs"`
}

// TabView is a tab as the dashboard shows it.
type TabView struct {
	tool.Tab
	// Last is the last step its task took on it; nil before the first
	// (or with --record=off).
	Last *StepView `json:"last,omitempty"`
	// Frame is the newest step on it that has a frame to be taken: its
	// picture is GET /dashboard/api/picture?session&task&tab&seq (that
	// frame, or the one before it when it was not taken); 0: none yet.
	Frame int `json:"frame,omitempty"`
}

// StepView is a step of a task's recording, as a line under its tab.
type StepView struct {
	Seq    int    `json:"seq"`
	Action string `json:"action"`
	OK     bool   `json:"success"`
	Error  string `json:"error,omitempty"`
	MS     int64  `json:"ms"`
}

// sessions lists the owner's sessions, and the tabs of the live ones.
func (s *Server) sessions(w http.ResponseWriter, r *http.Request) {
	res, err := s.eng.Do(r.Context(), tool.Input{Action: "list_sessions", Filter: "all"})
	if err == nil && !res.Success {
		err = errors.New(res.Error)
	}
	if err != nil {
		writeJSON(w, http.StatusInternalServerError, map[string]string{"error": "listing the sessions failed: " + err.Error()})
		return
	}
	out := []SessionView{}
	for _, si := range res.Sessions {
		v := SessionView{SessionInfo: si, Tabs: []TabView{}}
		if si.State == "active" {
			if _, tabs, err := s.eng.SessionInfo(r.Context(), si.ID); err == nil {
				v.Tabs = s.tabViews(r, si.ID, tabs)
			}
		}
		out = append(out, v)
	}
	// The page sends csrf back on state-changing requests; another site
	// can send the cookie (were it not SameSite=Strict) but cannot read
	// this answer.
	g, _ := s.signins.session(cookieValue(r))
	writeJSON(w, http.StatusOK, map[string]any{"sessions": out, "csrf": g.csrf,
		"pending": s.eng.PendingConfirms(r.Context()), "policies": s.eng.OwnerPolicies(r.Context())})
}

// tabViews adds to each tab of a session its last step and latest frame,
// reading each task's recording once.
func (s *Server) tabViews(r *http.Request, session string, tabs []tool.Tab) []TabView {
	out := make([]TabView, 0, len(tabs))
	traces := map[string][]recording.Entry{}
	for _, t := range tabs {
		task := t.Task
		if task == "" {
			task = "default"
		}
		es, read := traces[task]
		if !read {
			es, _ = s.eng.TraceEntries(r.Context(), session, task)
			traces[task] = es
		}
		out = append(out, tabView(t, es))
	}
	return out
}

// tabView is tab t with what its task's recording es says of it.
func tabView(t tool.Tab, es []recording.Entry) TabView {
	v := TabView{Tab: t}
	for i := len(es) - 1; i >= 0 && (v.Last == nil || v.Frame == 0); i-- {
		e := es[i]
		if e.Type != "action" || e.Tab != t.ID {
			continue
		}
		if v.Last == nil {
			v.Last = &StepView{Seq: e.Seq, Action: e.Name, OK: e.OK == nil || *e.OK, Error: e.Error, MS: e.MS}
		}
		if v.Frame == 0 && e.Frame != "" {
			v.Frame = e.Seq
		}
	}
	return v
}

// picture is GET /dashboard/api/picture?session=S&task=K&tab=T&seq=N: the
// latest frame of tab T taken at or before step N. A step's frame is not
// always taken (the next action came within recording.FrameDelay, a
// dialog was open): the one before it stands in.
func (s *Server) picture(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	session, task, tab := q.Get("session"), q.Get("task"), q.Get("tab")
	seq, err := strconv.Atoi(q.Get("seq"))
	if err != nil || seq <= 0 {
		http.Error(w, "seq must be a step's number", http.StatusBadRequest)
		return
	}
	es, err := s.eng.TraceEntries(r.Context(), session, task)
	if err != nil {
		status := http.StatusInternalServerError
		if errors.Is(err, store.ErrNotFound) {
			status = http.StatusNotFound
		}
		http.Error(w, err.Error(), status)
		return
	}
	tries := 0
	for i := len(es) - 1; i >= 0 && tries < maxPictureTries; i-- {
		e := es[i]
		if e.Type != "action" || e.Tab != tab || e.Frame == "" || e.Seq > seq {
			continue
		}
		tries++
		if b, err := s.eng.TraceFrame(r.Context(), session, task, e.Seq); err == nil {
			w.Header().Set("Content-Type", "image/jpeg")
			_, _ = w.Write(b)
			return
		}
	}
	http.Error(w, "no picture of this tab yet", http.StatusNotFound)
}

// maxPictureTries bounds the frames picture looks for, newest first.
const maxPictureTries = 8
