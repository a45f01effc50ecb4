// Package live serves people, not agents: a dashboard of an owner's
// sessions and tabs at / on the daemon's HTTP listener, and a live view of
// any of those tabs (Page.startScreencast frames over a WebSocket).
//
// Signing in: `browserd dashboard` asks the daemon (POST /api/dashboard,
// as the caller's owner) for a one-time URL; opening it sets an HttpOnly,
// SameSite=Strict cookie and the code is spent. Another owner's session or
// tab is not found, as in the API. Pages are embedded, with a strict
// content security policy; a WebSocket must come from the dashboard's own
// origin, and a state-changing POST (closing a review tab) must carry the
// dashboard session's CSRF token too.
//
// A call a policy's confirm rule holds (package policy) is listed at the
// top with its arguments (secrets' values redacted); a person approves or
// denies it there.
//
// Read-only share links (share.go) show one session's tabs to whoever has
// the link, without control.
package live

import (
	"context"
	"crypto/subtle"
	"embed"
	"encoding/json"
	"errors"
	"io/fs"
	"log/slog"
	"net/http"
	"strings"

	"github.com/coder/websocket"

	"github.com/browserd/browserd/internal/auth"
	"github.com/browserd/browserd/internal/browser"
	"github.com/browserd/browserd/internal/policy"
	"github.com/browserd/browserd/internal/recording"
	"github.com/browserd/browserd/internal/store"
	"github.com/browserd/browserd/internal/tool"
)

//go:embed assets
var assets embed.FS

// Engine is what the dashboard needs of the engine; ctx carries the owner
// (auth.WithOwner).
type Engine interface {
	Do(ctx context.Context, in tool.Input) (tool.Result, error)
	SessionInfo(ctx context.Context, id string) (tool.SessionInfo, []tool.Tab, error)
	TabPage(ctx context.Context, session, tab string) (*browser.Page, string, error)
	// Hold gives the tab to a person; Release hands it back to the agent.
	Hold(ctx context.Context, session, tab, who string) (*browser.Page, error)
	Release(ctx context.Context, session, tab string)
	// CloseTab closes a tab an ended task left for review.
	CloseTab(ctx context.Context, session, tab string) error
	// TraceEntries and TraceFrame are a task's recording: its steps, and
	// the frame of the page after one.
	TraceEntries(ctx context.Context, session, task string) ([]recording.Entry, error)
	TraceFrame(ctx context.Context, session, task string, seq int) ([]byte, error)
	// PendingConfirms are the calls that wait for a person's approval (a
	// policy's confirm rule); AnswerConfirm approves or denies one.
	PendingConfirms(ctx context.Context) []policy.Pending
	AnswerConfirm(ctx context.Context, id string, approve bool, who string) error
	// OwnerPolicies are the policies the owner's agents run under.
	OwnerPolicies(ctx context.Context) []policy.View
}

// Server is the dashboard and the live view. Close stops its screencasts.
type Server struct {
	eng     Engine
	log     *slog.Logger
	base    string // the dashboard's URL, e.g. http://127.0.0.1:8765
	signins *signins
	shares  *shares
	casts   casts
}

// New returns the dashboard of eng, reachable at base ("" when the daemon
// has no HTTP listener: sign-in URLs are refused then).
func New(eng Engine, base string, log *slog.Logger) *Server {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Server{eng: eng, base: strings.TrimSuffix(base, "/"), log: log, signins: newSignins(), shares: newShares()}
}

// Base is the dashboard's URL, "" when the daemon has no HTTP listener.
func (s *Server) Base() string { return s.base }

// Close stops every live view.
func (s *Server) Close() { s.casts.close() }

// SigninURL is POST /api/dashboard: a one-time URL that signs the caller's
// owner in to the dashboard. Mount it behind auth.Require.
func (s *Server) SigninURL() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.base == "" {
			writeJSON(w, http.StatusConflict, map[string]string{"error": "the daemon has no HTTP listener for the dashboard: start it with --listen HOST:PORT"})
			return
		}
		code := s.signins.code(auth.Owner(r.Context()))
		writeJSON(w, http.StatusOK, map[string]string{"url": s.base + "/dashboard/signin?code=" + code, "expiresIn": codeTTL.String()})
	})
}

