package network

import (
	"encoding/base64"
	"encoding/json"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/browserd/browserd/internal/browser"
)

// HAROptions describe the HAR a tab's log becomes.
type HAROptions struct {
	Version  string // browserd's, for the creator
	PageURL  string
	Title    string
	Redact   bool
	Bodies   map[string]Body // response bodies by request id, when read
	Redactor func(string) string
}

// HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/), the fields
// Chrome DevTools writes and reads; _resourceType and _error are DevTools'
// own.
type harFile struct {
	Log harLog `json:"log"`
}

type harLog struct {
	Version string     `json:"version"`
	Creator harCreator `json:"creator"`
	Pages   []harPage  `json:"pages"`
	Entries []harEntry `json:"entries"`
}

type harCreator struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

type harPage struct {
	StartedDateTime string         `json:"startedDateTime"`
	ID              string         `json:"id"`
	Title           string         `json:"title"`
	PageTimings     map[string]int `json:"pageTimings"`
}

type harEntry struct {
	PageRef         string      `json:"pageref"`
	StartedDateTime string      `json:"startedDateTime"`
	Time            float64     `json:"time"`
	Request         harRequest  `json:"request"`
	Response        harResponse `json:"response"`
	Cache           struct{}    `json:"cache"`
	Timings         harTimings  `json:"timings"`
	ServerIPAddress string      `json:"serverIPAddress,omitempty"`
	ResourceType    string      `json:"_resourceType"`
	Error           string      `json:"_error,omitempty"`
}

type harNV struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type harRequest struct {
	Method      string       `json:"method"`
	URL         string       `json:"url"`
	HTTPVersion string       `json:"httpVersion"`
	Cookies     []harNV      `json:"cookies"`
	Headers     []harNV      `json:"headers"`
	QueryString []harNV      `json:"queryString"`
	PostData    *harPostData `json:"postData,omitempty"`
	HeadersSize int          `json:"headersSize"`
	BodySize    int          `json:"bodySize"`
}

type harPostData struct {
	MimeType string `json:"mimeType"`
	Text     string `json:"text"`
}

type harResponse struct {
	Status      int        `json:"status"`
	StatusText  string     `json:"statusText"`
	HTTPVersion string     `json:"httpVersion"`
	Cookies     []harNV    `json:"cookies"`
	Headers     []harNV    `json:"headers"`
	Content     harContent `json:"content"`
	RedirectURL string     `json:"redirectURL"`
	HeadersSize int        `json:"headersSize"`
	BodySize    int64      `json:"bodySize"`
	TransferSz  int64      `json:"_transferSize"`
}

type harContent struct {
	Size     int64  `json:"size"`
	MimeType string `json:"mimeType"`
	Text     string `json:"text,omitempty"`
	Encoding string `json:"encoding,omitempty"`
}

type harTimings struct {
	Blocked float64 `json:"blocked"`
	DNS     float64 `json:"dns"`
	Connect float64 `json:"connect"`
	Send    float64 `json:"send"`
	Wait    float64 `json:"wait"`
	Receive float64 `json:"receive"`
	SSL     float64 `json:"ssl"`
}

// HAR is the tab's log as HAR 1.2, one page, in the log's order.
func HAR(reqs []browser.Request, opt HAROptions) ([]byte, error) {
	red := func(s string) string {
		if opt.Redactor != nil {
			return opt.Redactor(s)
		}
		return s
	}
	started := time.Now()
	if len(reqs) > 0 {
		started = reqs[0].Started
	}
	f := harFile{Log: harLog{
		Version: "1.2",
		Creator: harCreator{Name: "browserd", Version: opt.Version},
		Pages: []harPage{{StartedDateTime: stamp(started), ID: "page_1", Title: red(firstNonEmpty(opt.Title, opt.PageURL)),
			PageTimings: map[string]int{"onContentLoad": -1, "onLoad": -1}}},
		Entries: make([]harEntry, 0, len(reqs)),
	}}
	for i := range reqs {
		f.Log.Entries = append(f.Log.Entries, entry(&reqs[i], opt, red))
	}
	return json.MarshalIndent(f, "", "  ")
}

