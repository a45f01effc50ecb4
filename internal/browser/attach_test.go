package browser

import (
	"context"
	"net"
	"slices"
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

// TestArgsBoundTheCache: every browser's HTTP cache is bounded, so a
// profile used for months does not grow without end.
func TestArgsBoundTheCache(t *testing.T) {
	args := LaunchOptions{UserDataDir: "/x", Width: 10, Height: 10}.Args()
	if !slices.Contains(args, "--disk-cache-size=67108864") {
		t.Errorf("no cache bound in %v", args)
	}
}
