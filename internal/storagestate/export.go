package storagestate

import (
	"encoding/json"
	"time"
)

// Export is a session's storageState with what its tabs show: the body
// of GET /api/sessions/{id}/state. Its cookies and origins are a
// storageState (each origin's sessionStorage is that of a tab showing
// it); the other fields say where the tabs are and where the state was
// read from. Parse reads an Export as the storageState it holds: the
// other fields are ignored.
type Export struct {
	State
	// URL and Title are the front tab's: the first tab, in tab order,
	// that is in front of its task (page-derived).
	URL   string      `json:"url,omitempty"`
	Title string      `json:"title,omitempty"`
	Tabs  []ExportTab `json:"tabs"`
	// Source is "browser" when the state was read from the running
	// session now, "capture" when the session is not running and the
	// state is its newest capture's, taken at CapturedAt.
	Source     string     `json:"source"`
	CapturedAt *time.Time `json:"capturedAt,omitempty"`
}

// ExportTab is one tab of an Export.
type ExportTab struct {
	ID     string `json:"id"`
	Task   string `json:"task,omitempty"`
	URL    string `json:"url"`
	Title  string `json:"title"`
	Active bool   `json:"active,omitempty"`
	// SessionStorage is the tab's own, for the origin of URL.
	SessionStorage []NameValue `json:"sessionStorage,omitempty"`
}

// Front sets URL and Title from the front tab (see Export.URL).
func (x *Export) Front() {
	x.URL, x.Title = "", ""
	for _, t := range x.Tabs {
		if t.Active {
			x.URL, x.Title = t.URL, t.Title
			return
		}
	}
	if len(x.Tabs) > 0 {
		x.URL, x.Title = x.Tabs[0].URL, x.Tabs[0].Title
	}
}

// AddTabStorage puts each tab's sessionStorage into its origin's entry
// (made when missing), as a state read from the browser has it; a later
// tab of the same origin wins. origin gives a tab URL's origin ("" for
// none).
func (x *Export) AddTabStorage(origin func(url string) string) {
	idx := map[string]int{}
	for i, o := range x.Origins {
		idx[o.Origin] = i
	}
	for _, t := range x.Tabs {
		o := origin(t.URL)
		if o == "" || len(t.SessionStorage) == 0 {
			continue
		}
		i, ok := idx[o]
		if !ok {
			i = len(x.Origins)
			idx[o] = i
			x.Origins = append(x.Origins, Origin{Origin: o, LocalStorage: []NameValue{}})
		}
		x.Origins[i].SessionStorage = t.SessionStorage
	}
}

// Marshal writes the export indented, with empty lists rather than null
// (as State.Marshal).
func (x *Export) Marshal() ([]byte, error) {
	out := *x
	if out.Cookies == nil {
		out.Cookies = []Cookie{}
	}
	out.Origins = append([]Origin(nil), out.Origins...)
	if out.Origins == nil {
		out.Origins = []Origin{}
	}
	for i := range out.Origins {
		if out.Origins[i].LocalStorage == nil {
			out.Origins[i].LocalStorage = []NameValue{}
		}
	}
	if out.Tabs == nil {
		out.Tabs = []ExportTab{}
	}
	return json.MarshalIndent(out, "", "  ")
}
