package cdp

import (
	"context"
	"fmt"

	"github.com/chromedp/cdproto"
	jsonv2 "github.com/chromedp/cdproto/cdp/jsonv2"
	"github.com/chromedp/cdproto/target"
)

// Relay takes protocol messages undecoded, for a client that speaks CDP
// itself (internal/cdpproxy). It is called from the connection's reader
// goroutine, in the order the browser sent the messages, and must not
// block.
type Relay func(msg *cdproto.Message)

// SetRelay makes every event of session id — and of every session the
// browser attaches under it (auto-attach) — go to relay too, from now
// on; nil stops it. A relayed session's events still reach its
// listeners.
func (c *Conn) SetRelay(id target.SessionID, relay Relay) {
	s := c.Session(id)
	c.mu.Lock()
	s.relay = relay
	c.mu.Unlock()
}

// relayEvent hands an event of a relayed session to relay. A session
// attached under it is relayed from this moment, before its own first
// event can be read.
func (c *Conn) relayEvent(relay Relay, msg *cdproto.Message) {
	if msg.Method == "Target.attachedToTarget" {
		var ev struct {
			SessionID target.SessionID `json:"sessionId"`
		}
		if jsonv2.Unmarshal(msg.Params, &ev, unmarshalOpts) == nil && ev.SessionID != "" {
			c.mu.Lock()
			child, ok := c.sessions[ev.SessionID]
			if !ok && c.err == nil {
				child = c.newSessionLocked(ev.SessionID)
			}
			if child != nil {
				child.relay = relay
			}
			c.mu.Unlock()
		}
	}
	relay(msg)
}

// Forward writes a client's command, params as the client sent them, on
// session id; the reply goes to relay with its id set to clientID — in
// order with the session's events when the session is relayed. A session
// or connection that ends first answers it with an error.
func (c *Conn) Forward(ctx context.Context, id target.SessionID, clientID int64, method string, params jsonv2.Value, relay Relay) error {
	if len(params) == 0 {
		params = jsonv2.Value("{}")
	}
	s := c.Session(id)
	if err := s.Err(); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	msg := &cdproto.Message{ID: c.nextID.Add(1), SessionID: id, Method: cdproto.MethodType(method), Params: params}
	p := &pending{sess: s, ch: make(chan *cdproto.Message, 1), relay: relay, clientID: clientID}
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return fmt.Errorf("%s: %w", method, err)
	}
	c.pending[msg.ID] = p
	c.mu.Unlock()
	if err := c.t.Write(ctx, msg); err != nil {
		s.forget(msg.ID)
		return fmt.Errorf("%s: %w", method, err)
	}
	return nil
}

// fail ends a call whose session or connection ended before its reply.
func (p *pending) fail() {
	if p.relay == nil {
		p.ch <- nil
		return
	}
	msg := "the target is gone"
	if p.sess != nil {
		if err := p.sess.Err(); err != nil {
			msg = err.Error()
		}
	}
	p.relay(&cdproto.Message{ID: p.clientID, SessionID: p.sess.id, Error: &cdproto.Error{Code: -32001, Message: msg}})
}
