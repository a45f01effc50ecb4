// Package timing records when the steps of one call happened, for the
// debug log: where an action's time went, in the daemon as agents meet
// it (finding the element, the click, the page settling, the read done
// meanwhile, the answer). A context without a record costs a lookup.
package timing

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"
)

// Steps is one call's record: each step's name and when it ended, from
// the call's start. Steps may be marked from several goroutines (the
// read done while the page settles).
type Steps struct {
	start time.Time
	mu    sync.Mutex
	steps []step
}

type step struct {
	name string
	at   time.Duration
}

type key struct{}

// Start returns ctx carrying a new record that starts now.
func Start(ctx context.Context) (context.Context, *Steps) {
	s := &Steps{start: time.Now()}
	return context.WithValue(ctx, key{}, s), s
}

// Mark records that the step name ended now, in ctx's record if it has
// one.
func Mark(ctx context.Context, name string) {
	s, ok := ctx.Value(key{}).(*Steps)
	if !ok {
		return
	}
	at := time.Since(s.start)
	s.mu.Lock()
	s.steps = append(s.steps, step{name, at})
	s.mu.Unlock()
}

// String lists the steps in the order they were marked, each with the
// milliseconds from the start: "target 1.4ms, watch 2.3ms, …".
func (s *Steps) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	for i, st := range s.steps {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %.1fms", st.name, float64(st.at.Microseconds())/1000)
	}
	return b.String()
}
