// Package testsite serves the pages browserd's end-to-end tests and
// benchmarks drive.
//
// A Site runs two httptest servers on loopback. Main is addressed as
// http://127.0.0.1:PORT and Other as http://localhost:PORT2, so the two are
// different sites and an iframe from Other embedded in a Main page runs out
// of process in Chromium. Both servers serve the same pages.
//
// The pages are small, accessible HTML documents with inline JavaScript and
// CSS: a sign-up form, a login flow with cookies and web storage, a large
// table, same- and cross-site frames, shadow DOM, elements clickable without
// ARIA roles, JavaScript dialogs, file upload and download, popups, console
// floods, slow responses, delayed DOM changes, scrolling, hovering, key
// presses, a single-page app, redirects, cookies, a content-heavy article
// and a page of links marked current (aria-current) with a long list.
// The index page at "/" links to every page. Every response but the order
// page's carries Cache-Control: no-store.
package testsite

import (
	"bytes"
	"crypto/rand"
	"embed"
	"encoding/hex"
	"fmt"
	"html/template"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

//go:embed pages/*.html
var pagesFS embed.FS

// conformanceFS holds the conformance corpus: one self-contained page per
// widget pattern or hard case, served as is at /c/NAME (see conformance.go).
//
//go:embed conformance/*.html
var conformanceFS embed.FS

var pages = template.Must(template.ParseFS(pagesFS, "pages/*.html"))

// maxUpload bounds the size of a file accepted by POST /upload.
const maxUpload = 64 << 20

// maxTableRows bounds /table?rows=N.
const maxTableRows = 200000

// maxSlow bounds /slow?ms=N.
const maxSlow = 10 * time.Minute

// Site is a running test web site: two loopback HTTP servers serving the same
// pages from two different sites.
type Site struct {
	// Main serves the pages on http://127.0.0.1:PORT.
	Main *httptest.Server
	// Other serves the same pages on a second port, addressed as
	// http://localhost:PORT2 so that it is cross-site from Main.
	Other *httptest.Server

	done      chan struct{} // closed by Close; ends pending /slow responses
	closeOnce sync.Once

	mu         sync.Mutex
	sessions   map[string]string // sid cookie value -> user name
	uploadName string
	uploadBody []byte
	uploaded   bool

	orderRenamed atomic.Bool // see order.go
}

// Start starts both servers and returns the running site. Call Close when
// done with it.
func Start() *Site {
	s := &Site{
		done:     make(chan struct{}),
		sessions: make(map[string]string),
	}
	h := s.handler()
	s.Main = httptest.NewServer(h)
	s.Other = httptest.NewServer(h)
	return s
}

// Close ends pending slow responses and shuts down both servers, waiting for
// their handlers to return.
func (s *Site) Close() {
	s.closeOnce.Do(func() {
		close(s.done)
		s.Main.Close()
		s.Other.Close()
	})
}

// URL returns the absolute URL of path on the main site,
// "http://127.0.0.1:PORT" + path.
func (s *Site) URL(path string) string {
	return s.Main.URL + path
}

// OtherURL returns the absolute URL of path on the other site,
// "http://localhost:PORT2" + path.
func (s *Site) OtherURL(path string) string {
	_, port, err := net.SplitHostPort(s.Other.Listener.Addr().String())
	if err != nil {
		panic(err)
	}
	return "http://localhost:" + port + path
}

// LastUpload returns the name and contents of the file most recently posted
// to /upload on either server. ok is false if nothing was uploaded yet.
func (s *Site) LastUpload() (name string, body []byte, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.uploadName, bytes.Clone(s.uploadBody), s.uploaded
}

// pageLink is one entry of the index page.
type pageLink struct {
	Path, Text string
}

// indexLinks lists every page, in the order the index shows them.
var indexLinks = []pageLink{
	{"/form", "Form"},
	{"/login", "Login"},
	{"/account", "Account"},
	{"/table", "Table"},
	{"/catalog", "Catalog"},
	{"/lists", "Lists"},
	{"/frames", "Frames"},
	{"/shadow", "Shadow DOM"},
	{"/clickable", "Clickable"},
	{"/dialogs", "Dialogs"},
	{"/upload", "Upload"},
	{"/download", "Download"},
	{"/popup", "Popup"},
	{"/console", "Console"},
	{"/slow?ms=200", "Slow"},
	{"/wait", "Wait"},
	{"/scroll", "Scroll"},
	{"/hover", "Hover"},
	{"/keys", "Keys"},
	{"/spa", "Single-page app"},
	{"/redirect?to=/form", "Redirect"},
	{"/cookies", "Cookies"},
	{"/big-html", "Big HTML"},
	{"/ticker", "Ticker"},
	{"/changes", "Changes"},
	{"/timer-state", "Timer state"},
	{"/network", "Network"},
	{"/order", "Order"},
	{"/c/", "Conformance corpus"},
}

func (s *Site) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		render(w, "index.html", indexLinks)
	})
	mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	})
	for _, name := range []string{
		"form", "frame-inner", "shadow", "clickable", "dialogs", "upload",
		"download", "popup", "popup-child", "console", "wait", "scroll",
		"hover", "keys", "spa", "ticker", "changes", "timer-state", "canvas", "late-image", "after-load",
	} {
		mux.HandleFunc("GET /"+name, func(w http.ResponseWriter, r *http.Request) {
			render(w, name+".html", nil)
		})
	}
	mux.HandleFunc("GET /login", func(w http.ResponseWriter, r *http.Request) {
		render(w, "login.html", nil)
	})
	mux.HandleFunc("POST /login", s.postLogin)
	mux.HandleFunc("GET /account", s.account)
	mux.HandleFunc("GET /table", tablePage)
	mux.HandleFunc("GET /catalog", catalogPage)
	mux.HandleFunc("GET /lists", func(w http.ResponseWriter, r *http.Request) {
		render(w, "lists.html", listItems)
	})
	mux.HandleFunc("GET /frames", func(w http.ResponseWriter, r *http.Request) {
		render(w, "frames.html", map[string]string{"Cross": s.OtherURL("/frame-inner")})
	})
	mux.HandleFunc("GET /auth/basic", basicAuth)
	networkPages(mux)
	s.orderPages(mux)
	mux.HandleFunc("GET /c/{$}", conformanceIndex)
	mux.HandleFunc("GET /c/{name}", s.conformancePage)
	mux.HandleFunc("GET /tp/{name}", thirdPartyPage)
	mux.Handle("GET /tp/assets/", thirdPartyAssets())
	mux.HandleFunc("POST /upload", s.postUpload)
	mux.HandleFunc("GET /files/report.csv", reportCSV)
	// The same file, its answer held back: a download that begins after
	// the click's page has settled.
	mux.HandleFunc("GET /files/late-report.csv", func(w http.ResponseWriter, r *http.Request) {
		t := time.NewTimer(1200 * time.Millisecond)
		defer t.Stop()
		select {
		case <-r.Context().Done():
			return
		case <-t.C:
		}
		reportCSV(w, r)
	})
	mux.HandleFunc("GET /slow", s.slow)
	mux.HandleFunc("GET /redirect", func(w http.ResponseWriter, r *http.Request) {
		to := r.URL.Query().Get("to")
		if to == "" {
			to = "/"
		}
		http.Redirect(w, r, to, http.StatusFound)
	})
	mux.HandleFunc("GET /cookies", func(w http.ResponseWriter, r *http.Request) {
		render(w, "cookies.html", r.Header.Get("Cookie"))
	})
	mux.HandleFunc("GET /cookies/set", setCookie)
	mux.HandleFunc("GET /big-html", bigHTML)
	return noStore(mux)
}