func entry(r *browser.Request, opt HAROptions, red func(string) string) harEntry {
	u := r.URL
	if opt.Redact {
		u = RedactURL(u)
	}
	e := harEntry{
		PageRef: "page_1", StartedDateTime: stamp(r.Started),
		ServerIPAddress: r.RemoteIP, ResourceType: strings.ToLower(r.Type),
		Request: harRequest{
			Method: r.Method, URL: red(u), HTTPVersion: httpVersion(r.Protocol),
			Cookies: cookies(headerValue(r.ReqHeaders, "cookie"), false, opt.Redact, red),
			Headers: nvs(r.ReqHeaders, opt.Redact, red), QueryString: query(u, red),
			HeadersSize: -1,
		},
		Response: harResponse{
			Status: r.Status, StatusText: r.StatusText, HTTPVersion: httpVersion(r.Protocol),
			Cookies:     cookies(headerValue(r.RespHeaders, "set-cookie"), true, opt.Redact, red),
			Headers:     nvs(r.RespHeaders, opt.Redact, red),
			Content:     harContent{MimeType: firstNonEmpty(r.MimeType, "x-unknown")},
			HeadersSize: -1, BodySize: -1, TransferSz: r.Bytes,
		},
	}
	if r.RedirectTo != "" && r.Status >= 300 && r.Status < 400 {
		e.Response.RedirectURL = red(r.RedirectTo)
	}
	if r.PostData != "" {
		text := r.PostData
		mt := headerValue(r.ReqHeaders, "content-type")
		if opt.Redact {
			text = RedactBody(mt, text)
		}
		e.Request.PostData = &harPostData{MimeType: mt, Text: red(text)}
		e.Request.BodySize = len(r.PostData)
	}
	switch {
	case r.Refused != "":
		e.Error = "refused by browserd's guard: " + r.Refused
	case r.Failed != "":
		e.Error = r.Failed
	}
	if b, ok := opt.Bodies[r.ID]; ok && b.Err == nil {
		e.Response.Content.Size = int64(len(b.Data))
		if b.Binary {
			// A secret in a binary body is replaced too (the body then no
			// longer decodes as it was).
			data := b.Data
			if opt.Redactor != nil {
				data = []byte(red(string(data)))
			}
			e.Response.Content.Text, e.Response.Content.Encoding = base64.StdEncoding.EncodeToString(data), "base64"
		} else {
			e.Response.Content.Text = red(string(b.Data))
		}
	} else if r.Bytes > 0 {
		e.Response.Content.Size = r.Bytes
	}
	e.Timings, e.Time = timings(r)
	return e
}

// timings splits the request's time as DevTools' HAR export does; the
// parts that did not happen are -1 (send, wait and receive never are).
func timings(r *browser.Request) (harTimings, float64) {
	total := float64(r.Duration) / float64(time.Millisecond)
	t := harTimings{Blocked: -1, DNS: -1, Connect: -1, SSL: -1}
	tm := r.Timing
	if tm == nil || r.FromCache {
		t.Wait = max(total, 0)
		return t, t.Wait
	}
	span := func(a, b float64) float64 {
		if a < 0 || b < a {
			return -1
		}
		return b - a
	}
	queued := float64(r.Queued) / float64(time.Millisecond)
	first := tm.SendStart
	for _, x := range []float64{tm.ConnectStart, tm.DNSStart} {
		if x >= 0 {
			first = x
		}
	}
	t.Blocked = queued + max(first, 0)
	t.DNS = span(tm.DNSStart, tm.DNSEnd)
	t.Connect = span(tm.ConnectStart, tm.ConnectEnd)
	t.SSL = span(tm.SSLStart, tm.SSLEnd)
	t.Send = max(span(tm.SendStart, tm.SendEnd), 0)
	t.Wait = max(span(tm.SendEnd, tm.ReceiveHeadersEnd), 0)
	sum := t.Blocked + max(t.DNS, 0) + max(t.Connect, 0) + t.Send + t.Wait
	t.Receive = max(total-sum, 0)
	return t, sum + t.Receive
}

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