// Handler serves the dashboard: / (also at /dashboard) and /dashboard/….
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	static, _ := fs.Sub(assets, "assets")
	mux.HandleFunc("GET /dashboard/signin", s.signin)
	mux.Handle("GET /dashboard/static/", http.StripPrefix("/dashboard/static/", http.FileServerFS(static)))
	mux.HandleFunc("GET /{$}", s.page("dashboard.html"))
	mux.HandleFunc("GET /dashboard", s.page("dashboard.html"))
	mux.HandleFunc("GET /dashboard/{$}", s.page("dashboard.html"))
	mux.HandleFunc("GET /dashboard/live", s.page("live.html"))
	mux.HandleFunc("GET /dashboard/api/sessions", s.signedIn(s.sessions))
	mux.HandleFunc("GET /dashboard/ws", s.signedIn(s.watch))
	mux.HandleFunc("POST /dashboard/api/close", s.signedIn(s.closeTab))
	mux.HandleFunc("POST /dashboard/api/confirm", s.signedIn(s.confirm))
	mux.HandleFunc("GET /dashboard/api/trace", s.signedIn(s.trace))
	mux.HandleFunc("GET /dashboard/api/frame", s.signedIn(s.frame))
	mux.HandleFunc("GET /dashboard/api/picture", s.signedIn(s.picture))
	// Read-only share links: the link's secret is the only credential.
	mux.HandleFunc("GET /dashboard/share/{secret}/{$}", s.shared(func(w http.ResponseWriter, r *http.Request, _ share) { s.serve(w, "live.html") }))
	mux.HandleFunc("GET /dashboard/share/{secret}/tabs", s.shared(s.shareTabs))
	mux.HandleFunc("GET /dashboard/share/{secret}/ws", s.shared(func(w http.ResponseWriter, r *http.Request, sh share) {
		s.watchTab(w, r, sh.Session, r.URL.Query().Get("tab"), true)
	}))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "not found", http.StatusNotFound)
	})
	return headers(mux)
}

// headers adds the security headers every dashboard answer carries.
func headers(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}

// signin spends a one-time code and sets the dashboard cookie.
func (s *Server) signin(w http.ResponseWriter, r *http.Request) {
	id, owner, ok := s.signins.exchange(r.URL.Query().Get("code"))
	if !ok {
		http.Error(w, "this sign-in link is used, expired or wrong: run `browserd dashboard` for a new one", http.StatusForbidden)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: id, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode,
		Secure: r.TLS != nil, MaxAge: int(cookieTTL.Seconds())})
	s.log.Info("dashboard sign-in", "owner", owner)
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// ownerOf is the owner a request's cookie signs in, if any.
func (s *Server) ownerOf(r *http.Request) (string, bool) {
	c, err := r.Cookie(CookieName)
	if err != nil {
		return "", false
	}
	return s.signins.owner(c.Value)
}

// page serves an embedded page to a signed-in person.
func (s *Server) page(name string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if _, ok := s.ownerOf(r); !ok {
			http.Error(w, "not signed in: run `browserd dashboard` and open the URL it prints", http.StatusUnauthorized)
			return
		}
		s.serve(w, name)
	}
}

// serve writes an embedded page.
func (s *Server) serve(w http.ResponseWriter, name string) {
	b, err := assets.ReadFile("assets/" + name)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write(b)
}

// signedIn runs h as the cookie's owner.
func (s *Server) signedIn(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		owner, ok := s.ownerOf(r)
		if !ok {
			writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "not signed in: run `browserd dashboard` and open the URL it prints"})
			return
		}
		// A person, not an agent: no agent's policy holds what the
		// dashboard reads for them (--deny-actions still does).
		ctx := policy.With(auth.WithOwner(r.Context(), owner), &policy.Policy{Source: "a person on the dashboard"})
		h(w, r.WithContext(ctx))
	}
}

