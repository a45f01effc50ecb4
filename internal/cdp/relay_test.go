package cdp

import (
	"context"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
)

// chanTransport is a browser played by the test: what the Conn writes
// comes out of sent, what the test puts in recv the Conn reads.
type chanTransport struct {
	sent, recv chan *cdproto.Message
	once       sync.Once
	done       chan struct{}
}

func newChanTransport() *chanTransport {
	return &chanTransport{sent: make(chan *cdproto.Message, 16), recv: make(chan *cdproto.Message, 16), done: make(chan struct{})}
}

func (c *chanTransport) Read(ctx context.Context, m *cdproto.Message) error {
	select {
	case msg := <-c.recv:
		*m = *msg
		return nil
	case <-c.done:
		return io.EOF
	}
}

func (c *chanTransport) Write(ctx context.Context, m *cdproto.Message) error {
	c.sent <- m
	return nil
}

func (c *chanTransport) Close() error { c.once.Do(func() { close(c.done) }); return nil }

// TestRelay: a forwarded command's reply comes back with the client's id,
// in order with the session's events; a session attached under a relayed
// one is relayed from its first event; a session that ends answers what
// is pending with an error.
func TestRelay(t *testing.T) {
	tr := newChanTransport()
	conn := NewConn(tr)
	defer conn.Close()
	var mu sync.Mutex
	var got []*cdproto.Message
	relay := func(m *cdproto.Message) { mu.Lock(); got = append(got, m); mu.Unlock() }
	conn.SetRelay("S1", relay)
	if err := conn.Forward(context.Background(), "S1", 7, "Runtime.enable", nil, relay); err != nil {
		t.Fatal(err)
	}
	sent := <-tr.sent
	if sent.SessionID != "S1" || sent.Method != "Runtime.enable" || string(sent.Params) != "{}" {
		t.Fatalf("sent %+v", sent)
	}
	tr.recv <- &cdproto.Message{SessionID: "S1", Method: "Runtime.executionContextCreated", Params: jsonv2.Value(`{}`)}
	tr.recv <- &cdproto.Message{ID: sent.ID, SessionID: "S1", Result: jsonv2.Value(`{}`)}
	tr.recv <- &cdproto.Message{SessionID: "S1", Method: "Target.attachedToTarget", Params: jsonv2.Value(`{"sessionId":"CHILD"}`)}
	tr.recv <- &cdproto.Message{SessionID: "CHILD", Method: "Runtime.consoleAPICalled", Params: jsonv2.Value(`{}`)}
	tr.recv <- &cdproto.Message{SessionID: "OTHER", Method: "Page.loadEventFired", Params: jsonv2.Value(`{}`)}
	if err := conn.Forward(context.Background(), "CHILD", 8, "Runtime.evaluate", jsonv2.Value(`{"expression":"1"}`), relay); err != nil {
		t.Fatal(err)
	}
	<-tr.sent
	tr.recv <- &cdproto.Message{Method: "Target.detachedFromTarget", Params: jsonv2.Value(`{"sessionId":"CHILD"}`)}
	want := []string{"Runtime.executionContextCreated", "reply 7", "Target.attachedToTarget", "Runtime.consoleAPICalled", "error 8"}
	deadline := time.Now().Add(5 * time.Second)
	for {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n >= len(want) || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != len(want) {
		t.Fatalf("relayed %d messages, want %d", len(got), len(want))
	}
	for i, m := range got {
		what := string(m.Method)
		switch {
		case m.ID != 0 && m.Error != nil:
			what = "error " + string(rune('0'+m.ID))
		case m.ID != 0:
			what = "reply " + string(rune('0'+m.ID))
		}
		if what != want[i] {
			t.Errorf("message %d: %s, want %s", i, what, want[i])
		}
	}
}
