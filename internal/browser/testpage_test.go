package browser

import (
	"context"
	"testing"
	"time"

	"github.com/browserd/browserd/internal/chromium"
)

// startTestPage starts a headless Chromium of the test's own and opens
// an 800×600 tab in it, both closed when the test ends; ctx ends after
// 30 s. It skips in -short mode and where no Chromium is installed.
func startTestPage(t *testing.T) (context.Context, *Browser, *Page) {
	t.Helper()
	if testing.Short() {
		t.Skip("launches Chromium")
	}
	if _, err := chromium.Find(""); err != nil {
		t.Skipf("no Chromium: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	br, err := Start(ctx, chromium.Options{UserDataDir: t.TempDir(), Width: 800, Height: 600})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { br.Close(context.Background()) })
	pg, err := br.NewPage(ctx, "", PageOptions{Width: 800, Height: 600})
	if err != nil {
		t.Fatal(err)
	}
	return ctx, br, pg
}
