package browser

import (
	"context"
	"encoding/base64"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/browserd/browserd/internal/cdp"
)

// This file is the tab's network log: every request of its main frame's
// session since the last navigation committed, from the Network events
// the tab listens to anyway, in a bounded buffer (PageOptions.NetLimit).

// Request is one request of a tab's network log, as Chromium reported it.
// Its fields are the page's data: URLs and headers stay inside the
// envelope when shown to a model.
type Request struct {
	ID      string // r1, r2, … per tab, never reused
	Method  string
	URL     string
	Type    string // Document, Script, XHR, Fetch, Image, …
	Frame   string
	Started time.Time // wall clock
	Status  int       // 0 while no response came
	StatusText,
	MimeType,
	Protocol string // h2, http/1.1, …
	RemoteIP   string
	RemotePort int
	// Bytes is what came over the network for it (headers and body), as
	// Chromium counts it; 0 from the cache.
	Bytes     int64
	FromCache bool
	// Failed is Chromium's error (net::ERR_…) when it failed; Refused the
	// guard's rule when the guard refused it (Failed is then set too).
	Failed, Refused string
	Canceled        bool
	// Route is the route that answered it (the route action), "" for none.
	Route string
	// RedirectTo is the Location the response sent the request on to (a
	// redirect is its own entry, as in DevTools).
	RedirectTo string
	// Done is set once it finished, failed or was redirected.
	Done bool
	// Duration is from the request to its end (or to now while pending).
	Duration time.Duration

	ReqHeaders, RespHeaders []Header
	// PostData is the request's body when Chromium sent it along (small
	// text bodies), cut at postDataMax.
	PostData string
	// Timing is Chromium's breakdown of where the time went, in ms from
	// its RequestTime; nil from the cache. Queued is the time before that
	// (the request waiting for a connection).
	Timing *Timing
	Queued time.Duration

	n      int // the N of rN
	cdpID  string
	loader string
	start  float64 // Chromium's monotonic clock, seconds
	end    float64
	// extra headers (with cookies) from the ExtraInfo events
	reqExtra, respExtra []Header
}

// Header is one HTTP header; a repeated header has a value per line.
type Header struct{ Name, Value string }

// Timing is Chromium's ResourceTiming, in ms from RequestTime (-1: the
// step did not happen).
type Timing struct {
	RequestTime              float64 // Chromium's monotonic clock, seconds
	DNSStart, DNSEnd         float64
	ConnectStart, ConnectEnd float64
	SSLStart, SSLEnd         float64
	SendStart, SendEnd       float64
	ReceiveHeadersEnd        float64
}

const postDataMax = 64 << 10

// netRequestEvent is Network.requestWillBeSent's fields the tab uses.
type netRequestEvent struct {
	RequestID string  `json:"requestId"`
	LoaderID  string  `json:"loaderId"`
	Type      string  `json:"type"`
	FrameID   string  `json:"frameId"`
	Timestamp float64 `json:"timestamp"`
	WallTime  float64 `json:"wallTime"`
	Request   struct {
		URL      string            `json:"url"`
		Fragment string            `json:"urlFragment"`
		Method   string            `json:"method"`
		Headers  map[string]string `json:"headers"`
		PostData string            `json:"postData"`
	} `json:"request"`
	RedirectResponse *netResponse `json:"redirectResponse"`
}

type netResponse struct {
	Status            int               `json:"status"`
	StatusText        string            `json:"statusText"`
	Headers           map[string]string `json:"headers"`
	MimeType          string            `json:"mimeType"`
	RemoteIPAddress   string            `json:"remoteIPAddress"`
	RemotePort        int               `json:"remotePort"`
	FromDiskCache     bool              `json:"fromDiskCache"`
	FromServiceWorker bool              `json:"fromServiceWorker"`
	FromPrefetchCache bool              `json:"fromPrefetchCache"`
	EncodedDataLength float64           `json:"encodedDataLength"`
	Protocol          string            `json:"protocol"`
	Timing            *struct {
		RequestTime       float64 `json:"requestTime"`
		DNSStart          float64 `json:"dnsStart"`
		DNSEnd            float64 `json:"dnsEnd"`
		ConnectStart      float64 `json:"connectStart"`
		ConnectEnd        float64 `json:"connectEnd"`
		SSLStart          float64 `json:"sslStart"`
		SSLEnd            float64 `json:"sslEnd"`
		SendStart         float64 `json:"sendStart"`
		SendEnd           float64 `json:"sendEnd"`
		ReceiveHeadersEnd float64 `json:"receiveHeadersEnd"`
	} `json:"timing"`
}

