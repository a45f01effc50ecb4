// Package cdp is browserd's own session layer over the Chrome DevTools
// Protocol: one connection to a browser (a pipe or a websocket, both from
// chromedp), command/response routing by id, and flat target sessions whose
// events are queued without bound.
//
// It replaces chromedp's Browser/Target layer on purpose: chromedp enables
// DOM, CSS, Network and more on every page and pushes events through a
// fixed 4096-slot queue whose handler calls back into the browser, which
// deadlocks a tab when a page emits thousands of events while loading. Here
// no domain is enabled unless the caller asks, and the single reader never
// blocks on a consumer: each listener has its own unbounded queue.
//
// Typed commands come from cdproto: Session implements cdp.Session, so
// cdp.Call(ctx, sess, page.Navigate, params) works.
package cdp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chromedp/cdproto"
	cdpt "github.com/chromedp/cdproto/cdp"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/target"
)

// Transport carries protocol messages. Pipe and
// remote.Conn implement it.
type Transport interface {
	Read(ctx context.Context, msg *cdproto.Message) error
	Write(ctx context.Context, msg *cdproto.Message) error
	Close() error
}

// ErrClosed is returned (wrapped) by calls on a connection or session that
// has closed: the browser exited, or the target was detached.
var ErrClosed = errors.New("cdp: connection closed")

// ErrDetached is returned (wrapped) by calls on a session whose target went
// away (tab closed, renderer swapped, frame removed).
var ErrDetached = errors.New("cdp: target detached")

var (
	unmarshalOpts = jsonv2.JoinOptions(jsonv2.DefaultOptionsV2(), jsonv2.AllowInvalidUTF8(true))
	marshalOpts   = unmarshalOpts
)

// Conn is one connection to a browser. It is safe for concurrent use. One
// reader goroutine, owned by the Conn, runs until the transport fails or
// Close is called; Done is closed when it has stopped.
type Conn struct {
	t      Transport
	nextID atomic.Int64

	mu       sync.Mutex // protects the fields below
	pending  map[int64]*pending
	sessions map[target.SessionID]*Session
	detached map[target.SessionID]bool // ids already detached (bounded)
	err      error

	browser *Session
	done    chan struct{}
}

type pending struct {
	sess *Session
	ch   chan *cdproto.Message // buffered 1
	// relay, when set, takes the reply instead of ch, its id set back to
	// clientID (Forward).
	relay    Relay
	clientID int64
}

// NewConn starts reading from t. Close (or the transport's end) stops it.
func NewConn(t Transport) *Conn {
	c := &Conn{
		t:        t,
		pending:  make(map[int64]*pending),
		sessions: make(map[target.SessionID]*Session),
		detached: make(map[target.SessionID]bool),
		done:     make(chan struct{}),
	}
	c.browser = c.newSession("")
	go c.read()
	return c
}

// Browser is the session of the browser target itself.
func (c *Conn) Browser() *Session { return c.browser }

// Done is closed when the connection has ended.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err tells why the connection ended; nil while it is open.
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Close closes the transport and waits for the reader to stop.
func (c *Conn) Close() error {
	err := c.t.Close()
	<-c.done
	return err
}

// Session returns the session with the id, creating its record on first use
// (after Target.attachToTarget or an auto-attach event named it).
func (c *Conn) Session(id target.SessionID) *Session {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.sessions[id]; ok {
		return s
	}
	if c.err != nil || c.detached[id] {
		// Asked for after its end (the detach event raced the caller):
		// an ended session, never registered, so nothing leaks.
		why := c.err
		if why == nil {
			why = ErrDetached
		}
		s := &Session{conn: c, id: id, listeners: map[string][]*Listener{}, gone: make(chan struct{})}
		close(s.gone)
		s.goneErr = why
		return s
	}
	return c.newSessionLocked(id)
}

func (c *Conn) newSession(id target.SessionID) *Session {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.newSessionLocked(id)
}

func (c *Conn) newSessionLocked(id target.SessionID) *Session {
	s := &Session{conn: c, id: id, listeners: map[string][]*Listener{}, gone: make(chan struct{})}
	c.sessions[id] = s
	return s
}

