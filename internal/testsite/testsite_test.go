package testsite

import (
	"bytes"
	"context"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// newClient returns a client with its own transport and cookie jar; its idle
// connections are closed when the test ends so goleak sees no leftovers.
func newClient(t *testing.T) *http.Client {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Jar: jar, Timeout: 30 * time.Second}
}

func startSite(t *testing.T) *Site {
	t.Helper()
	s := Start()
	t.Cleanup(s.Close)
	return s
}

func get(t *testing.T, c *http.Client, u string) (*http.Response, string) {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: read body: %v", u, err)
	}
	return resp, string(b)
}

var titleRE = regexp.MustCompile(`<title>([^<]*)</title>`)

func TestPages(t *testing.T) {
	s := startSite(t)
	c := newClient(t)
	tests := []struct {
		path, title string
		contains    []string
	}{
		{"/", "browserd test site", []string{`href="/form"`, `href="/big-html"`}},
		{"/form", "Sign up", []string{`id="name"`, `value="jp">Japan`, `id="result" role="status"`, "Sign up</button>", "disabled>Disabled"}},
		{"/login", "Log in", []string{`name="username"`, "Log in</button>"}},
		{"/account", "Account", []string{"Not logged in", `href="/login"`}},
		{"/table", "Users table", []string{"<caption>Users</caption>", "user1000@example.com", "<td>inactive</td>"}},
		{"/table?rows=5", "Users table", []string{"user5@example.com"}},
		{"/catalog", "Large page", []string{"<h1>Large catalog</h1>", `data-i="1000">Add 1000</button>`, "$79.19"}},
		{"/lists", "Lists", []string{`href="#settings" aria-current="page"`, `<a href="#m200">Message 200</a>`}},
		{"/frames", "Frames", []string{`title="Inner same" src="/frame-inner"`, `src="` + s.OtherURL("/frame-inner") + `"`}},
		{"/frame-inner", "Inner frame", []string{"Inner button", "Inner input"}},
		{"/shadow", "Shadow DOM", []string{"attachShadow", "Shadow button"}},
		{"/clickable", "Clickable", []string{"Div with pointer", "Span with onclick", "Anchor without href", `aria-label="Cookie consent"`, "Covered button"}},
		{"/dialogs", "Dialogs", []string{"hello alert", "sure?"}},
		{"/dialogs?onload=1", "Dialogs", []string{"onload alert"}},
		{"/upload", "Upload", []string{`type="file"`, `aria-label="File"`}},
		{"/download", "Download", []string{`href="/files/report.csv"`, "Download report"}},
		{"/popup", "Popup", []string{"window.open('/popup-child')", `target="_blank"`}},
		{"/popup-child", "Popup child", []string{"<h1>Child</h1>"}},
		{"/console?n=5", "Console", []string{"console.error('boom')", "Console done"}},
		{"/slow?ms=10", "Slow", []string{"Responded after 10 ms"}},
		{"/wait", "Wait", []string{"Late text", "Loading…", "#done"}},
		{"/scroll", "Scroll", []string{`aria-label="Scroller"`, "Item 100", "Bottom"}},
		{"/hover", "Hover", []string{"Hover me", "mouseover"}},
		{"/keys", "Keys", []string{`id="keys"`, "keydown"}},
		{"/spa", "Single-page app", []string{"Add item", "Remove first"}},
		{"/redirect?to=/popup-child", "Popup child", nil},
		{"/cookies", "Cookies", []string{`id="server"`}},
		{"/cookies/set?name=a&value=b", "Cookie set", []string{"set a=b"}},
		{"/big-html", "Big article", []string{"Topic 30", "Paragraph 100.", "<footer>"}},
		{"/timer-state?ms=10&v=x", "Timer state", []string{`id="status"`, "document.cookie = 'timer='"}},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			resp, body := get(t, c, s.URL(tt.path))
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("status %d", resp.StatusCode)
			}
			if got := resp.Header.Get("Cache-Control"); got != "no-store" {
				t.Errorf("Cache-Control = %q", got)
			}
			m := titleRE.FindStringSubmatch(body)
			if m == nil || m[1] != tt.title {
				t.Errorf("title = %v, want %q", m, tt.title)
			}
			for _, want := range tt.contains {
				if !strings.Contains(body, want) {
					t.Errorf("body does not contain %q", want)
				}
			}
		})
	}
	// Every index link resolves.
	for _, l := range indexLinks {
		if resp, _ := get(t, c, s.URL(l.Path)); resp.StatusCode != http.StatusOK {
			t.Errorf("index link %s: status %d", l.Path, resp.StatusCode)
		}
	}
	// The other origin serves the inner frame, on localhost.
	if !strings.HasPrefix(s.OtherURL("/x"), "http://localhost:") || !strings.HasPrefix(s.URL("/x"), "http://127.0.0.1:") {
		t.Errorf("URL = %s, OtherURL = %s", s.URL("/x"), s.OtherURL("/x"))
	}
	resp, body := get(t, c, s.OtherURL("/frame-inner"))
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "<title>Inner frame</title>") {
		t.Errorf("other /frame-inner: status %d", resp.StatusCode)
	}
	if resp, _ := get(t, c, s.URL("/nope")); resp.StatusCode != http.StatusNotFound {
		t.Errorf("/nope: status %d", resp.StatusCode)
	}
	if resp, _ := get(t, c, s.URL("/table?rows=x")); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("/table?rows=x: status %d", resp.StatusCode)
	}
	if _, body := get(t, c, s.URL("/table")); strings.Count(body, ">Edit</button>") != 1000 {
		t.Errorf("/table: %d Edit buttons", strings.Count(body, ">Edit</button>"))
	}
}

