package browser

import (
	"fmt"
	"testing"
	"time"

	"github.com/browserd/browserd/internal/cdp"
)

// netEvents are the Network events of one fetched script, as Chromium 156
// sends them (trimmed of nothing the log decodes).
func netEvents(id string) []cdp.Event {
	ev := func(method, params string) cdp.Event { return cdp.Event{Method: method, Params: []byte(params)} }
	return []cdp.Event{
		ev("Network.requestWillBeSent", fmt.Sprintf(`{"requestId":%q,"loaderId":"L1","documentURL":"http://127.0.0.1:8080/","request":{"url":"http://127.0.0.1:8080/app.js","method":"GET","headers":{"Accept":"*/*","Referer":"http://127.0.0.1:8080/","User-Agent":"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/156.0.0.0 Safari/537.36"},"mixedContentType":"none","initialPriority":"High","referrerPolicy":"strict-origin-when-cross-origin"},"timestamp":1000.5,"wallTime":1795000000.1,"initiator":{"type":"parser","url":"http://127.0.0.1:8080/","lineNumber":5},"redirectHasExtraInfo":false,"type":"Script","frameId":"F1","hasUserGesture":false}`, id)),
		ev("Network.requestWillBeSentExtraInfo", fmt.Sprintf(`{"requestId":%q,"associatedCookies":[],"headers":{"Accept":"*/*","Cookie":"sid=1","Host":"127.0.0.1:8080"},"connectTiming":{"requestTime":1000.5}}`, id)),
		ev("Network.responseReceivedExtraInfo", fmt.Sprintf(`{"requestId":%q,"blockedCookies":[],"headers":{"Content-Type":"text/javascript","Content-Length":"120","Date":"Fri, 27 Nov 2026 10:00:00 GMT"},"resourceIPAddressSpace":"Loopback","statusCode":200}`, id)),
		ev("Network.responseReceived", fmt.Sprintf(`{"requestId":%q,"loaderId":"L1","timestamp":1000.52,"type":"Script","response":{"url":"http://127.0.0.1:8080/app.js","status":200,"statusText":"OK","headers":{"Content-Type":"text/javascript","Content-Length":"120"},"mimeType":"text/javascript","charset":"","connectionReused":true,"connectionId":12,"remoteIPAddress":"127.0.0.1","remotePort":8080,"fromDiskCache":false,"fromServiceWorker":false,"fromPrefetchCache":false,"encodedDataLength":140,"timing":{"requestTime":1000.501,"proxyStart":-1,"proxyEnd":-1,"dnsStart":-1,"dnsEnd":-1,"connectStart":-1,"connectEnd":-1,"sslStart":-1,"sslEnd":-1,"workerStart":-1,"workerReady":-1,"workerFetchStart":-1,"workerRespondWithSettled":-1,"sendStart":0.3,"sendEnd":0.4,"pushStart":0,"pushEnd":0,"receiveHeadersStart":10.1,"receiveHeadersEnd":10.2},"responseTime":1.7950000001e12,"protocol":"http/1.1","alternateProtocolUsage":"unspecifiedReason","securityState":"secure"},"hasExtraInfo":true,"frameId":"F1"}`, id)),
		ev("Network.loadingFinished", fmt.Sprintf(`{"requestId":%q,"timestamp":1000.53,"encodedDataLength":260}`, id)),
	}
}

// BenchmarkNetlog is what the network log costs a page per request: its
// five events decoded and recorded (the tab's loop does this for every
// request, whether or not the agent ever lists them).
func BenchmarkNetlog(b *testing.B) {
	p := &Page{net: newNetlog(1000), inflight: map[string]time.Time{}}
	evs := make([][]cdp.Event, 64)
	for i := range evs {
		evs[i] = netEvents(fmt.Sprintf("R%d", i))
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		for _, ev := range evs[i%len(evs)] {
			pageEvents[ev.Method](p, ev)
		}
		i++
	}
}

func TestNetlogFromEvents(t *testing.T) {
	p := &Page{net: newNetlog(3), inflight: map[string]time.Time{}}
	for i := range 5 {
		for _, ev := range netEvents(fmt.Sprintf("R%d", i)) {
			pageEvents[ev.Method](p, ev)
		}
	}
	log, dropped := p.NetLog()
	if len(log) != 3 || dropped != 2 || log[0].ID != "r3" {
		t.Fatalf("bounded log: %d entries, %d dropped, first %s", len(log), dropped, log[0].ID)
	}
	r := log[2]
	if !r.Done || r.Status != 200 || r.Bytes != 260 || r.Type != "Script" || r.Timing == nil || headerValue(r.ReqHeaders, "cookie") != "sid=1" {
		t.Errorf("the request as logged: %+v", r)
	}
	if got := p.NetSince(4); len(got) != 1 || got[0].ID != "r5" {
		t.Errorf("NetSince(4): %+v", got)
	}
}

// TestNetlogLateExtraInfo: the ExtraInfo events (the headers with
// cookies) can come after the request finished — seen on a fetch
// answered in 4 ms — and are still its own; one that comes before its
// request waits for it.
func TestNetlogLateExtraInfo(t *testing.T) {
	p := &Page{net: newNetlog(10), inflight: map[string]time.Time{}}
	evs := netEvents("R1")
	// requestWillBeSent, responseReceived, loadingFinished, then both
	// ExtraInfo events.
	for _, i := range []int{0, 3, 4, 1, 2} {
		pageEvents[evs[i].Method](p, evs[i])
	}
	// The second request's ExtraInfo before its request.
	evs = netEvents("R2")
	for _, i := range []int{1, 2, 0, 3, 4} {
		pageEvents[evs[i].Method](p, evs[i])
	}
	log, _ := p.NetLog()
	if len(log) != 2 {
		t.Fatalf("%d entries, want 2", len(log))
	}
	for _, r := range log {
		if headerValue(r.ReqHeaders, "cookie") != "sid=1" || headerValue(r.RespHeaders, "date") == "" {
			t.Errorf("%s: the ExtraInfo headers are missing: request %v, response %v", r.ID, r.ReqHeaders, r.RespHeaders)
		}
	}
}