// netlog is the tab's network log. Its methods are called with Page.mu
// held.
type netlog struct {
	limit   int
	entries []*Request          // oldest first
	byID    map[string]*Request // Chromium's request id -> its latest entry
	seq     int                 // the last r<N> given
	dropped int                 // entries the bound dropped since the last navigation
	// refused holds the guard's rule for requests it refused, by
	// Chromium's request id, until the request's entry takes it.
	refused map[string]string
	// routed holds the route that answered a request, by Chromium's
	// request id, until the request's entry takes it.
	routed map[string]string
	// extra holds ExtraInfo headers that came before their request.
	extra map[string][2][]Header
}

func newNetlog(limit int) *netlog {
	return &netlog{limit: limit, byID: map[string]*Request{}, refused: map[string]string{}, routed: map[string]string{}, extra: map[string][2][]Header{}}
}

func headerList(m map[string]string) []Header {
	if len(m) == 0 {
		return nil
	}
	hs := make([]Header, 0, len(m))
	for k, v := range m {
		hs = append(hs, Header{k, v})
	}
	sort.Slice(hs, func(i, j int) bool { return hs[i].Name < hs[j].Name })
	return hs
}

func (n *netlog) request(e *netRequestEvent) {
	if prev := n.byID[e.RequestID]; prev != nil && e.RedirectResponse != nil {
		n.respond(prev, e.RedirectResponse)
		prev.RedirectTo = e.Request.URL
		prev.Done, prev.end = true, e.Timestamp
		prev.Duration = secs(prev.end - prev.start)
	}
	n.seq++
	r := &Request{
		ID: fmt.Sprintf("r%d", n.seq), n: n.seq, Method: e.Request.Method, URL: e.Request.URL + e.Request.Fragment,
		Type: e.Type, Frame: e.FrameID, Started: time.UnixMicro(int64(e.WallTime * 1e6)),
		ReqHeaders: headerList(e.Request.Headers),
		cdpID:      e.RequestID, loader: e.LoaderID, start: e.Timestamp,
	}
	if len(e.Request.PostData) > postDataMax {
		r.PostData = e.Request.PostData[:postDataMax]
	} else {
		r.PostData = e.Request.PostData
	}
	if rt, ok := n.routed[e.RequestID]; ok {
		r.Route = rt
		delete(n.routed, e.RequestID)
	}
	if x, ok := n.extra[e.RequestID]; ok {
		r.reqExtra, r.respExtra = x[0], x[1]
		delete(n.extra, e.RequestID)
	}
	n.byID[e.RequestID] = r
	n.entries = append(n.entries, r)
	if len(n.entries) > n.limit {
		old := n.entries[0]
		n.entries[0] = nil
		n.entries = n.entries[1:]
		if n.byID[old.cdpID] == old {
			delete(n.byID, old.cdpID)
		}
		n.dropped++
	}
}

func secs(d float64) time.Duration { return time.Duration(d * float64(time.Second)) }