func (c *Conn) read() {
	defer close(c.done)
	ctx := context.Background()
	for {
		msg := new(cdproto.Message)
		if err := c.t.Read(ctx, msg); err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				err = ErrClosed
			} else {
				err = fmt.Errorf("%w: %w", ErrClosed, err)
			}
			c.shutdown(err)
			return
		}
		if msg.ID != 0 {
			c.mu.Lock()
			p := c.pending[msg.ID]
			delete(c.pending, msg.ID)
			c.mu.Unlock()
			switch {
			case p != nil && p.relay != nil:
				msg.ID = p.clientID
				p.relay(msg)
			case p != nil:
				p.ch <- msg
			}
			continue
		}
		if msg.Method == "Target.detachedFromTarget" {
			var ev struct {
				SessionID target.SessionID `json:"sessionId"`
			}
			if jsonv2.Unmarshal(msg.Params, &ev, unmarshalOpts) == nil {
				c.detach(ev.SessionID, ErrDetached)
			}
		}
		c.mu.Lock()
		s := c.sessions[msg.SessionID]
		var relay Relay
		if s != nil {
			relay = s.relay
		}
		c.mu.Unlock()
		if relay != nil {
			c.relayEvent(relay, msg)
		}
		if s != nil {
			s.dispatch(string(msg.Method), msg.Params)
		}
	}
}

// detach ends a session: its pending calls fail and its listeners close.
func (c *Conn) detach(id target.SessionID, why error) {
	c.mu.Lock()
	s := c.sessions[id]
	delete(c.sessions, id)
	if len(c.detached) > 4096 {
		clear(c.detached) // a tombstone only matters for a moment
	}
	c.detached[id] = true
	var failed []*pending
	for mid, p := range c.pending {
		if p.sess == s {
			failed = append(failed, p)
			delete(c.pending, mid)
		}
	}
	c.mu.Unlock()
	for _, p := range failed {
		p.fail()
	}
	if s != nil {
		s.end(why)
	}
}

func (c *Conn) shutdown(err error) {
	c.mu.Lock()
	c.err = err
	pend := c.pending
	c.pending = map[int64]*pending{}
	sess := c.sessions
	c.sessions = map[target.SessionID]*Session{}
	c.mu.Unlock()
	for _, p := range pend {
		p.fail()
	}
	for _, s := range sess {
		s.end(err)
	}
}

// MaxCall bounds a call whose context has no deadline: no CDP call waits
// for ever, whatever its caller forgot. Actions give their calls their own
// (shorter) deadlines; this is the backstop.
const MaxCall = 2 * time.Minute

// CleanupTimeout bounds a clean-up call (releasing objects, switching an
// interception off) made after its action ended or failed.
const CleanupTimeout = 500 * time.Millisecond

// ErrNoAnswer is returned (wrapped) by a call that had no deadline of its
// own and got no answer within MaxCall.
var ErrNoAnswer = errors.New("cdp: the browser did not answer within " + MaxCall.String())

// Cleanup returns a context for a clean-up call after ctx's work: it is
// not cancelled with ctx (the clean-up must run when the action timed
// out), but it has a short deadline of its own, so a hung renderer cannot
// hold the caller. cancel must be called.
func Cleanup(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), CleanupTimeout)
}

// Session is a flat CDP session with one target (or the browser, for the
// session with the empty id). It implements cdproto's cdp.Session.
type Session struct {
	conn *Conn
	id   target.SessionID

	mu        sync.Mutex // protects listeners, goneErr
	listeners map[string][]*Listener
	relay     Relay // guarded by conn.mu (SetRelay)
	goneErr   error
	gone      chan struct{}
}

var _ cdpt.Session = (*Session)(nil)

// ID is the session id ("" for the browser session).
func (s *Session) ID() target.SessionID { return s.id }

// Gone is closed when the session has ended.
func (s *Session) Gone() <-chan struct{} { return s.gone }

// Err tells why the session ended; nil while it is live.
func (s *Session) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.goneErr
}

// Raw is a result type that Call fills with the undecoded JSON result, for
// callers that decode large results themselves.
type Raw []byte

