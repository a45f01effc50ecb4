package browser

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/browserd/browserd/internal/chromium"
)

// TestNavigateWaitsForWhatTheLoadSetsOff: a navigation that answers
// without the network-quiet window (nothing in flight, no short timer
// pending) still shows what the page does right after its load — in the
// next animation frame, after a short timer's request, after the callback
// of a request the load started — and a page that rewrites
// requestAnimationFrame and setTimeout to never run cannot hold it.
func TestNavigateWaitsForWhatTheLoadSetsOff(t *testing.T) {
	if testing.Short() {
		t.Skip("launches Chromium")
	}
	if _, err := chromium.Find(""); err != nil {
		t.Skipf("no Chromium: %v", err)
	}
	pages := map[string]string{
		"/plain": `<p>plain</p>`,
		"/frame": `<p id="o">before</p><script>onload = () => requestAnimationFrame(() => { document.getElementById('o').textContent = 'drawn in a frame'; });</script>`,
		"/timer": `<p id="o">before</p><script>onload = () => setTimeout(() => fetch("/data").then(r => r.text()).then(t => { document.getElementById('o').textContent = t; }), 20);</script>`,
		"/chain": `<p id="o">before</p><script>onload = () => fetch('/data').then(r => r.text()).then(() => fetch('/data2')).then(r => r.text()).then(t => { document.getElementById('o').textContent = t; });</script>`,
		"/stuck": `<p id="o">stuck</p><script>window.requestAnimationFrame = () => 0; window.setTimeout = () => 0;</script>`,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/data":
			time.Sleep(30 * time.Millisecond)
			fmt.Fprint(w, "fetched after a timer")
			return
		case "/data2":
			time.Sleep(30 * time.Millisecond)
			fmt.Fprint(w, "fetched after a fetch")
			return
		}
		body, ok := pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintf(w, "<!doctype html><title>t</title>%s", body)
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	br, err := Start(ctx, chromium.Options{UserDataDir: t.TempDir(), Width: 800, Height: 600})
	if err != nil {
		t.Fatal(err)
	}
	defer br.Close(context.Background())
	pg, err := br.NewPage(ctx, "", PageOptions{Width: 800, Height: 600})
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"/plain": "plain", "/frame": "drawn in a frame", "/timer": "fetched after a timer",
		"/chain": "fetched after a fetch", "/stuck": "stuck",
	} {
		nctx, ncancel := context.WithTimeout(ctx, 10*time.Second)
		err := pg.Navigate(nctx, srv.URL+path)
		ncancel()
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		var text string
		if err := pg.Run(ctx, "document.body.innerText", &text); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(text, want) {
			t.Errorf("%s: the navigation answered before the page showed %q: %q", path, want, text)
		}
	}
}
