// Package cdpproxy is browserd's CDP endpoint: a WebSocket at
// /cdp?session=S&task=T that Playwright's connectOverCDP, Puppeteer's
// connect and agent-browser's --cdp drive as they drive any Chromium.
//
// A client gets its task's pages and only those: its messages go over
// browserd's own connection to the session's browser, each page through a
// flat session of the client's own (beside browserd's, so neither
// disturbs the other), and the browser-wide part of the protocol — the
// Target domain, downloads, the browser's close — is answered here from
// the task's tabs (package cdpfilter says what goes through, what is
// answered here and what is refused). Pages a client opens are the
// task's tabs: listed, watched, captured and recovered like any.
package cdpproxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/target"
	"github.com/coder/websocket"

	"github.com/browserd/browserd/internal/cdp"
	"github.com/browserd/browserd/internal/cdpfilter"
)

// Host opens tasks for the endpoint (the daemon wires browserd's engine).
type Host interface {
	// Open opens the caller's task (ctx carries its owner and policy),
	// starting its session when it does not run, with a page of its own
	// when it has none. An error is said to the client as is; one with a
	// StatusCode method answers with that status.
	Open(ctx context.Context, w Want) (Task, error)
}

// Want is what a client asks for in the endpoint's query: ?session=,
// ?profile= (a new session's persistent identity), ?task=.
type Want struct{ Session, Profile, Task string }

// Task is one task's hold on its session's browser.
type Task interface {
	// Conn is the connection to the session's browser.
	Conn() *cdp.Conn
	// ContextID is the session's browser context; "" is the browser's
	// default (a profile's own browser).
	ContextID() string
	// Pages are the target ids of the task's tabs.
	Pages(ctx context.Context) ([]string, error)
	// NewPage opens a tab of the task at url (through the guard).
	NewPage(ctx context.Context, url string) (string, error)
	// CheckURL fails a URL the session's guard or the caller's policy
	// refuses, or that is not a web page.
	CheckURL(ctx context.Context, url string) error
	// NewContext creates a browser context of the session's, behind its
	// guard, downloads in its folder.
	NewContext(ctx context.Context) (string, error)
	// DisposeContext disposes of a context NewContext made.
	DisposeContext(ctx context.Context, id string) error
	// UploadPath is the file a client may hand a file input: inside the
	// owner's upload folder.
	UploadPath(path string) (string, error)
	// HeldBy is the person who controls the page from the dashboard
	// (takeover), "" when nobody does.
	HeldBy(targetID string) string
	// Record puts a step of the client's in the task's recording: a
	// navigation of a page's main frame (made by the client or by its
	// page), with a frame of the page once loaded, or a download.
	Record(ctx context.Context, s Step)
	// Release says the client is gone: the task's pages stay for review.
	Release()
}

// Handler serves the endpoint and /json/version.
type Handler struct {
	Host Host
	Log  *slog.Logger
}

// ServeHTTP answers /json/version (and what clients that take
// http://host:port ask: /json/version/, /cdp/json/version) with the
// endpoint's URL, and upgrades /cdp to the endpoint.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if strings.HasSuffix(strings.TrimSuffix(r.URL.Path, "/"), "/json/version") {
		h.version(w, r)
		return
	}
	q := r.URL.Query()
	ctx := r.Context()
	task, err := h.Host.Open(ctx, Want{Session: q.Get("session"), Profile: q.Get("profile"), Task: q.Get("task")})
	if err != nil {
		w.Header().Set("Content-Type", "application/json")
		status := http.StatusBadRequest
		var se interface{ StatusCode() int }
		if errors.As(err, &se) {
			status = se.StatusCode()
		}
		w.WriteHeader(status)
		fmt.Fprintf(w, "{\"error\":%q}\n", err.Error())
		return
	}
	defer task.Release()
	ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{InsecureSkipVerify: true})
	if err != nil {
		return
	}
	ws.SetReadLimit(256 << 20)
	c := newClient(task, ws, h.log())
	c.serve(context.WithoutCancel(ctx))
}

func (h *Handler) log() *slog.Logger {
	if h.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return h.Log
}

// version is Chromium's /json/version with the endpoint's URL, the
// session, task and token carried over from the query.
func (h *Handler) version(w http.ResponseWriter, r *http.Request) {
	scheme := "ws"
	if r.TLS != nil {
		scheme = "wss"
	}
	host := r.Host
	if host == "" || strings.HasPrefix(host, "/") {
		host = "localhost"
	}
	u := url.URL{Scheme: scheme, Host: host, Path: "/cdp", RawQuery: r.URL.RawQuery}
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(map[string]string{
		"Browser":              "browserd (Chromium)",
		"Protocol-Version":     "1.3",
		"webSocketDebuggerUrl": u.String(),
	})
}