// Call sends a command and waits for its answer. params may be nil; result
// may be nil, a *Raw, or a value that the JSON result decodes into. A
// protocol error is returned as a *cdproto.Error wrapped with the method.
func (s *Session) Call(ctx context.Context, method string, params, result any) error {
	return s.Send(ctx, method, params)(result)
}

// Send writes a command and returns a function that waits for its answer
// (with the same rules as Call). Commands sent one after another reach the
// browser in that order, so a caller can pipeline several commands — mouse
// press and release, say — and wait for them together. The wait function
// must be called.
func (s *Session) Send(ctx context.Context, method string, params any) (wait func(result any) error) {
	failed := func(err error) func(any) error {
		return func(any) error { return fmt.Errorf("%s: %w", method, err) }
	}
	if err := s.Err(); err != nil {
		return failed(err)
	}
	msg := &cdproto.Message{ID: s.conn.nextID.Add(1), SessionID: s.id, Method: cdproto.MethodType(method)}
	if params != nil {
		buf, err := jsonv2.Marshal(params, marshalOpts)
		if err != nil {
			return failed(fmt.Errorf("encoding params: %w", err))
		}
		msg.Params = buf
	} else {
		msg.Params = jsonv2.Value("{}")
	}
	p := &pending{sess: s, ch: make(chan *cdproto.Message, 1)}
	s.conn.mu.Lock()
	if s.conn.err != nil {
		err := s.conn.err
		s.conn.mu.Unlock()
		return failed(err)
	}
	s.conn.pending[msg.ID] = p
	s.conn.mu.Unlock()

	if err := s.conn.t.Write(ctx, msg); err != nil {
		s.forget(msg.ID)
		return failed(err)
	}
	return func(result any) error {
		var backstop <-chan time.Time
		if _, ok := ctx.Deadline(); !ok {
			t := time.NewTimer(MaxCall)
			defer t.Stop()
			backstop = t.C
		}
		select {
		case <-backstop:
			s.forget(msg.ID)
			return fmt.Errorf("%s: %w", method, ErrNoAnswer)
		case <-ctx.Done():
			s.forget(msg.ID)
			if cause := context.Cause(ctx); cause != nil && cause != ctx.Err() {
				return fmt.Errorf("%s: %w", method, cause)
			}
			return fmt.Errorf("%s: %w", method, ctx.Err())
		case reply := <-p.ch:
			return s.decode(method, reply, result)
		}
	}
}

func (s *Session) forget(id int64) {
	s.conn.mu.Lock()
	delete(s.conn.pending, id)
	s.conn.mu.Unlock()
}

func (s *Session) decode(method string, reply *cdproto.Message, result any) error {
	if reply == nil {
		err := s.Err()
		if err == nil {
			err = s.conn.Err()
		}
		if err == nil {
			err = ErrClosed
		}
		return fmt.Errorf("%s: %w", method, err)
	}
	if reply.Error != nil {
		return fmt.Errorf("%s: %w", method, reply.Error)
	}
	switch r := result.(type) {
	case nil:
		return nil
	case *Raw:
		*r = Raw(reply.Result)
		return nil
	default:
		if len(reply.Result) == 0 {
			return nil
		}
		if err := jsonv2.Unmarshal(reply.Result, result, unmarshalOpts); err != nil {
			return fmt.Errorf("%s: decoding result: %w", method, err)
		}
		return nil
	}
}

// Event is one protocol event.
type Event struct {
	Method string
	Params jsonv2.Value
}

// Decode decodes the event's params into v.
func (e Event) Decode(v any) error {
	if err := jsonv2.Unmarshal(e.Params, v, unmarshalOpts); err != nil {
		return fmt.Errorf("decoding %s: %w", e.Method, err)
	}
	return nil
}

// Listener receives the events of some methods of one session, in order,
// without ever slowing the connection's reader: events wait in an unbounded
// queue until Next takes them.
type Listener struct {
	s       *Session
	methods []string

	mu     sync.Mutex // protects queue, closed, pushed
	queue  []Event
	closed bool
	pushed int64         // events queued since Listen
	ready  chan struct{} // buffered 1: something was queued or the listener closed
}