// noStore marks every response as not cacheable.
func noStore(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The back/forward cache pages must be cacheable: no-store keeps a
		// page out of Chromium's back/forward cache. The order page is
		// served as most sites serve a page, with Last-Modified and no
		// Cache-Control (order.go): a browser may keep it.
		if !strings.HasPrefix(r.URL.Path, "/c/bfcache") && r.URL.Path != "/order" {
			w.Header().Set("Cache-Control", "no-store")
		}
		h.ServeHTTP(w, r)
	})
}

// render executes the named page template into w as a 200 HTML response.
func render(w http.ResponseWriter, name string, data any) {
	renderStatus(w, http.StatusOK, name, data)
}

// renderStatus executes the named page template into w as an HTML response
// with the given status code.
func renderStatus(w http.ResponseWriter, code int, name string, data any) {
	var buf bytes.Buffer
	if err := pages.ExecuteTemplate(&buf, name, data); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(code)
	w.Write(buf.Bytes())
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

func (s *Site) postLogin(w http.ResponseWriter, r *http.Request) {
	user := strings.TrimSpace(r.PostFormValue("username"))
	if user == "" {
		renderStatus(w, http.StatusBadRequest, "login.html", map[string]string{"Error": "Username is required"})
		return
	}
	sid := randomHex(16)
	s.mu.Lock()
	s.sessions[sid] = user
	s.mu.Unlock()
	http.SetCookie(w, &http.Cookie{Name: "sid", Value: sid, Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode})
	http.SetCookie(w, &http.Cookie{Name: "pref", Value: "dark", Path: "/", MaxAge: 24 * 60 * 60, SameSite: http.SameSiteLaxMode})
	http.Redirect(w, r, "/account", http.StatusSeeOther)
}

// Forget ends every login of user on the site, as a server that expires
// its sessions does: their sid cookies no longer log anyone in. It
// returns how many it ended.
func (s *Site) Forget(user string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for sid, u := range s.sessions {
		if u == user {
			delete(s.sessions, sid)
			n++
		}
	}
	return n
}

func (s *Site) account(w http.ResponseWriter, r *http.Request) {
	var user string
	if c, err := r.Cookie("sid"); err == nil {
		s.mu.Lock()
		user = s.sessions[c.Value]
		s.mu.Unlock()
	}
	render(w, "account.html", map[string]any{"User": user, "LoggedIn": user != ""})
}

// listItems number the messages of /lists: a list long enough that a
// snapshot summarises it.
var listItems = func() []int {
	out := make([]int, 200)
	for i := range out {
		out[i] = i + 1
	}
	return out
}()

type tableRow struct {
	I      int
	Status string
}

func tablePage(w http.ResponseWriter, r *http.Request) {
	n := 1000
	if v := r.URL.Query().Get("rows"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 0 || n > maxTableRows {
			http.Error(w, "rows must be an integer between 0 and "+strconv.Itoa(maxTableRows), http.StatusBadRequest)
			return
		}
	}
	rows := make([]tableRow, n)
	for i := range rows {
		rows[i] = tableRow{I: i + 1, Status: "active"}
		if i%2 == 1 {
			rows[i].Status = "inactive"
		}
	}
	render(w, "table.html", rows)
}

func (s *Site) postUpload(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxUpload+1<<20)
	f, hdr, err := r.FormFile("file")
	if err != nil {
		http.Error(w, "no file: "+err.Error(), http.StatusBadRequest)
		return
	}
	defer f.Close()
	body, err := io.ReadAll(io.LimitReader(f, maxUpload+1))
	if err != nil || len(body) > maxUpload {
		http.Error(w, "upload too large or unreadable", http.StatusRequestEntityTooLarge)
		return
	}
	if r.MultipartForm != nil {
		r.MultipartForm.RemoveAll()
	}
	s.mu.Lock()
	s.uploadName, s.uploadBody, s.uploaded = hdr.Filename, body, true
	s.mu.Unlock()
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	fmt.Fprintf(w, "received %s %d bytes", hdr.Filename, len(body))
}