func (n *netlog) respond(r *Request, resp *netResponse) {
	r.Status, r.StatusText, r.MimeType = resp.Status, resp.StatusText, resp.MimeType
	r.Protocol, r.RemoteIP, r.RemotePort = resp.Protocol, resp.RemoteIPAddress, resp.RemotePort
	r.RespHeaders = headerList(resp.Headers)
	r.FromCache = r.FromCache || resp.FromDiskCache || resp.FromPrefetchCache
	if resp.EncodedDataLength > 0 {
		r.Bytes = int64(resp.EncodedDataLength)
	}
	if t := resp.Timing; t != nil {
		r.Timing = &Timing{RequestTime: t.RequestTime, DNSStart: t.DNSStart, DNSEnd: t.DNSEnd,
			ConnectStart: t.ConnectStart, ConnectEnd: t.ConnectEnd, SSLStart: t.SSLStart, SSLEnd: t.SSLEnd,
			SendStart: t.SendStart, SendEnd: t.SendEnd, ReceiveHeadersEnd: t.ReceiveHeadersEnd}
		r.Queued = max(0, secs(t.RequestTime-r.start))
	}
	if loc := headerValue(r.RespHeaders, "location"); loc != "" && resp.Status >= 300 && resp.Status < 400 {
		r.RedirectTo = loc
	}
}

func headerValue(hs []Header, name string) string {
	for _, h := range hs {
		if strings.EqualFold(h.Name, name) {
			return h.Value
		}
	}
	return ""
}

// committed starts the log afresh for a new main-frame document: only
// its own request (and the redirects that led to it) stay.
func (n *netlog) committed(loader string) {
	kept := n.entries[:0]
	for _, r := range n.entries {
		if r.loader == loader && loader != "" {
			kept = append(kept, r)
		} else if n.byID[r.cdpID] == r {
			delete(n.byID, r.cdpID)
		}
	}
	clear(n.entries[len(kept):])
	n.entries = kept
	n.dropped = 0
	clear(n.refused)
	clear(n.routed)
	clear(n.extra)
}

func (p *Page) onNetResponse(ev cdp.Event) {
	var e struct {
		RequestID string      `json:"requestId"`
		Response  netResponse `json:"response"`
	}
	if ev.Decode(&e) == nil {
		if r := p.net.byID[e.RequestID]; r != nil {
			p.net.respond(r, &e.Response)
			if e.Response.FromServiceWorker {
				r.Protocol = "service worker"
			}
		}
	}
}

func (p *Page) onNetFromCache(ev cdp.Event) {
	var e struct {
		RequestID string `json:"requestId"`
	}
	if ev.Decode(&e) == nil {
		if r := p.net.byID[e.RequestID]; r != nil {
			r.FromCache = true
		}
	}
}

func (p *Page) onNetExtra(ev cdp.Event) {
	var e struct {
		RequestID string            `json:"requestId"`
		Headers   map[string]string `json:"headers"`
	}
	if ev.Decode(&e) != nil {
		return
	}
	hs := headerList(e.Headers)
	i := 0
	if ev.Method == "Network.responseReceivedExtraInfo" {
		i = 1
	}
	// The ExtraInfo events come from the network service by another path
	// than the request's own events: one may come before its request
	// (kept until it comes) or after it finished (still its own: a
	// finished request's empty slot takes it). A slot already filled
	// means the event is the next hop's of a redirect, whose request has
	// not come yet.
	if r := p.net.byID[e.RequestID]; r != nil {
		if i == 0 && r.reqExtra == nil {
			r.reqExtra = hs
			return
		}
		if i == 1 && r.respExtra == nil {
			r.respExtra = hs
			return
		}
	}
	if len(p.net.extra) < 256 {
		x := p.net.extra[e.RequestID]
		x[i] = hs
		p.net.extra[e.RequestID] = x
	}
}

// netEnded records a request's end (Network.loadingFinished or
// loadingFailed).
func (p *Page) netEnded(method, id string, ts, encoded float64, errText string, canceled bool) {
	r := p.net.byID[id]
	if r == nil {
		return
	}
	r.Done, r.end = true, ts
	r.Duration = secs(r.end - r.start)
	if encoded > 0 {
		r.Bytes = int64(encoded)
	}
	if method == "Network.loadingFailed" {
		r.Failed, r.Canceled = errText, canceled
		if rule, ok := p.net.refused[id]; ok {
			r.Refused = rule
			delete(p.net.refused, id)
		}
	}
	if x, ok := p.net.extra[id]; ok && r.respExtra == nil {
		r.respExtra = x[1]
		delete(p.net.extra, id)
	}
}

