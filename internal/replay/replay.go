// Package replay walks a task's recording again without the model: each
// step that succeeded is sent to the browser tool once more, in a task of
// its own, its target found again by the role and name (or CSS selector)
// the recording kept for it — its ref is long gone — and its answer
// compared with the recorded one: success, the URL a step took the page
// to, the texts the agent waited for. It stops at the first step that no
// longer holds, and says why, with what was expected beside what the page
// shows (its snapshot, and both frames). Values the recording typed can
// be given anew (Params): by step number, by the text typed, or, for a
// secret, by its name.
package replay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/browserd/browserd/internal/codegen"
	"github.com/browserd/browserd/internal/recording"
	"github.com/browserd/browserd/internal/tool"
)

// Request is the body of POST /api/replay: a recording as the trace
// endpoint gives it, and the values to type instead of the recorded ones.
type Request struct {
	Recording recording.Export  `json:"recording"`
	Params    map[string]string `json:"params,omitempty"`
}

// MaxSteps bounds a replay's steps: each holds its request and a tab for
// as long as it runs (20,000 made-up steps held a request 114 s).
const MaxSteps = 2000

// Parse reads a replay request: {"recording": …, "params": …}, or a
// recording alone (the JSON GET /api/sessions/{id}/trace answers).
func Parse(b []byte) (Request, error) {
	var probe struct {
		Recording json.RawMessage   `json:"recording"`
		Entries   json.RawMessage   `json:"entries"`
		Params    map[string]string `json:"params"`
	}
	if err := json.Unmarshal(b, &probe); err != nil {
		return Request{}, fmt.Errorf("the replay is not JSON a recording: %w; give the JSON of GET /api/sessions/{id}/trace, or {\"recording\": …, \"params\": {…}}", err)
	}
	var req Request
	req.Params = probe.Params
	raw := probe.Recording
	if len(raw) == 0 {
		raw = b
	}
	if err := json.Unmarshal(raw, &req.Recording); err != nil {
		return Request{}, fmt.Errorf("the recording is not a trace's JSON: %w", err)
	}
	n := 0
	for _, e := range req.Recording.Entries {
		if e.Type == "action" {
			n++
		}
	}
	if n > MaxSteps {
		return Request{}, fmt.Errorf("the recording has %d steps; a replay runs at most %d — replay a shorter task, or its steps in parts", n, MaxSteps)
	}
	if n == 0 {
		return Request{}, errors.New("the recording has no steps: give the JSON of GET /api/sessions/{id}/trace?task=… of a task that did something")
	}
	return req, nil
}

// Doer runs one call of the browser tool (the engine, for the caller's
// owner).
type Doer interface {
	Do(ctx context.Context, in tool.Input) (tool.Result, error)
}

// Options say where the replay runs and how its report points at frames.
type Options struct {
	Session, Task string
	Params        map[string]string
	// FrameURL is the URL of the recording's frame of step seq ("": none).
	FrameURL func(seq int) string
	// Link sets a screenshot's URL on a result (the HTTP API's /api/files).
	Link func(in tool.Input, res *tool.Result)
}

// Report is what a replay answers.
type Report struct {
	Session string `json:"session,omitempty"`
	Task    string `json:"task"`
	// Passed: every step held.
	Passed bool   `json:"passed"`
	Steps  []Step `json:"steps"`
	// Failed is the first step that no longer holds.
	Failed *Failure `json:"failed,omitempty"`
	// Fetched says where the replay's pages came from: always from the
	// site as it is now, never the browser's HTTP cache (a page the
	// recording loaded may be cached in the session's browser, served
	// again however the site changed since).
	Fetched string `json:"fetched"`
}

// fetchedNow is Report.Fetched.
const fetchedNow = "every page from the site as it is now: the browser's HTTP cache was bypassed for the replay's task"

// Step is one step replayed.
type Step struct {
	Seq    int    `json:"seq"` // the recording's
	Action string `json:"action"`
	OK     bool   `json:"ok"`
	MS     int64  `json:"ms"`
	Code   string `json:"code,omitempty"`
}