// reportCSVBody is the content of /files/report.csv.
const reportCSVBody = "id,name,email,status\n1,User 1,user1@example.com,active\n2,User 2,user2@example.com,inactive\n3,User 3,user3@example.com,active\n"

func reportCSV(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="report.csv"`)
	w.Header().Set("Content-Length", strconv.Itoa(len(reportCSVBody)))
	io.WriteString(w, reportCSVBody)
}

func (s *Site) slow(w http.ResponseWriter, r *http.Request) {
	ms, err := strconv.Atoi(r.URL.Query().Get("ms"))
	if err != nil || ms < 0 {
		ms = 0
	}
	d := min(time.Duration(ms)*time.Millisecond, maxSlow)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-r.Context().Done():
		return
	case <-s.done:
		return
	}
	render(w, "slow.html", ms)
}

func setCookie(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	name, value := q.Get("name"), q.Get("value")
	c := &http.Cookie{Name: name, Value: value, Path: "/"}
	if v := q.Get("maxAge"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			http.Error(w, "bad maxAge", http.StatusBadRequest)
			return
		}
		c.MaxAge = n
		if n == 0 {
			c.MaxAge = -1 // delete now
		}
	}
	if err := c.Valid(); err != nil {
		http.Error(w, "bad cookie: "+err.Error(), http.StatusBadRequest)
		return
	}
	http.SetCookie(w, c)
	render(w, "cookie-set.html", c)
}

// bigText builds the text of the i-th paragraph of /big-html's article.
func bigText(i int) string {
	sentences := []string{
		"The browser server keeps a pool of headless Chromium tabs warm so that agents can act without waiting for a cold start.",
		"Every page is reduced to an accessibility snapshot, a compact outline of roles, names and states that a language model can read quickly.",
		"Interactive elements receive short references that remain stable while the document changes around them.",
		"Network requests, console messages and dialogs are recorded so that the agent can explain what happened after each action.",
		"Cookies and storage can be saved and restored, which lets a long task survive a restart of the browser process.",
		"Frames from other sites run in their own renderer processes, and the server stitches their trees into one snapshot.",
		"Scrolling, hovering and typing are performed with real input events rather than synthetic script calls.",
		"A careful agent waits for the page to settle before it reads the result of a click or a form submission.",
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Paragraph %d. ", i)
	for j := range 4 {
		if j > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(sentences[(i*3+j)%len(sentences)])
	}
	return b.String()
}

type bigParagraph struct {
	N    int
	Text string
}

type bigSection struct {
	N          int
	Paragraphs []bigParagraph
}

func bigHTML(w http.ResponseWriter, r *http.Request) {
	var nav []int
	for i := 1; i <= 30; i++ {
		nav = append(nav, i)
	}
	var sections []bigSection
	p := 1
	for n := 1; n <= 10; n++ {
		sec := bigSection{N: n}
		for range 10 {
			sec.Paragraphs = append(sec.Paragraphs, bigParagraph{N: p, Text: bigText(p)})
			p++
		}
		sections = append(sections, sec)
	}
	render(w, "big-html.html", map[string]any{"Nav": nav, "Sections": sections})
}

// BasicUser and BasicPassword open /auth/basic, which asks for HTTP basic
// authentication.
const (
	BasicUser     = "ann"
	BasicPassword = "s3cret pass"
)

func basicAuth(w http.ResponseWriter, r *http.Request) {
	u, p, ok := r.BasicAuth()
	if !ok || u != BasicUser || p != BasicPassword {
		w.Header().Set("WWW-Authenticate", `Basic realm="members"`)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = io.WriteString(w, "<!doctype html><title>Unauthorized</title><h1>401: sign in needed</h1>")
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = io.WriteString(w, "<!doctype html><title>Members</title><h1>Welcome, "+u+"</h1>")
}

// networkPages serve /network, whose requests the network log lists: a
// script, a missing image, a POST answered 500, a redirect, a cookie, and
// a fetch the guard refuses.
func networkPages(mux *http.ServeMux) {
	mux.HandleFunc("GET /network", func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "sid", Value: "s3cr3t-cookie", Path: "/", HttpOnly: true})
		render(w, "network.html", nil)
	})
	mux.HandleFunc("GET /net/app.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		fmt.Fprint(w, "window.appLoaded = true;")
	})
	mux.HandleFunc("POST /net/api", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprint(w, `{"error":"the cart is empty"}`)
	})
	mux.HandleFunc("GET /net/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/net/data.json", http.StatusFound)
	})
	mux.HandleFunc("GET /net/data.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"items":3}`)
	})
}