func TestLogin(t *testing.T) {
	s := startSite(t)
	c := newClient(t)
	var redirects []string
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		redirects = append(redirects, req.URL.Path)
		return nil
	}
	resp, err := c.PostForm(s.URL("/login"), url.Values{"username": {"alice"}, "password": {"pw"}})
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if len(redirects) != 1 || redirects[0] != "/account" {
		t.Errorf("redirects = %v", redirects)
	}
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "Logged in as alice") {
		t.Fatalf("status %d, body:\n%s", resp.StatusCode, body)
	}
	if !strings.Contains(string(body), `var user = "alice";`) {
		t.Errorf("account script does not carry the user:\n%s", body)
	}
	u, _ := url.Parse(s.URL("/"))
	got := map[string]string{}
	for _, ck := range c.Jar.Cookies(u) {
		got[ck.Name] = ck.Value
	}
	if got["sid"] == "" || got["pref"] != "dark" {
		t.Errorf("cookies = %v", got)
	}

	// Inspect the raw Set-Cookie headers.
	nc := &http.Client{Transport: c.Transport, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err = nc.PostForm(s.URL("/login"), url.Values{"username": {"bob"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/account" {
		t.Errorf("POST /login: %d %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	for _, ck := range resp.Cookies() {
		switch ck.Name {
		case "sid":
			if !ck.HttpOnly || ck.MaxAge != 0 || !ck.Expires.IsZero() {
				t.Errorf("sid cookie = %+v", ck)
			}
		case "pref":
			if ck.MaxAge != 86400 {
				t.Errorf("pref cookie = %+v", ck)
			}
		}
	}
	if n := len(resp.Cookies()); n != 2 {
		t.Errorf("%d cookies set", n)
	}

	// A bogus session is not logged in.
	req, _ := http.NewRequest("GET", s.URL("/account"), nil)
	req.AddCookie(&http.Cookie{Name: "sid", Value: "bogus"})
	resp, err = nc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), "Not logged in") {
		t.Errorf("bogus sid: %s", body)
	}
}

func TestDownload(t *testing.T) {
	s := startSite(t)
	resp, body := get(t, newClient(t), s.URL("/files/report.csv"))
	if cd := resp.Header.Get("Content-Disposition"); cd != `attachment; filename="report.csv"` {
		t.Errorf("Content-Disposition = %q", cd)
	}
	if !strings.HasPrefix(body, "id,name,email,status\n") {
		t.Errorf("body = %q", body)
	}
}

func TestUpload(t *testing.T) {
	s := startSite(t)
	c := newClient(t)
	if _, _, ok := s.LastUpload(); ok {
		t.Fatal("LastUpload ok before any upload")
	}
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	fw, err := mw.CreateFormFile("file", "hello.txt")
	if err != nil {
		t.Fatal(err)
	}
	content := []byte("hello, upload\n")
	fw.Write(content)
	mw.Close()
	resp, err := c.Post(s.URL("/upload"), mw.FormDataContentType(), &buf)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if want := "received hello.txt 14 bytes"; string(body) != want {
		t.Errorf("response = %q, want %q", body, want)
	}
	name, got, ok := s.LastUpload()
	if !ok || name != "hello.txt" || !bytes.Equal(got, content) {
		t.Errorf("LastUpload = %q %q %v", name, got, ok)
	}
}

func TestCookies(t *testing.T) {
	s := startSite(t)
	c := newClient(t)
	resp, _ := get(t, c, s.URL("/cookies/set?name=session1&value=v1"))
	for _, ck := range resp.Cookies() {
		if ck.MaxAge != 0 || !ck.Expires.IsZero() {
			t.Errorf("session cookie has lifetime: %+v", ck)
		}
	}
	resp, _ = get(t, c, s.URL("/cookies/set?name=keep&value=v2&maxAge=3600"))
	if ck := resp.Cookies(); len(ck) != 1 || ck[0].MaxAge != 3600 {
		t.Errorf("cookies = %+v", ck)
	}
	_, body := get(t, c, s.URL("/cookies"))
	if !strings.Contains(body, "session1=v1") || !strings.Contains(body, "keep=v2") {
		t.Errorf("/cookies body:\n%s", body)
	}
}

func TestSlowClientGoesAway(t *testing.T) {
	s := startSite(t)
	c := newClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", s.URL("/slow?ms=60000"), nil)
	start := time.Now()
	if resp, err := c.Do(req); err == nil {
		resp.Body.Close()
		t.Fatal("slow request did not time out")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
}

func TestCloseEndsSlowRequest(t *testing.T) {
	s := Start()
	c := newClient(t)
	errc := make(chan error, 1)
	go func() {
		resp, err := c.Get(s.URL("/slow?ms=60000"))
		if err == nil {
			resp.Body.Close()
		}
		errc <- err
	}()
	time.Sleep(100 * time.Millisecond)
	start := time.Now()
	s.Close()
	s.Close() // idempotent
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Close took %v", d)
	}
	<-errc
}
