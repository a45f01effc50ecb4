package browser

import (
	"strings"
	"testing"
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
