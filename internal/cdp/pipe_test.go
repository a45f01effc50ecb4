package cdp

import (
	"bytes"
	"context"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/chromedp/cdproto"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
)

// nopCloser makes a reader or a buffer a pipe end.
type nopCloser struct {
	io.Reader
	io.Writer
}

func (nopCloser) Close() error { return nil }

func TestPipeReads(t *testing.T) {
	big := `{"nodes":[` + strings.Repeat(`{"nodeId":"1","role":{"value":"x"}},`, 20000) + `{}]}`
	msgs := []string{
		`{"id":1,"result":{}}`,
		`{"id":2,"result":{"a":"b"},"sessionId":"A1B2C3"}`,
		`{"id":3,"error":{"code":-32000,"message":"no"}}`,
		`{"method":"Page.loadEventFired","params":{"timestamp":1.5},"sessionId":"FF00"}`,
		`{"id":4,"result":{"x":1,"sessionId":"ABC"}}`,
		`{"id":5,"result":` + big + `,"sessionId":"0123456789ABCDEF"}`,
		`  `,
		`{"id":6,"result":{"ok":true}}`,
	}
	var in bytes.Buffer
	for _, m := range msgs {
		in.WriteString(m)
		in.WriteByte(0)
	}
	p := NewPipe(nopCloser{Reader: &in}, nopCloser{Writer: io.Discard})
	for _, m := range msgs {
		if strings.TrimSpace(m) == "" {
			continue
		}
		var got, want cdproto.Message
		if err := p.Read(context.Background(), &got); err != nil {
			t.Fatalf("read %.60s: %v", m, err)
		}
		if err := jsonv2.Unmarshal([]byte(m), &want, unmarshalOpts); err != nil {
			t.Fatal(err)
		}
		if !sameMessage(got, want) {
			t.Errorf("read %.80s\n got id=%d session=%q method=%q result=%.40s error=%v\nwant id=%d session=%q method=%q result=%.40s error=%v",
				m, got.ID, got.SessionID, got.Method, got.Result, got.Error, want.ID, want.SessionID, want.Method, want.Result, want.Error)
		}
	}
	var end cdproto.Message
	if err := p.Read(context.Background(), &end); !errors.Is(err, io.EOF) {
		t.Errorf("after the last message: %v, want EOF", err)
	}
}

func TestPipeCutMessage(t *testing.T) {
	p := NewPipe(nopCloser{Reader: strings.NewReader(`{"id":1,"res`)}, nopCloser{Writer: io.Discard})
	var m cdproto.Message
	if err := p.Read(context.Background(), &m); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("a message cut short: %v, want ErrUnexpectedEOF", err)
	}
	long := `{"id":1,"result":{"a":"` + strings.Repeat("x", 200<<10)
	p = NewPipe(nopCloser{Reader: strings.NewReader(long)}, nopCloser{Writer: io.Discard})
	if err := p.Read(context.Background(), &m); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("a long message cut short: %v, want ErrUnexpectedEOF", err)
	}
}

func TestPipeWrites(t *testing.T) {
	var out bytes.Buffer
	p := NewPipe(nopCloser{Reader: strings.NewReader("")}, nopCloser{Writer: &out})
	msg := &cdproto.Message{ID: 7, SessionID: "AB", Method: "Page.navigate", Params: jsonv2.Value(`{"url":"about:blank"}`)}
	if err := p.Write(context.Background(), msg); err != nil {
		t.Fatal(err)
	}
	b := out.Bytes()
	if len(b) == 0 || b[len(b)-1] != 0 || bytes.Count(b, []byte{0}) != 1 {
		t.Fatalf("a command ends with one zero byte: %q", b)
	}
	var back cdproto.Message
	if err := jsonv2.Unmarshal(b[:len(b)-1], &back, unmarshalOpts); err != nil || !sameMessage(back, *msg) {
		t.Errorf("written %q, read back %+v (%v)", b, back, err)
	}
}

func sameMessage(a, b cdproto.Message) bool {
	if a.ID != b.ID || a.SessionID != b.SessionID || a.Method != b.Method || (a.Error == nil) != (b.Error == nil) {
		return false
	}
	if a.Error != nil && *a.Error != *b.Error {
		return false
	}
	return sameJSON(a.Result, b.Result) && sameJSON(a.Params, b.Params)
}

func sameJSON(a, b jsonv2.Value) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	var x, y any
	if jsonv2.Unmarshal(a, &x, unmarshalOpts) != nil || jsonv2.Unmarshal(b, &y, unmarshalOpts) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// FuzzSplitReply: whenever the quick split takes a message that is valid
// JSON, it reads what a full decode reads.
func FuzzSplitReply(f *testing.F) {
	for _, s := range []string{
		`{"id":1,"result":{}}`,
		`{"id":2,"result":{"a":"b"},"sessionId":"A1B2C3"}`,
		`{"id":4,"result":{"x":1,"sessionId":"ABC"}}`,
		`{"id":4,"result":{"x":"},\"sessionId\":\"ABC"}}`,
		`{"id":4,"result":{},"sessionId":"ABC","x":{"y":"1"}}`,
		`{"id":9,"result":{"s":"}"},"sessionId":""}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var quick cdproto.Message
		if !splitReply(b, &quick) {
			return
		}
		var full cdproto.Message
		if jsonv2.Unmarshal(b, &full, unmarshalOpts) != nil {
			return // Chromium writes valid JSON; an invalid result fails where it is decoded
		}
		if !sameMessage(quick, full) {
			t.Errorf("%q: split id=%d session=%q result=%s, decoded id=%d session=%q result=%s",
				b, quick.ID, quick.SessionID, quick.Result, full.ID, full.SessionID, full.Result)
		}
	})
}

// axReply is a reply shaped like getFullAXTree's on the 1,000-row table.
func axReply() []byte {
	node := `{"nodeId":"123","ignored":false,"role":{"type":"role","value":"link"},"name":{"type":"computedString","value":"Item 1 \"quoted\" \\ here","sources":[{"type":"contents","value":{"type":"computedString","value":"Item 1"}}]},"properties":[{"name":"focusable","value":{"type":"booleanOrUndefined","value":true}}],"childIds":["124","125"],"backendDOMNodeId":77,"frameId":"F00D"},`
	return []byte(`{"id":42,"result":{"nodes":[` + strings.Repeat(node, 17000) + `{}]},"sessionId":"0123456789ABCDEF0123456789ABCDEF"}`)
}

func BenchmarkReplySplit(b *testing.B) {
	msg := axReply()
	b.SetBytes(int64(len(msg)))
	for b.Loop() {
		var m cdproto.Message
		if !splitReply(msg, &m) {
			b.Fatal("not split")
		}
	}
}

func BenchmarkReplyDecode(b *testing.B) {
	msg := axReply()
	b.SetBytes(int64(len(msg)))
	for b.Loop() {
		var m cdproto.Message
		if err := jsonv2.Unmarshal(msg, &m, unmarshalOpts); err != nil {
			b.Fatal(err)
		}
	}
}
