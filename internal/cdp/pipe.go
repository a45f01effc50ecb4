package cdp

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"

	"github.com/chromedp/cdproto"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/target"
)

// Pipe is the Transport of a browser started with --remote-debugging-pipe:
// it reads the browser's messages from one pipe and writes commands to the
// other, each JSON message ended by one zero byte.
//
// It is chromedp.PipeConn made frugal for the replies that matter here —
// an accessibility tree of several megabytes: a message is read into one
// slice of its own size, and the result of a reply is a part of that slice
// rather than a copy, so a 6 MB tree costs 6 MB, not three times that.
type Pipe struct {
	r  io.ReadCloser
	w  io.WriteCloser
	br *bufio.Reader // only the reader goroutine uses it

	writeMu sync.Mutex // one command at a time on w

	closeOnce sync.Once
	closeErr  error
}

// NewPipe returns the Transport that reads the browser's messages from r
// and writes commands to w. Close closes both.
func NewPipe(r io.ReadCloser, w io.WriteCloser) *Pipe {
	return &Pipe{r: r, w: w, br: bufio.NewReaderSize(r, 64<<10)}
}

// Close closes both pipes, which makes the browser exit.
func (p *Pipe) Close() error {
	p.closeOnce.Do(func() { p.closeErr = errors.Join(p.r.Close(), p.w.Close()) })
	return p.closeErr
}

// Read reads the next message; io.EOF when the browser closed its end.
func (p *Pipe) Read(_ context.Context, msg *cdproto.Message) error {
	for {
		b, err := p.next()
		if err != nil {
			return err
		}
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		*msg = cdproto.Message{}
		if splitReply(b, msg) {
			return nil
		}
		if err := jsonv2.Unmarshal(b, msg, unmarshalOpts); err != nil {
			return fmt.Errorf("decoding a message from the browser: %w", err)
		}
		return nil
	}
}

// next is the next message without its zero byte, in a slice of its own.
// Small messages fit the reader's buffer and are copied once; a large one
// is gathered in chunks and copied once into a slice of its exact size.
func (p *Pipe) next() ([]byte, error) {
	b, err := p.br.ReadSlice(0)
	if err == nil {
		return bytes.Clone(b[:len(b)-1]), nil
	}
	if !errors.Is(err, bufio.ErrBufferFull) {
		if errors.Is(err, io.EOF) && len(b) > 0 {
			return nil, io.ErrUnexpectedEOF
		}
		return nil, err
	}
	chunks := [][]byte{bytes.Clone(b)}
	n := len(b)
	for {
		b, err = p.br.ReadSlice(0)
		if err == nil {
			b = b[:len(b)-1]
			out := make([]byte, 0, n+len(b))
			for _, c := range chunks {
				out = append(out, c...)
			}
			return append(out, b...), nil
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			if errors.Is(err, io.EOF) {
				return nil, io.ErrUnexpectedEOF
			}
			return nil, err
		}
		chunks = append(chunks, bytes.Clone(b))
		n += len(b)
	}
}

// splitReply decodes a reply the way Chromium writes one —
// {"id":N,"result":{…}} with ,"sessionId":"…" before the closing brace
// when it answers a session — without decoding or copying its result: it
// only finds where the result ends. It reports false for any other message
// (events, errors, another shape), which the caller decodes in full.
func splitReply(b []byte, msg *cdproto.Message) bool {
	const head, res, key = `{"id":`, `,"result":`, `,"sessionId":"`
	if !bytes.HasPrefix(b, []byte(head)) {
		return false
	}
	i := len(head)
	j := i
	for j < len(b) && j-i < 18 && b[j] >= '0' && b[j] <= '9' {
		j++
	}
	id, err := strconv.ParseInt(string(b[i:j]), 10, 64)
	if err != nil || id <= 0 || !bytes.HasPrefix(b[j:], []byte(res)) {
		return false
	}
	start := j + len(res)
	end := objectEnd(b, start)
	if end < 0 {
		return false
	}
	rest := b[end:]
	var session []byte
	switch {
	case len(rest) == 1 && rest[0] == '}':
	case bytes.HasPrefix(rest, []byte(key)) && len(rest) > len(key)+2 && bytes.HasSuffix(rest, []byte(`"}`)):
		session = rest[len(key) : len(rest)-2]
		for _, c := range session {
			if !isHex(c) {
				return false
			}
		}
	default:
		return false
	}
	msg.ID = id
	msg.SessionID = target.SessionID(session)
	msg.Result = jsonv2.Value(b[start:end])
	return true
}

// objectEnd is the index just past the JSON object that opens at b[i], or
// -1 if none does. It balances braces outside strings, which finds the end
// of a valid object; whoever decodes the object checks the rest.
func objectEnd(b []byte, i int) int {
	if i >= len(b) || b[i] != '{' {
		return -1
	}
	depth := 0
	for i < len(b) {
		switch b[i] {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return i + 1
			}
		case '"':
			// Skip the string: its end is the next quote not escaped by an
			// odd run of backslashes.
			for {
				k := bytes.IndexByte(b[i+1:], '"')
				if k < 0 {
					return -1
				}
				i += 1 + k
				n := 0
				for p := i - 1; b[p] == '\\'; p-- {
					n++
				}
				if n%2 == 0 {
					break
				}
			}
		}
		i++
	}
	return -1
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'A' && c <= 'F' || c >= 'a' && c <= 'f'
}

// Write writes one command. It is safe for concurrent use.
func (p *Pipe) Write(_ context.Context, msg *cdproto.Message) error {
	b, err := jsonv2.Marshal(msg, marshalOpts)
	if err != nil {
		return fmt.Errorf("encoding a command for the browser: %w", err)
	}
	b = append(b, 0)
	p.writeMu.Lock()
	defer p.writeMu.Unlock()
	// One write per command, so that commands never interleave.
	if _, err := p.w.Write(b); err != nil {
		return fmt.Errorf("writing a command to the browser: %w", err)
	}
	return nil
}
