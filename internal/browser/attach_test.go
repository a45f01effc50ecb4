package browser

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"
)

// TestAttachErrorNamesEndpoint (source 004): a browser that cannot be
// reached is named with the cause and what to check.
func TestAttachErrorNamesEndpoint(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	ws := "ws://" + addr + "/devtools/browser/none"
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	b, err := Attach(ctx, ws)
	if err == nil {
		b.Close(ctx)
		t.Fatal("attached to a closed port")
	}
	for _, want := range []string{ws, "refused", "--remote-debugging-port"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("attach error %q does not say %q", err, want)
		}
	}
}

// TestDragPath: a drag leaves the press toward the drop point by the
// threshold, and its steps end on the drop point.
func TestDragPath(t *testing.T) {
	from, to := Point{100, 100}, Point{100, 300}
	if got := from.toward(to, 8); got != (Point{100, 108}) {
		t.Errorf("toward = %v, want 8 px down", got)
	}
	if got := from.toward(from, 8); got != (Point{108, 100}) {
		t.Errorf("toward the same point = %v, want 8 px right", got)
	}
	if got := from.toward(Point{103, 100}, 8); got != (Point{103, 100}) {
		t.Errorf("toward a point nearer than the threshold = %v, want that point", got)
	}
	if got := from.lerp(to, 1); got != to {
		t.Errorf("lerp(1) = %v, want %v", got, to)
	}
	if got := from.lerp(to, 0.5); got != (Point{100, 200}) {
		t.Errorf("lerp(0.5) = %v", got)
	}
}