// TokenFromQuery lets a client that sets no headers give its token as
// ?token=: it becomes the Authorization header next sees.
func TokenFromQuery(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if tok := r.URL.Query().Get("token"); tok != "" && r.Header.Get("Authorization") == "" {
			r = r.Clone(r.Context())
			r.Header.Set("Authorization", "Bearer "+tok)
		}
		next.ServeHTTP(w, r)
	})
}

// browserTarget stands, in client.sessions, for the browser itself: a
// session Target.attachToBrowserTarget opened.
const browserTarget = "\x00browser"

// command is a client's message.
type command struct {
	ID        int64           `json:"id"`
	Method    string          `json:"method"`
	Params    json.RawMessage `json:"params,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
}

// client is one connection: its pages, sessions and contexts.
type client struct {
	task Task
	conn *cdp.Conn
	ws   *websocket.Conn
	log  *slog.Logger
	out  *outbox
	// steps are what the recording is to note (relay never blocks: a
	// step dropped when the recorder lags is lost).
	steps chan Step

	mu         sync.Mutex
	pages      map[string]bool                       // targets it may see
	sessions   map[target.SessionID]string           // its sessions → their target ("" for a child)
	top        map[target.SessionID]target.SessionID // sessions it attached to pages → the session it asked on
	attachedTo map[string]*attaching                 // auto-attached pages
	contexts   map[string]bool                       // contexts it created
	downloads  map[string]*Step                      // its downloads under way, by guid
	announced  map[string]bool                       // pages a targetCreated was sent for
	discover   bool
	autoAttach bool
	// browserSessions counts the browser sessions it opened.
	browserSessions int
}

func newClient(task Task, ws *websocket.Conn, log *slog.Logger) *client {
	return &client{
		task: task, conn: task.Conn(), ws: ws, log: log, out: newOutbox(), steps: make(chan Step, 64),
		pages:    map[string]bool{},
		sessions: map[target.SessionID]string{}, top: map[target.SessionID]target.SessionID{},
		attachedTo: map[string]*attaching{}, contexts: map[string]bool{},
		downloads: map[string]*Step{}, announced: map[string]bool{},
	}
}

// serve runs the connection until the client or the browser goes.
func (c *client) serve(ctx context.Context) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if ids, err := c.task.Pages(ctx); err == nil {
		c.mu.Lock()
		for _, id := range ids {
			c.pages[id] = true
		}
		c.mu.Unlock()
	}
	writer := make(chan struct{})
	go func() { // the one writer
		defer close(writer)
		c.out.drain(ctx, func(b []byte) error { return c.ws.Write(ctx, websocket.MessageText, b) })
		cancel() // the client is gone, or the box closed
	}()
	events := c.conn.Browser().Listen("Target.targetCreated", "Target.targetInfoChanged", "Target.targetDestroyed",
		"Target.targetCrashed", "Target.detachedFromTarget", "Browser.downloadWillBegin", "Browser.downloadProgress")
	recorded := make(chan struct{})
	go func() { // the client's steps, into the task's recording
		defer close(recorded)
		for {
			select {
			case <-ctx.Done():
				return
			case st := <-c.steps:
				c.task.Record(ctx, st)
			}
		}
	}()
	eventsDone := make(chan struct{})
	go func() { // the browser's events, for this client's pages
		defer close(eventsDone)
		for {
			ev, ok := events.Next(ctx)
			if !ok {
				return
			}
			c.browserEvent(ctx, ev)
		}
	}()
	browserGone := make(chan struct{})
	go func() { // the browser's end ends the connection
		defer close(browserGone)
		select {
		case <-ctx.Done():
		case <-c.conn.Done():
			cancel()
			c.ws.CloseNow()
		}
	}()
	c.readLoop(ctx)
	c.out.close()
	select { // what is queued (a Browser.close's answer) goes out first
	case <-writer:
	case <-time.After(2 * time.Second):
	}
	cancel()
	events.Close()
	<-eventsDone
	<-writer
	<-recorded
	<-browserGone
	c.ws.Close(websocket.StatusNormalClosure, "")
	c.detachAll()
}

func (c *client) readLoop(ctx context.Context) {
	for ctx.Err() == nil {
		_, data, err := c.ws.Read(ctx)
		if err != nil {
			return
		}
		var cmd command
		if err := json.Unmarshal(data, &cmd); err != nil || cmd.Method == "" {
			c.replyError(cmd, -32700, "browserd: a CDP message is a JSON object with id and method")
			continue
		}
		if cmd.Method == "Browser.close" && c.browserLevel(cmd.SessionID) {
			// The session's browser serves other tasks: a client's close
			// ends its own contexts and its connection.
			c.closeContexts(ctx)
			c.reply(cmd, json.RawMessage("{}"))
			c.out.close()
			return
		}
		c.handle(ctx, cmd)
	}
}

// browserLevel reports whether sid is the connection's browser level: no
// session, or a browser session of the client's own.
func (c *client) browserLevel(sid string) bool {
	if sid == "" {
		return true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sessions[target.SessionID(sid)] == browserTarget
}

// handle answers, checks and forwards one command.
func (c *client) handle(ctx context.Context, cmd command) {
	sid := target.SessionID(cmd.SessionID)
	relay := c.relay
	if sid != "" {
		c.mu.Lock()
		tid, ok := c.sessions[sid]
		c.mu.Unlock()
		if !ok {
			c.replyError(cmd, -32001, fmt.Sprintf("browserd: session %s is not one of this connection's (attach to one of the task's pages first)", sid))
			return
		}
		if tid == browserTarget {
			// A browser session of the client's own (newBrowserCDPSession):
			// the browser level, filtered as such, answered on it.
			sid = ""
			relay = func(msg *cdproto.Message) {
				msg.SessionID = target.SessionID(cmd.SessionID)
				c.relay(msg)
			}
		}
	}
	rule := cdpfilter.For(cmd.Method, sid == "")
	switch rule.Verdict {
	case cdpfilter.Refuse:
		c.replyError(cmd, -32000, fmt.Sprintf("browserd: %s refused: %s", cmd.Method, rule.Why))
		return
	case cdpfilter.Emulate:
		res, err := c.emulate(ctx, cmd)
		if err != nil {
			c.replyError(cmd, -32000, "browserd: "+cmd.Method+": "+err.Error())
			return
		}
		c.reply(cmd, res)
		return
	}
	if who := c.heldBy(sid, cmd.Method); who != "" {
		c.replyError(cmd, -32000, fmt.Sprintf("browserd: %s refused: a person (%s) controls this page from the dashboard; wait until they hand it back", cmd.Method, who))
		return
	}
	params, err := c.check(ctx, cmd, rule)
	if err != nil {
		c.replyError(cmd, -32000, fmt.Sprintf("browserd: %s refused: %s", cmd.Method, err))
		return
	}
	if err := c.conn.Forward(ctx, sid, cmd.ID, cmd.Method, jsonv2.Value(params), relay); err != nil {
		c.replyError(cmd, -32001, "browserd: "+err.Error())
	}
}

// heldBy is the person who holds the page of session sid, for a command
// that acts on it as a hand does (input, navigation): a person who took
// a page over in the dashboard has it to themselves until they hand it
// back, as an agent's actions wait for them.
func (c *client) heldBy(sid target.SessionID, method string) string {
	if sid == "" || !strings.HasPrefix(method, "Input.") && !handMethods[method] {
		return ""
	}
	c.mu.Lock()
	tid := c.sessions[sid]
	c.mu.Unlock()
	if tid == "" || tid == browserTarget {
		return ""
	}
	return c.task.HeldBy(tid)
}

// handMethods act on a page as a hand does, besides the Input domain.
var handMethods = map[string]bool{
	"Page.navigate": true, "Page.reload": true, "Page.navigateToHistoryEntry": true,
	"Page.close": true, "Page.stopLoading": true, "DOM.setFileInputFiles": true,
}

// check applies a forwarded command's checks, returning its params.
func (c *client) check(ctx context.Context, cmd command, rule cdpfilter.Rule) (json.RawMessage, error) {
	params := cmd.Params
	if len(params) == 0 || string(params) == "null" {
		params = json.RawMessage("{}")
	}
	if rule.URL == "" && !rule.Context && !rule.Files {
		return params, nil
	}
	var p map[string]any
	if err := json.Unmarshal(params, &p); err != nil {
		return nil, fmt.Errorf("its params are not a JSON object")
	}
	if rule.URL != "" {
		u, _ := p[rule.URL].(string)
		if err := c.task.CheckURL(ctx, u); err != nil {
			return nil, err
		}
	}
	if rule.Context {
		if err := c.ownContext(p); err != nil {
			return nil, err
		}
	}
	if rule.Files {
		files, _ := p["files"].([]any)
		for i, f := range files {
			path, _ := f.(string)
			real, err := c.task.UploadPath(path)
			if err != nil {
				return nil, err
			}
			files[i] = real
		}
	}
	return json.Marshal(p)
}

// ownContext fills in the session's context where p names none, and
// refuses another's.
func (c *client) ownContext(p map[string]any) error {
	id, _ := p["browserContextId"].(string)
	if id == "" {
		if ctxID := c.task.ContextID(); ctxID != "" {
			p["browserContextId"] = ctxID
		}
		return nil
	}
	c.mu.Lock()
	mine := c.contexts[id]
	c.mu.Unlock()
	if !mine && id != c.task.ContextID() {
		return fmt.Errorf("browser context %s is not this session's", id)
	}
	return nil
}

// relay takes Chromium's messages for the client's sessions (from the
// connection's reader: it never blocks).
func (c *client) relay(msg *cdproto.Message) {
	switch msg.Method {
	case "Target.attachedToTarget":
		var ev struct {
			SessionID target.SessionID `json:"sessionId"`
		}
		if jsonv2.Unmarshal(msg.Params, &ev) == nil {
			c.mu.Lock()
			c.sessions[ev.SessionID] = ""
			c.mu.Unlock()
		}
	case "Page.frameNavigated":
		c.noteNavigation(msg)
	case "Target.detachedFromTarget":
		var ev struct {
			SessionID target.SessionID `json:"sessionId"`
		}
		if jsonv2.Unmarshal(msg.Params, &ev) == nil {
			c.mu.Lock()
			delete(c.sessions, ev.SessionID)
			c.mu.Unlock()
		}
	}
	b, err := jsonv2.Marshal(msg)
	if err != nil {
		return
	}
	c.out.push(b)
}

// Step is a step of a client's for the task's recording.
type Step struct {
	// Action is "navigate" (a page's main frame committed URL) or
	// "download" (a page's download of URL ended, saved as File unless
	// Failed).
	Action, Target, URL, File string
	Failed                    bool
}

// note queues a step for the recording, never blocking.
func (c *client) note(st Step) {
	select {
	case c.steps <- st:
	default:
	}
}

// noteNavigation queues a page's main-frame navigation for the recording.
func (c *client) noteNavigation(msg *cdproto.Message) {
	var ev struct {
		Frame struct {
			ParentID string `json:"parentId"`
			URL      string `json:"url"`
		} `json:"frame"`
	}
	if jsonv2.Unmarshal(msg.Params, &ev) != nil || ev.Frame.ParentID != "" {
		return
	}
	c.mu.Lock()
	tid := c.sessions[msg.SessionID]
	c.mu.Unlock()
	if tid == "" || tid == browserTarget {
		return // a frame's or a worker's session
	}
	c.note(Step{Action: "navigate", Target: tid, URL: ev.Frame.URL})
}

func (c *client) reply(cmd command, result any) {
	b, err := json.Marshal(result)
	if err != nil {
		c.replyError(cmd, -32603, "browserd: "+err.Error())
		return
	}
	c.send(map[string]any{"id": cmd.ID, "sessionId": cmd.SessionID, "result": json.RawMessage(b)})
}

func (c *client) replyError(cmd command, code int, msg string) {
	c.send(map[string]any{"id": cmd.ID, "sessionId": cmd.SessionID, "error": map[string]any{"code": code, "message": msg}})
}

func (c *client) event(sid target.SessionID, method string, params any) {
	c.send(map[string]any{"method": method, "params": params, "sessionId": string(sid)})
}

func (c *client) send(m map[string]any) {
	if s, _ := m["sessionId"].(string); s == "" {
		delete(m, "sessionId")
	}
	b, err := json.Marshal(m)
	if err != nil {
		return
	}
	c.out.push(b)
}

// detachAll ends the client's sessions: Chromium drops what they set up
// (their interceptions, their enabled domains).
func (c *client) detachAll() {
	c.mu.Lock()
	var top []target.SessionID
	for s := range c.top {
		top = append(top, s)
	}
	c.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	for _, s := range top {
		c.conn.SetRelay(s, nil)
		_ = c.conn.Browser().Call(ctx, "Target.detachFromTarget", map[string]any{"sessionId": s}, nil)
	}
}

// closeContexts disposes of the contexts the client created.
func (c *client) closeContexts(ctx context.Context) {
	c.mu.Lock()
	var ids []string
	for id := range c.contexts {
		ids = append(ids, id)
	}
	c.contexts = map[string]bool{}
	c.mu.Unlock()
	for _, id := range ids {
		_ = c.task.DisposeContext(ctx, id)
	}
}
