package cli

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/browserd/browserd/internal/mcpserver"
	"github.com/browserd/browserd/internal/tool"
)

// print writes a result: as JSON with --json, else as text: a screenshot's
// path, or a title/url line (unless the content's envelope holds them),
// notes, and the content. A failed action prints
// its error to stderr and returns errReported.
func (e *env) print(res tool.Result) error {
	if e.g.JSON {
		if err := writeJSON(e.stdout, res); err != nil {
			return err
		}
		if !res.Success {
			return errReported
		}
		return nil
	}
	if !res.Success {
		msg := res.Error
		if msg == "" {
			msg = res.Action + " failed without a message"
		}
		fmt.Fprintf(e.stderr, "error: %s\n", msg)
		return errReported
	}
	if res.ScreenshotPath != "" {
		// The file, for scripts that read one line; an annotated
		// screenshot's labels (its legend) after it, as the answer has
		// them.
		if _, err := fmt.Fprintln(e.stdout, res.ScreenshotPath); err != nil || !e.legend {
			return err
		}
		_, err := fmt.Fprintln(e.stdout, res.Content)
		return err
	}
	w := &errWriter{w: e.stdout}
	// A wrapped result carries the page's title and URL inside the
	// untrusted-content envelope: printed before it, a title could forge
	// the envelope's end. Only --no-wrap results print them here.
	switch {
	case res.Wrapped:
	case res.Title != "" && res.URL != "":
		w.println(res.Title + " — " + res.URL)
	case res.Title != "":
		w.println(res.Title)
	case res.URL != "":
		w.println(res.URL)
	}
	for _, n := range mcpserver.Notes(res) {
		w.println(n)
	}
	switch {
	case res.Content != "":
		w.println(res.Content)
	case len(res.Tabs) > 0:
		w.println(mcpserver.TabList(res.Tabs))
	}
	return w.err
}

func writeJSON(w io.Writer, res any) error {
	b, err := json.Marshal(res)
	if err != nil {
		return fmt.Errorf("encode the result: %w", err)
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// errWriter keeps the first write error.
type errWriter struct {
	w   io.Writer
	err error
}

func (w *errWriter) println(s string) {
	if w.err == nil {
		_, w.err = fmt.Fprintln(w.w, s)
	}
}