// Failure is the step that broke: why, and what was expected beside what
// the page shows.
type Failure struct {
	Seq      int    `json:"seq"`
	Action   string `json:"action"`
	Code     string `json:"code,omitempty"`
	Why      string `json:"why"`
	Expected Side   `json:"expected"`
	Actual   Side   `json:"actual"`
}

// Side is one side of a Failure.
type Side struct {
	Success bool   `json:"success"`
	URL     string `json:"url,omitempty"`
	Title   string `json:"title,omitempty"`
	Error   string `json:"error,omitempty"`
	// Target is the element the step aims at (role and name, or selector).
	Target string `json:"target,omitempty"`
	// Wait is the text the step waited for.
	Wait string `json:"wait,omitempty"`
	// Page is the page's snapshot when the step broke (inside its
	// untrusted-content envelope).
	Page string `json:"page,omitempty"`
	// Frame: the recording's frame of the step (a URL), or the page's
	// screenshot when the step broke.
	Frame string `json:"frame,omitempty"`
}

// skipped are the steps a replay does not repeat: they read, or manage
// browserd itself (the replay's task is fresh).
var skipped = map[string]bool{
	"snapshot": true, "status": true, "tabs": true, "console": true, "network": true,
	"list_sessions": true, "session_resume": true, "launch": true, "close": true,
	"task_end": true, "state_save": true, "state_load": true, "handoff": true,
	"screenshot": true, "pdf": true, "extract": true,
	"download": true, // a CDP client's (internal/cdpproxy): the step that started it does it again
}

// Run replays x in opt.Task.
func Run(ctx context.Context, do Doer, x recording.Export, opt Options) (Report, error) {
	rep := Report{Session: opt.Session, Task: opt.Task, Steps: []Step{}, Fetched: fetchedNow}
	if opt.Task == "" {
		return rep, errors.New("name the task the replay runs in (task=NAME): a fresh one, so that it starts from nothing")
	}
	if opt.Task == x.Task {
		return rep, fmt.Errorf("the replay's task %q is the recorded task: name another (its recording would grow while being read)", opt.Task)
	}
	lastURL := ""
	var subst []string // old, new: typed values given anew, for later texts and URLs
	for _, e := range x.Entries {
		if e.Type != "action" || e.OK == nil || !*e.OK || skipped[e.Name] {
			if e.Type == "action" && e.URL != "" && e.OK != nil && *e.OK {
				lastURL = e.URL
			}
			continue
		}
		in := codegen.InputOf(e)
		in.Session, in.Task = opt.Session, opt.Task
		in.NoCache = true // what the site serves now, not what the browser kept
		if in.Action == "wait" && in.Human {
			continue
		}
		subst = append(subst, applyParams(&in, e.Seq, opt.Params)...)
		if len(subst) > 0 && in.Action == "wait" {
			// A text the agent waited for shows what it typed.
			r := strings.NewReplacer(subst...)
			in.Text, in.TextGone, in.URL = r.Replace(in.Text), r.Replace(in.TextGone), r.Replace(in.URL)
		}
		if len(subst) > 0 && e.URL != "" {
			e.URL = urlReplacer(subst).Replace(e.URL)
		}
		code := codegen.Line(in, codegen.Targets{Locator: e.Locator, Fields: e.Fields, To: e.To})
		start := time.Now()
		res, why, err := step(ctx, do, &in, e)
		if err != nil {
			return rep, err
		}
		ok := why == "" && res.Success
		if why == "" && !res.Success {
			on := ""
			if t := target(e.Locator); t != "" {
				on = " on " + t
			}
			why = fmt.Sprintf("step %d (%s%s) failed: %s", e.Seq, e.Name, on, res.Error)
		}
		if ok && e.URL != "" && (e.URL != lastURL || navigates[in.Action]) && !sameURL(res.URL, e.URL) {
			ok, why = false, fmt.Sprintf("the page is at %s, the recording was at %s", res.URL, e.URL)
		}
		rep.Steps = append(rep.Steps, Step{Seq: e.Seq, Action: e.Name, OK: ok, MS: time.Since(start).Milliseconds(), Code: code})
		if !ok {
			rep.Failed = failure(ctx, do, in, e, res, why, code, opt)
			return rep, nil
		}
		if e.URL != "" {
			lastURL = e.URL
		}
	}
	rep.Passed = true
	return rep, nil
}