// netRefused notes the guard's rule for a request it refused (Chromium's
// network id), for the log.
func (p *Page) netRefused(networkID, rule string) {
	if networkID == "" {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if r := p.net.byID[networkID]; r != nil {
		r.Refused = rule
		return
	}
	if len(p.net.refused) < 256 {
		p.net.refused[networkID] = rule
	}
}

// NetLog is a copy of the tab's network log since its last navigation,
// oldest first, and how many older entries its bound dropped. Headers
// include those with cookies (Cookie, Set-Cookie) when Chromium reported
// them: redact before showing.
func (p *Page) NetLog() ([]Request, int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	out := make([]Request, len(p.net.entries))
	for i, r := range p.net.entries {
		out[i] = *r
		if r.reqExtra != nil {
			out[i].ReqHeaders = mergeHeaders(r.ReqHeaders, r.reqExtra)
		}
		if r.respExtra != nil {
			out[i].RespHeaders = mergeHeaders(r.RespHeaders, r.respExtra)
		}
		if !r.Done {
			out[i].Duration = now.Sub(r.Started)
		}
		if out[i].Refused == "" {
			out[i].Refused = p.net.refused[r.cdpID]
		}
	}
	return out, p.net.dropped
}

// mergeHeaders is the request's headers with those only the ExtraInfo
// event had (Cookie, Set-Cookie): the wire's headers win.
func mergeHeaders(base, extra []Header) []Header {
	out := append([]Header(nil), extra...)
	for _, h := range base {
		if headerValue(extra, h.Name) == "" {
			out = append(out, h)
		}
	}
	sort.Slice(out, func(i, j int) bool { return strings.ToLower(out[i].Name) < strings.ToLower(out[j].Name) })
	return out
}

// NetSeq counts the requests the tab's log has had (NetSince).
func (p *Page) NetSeq() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.net.seq
}

// NetSince returns the log's requests since NetSeq said seq, oldest
// first (those a navigation or the bound dropped meanwhile are gone).
func (p *Page) NetSince(seq int) []Request {
	all, _ := p.NetLog()
	i := len(all)
	for i > 0 && all[i-1].n > seq {
		i--
	}
	return all[i:]
}

// ErrNoBody is ResponseBody's error when Chromium no longer holds the
// body (or never had one: a redirect, a failed request).
var ErrNoBody = fmt.Errorf("Chromium holds no body for this request (a redirect, a failure, or evicted from its buffer)")

// ResponseBody is the body of a request of the log (its r<N> id): text, or
// binary with isBinary set.
func (p *Page) ResponseBody(ctx context.Context, id string) (body []byte, isBinary bool, err error) {
	p.mu.Lock()
	var cdpID string
	var redirected bool
	for _, r := range p.net.entries {
		if r.ID == id {
			cdpID, redirected = r.cdpID, r.RedirectTo != "" && p.net.byID[r.cdpID] != r
		}
	}
	p.mu.Unlock()
	if cdpID == "" || redirected {
		return nil, false, ErrNoBody
	}
	var res struct {
		Body          string `json:"body"`
		Base64Encoded bool   `json:"base64Encoded"`
	}
	if err := p.sess.Call(ctx, "Network.getResponseBody", map[string]any{"requestId": cdpID}, &res); err != nil {
		if strings.Contains(err.Error(), "No resource with given identifier") || strings.Contains(err.Error(), "No data found") {
			return nil, false, ErrNoBody
		}
		return nil, false, err
	}
	if !res.Base64Encoded {
		return []byte(res.Body), false, nil
	}
	b, err := base64.StdEncoding.DecodeString(res.Body)
	if err != nil {
		return nil, false, fmt.Errorf("decoding the body Chromium sent: %w", err)
	}
	return b, true, nil
}