// confirm answers a call that waits for a person's approval: POST
// {"id","approve"} with the CSRF header.
func (s *Server) confirm(w http.ResponseWriter, r *http.Request) {
	if !s.csrfOK(r) {
		writeJSON(w, http.StatusForbidden, map[string]string{"error": "refused: a state-changing request must come from the dashboard itself (its CSRF token is missing or wrong); reload the dashboard"})
		return
	}
	var in struct {
		ID      string `json:"id"`
		Approve *bool  `json:"approve"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4096)).Decode(&in); err != nil || in.ID == "" || in.Approve == nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "the body must be JSON like {\"id\": \"c0123456789ab\", \"approve\": true}"})
		return
	}
	who := "a person on the dashboard"
	if err := s.eng.AnswerConfirm(r.Context(), in.ID, *in.Approve, who); err != nil {
		status := http.StatusConflict
		if errors.Is(err, store.ErrNotFound) {
			status = http.StatusNotFound
		}
		writeJSON(w, status, map[string]string{"error": err.Error()})
		return
	}
	s.log.Info("a person answered a call that waited for approval", "id", in.ID, "approve", *in.Approve)
	writeJSON(w, http.StatusOK, map[string]any{"id": in.ID, "approved": *in.Approve})
}

// CSRFHeader carries a dashboard session's CSRF token on its POSTs.
const CSRFHeader = "X-Browserd-Csrf"

func cookieValue(r *http.Request) string {
	c, err := r.Cookie(CookieName)
	if err != nil {
		return ""
	}
	return c.Value
}

// csrfOK checks a state-changing request: it must come from the
// dashboard's own origin (when the browser says where from) and carry
// the token of the cookie's dashboard session.
func (s *Server) csrfOK(r *http.Request) bool {
	if o := r.Header.Get("Origin"); o != "" {
		scheme := "http://"
		if r.TLS != nil {
			scheme = "https://"
		}
		if o != scheme+r.Host {
			return false
		}
	}
	g, ok := s.signins.session(cookieValue(r))
	tok := r.Header.Get(CSRFHeader)
	return ok && tok != "" && subtle.ConstantTimeCompare([]byte(tok), []byte(g.csrf)) == 1
}

// closeTab closes a tab an ended task left for review: POST
// {"session","tab"} with the CSRF header.
func (s *Server) closeTab(w http.ResponseWriter, r *http.Request) {
	if !s.csrfOK(r) {
		writeJSON(w, http.StatusForbidden, map[string]string{"error": "refused: a state-changing request must come from the dashboard itself (its CSRF token is missing or wrong); reload the dashboard"})
		return
	}
	var in struct {
		Session string `json:"session"`
		Tab     string `json:"tab"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4096)).Decode(&in); err != nil || in.Session == "" || in.Tab == "" {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "the body must be JSON like {\"session\": \"s1\", \"tab\": \"t1\"}"})
		return
	}
	if err := s.eng.CloseTab(r.Context(), in.Session, in.Tab); err != nil {
		status := http.StatusConflict
		if errors.Is(err, store.ErrNotFound) {
			status = http.StatusNotFound
		}
		writeJSON(w, status, map[string]string{"error": err.Error()})
		return
	}
	s.log.Info("a person closed a review tab", "session", in.Session, "tab", in.Tab)
	writeJSON(w, http.StatusOK, map[string]string{"closed": in.Tab})
}

// watch streams a tab's screencast over a WebSocket and, once the person
// takes control, carries their mouse and keyboard to the tab.
//
// Server to viewer: {"t":"tab","id"} first (the tab shown: the front
// one when the URL names none); {"t":"frame","w","h"} (the viewport in CSS pixels)
// before each JPEG binary message; {"t":"control","held":bool,"error"} after
// take and release. Viewer to server: "ack" once a frame is drawn (the next
// comes then); {"t":"take"}, {"t":"release"}; and, while holding the tab,
// {"t":"mouse","e":"mousePressed|mouseReleased|mouseMoved","x","y","b","c","m"},
// {"t":"wheel","x","y","dx","dy"}, {"t":"key","e":"keyDown|keyUp","key",
// "code","text","kc","m"} and {"t":"text","text"} (paste, IME), with x and
// y in the page's CSS pixels.
func (s *Server) watch(w http.ResponseWriter, r *http.Request) {
	s.watchTab(w, r, r.URL.Query().Get("session"), r.URL.Query().Get("tab"), false)
}