var navigates = map[string]bool{"navigate": true, "back": true, "forward": true, "reload": true}

// sameURL compares URLs, a trailing slash aside.
func sameURL(a, b string) bool {
	return strings.TrimSuffix(a, "/") == strings.TrimSuffix(b, "/")
}

// urlReplacer replaces typed values as a URL's query carries them too.
func urlReplacer(subst []string) *strings.Replacer {
	var all []string
	for i := 0; i+1 < len(subst); i += 2 {
		all = append(all, subst[i], subst[i+1], url.QueryEscape(subst[i]), url.QueryEscape(subst[i+1]), url.PathEscape(subst[i]), url.PathEscape(subst[i+1]))
	}
	return strings.NewReplacer(all...)
}

// applyParams gives the step the values asked for: by its number, by the
// text it typed, or a secret by its name (the value is another secret's
// name). It returns the typed texts it replaced, old then new.
func applyParams(in *tool.Input, seq int, params map[string]string) (subst []string) {
	if len(params) == 0 {
		return nil
	}
	if v, ok := params[strconv.Itoa(seq)]; ok {
		switch {
		case in.Action == "type" && in.Secret != "":
			in.Secret = v
		case in.Action == "type":
			if in.Text != "" {
				subst = append(subst, in.Text, v)
			}
			in.Text = v
		case in.Action == "wait":
			in.Text = v
		case in.Action == "navigate":
			in.URL = v
		case in.Action == "select":
			in.Value = v
		case in.Action == "press":
			in.Key = v
		}
	}
	if in.Action == "type" {
		if v, ok := params[in.Secret]; ok && in.Secret != "" {
			in.Secret = v
		} else if v, ok := params[in.Text]; ok && in.Text != "" {
			subst = append(subst, in.Text, v)
			in.Text = v
		}
	}
	for i, f := range in.Fields {
		if v, ok := params[f.Secret]; ok && f.Secret != "" {
			in.Fields[i].Secret = v
		} else if v, ok := params[f.Value]; ok && f.Value != "" {
			subst = append(subst, f.Value, v)
			in.Fields[i].Value = v
		}
	}
	return subst
}

// step runs one recorded step, its targets placed again; why says what
// kept it from running at all.
func step(ctx context.Context, do Doer, in *tool.Input, e recording.Entry) (tool.Result, string, error) {
	if in.Ref != "" {
		if e.Locator == nil {
			return tool.Result{}, fmt.Sprintf("the recording kept no role, name or selector for %s's target (%s), so it cannot be found again", in.Action, in.Ref), nil
		}
		setTarget(in, *e.Locator)
	}
	if len(in.Fields) > 0 || in.Action == "drag" && e.To != nil {
		refs, err := placeRefs(ctx, do, *in)
		if err != nil {
			return tool.Result{}, "", err
		}
		for i := range in.Fields {
			if i >= len(e.Fields) {
				return tool.Result{}, fmt.Sprintf("the recording kept no role and name for fill's field %s", in.Fields[i].Ref), nil
			}
			ref, why := refs.find(e.Fields[i])
			if why != "" {
				return tool.Result{}, "fill's field " + why, nil
			}
			in.Fields[i].Ref = ref
		}
		if in.Action == "drag" && e.To != nil {
			ref, why := refs.find(*e.To)
			if why != "" {
				return tool.Result{}, "the drop target " + why, nil
			}
			in.To = ref
		}
	}
	res, err := do.Do(ctx, *in)
	return res, "", err
}

