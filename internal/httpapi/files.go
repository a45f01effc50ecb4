package httpapi

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"

	"github.com/browserd/browserd/internal/auth"
	"github.com/browserd/browserd/internal/files"
	"github.com/browserd/browserd/internal/tool"
)

// link lends the file a successful screenshot or pdf wrote to the caller:
// it registers it (package files) for the request's owner and sets
// screenshotUrl or pdfUrl to /api/files/{id}, a path on the daemon's base
// URL. A file that cannot be registered leaves the result as it was, with
// its path.
func (a *api) link(r *http.Request, in tool.Input, res *tool.Result) {
	if !res.Success {
		return
	}
	path, url := res.ScreenshotPath, &res.ScreenshotURL
	if path == "" && in.Action == "pdf" {
		path, url = res.Path, &res.PDFURL
	}
	if path == "" {
		return
	}
	l, err := a.files.Add(auth.Owner(r.Context()), path)
	if err != nil {
		a.log.Warn("file not linked", "action", in.Action, "error", err)
		return
	}
	*url = l.URL()
}

// file is GET /api/files/{id}: a screenshot or PDF the caller's action
// wrote, while its link lasts. An unknown, expired or another owner's id is
// a 404 that says how to get a new link.
func (a *api) file(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	f, err := a.files.Open(auth.Owner(r.Context()), id)
	if err != nil {
		msg := fmt.Sprintf("no file %s: links last %s, work with the token of the owner whose action made them, and end when the daemon restarts; take a new screenshot (or pdf) through the HTTP API for a new screenshotUrl (pdfUrl)", id, a.files.TTL())
		if errors.Is(err, files.ErrGone) {
			msg = fmt.Sprintf("file %s was removed or overwritten since its link was made; take a new screenshot (or pdf) for a new link", id)
		}
		writeError(w, http.StatusNotFound, msg)
		return
	}
	defer f.Close()
	h := w.Header()
	h.Set("Content-Type", sniff(f.File))
	h.Set("Cache-Control", "private, no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Disposition", mime.FormatMediaType("inline", map[string]string{"filename": f.Name}))
	// ServeContent sets Content-Length, answers HEAD and Range requests.
	http.ServeContent(w, r, f.Name, f.ModTime, f.File)
}

// sniff names a served file's type from its first bytes, not its name (a
// screenshot saved as "x.jpg" is still a PNG): the types screenshots and
// PDFs have, else application/octet-stream. It leaves f at its start.
func sniff(f io.ReadSeeker) string {
	var b [512]byte
	n, _ := io.ReadFull(f, b[:])
	f.Seek(0, io.SeekStart)
	switch t := http.DetectContentType(b[:n]); t {
	case "image/png", "image/jpeg", "image/webp", "application/pdf":
		return t
	default:
		return "application/octet-stream"
	}
}
