package cdpproxy

import (
	"context"
	"sync"
)

// outbox is a connection's queue of messages to the client: pushed from
// anywhere without blocking (the browser connection's reader among them),
// written by one goroutine in order.
type outbox struct {
	mu     sync.Mutex
	q      [][]byte
	closed bool
	ready  chan struct{} // buffered 1
}

func newOutbox() *outbox { return &outbox{ready: make(chan struct{}, 1)} }

func (o *outbox) push(b []byte) {
	o.mu.Lock()
	if !o.closed {
		o.q = append(o.q, b)
	}
	o.mu.Unlock()
	o.signal()
}

// close lets drain end once what is queued is written.
func (o *outbox) close() {
	o.mu.Lock()
	o.closed = true
	o.mu.Unlock()
	o.signal()
}

func (o *outbox) signal() {
	select {
	case o.ready <- struct{}{}:
	default:
	}
}

// drain writes the queue until it is closed and empty, write fails or
// ctx ends.
func (o *outbox) drain(ctx context.Context, write func([]byte) error) {
	for {
		o.mu.Lock()
		q, closed := o.q, o.closed
		o.q = nil
		o.mu.Unlock()
		for _, b := range q {
			if err := write(b); err != nil {
				return
			}
		}
		if closed && len(q) == 0 {
			return
		}
		if len(q) > 0 {
			continue
		}
		select {
		case <-ctx.Done():
			return
		case <-o.ready:
		}
	}
}