func setTarget(in *tool.Input, l recording.Locator) {
	in.Ref = ""
	if l.Role != "" {
		in.Role, in.Name = l.Role, l.Name
		return
	}
	in.Selector = l.Selector
}

// target says what a locator finds.
func target(l *recording.Locator) string {
	switch {
	case l == nil:
		return ""
	case l.Role != "":
		return fmt.Sprintf("%s %q", l.Role, l.Name)
	}
	return "selector " + l.Selector
}

// failure builds the side-by-side of a step that broke: the page's
// snapshot and a screenshot of it now.
func failure(ctx context.Context, do Doer, in tool.Input, e recording.Entry, res tool.Result, why, code string, opt Options) *Failure {
	f := &Failure{Seq: e.Seq, Action: e.Name, Code: code, Why: why,
		Expected: Side{Success: true, URL: e.URL, Title: e.Title, Target: target(e.Locator)},
		Actual:   Side{Success: res.Success, URL: res.URL, Title: res.Title, Error: res.Error, Target: target(e.Locator)},
	}
	if in.Action == "wait" {
		f.Expected.Wait, f.Actual.Wait = in.Text, in.Text
	}
	if e.Frame != "" && opt.FrameURL != nil {
		f.Expected.Frame = opt.FrameURL(e.Seq)
	}
	no := false
	snap := tool.Input{Action: "snapshot", Session: opt.Session, Task: opt.Task, MaxChars: 6000, Full: true}
	if r, err := do.Do(ctx, snap); err == nil && r.Success {
		f.Actual.Page = r.Content
		if f.Actual.URL == "" {
			f.Actual.URL, f.Actual.Title = r.URL, r.Title
		}
	}
	shot := tool.Input{Action: "screenshot", Session: opt.Session, Task: opt.Task, FullPage: &no}
	if r, err := do.Do(ctx, shot); err == nil && r.Success {
		if opt.Link != nil {
			opt.Link(shot, &r)
		}
		f.Actual.Frame = r.ScreenshotURL
		if f.Actual.Frame == "" {
			f.Actual.Frame = r.ScreenshotPath
		}
	}
	return f
}

// refs are the refs of a snapshot, by role and name.
type refs map[[2]string][]string

// placeRefs reads the page's refs (a snapshot in the replay's task), for
// the targets a call can only name by ref (fill's fields, drag's drop
// target).
func placeRefs(ctx context.Context, do Doer, in tool.Input) (refs, error) {
	res, err := do.Do(ctx, tool.Input{Action: "snapshot", Session: in.Session, Task: in.Task, Interactive: true, Full: true})
	if err != nil {
		return nil, err
	}
	out := refs{}
	for _, m := range refLine.FindAllStringSubmatch(res.Content, -1) {
		name := m[2]
		if u, err := unquote(name); err == nil {
			name = u
		}
		k := [2]string{codegen.Role(m[1]), name}
		out[k] = append(out[k], m[3])
	}
	return out, nil
}

// unquote reads a name as the snapshot quotes it.
func unquote(s string) (string, error) { return strconv.Unquote(`"` + s + `"`) }

var refLine = regexp.MustCompile(`(?m)^\s*(?:- )?([A-Za-z]+) "((?:[^"\\]|\\.)*)"[^\n]*?\[ref=(e\d+)`)

// find is the ref of the one element with l's role and name, or why there
// is none.
func (r refs) find(l recording.Locator) (string, string) {
	if l.Role == "" {
		return "", fmt.Sprintf("was found by a CSS selector (%s), which a replay cannot turn into a ref", l.Selector)
	}
	switch rs := r[[2]string{l.Role, l.Name}]; len(rs) {
	case 1:
		return rs[0], ""
	case 0:
		return "", fmt.Sprintf("%s %q is not on the page", l.Role, l.Name)
	default:
		return "", fmt.Sprintf("%s %q is on the page %d times", l.Role, l.Name, len(rs))
	}
}