// Listen starts to queue the events of the methods. Call Close when done.
func (s *Session) Listen(methods ...string) *Listener {
	l := &Listener{s: s, methods: methods, ready: make(chan struct{}, 1)}
	s.mu.Lock()
	if s.goneErr != nil {
		l.closed = true
	} else {
		for _, m := range methods {
			s.listeners[m] = append(s.listeners[m], l)
		}
	}
	s.mu.Unlock()
	return l
}

// Next waits for the next event. It returns false when the listener or
// its session has closed and the queue is empty, or when ctx ends.
func (l *Listener) Next(ctx context.Context) (Event, bool) {
	for {
		l.mu.Lock()
		if len(l.queue) > 0 {
			ev := l.queue[0]
			l.queue[0] = Event{}
			l.queue = l.queue[1:]
			l.mu.Unlock()
			return ev, true
		}
		closed := l.closed
		l.mu.Unlock()
		if closed {
			return Event{}, false
		}
		select {
		case <-ctx.Done():
			return Event{}, false
		case <-l.ready:
		}
	}
}

// Pushed counts the events queued since Listen. An event that arrived
// before the answer to a call is counted once that call returns, so a
// consumer can tell when it has seen everything up to a point.
func (l *Listener) Pushed() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.pushed
}

// Ready is signalled when events may be waiting; use it in a select, then
// drain with TryNext.
func (l *Listener) Ready() <-chan struct{} { return l.ready }

// TryNext returns a queued event without waiting.
func (l *Listener) TryNext() (Event, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.queue) == 0 {
		return Event{}, false
	}
	ev := l.queue[0]
	l.queue[0] = Event{}
	l.queue = l.queue[1:]
	return ev, true
}

// Closed reports whether the listener is closed and drained.
func (l *Listener) Closed() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.closed && len(l.queue) == 0
}

func (l *Listener) push(ev Event) {
	l.mu.Lock()
	if !l.closed {
		l.queue = append(l.queue, ev)
		l.pushed++
	}
	l.mu.Unlock()
	select {
	case l.ready <- struct{}{}:
	default:
	}
}

func (l *Listener) shut() {
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
	select {
	case l.ready <- struct{}{}:
	default:
	}
}

// Close stops the listener; queued events are dropped.
func (l *Listener) Close() {
	s := l.s
	s.mu.Lock()
	for _, m := range l.methods {
		ls := s.listeners[m]
		for i, x := range ls {
			if x == l {
				s.listeners[m] = append(ls[:i:i], ls[i+1:]...)
				break
			}
		}
	}
	s.mu.Unlock()
	l.mu.Lock()
	l.queue = nil
	l.mu.Unlock()
	l.shut()
}

func (s *Session) dispatch(method string, params jsonv2.Value) {
	s.mu.Lock()
	ls := s.listeners[method]
	if len(ls) == 0 {
		s.mu.Unlock()
		return
	}
	ls = append([]*Listener(nil), ls...)
	s.mu.Unlock()
	ev := Event{Method: method, Params: params}
	for _, l := range ls {
		l.push(ev)
	}
}

func (s *Session) end(why error) {
	s.mu.Lock()
	if s.goneErr != nil {
		s.mu.Unlock()
		return
	}
	s.goneErr = why
	var all []*Listener
	for _, ls := range s.listeners {
		all = append(all, ls...)
	}
	s.mu.Unlock()
	close(s.gone)
	for _, l := range all {
		l.shut()
	}
}

// Subscribe implements cdp.Session for cdp.Events. The returned cancel
// must be called; it stops the goroutine that feeds the channel.
func (s *Session) Subscribe(method string) (<-chan jsonv2.Value, func()) {
	l := s.Listen(method)
	out := make(chan jsonv2.Value)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(out)
		for {
			ev, ok := l.TryNext()
			if !ok {
				if l.Closed() {
					return
				}
				select {
				case <-stop:
					return
				case <-l.Ready():
				}
				continue
			}
			select {
			case out <- ev.Params:
			case <-stop:
				return
			}
		}
	}()
	var once sync.Once
	return out, func() {
		once.Do(func() {
			close(stop)
			l.Close()
			<-done
		})
	}
}
