package browser

import (
	"context"
	"strings"
	"testing"
	"time"
)

// The browser runs no page of its own beside the tabs: Chromium's web
// omnibox popup, a renderer that worked 50 ms for every tab opened though
// no omnibox is ever shown headless, is turned off (chromium.Options.Args).
func TestNoOmniboxPage(t *testing.T) {
	ctx, br, pg := startTestPage(t)
	if err := pg.Navigate(ctx, "data:text/html,<p>hi</p>"); err != nil {
		t.Fatal(err)
	}
	if _, err := br.NewPage(ctx, "", PageOptions{}); err != nil {
		t.Fatal(err)
	}
	ts, err := br.Targets(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range ts {
		if x.Type == "browser_ui" || strings.HasPrefix(x.URL, "chrome://") {
			t.Errorf("the browser runs %s %s %q", x.Type, x.URL, x.Title)
		}
	}
}

// A tab behind others in its window is captured: Chromium draws only the
// front tab, and a capture of another waited for a frame that never came
// (a session's tasks each have a tab: all but the last opened are behind).
func TestCaptureBehind(t *testing.T) {
	ctx, br, first := startTestPage(t)
	if err := first.Navigate(ctx, "data:text/html,<h1>first</h1>"); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		pg, err := br.NewPage(ctx, "", PageOptions{Width: 800, Height: 600})
		if err != nil {
			t.Fatal(err)
		}
		if err := pg.Navigate(ctx, "data:text/html,<h1>later</h1>"); err != nil {
			t.Fatal(err)
		}
	}
	// Chromium keeps drawing a tab for a moment after another came in
	// front of it.
	time.Sleep(1500 * time.Millisecond)
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if _, err := first.Thumbnail(cctx, 320, 50); err != nil {
		t.Errorf("the thumbnail of a tab behind two others: %v", err)
	}
	if png, err := first.Screenshot(cctx, false, nil); err != nil || len(png) == 0 {
		t.Errorf("the screenshot of a tab behind two others: %d bytes, %v", len(png), err)
	}
}

// A capture that never ends (a page that draws nothing) holds the front
// for frontWait at most: another capture, or a new tab, then goes on.
func TestFrontNotHeldForever(t *testing.T) {
	b := newBrowser(nil, nil)
	stuck, err := b.holdFront(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer stuck()
	ctx, cancel := context.WithTimeout(context.Background(), 10*frontWait)
	defer cancel()
	done, err := b.holdFront(ctx)
	if err != nil {
		t.Fatalf("the front held by a stuck capture kept the next waiting: %v", err)
	}
	done()
	cctx, ccancel := context.WithCancel(context.Background())
	ccancel()
	if _, err := b.holdFront(cctx); err == nil {
		t.Error("a wait for the front whose context ended did not fail")
	}
}
