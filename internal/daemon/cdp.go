package daemon

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/browserd/browserd/internal/auth"
	"github.com/browserd/browserd/internal/cdp"
	"github.com/browserd/browserd/internal/cdpproxy"
	"github.com/browserd/browserd/internal/engine"
	"github.com/browserd/browserd/internal/policy"
	"github.com/browserd/browserd/internal/recording"
	"github.com/browserd/browserd/internal/sessions"
	"github.com/browserd/browserd/internal/tool"
)

// cdpTasks opens the engine's tasks for the CDP endpoint (internal/cdpproxy).
type cdpTasks struct{ e *engine.Engine }

// refusal is an error the endpoint answers with its status.
type refusal struct {
	status int
	msg    string
}

func (r refusal) Error() string   { return r.msg }
func (r refusal) StatusCode() int { return r.status }

// Open opens the task through the tool's own pipeline (its policy, its
// owner's namespace, the session's lazy start): its tabs, or a new one.
func (h cdpTasks) Open(ctx context.Context, w cdpproxy.Want) (cdpproxy.Task, error) {
	session, task := w.Session, w.Task
	if d := policy.From(ctx).Decide(tool.Input{Action: "evaluate"}); d.Verdict != policy.Allowed {
		why := "does not allow evaluate"
		if d.Verdict == policy.Confirm {
			why = "asks a person before each evaluate, which a CDP connection cannot wait for"
		}
		return nil, refusal{http.StatusForbidden, fmt.Sprintf("no CDP for this caller: its policy %s (rule: %s), and a CDP client can do anything a script can; use the browser tool", why, d.Rule)}
	}
	if task == "" {
		task = "default"
	}
	in := tool.Input{Action: "tabs", Session: session, Profile: w.Profile, Task: task}
	res, err := h.do(ctx, in)
	if err != nil {
		return nil, err
	}
	if len(res.Tabs) == 0 {
		no := false
		if res, err = h.do(ctx, tool.Input{Action: "tab_new", Session: session, Profile: w.Profile, Task: task, Snapshot: &no}); err != nil {
			return nil, err
		}
	}
	owner := auth.Owner(ctx)
	id := sessions.Qualify(owner, res.Session)
	h.e.Mu.Lock()
	s := h.e.Sessions[id]
	h.e.Mu.Unlock()
	if s == nil {
		return nil, refusal{http.StatusConflict, fmt.Sprintf("session %q closed while the CDP client connected; connect again", res.Session)}
	}
	t, err := h.e.TaskFor(s, task)
	if err != nil {
		return nil, refusal{http.StatusBadRequest, err.Error()}
	}
	sl, _, err := h.e.EnsureBrowser(ctx, s)
	if err != nil {
		return nil, err
	}
	return &cdpTask{h: h, ctx: context.WithoutCancel(ctx), owner: owner, session: res.Session, s: s, t: t, conn: sl.Br.Conn(), br: sl.Br.NewContext}, nil
}

func (h cdpTasks) do(ctx context.Context, in tool.Input) (tool.Result, error) {
	res, err := h.e.Do(ctx, in)
	if err != nil {
		return res, err
	}
	if !res.Success {
		return res, refusal{http.StatusBadRequest, res.Error}
	}
	return res, nil
}

// cdpTask is one connection's task.
type cdpTask struct {
	h       cdpTasks
	ctx     context.Context // the caller's: owner and policy
	owner   string
	session string // as the caller names it
	s       *sessions.Session
	t       *sessions.Task
	conn    *cdp.Conn
	br      func(ctx context.Context, downloadDir, proxyURL string) (string, error)
}

func (c *cdpTask) Conn() *cdp.Conn { return c.conn }

func (c *cdpTask) ContextID() string {
	c.h.e.Mu.Lock()
	defer c.h.e.Mu.Unlock()
	return c.s.CtxID
}

func (c *cdpTask) Pages(ctx context.Context) ([]string, error) {
	c.h.e.Mu.Lock()
	tabs := append([]*sessions.Tab(nil), c.t.Tabs...)
	c.h.e.Mu.Unlock()
	var ids []string
	for _, tb := range tabs {
		c.h.e.Wake(ctx, tb, false, c.h.e.Cfg.NavTime)
		c.h.e.Mu.Lock()
		pg := tb.Page
		c.h.e.Mu.Unlock()
		if pg != nil && !pg.Closed() {
			ids = append(ids, pg.TargetID)
		}
	}
	return ids, nil
}