func firstNonEmpty(a ...string) string {
	for _, s := range a {
		if s != "" {
			return s
		}
	}
	return ""
}

func httpVersion(protocol string) string {
	switch strings.ToLower(protocol) {
	case "h2":
		return "HTTP/2.0"
	case "h3", "http/3", "quic":
		return "HTTP/3"
	case "http/1.0":
		return "HTTP/1.0"
	case "http/1.1":
		return "HTTP/1.1"
	}
	return protocol
}

func nvs(hs []browser.Header, redact bool, red func(string) string) []harNV {
	if redact {
		hs = RedactHeaders(hs)
	}
	out := make([]harNV, 0, len(hs))
	for _, h := range hs {
		for _, v := range strings.Split(h.Value, "\n") {
			out = append(out, harNV{h.Name, red(v)})
		}
	}
	return out
}

// cookies lists a Cookie header's pairs, or a Set-Cookie header's cookies
// (a line each), values redacted when asked.
func cookies(header string, set, redact bool, red func(string) string) []harNV {
	out := []harNV{}
	if header == "" {
		return out
	}
	var pairs []string
	if set {
		for _, line := range strings.Split(header, "\n") {
			pairs = append(pairs, strings.SplitN(line, ";", 2)[0])
		}
	} else {
		pairs = strings.Split(header, ";")
	}
	for _, p := range pairs {
		name, value, _ := strings.Cut(strings.TrimSpace(p), "=")
		if name == "" {
			continue
		}
		if redact {
			value = Redacted
		}
		out = append(out, harNV{name, red(value)})
	}
	return out
}

func query(u string, red func(string) string) []harNV {
	out := []harNV{}
	pu, err := url.Parse(u)
	if err != nil {
		return out
	}
	for _, kv := range strings.Split(pu.RawQuery, "&") {
		if kv == "" {
			continue
		}
		k, v, _ := strings.Cut(kv, "=")
		if uk, err := url.QueryUnescape(k); err == nil {
			k = uk
		}
		if uv, err := url.QueryUnescape(v); err == nil {
			v = uv
		}
		out = append(out, harNV{red(k), red(v)})
	}
	return out
}

// SensitiveParam reports whether a form field or query parameter of that
// name holds a credential.
func SensitiveParam(name string) bool {
	n := strings.ToLower(name)
	for _, w := range []string{"password", "passwd", "pwd", "pass", "secret", "token", "apikey", "api_key", "api-key", "auth", "session", "credential", "otp"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// RedactURL is u with the values of its sensitive query parameters and
// its user info redacted.
func RedactURL(u string) string {
	pu, err := url.Parse(u)
	if err != nil || (pu.RawQuery == "" && pu.User == nil) {
		return u
	}
	if pu.User != nil {
		pu.User = url.User(Redacted)
	}
	pu.RawQuery = redactPairs(pu.RawQuery)
	return pu.String()
}

func redactPairs(raw string) string {
	parts := strings.Split(raw, "&")
	for i, kv := range parts {
		k, _, ok := strings.Cut(kv, "=")
		name, err := url.QueryUnescape(k)
		if err != nil {
			name = k
		}
		if ok && SensitiveParam(name) {
			parts[i] = k + "=" + url.QueryEscape(Redacted)
		}
	}
	return strings.Join(parts, "&")
}

var jsonSecret = regexp.MustCompile(`("([^"\\]*)"\s*:\s*)"(?:[^"\\]|\\.)*"`)

// RedactBody is a request body with the values of its sensitive fields
// redacted: a form's (urlencoded) or a JSON object's string members.
func RedactBody(mimeType, body string) string {
	mt := strings.ToLower(mimeType)
	switch {
	case strings.Contains(mt, "x-www-form-urlencoded"):
		return redactPairs(body)
	case strings.Contains(mt, "json"):
		return jsonSecret.ReplaceAllStringFunc(body, func(m string) string {
			sub := jsonSecret.FindStringSubmatch(m)
			if SensitiveParam(sub[2]) {
				return sub[1] + `"` + Redacted + `"`
			}
			return m
		})
	}
	return body
}