// watchTab is watch; a read-only viewer (a share link's) cannot take
// control, and its hello says so ("ro": true).
func (s *Server) watchTab(w http.ResponseWriter, r *http.Request, session, tab string, readOnly bool) {
	pg, tab, err := s.eng.TabPage(r.Context(), session, tab) // "" names the front tab
	if err != nil {
		status := http.StatusInternalServerError
		if errors.Is(err, store.ErrNotFound) {
			status = http.StatusNotFound
		}
		writeJSON(w, status, map[string]string{"error": err.Error()})
		return
	}
	// The cookie is SameSite=Strict, and the upgrade must come from the
	// dashboard's own origin (checked by Accept): no other site can open
	// a viewer's socket.
	conn, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	defer conn.CloseNow()
	hello, _ := json.Marshal(map[string]any{"t": "tab", "id": tab, "ro": readOnly}) // the front tab, when none was named
	if conn.Write(r.Context(), websocket.MessageText, hello) != nil {
		return
	}
	key := auth.Owner(r.Context()) + "\x00" + session + "\x00" + tab
	v := s.casts.join(key, pg)
	defer s.casts.leave(v)
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	p := &person{s: s, conn: conn, session: session, tab: tab}
	acks := make(chan struct{}, 1)
	readerDone := make(chan struct{})
	defer func() {
		// The reader owns p: once it has stopped, the tab goes back.
		cancel()
		conn.CloseNow()
		<-readerDone
		p.release(context.WithoutCancel(ctx))
	}()
	go func() {
		defer close(readerDone)
		defer cancel()
		for {
			typ, msg, err := conn.Read(ctx)
			if err != nil {
				return
			}
			if typ != websocket.MessageText {
				continue
			}
			if string(msg) == "ack" {
				select {
				case acks <- struct{}{}:
				default:
				}
				continue
			}
			if !readOnly {
				p.handle(ctx, msg)
			}
		}
	}()
	for {
		f, ok := v.next(ctx)
		if !ok {
			conn.Close(websocket.StatusNormalClosure, "the tab closed")
			return
		}
		meta, _ := json.Marshal(map[string]any{"t": "frame", "w": f.Width, "h": f.Height})
		if conn.Write(ctx, websocket.MessageText, meta) != nil || conn.Write(ctx, websocket.MessageBinary, f.JPEG) != nil {
			return
		}
		select {
		case <-acks:
		case <-ctx.Done():
			return
		}
	}
}

// person is the viewer at the other end of one socket, and the tab they
// may hold.
type person struct {
	s            *Server
	conn         *websocket.Conn
	session, tab string
	page         *browser.Page // set while they hold the tab
}

// input is one message of a viewer (see watch).
type input struct {
	T    string  `json:"t"`
	E    string  `json:"e"`
	X    float64 `json:"x"`
	Y    float64 `json:"y"`
	DX   float64 `json:"dx"`
	DY   float64 `json:"dy"`
	B    string  `json:"b"`
	C    int     `json:"c"`
	M    int     `json:"m"`
	Key  string  `json:"key"`
	Code string  `json:"code"`
	Text string  `json:"text"`
	KC   int     `json:"kc"`
}

func (p *person) handle(ctx context.Context, msg []byte) {
	var in input
	if json.Unmarshal(msg, &in) != nil {
		return
	}
	switch in.T {
	case "take":
		pg, err := p.s.eng.Hold(ctx, p.session, p.tab, "a person at the dashboard")
		reply := map[string]any{"t": "control", "held": err == nil}
		if err != nil {
			reply["error"] = err.Error()
		} else {
			p.page = pg
			p.s.log.Info("a person took control of a tab", "session", p.session, "tab", p.tab)
		}
		b, _ := json.Marshal(reply)
		_ = p.conn.Write(ctx, websocket.MessageText, b)
		return
	case "release":
		p.release(ctx)
		b, _ := json.Marshal(map[string]any{"t": "control", "held": false})
		_ = p.conn.Write(ctx, websocket.MessageText, b)
		return
	}
	if p.page == nil {
		return // input only from the person who holds the tab
	}
	var err error
	switch in.T {
	case "mouse":
		switch in.E {
		case "mousePressed", "mouseReleased", "mouseMoved":
			err = p.page.Mouse(ctx, in.E, in.X, in.Y, in.B, in.C, in.M)
		}
	case "wheel":
		err = p.page.Wheel(ctx, in.X, in.Y, in.DX, in.DY)
	case "key":
		switch in.E {
		case "keyDown", "keyUp":
			err = p.page.Key(ctx, in.E, in.Key, in.Code, in.Text, in.KC, in.M)
		}
	case "text":
		if in.Text != "" {
			err = p.page.InsertText(ctx, in.Text)
		}
	}
	if err != nil {
		p.s.log.Debug("a person's input did not reach the tab", "err", err)
	}
}

// release hands the tab back if this person holds it.
func (p *person) release(ctx context.Context) {
	if p.page == nil {
		return
	}
	p.page = nil
	p.s.eng.Release(ctx, p.session, p.tab)
	p.s.log.Info("a person handed a tab back", "session", p.session, "tab", p.tab)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