func (c *cdpTask) NewPage(ctx context.Context, url string) (string, error) {
	no := false
	in := tool.Input{Action: "tab_new", Session: c.session, Task: c.t.Name, Snapshot: &no}
	if url != "about:blank" {
		in.URL = url
	}
	res, err := c.h.do(c.ctx, in)
	if err != nil {
		return "", err
	}
	c.h.e.Mu.Lock()
	defer c.h.e.Mu.Unlock()
	tb := c.h.e.Tabs[sessions.TabKey{Sess: c.s.ID, Tab: res.Tab}]
	if tb == nil || tb.Page == nil {
		return "", errors.New("the new tab closed at once")
	}
	return tb.Page.TargetID, nil
}

func (c *cdpTask) CheckURL(ctx context.Context, url string) error {
	u, err := c.h.e.CheckURL(c.ctx, c.s, url)
	if err != nil {
		return err
	}
	if d := policy.From(c.ctx).CheckURL(u); d.Verdict != policy.Allowed {
		return fmt.Errorf("navigation to %s refused by the policy (rule: %s)", u, d.Rule)
	}
	return nil
}

func (c *cdpTask) NewContext(ctx context.Context) (string, error) {
	eg, err := c.h.e.EgressFor(c.s)
	if err != nil {
		return "", err
	}
	return c.br(ctx, c.h.e.Cfg.Path("downloads"), eg.URL())
}

func (c *cdpTask) DisposeContext(ctx context.Context, id string) error {
	return c.conn.Browser().Call(ctx, "Target.disposeBrowserContext", map[string]any{"browserContextId": id}, nil)
}

func (c *cdpTask) UploadPath(path string) (string, error) { return c.h.e.UploadFile(c.owner, path) }

// HeldBy is who took the page over in the dashboard.
func (c *cdpTask) HeldBy(targetID string) string {
	if tb := c.tabOf(targetID); tb != nil {
		who, _ := c.h.e.HeldBy(tb)
		return who
	}
	return ""
}

// tabOf is the task's tab showing the target, nil for none.
func (c *cdpTask) tabOf(targetID string) *sessions.Tab {
	c.h.e.Mu.Lock()
	defer c.h.e.Mu.Unlock()
	for _, tb := range c.t.Tabs {
		if tb.Page != nil && tb.Page.TargetID == targetID {
			return tb
		}
	}
	return nil
}

// Record puts a step made over CDP in the task's recording: a navigate
// step, with the page's frame once it loaded (within 5 s), or a download
// step ("download": replays and exported tests leave it out, as the step
// that started it does it again).
func (c *cdpTask) Record(ctx context.Context, st cdpproxy.Step) {
	rec := c.h.e.Recorder
	if rec == nil || st.URL == "" || st.URL == "about:blank" {
		return
	}
	tab := c.tabOf(st.Target)
	if tab == nil {
		return // a page of a context the client made
	}
	for deadline := time.Now().Add(5 * time.Second); st.Action == "navigate" && tab.Page.Loading() && time.Now().Before(deadline) && ctx.Err() == nil; {
		time.Sleep(50 * time.Millisecond)
	}
	red := c.h.e.Redactor(c.ctx, c.owner)
	ok := !st.Failed
	args := map[string]any{"url": red.String(st.URL), "by": "cdp"}
	if st.File != "" {
		args["file"] = red.String(st.File)
	}
	at := st.URL // a navigation's page; a download's is the page it left
	if st.Action != "navigate" {
		at = tab.Page.URL().Unwrap()
	}
	e := recording.Entry{Time: time.Now().UTC(), Name: st.Action, Tab: tab.ID, Args: args, OK: &ok, URL: red.String(at)}
	if _, err := rec.Record(c.s.ID, c.t.Name, e, nil, nil, tab.Page); err != nil {
		c.h.e.Log.Warn("recording a CDP navigation failed", "session", c.s.ID, "task", c.t.Name, "err", err)
	}
}

// Release ends the task as task_end does: its pages stay for review.
func (c *cdpTask) Release() {
	_, _ = c.h.e.Do(c.ctx, tool.Input{Action: "task_end", Session: c.session, Task: c.t.Name})
}
