package browser

import (
	"context"
	"errors"
	"fmt"
	"github.com/browserd/browserd/internal/timing"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp/remote"

	"github.com/browserd/browserd/internal/cdp"
	"github.com/browserd/browserd/internal/chromium"
)

// Browser is one Chromium, launched by browserd or attached over a
// websocket. It is safe for concurrent use. Its event goroutine runs until
// the connection ends; Close ends it.
type Browser struct {
	conn *cdp.Conn
	proc *chromium.Process // nil when attached

	// OnPopup is called (from the event goroutine) when a page opens another
	// page: window.open, target=_blank. Set it before the first page.
	OnPopup func(opener string, info TargetInfo)

	mu        sync.Mutex // protects downloads, dlDir
	downloads map[string]*Download
	claims    map[string]claim // download GUID -> the tab that claimed it
	dlDir     string

	loopDone chan struct{}

	// clipMu makes a chord's copy or paste, and the emptying before a
	// paste, one step; clipOwner is the scope that last copied into the
	// clipboard (clipboard.go).
	clipMu    sync.Mutex
	clipOwner string

	// front is held while a tab is brought to the front of its window for
	// a capture, until the capture is done, and while a tab is opened
	// (Chromium shows a new tab in front): see Page.inFront.
	front chan struct{}
}

// claim is a tab's word that a download is its (Page.downloadWillBegin),
// and when it was heard.
type claim struct {
	tab string
	at  time.Time
}

// TargetInfo is the part of CDP's TargetInfo browserd uses.
type TargetInfo struct {
	TargetID         string `json:"targetId"`
	Type             string `json:"type"`
	URL              string `json:"url"`
	Title            string `json:"title"`
	OpenerID         string `json:"openerId"`
	BrowserContextID string `json:"browserContextId"`
	Attached         bool   `json:"attached"`
}

// Download is a file Chromium downloaded.
type Download struct {
	GUID, URL, Name, FrameID string
	Dir                      string
	Path                     string
	Size                     int64
	State                    string // inProgress, completed, canceled
	Started                  time.Time
}

// Start launches Chromium with the options.
func Start(ctx context.Context, o chromium.Options) (*Browser, error) {
	proc, conn, err := chromium.Launch(ctx, o)
	if err != nil {
		return nil, err
	}
	b := newBrowser(conn, proc)
	if err := b.init(ctx); err != nil {
		b.Close(ctx)
		return nil, err
	}
	return b, nil
}

// Attach connects to a running browser's DevTools websocket.
func Attach(ctx context.Context, wsURL string) (*Browser, error) {
	c, err := remote.DialContext(ctx, wsURL)
	if err != nil {
		return nil, fmt.Errorf("attaching to %s: %w (is the browser running with --remote-debugging-port?)", wsURL, err)
	}
	b := newBrowser(cdp.NewConn(c), nil)
	if err := b.init(ctx); err != nil {
		b.Close(ctx)
		return nil, err
	}
	return b, nil
}

func newBrowser(conn *cdp.Conn, proc *chromium.Process) *Browser {
	return &Browser{conn: conn, proc: proc, downloads: map[string]*Download{}, loopDone: make(chan struct{}), front: make(chan struct{}, 1)}
}

func (b *Browser) init(ctx context.Context) error {
	s := b.conn.Browser()
	l := s.Listen("Target.targetCreated", "Browser.downloadWillBegin", "Browser.downloadProgress")
	go b.loop(l)
	if err := s.Call(ctx, "Target.setDiscoverTargets", map[string]any{"discover": true}, nil); err != nil {
		return fmt.Errorf("browser setup: %w", err)
	}
	return nil
}

// loop handles browser-wide events until the connection ends.
func (b *Browser) loop(l *cdp.Listener) {
	defer close(b.loopDone)
	defer l.Close()
	ctx := context.Background()
	for {
		ev, ok := l.Next(ctx)
		if !ok {
			return
		}
		switch ev.Method {
		case "Target.targetCreated":
			var e struct {
				TargetInfo TargetInfo `json:"targetInfo"`
			}
			if ev.Decode(&e) == nil && e.TargetInfo.Type == "page" && e.TargetInfo.OpenerID != "" && b.OnPopup != nil {
				b.OnPopup(e.TargetInfo.OpenerID, e.TargetInfo)
			}
		case "Browser.downloadWillBegin":
			var e struct {
				FrameID           string `json:"frameId"`
				GUID              string `json:"guid"`
				URL               string `json:"url"`
				SuggestedFilename string `json:"suggestedFilename"`
			}
			if ev.Decode(&e) == nil {
				b.mu.Lock()
				if d := b.downloads[e.GUID]; d != nil {
					d.URL, d.Name, d.FrameID = e.URL, e.SuggestedFilename, e.FrameID
				} else {
					b.downloads[e.GUID] = &Download{GUID: e.GUID, URL: e.URL, Name: e.SuggestedFilename, FrameID: e.FrameID, State: "inProgress", Started: time.Now(), Dir: b.dlDir}
				}
				b.mu.Unlock()
			}
		case "Browser.downloadProgress":
			var e struct {
				GUID          string  `json:"guid"`
				ReceivedBytes float64 `json:"receivedBytes"`
				State         string  `json:"state"`
			}
			if ev.Decode(&e) == nil {
				b.mu.Lock()
				d := b.downloads[e.GUID]
				if d == nil {
					d = &Download{GUID: e.GUID, Started: time.Now(), Dir: b.dlDir}
					b.downloads[e.GUID] = d
				}
				d.Size, d.State = int64(e.ReceivedBytes), e.State
				if d.State == "completed" && d.Path == "" && d.Name != "" {
					// Named at once, whether or not an action reports it:
					// no file keeps its GUID for a name.
					d.Path = b.finishDownload(d)
				}
				b.mu.Unlock()
			}
		}
	}
}

// Downloads returns the downloads that started at or after since, giving
// completed files their suggested names inside their folder.
//
// frames, when not nil, keeps only downloads started by those frames (a
// tab's), so one session never sees another's. A download a tab claimed
// (Page.downloadWillBegin) is that tab's, whatever frame the browser-wide
// event named: when a navigation browserd asked for turns into a download,
// that event names another tab's frame.
func (b *Browser) Downloads(since time.Time, frames map[string]bool) []Download {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []Download
	for guid, c := range b.claims {
		// A tab's claim can be heard before the browser-wide event
		// (they come on different sessions): the download is the tab's
		// and under way, so it is reported as pending.
		// Not for long: a browser that sends no such event (one browserd
		// attached to, whose downloads it did not set up) never will.
		if b.downloads[guid] == nil && !c.at.Before(since) && time.Since(c.at) < 2*time.Second && (frames == nil || frames[c.tab]) {
			out = append(out, Download{GUID: guid, State: "inProgress", Started: c.at, Dir: b.dlDir})
		}
	}
	for _, d := range b.downloads {
		frame := d.FrameID
		if c, ok := b.claims[d.GUID]; ok {
			frame = c.tab
		}
		if d.Started.Before(since) || (frames != nil && !frames[frame]) {
			continue
		}
		if d.State == "completed" && d.Path == "" {
			d.Path = b.finishDownload(d)
		}
		out = append(out, *d)
	}
	return out
}

// claimDownload records that the tab with target id tab started the
// download guid.
func (b *Browser) claimDownload(guid, tab string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.claims == nil {
		b.claims = map[string]claim{}
	}
	b.claims[guid] = claim{tab: tab, at: time.Now()}
}

// finishDownload renames a completed download (saved under its GUID) to its
// suggested file name, made unique, inside the downloads folder.
func (b *Browser) finishDownload(d *Download) string {
	if d.Dir == "" {
		return ""
	}
	src := filepath.Join(d.Dir, d.GUID)
	name := SafeFileName(d.Name, "download")
	dst := filepath.Join(d.Dir, name)
	ext := filepath.Ext(name)
	for i := 2; ; i++ {
		if _, err := os.Lstat(dst); errors.Is(err, os.ErrNotExist) {
			break
		}
		dst = filepath.Join(d.Dir, fmt.Sprintf("%s-%d%s", name[:len(name)-len(ext)], i, ext))
	}
	if err := os.Rename(src, dst); err != nil {
		return src
	}
	return dst
}

// Conn is the browser's connection.
func (b *Browser) Conn() *cdp.Conn { return b.conn }

// Done is closed when the browser is gone (exited, crashed, connection lost).
func (b *Browser) Done() <-chan struct{} { return b.conn.Done() }

// PID is the browser process id, 0 when attached.
func (b *Browser) PID() int {
	if b.proc == nil {
		return 0
	}
	return b.proc.PID()
}

// Attached reports whether browserd attached to a browser it did not start.
func (b *Browser) Attached() bool { return b.proc == nil }

// DeathReason says why the browser went away.
func (b *Browser) DeathReason() string {
	if b.proc != nil {
		return b.proc.ExitMessage()
	}
	if err := b.conn.Err(); err != nil {
		return err.Error()
	}
	return "connection closed"
}

// Close closes the browser: politely first, then by killing its process
// group. An attached browser is only disconnected from, never closed.
func (b *Browser) Close(ctx context.Context) error {
	if b.proc != nil {
		// Politely, but a frozen browser (its pipe full) could block the
		// write itself: past two seconds, kill it; that unblocks the write.
		asked := make(chan struct{})
		go func() {
			defer close(asked)
			cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			defer cancel()
			_ = b.conn.Browser().Call(cctx, "Browser.close", nil, nil)
		}()
		select {
		case <-asked:
			if !b.proc.Wait(3 * time.Second) {
				b.proc.Kill()
			}
		case <-time.After(2 * time.Second):
		}
		b.proc.Kill()
		<-asked
	}
	err := b.conn.Close()
	<-b.loopDone
	return err
}

// NewContext creates an isolated browser context (own cookies and storage)
// whose downloads go to downloadDir and whose every request goes through
// proxyURL (when set), loopback included.
func (b *Browser) NewContext(ctx context.Context, downloadDir, proxyURL string) (string, error) {
	var r struct {
		ID string `json:"browserContextId"`
	}
	p := map[string]any{"disposeOnDetach": false}
	if proxyURL != "" {
		p["proxyServer"] = proxyURL
		p["proxyBypassList"] = "<-loopback>"
	}
	if err := b.conn.Browser().Call(ctx, "Target.createBrowserContext", p, &r); err != nil {
		return "", err
	}
	if err := b.SetDownloads(ctx, r.ID, downloadDir); err != nil {
		return "", err
	}
	return r.ID, nil
}

// SetDownloads makes the context save downloads into dir (created as needed).
func (b *Browser) SetDownloads(ctx context.Context, contextID, dir string) error {
	if dir == "" {
		return nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	p := map[string]any{"behavior": "allowAndName", "downloadPath": dir, "eventsEnabled": true}
	if contextID != "" {
		p["browserContextId"] = contextID
	}
	if err := b.conn.Browser().Call(ctx, "Browser.setDownloadBehavior", p, nil); err != nil {
		return fmt.Errorf("setting the downloads folder: %w", err)
	}
	// Remember the folder so completed downloads can be named.
	b.mu.Lock()
	b.dlDir = dir
	b.mu.Unlock()
	return nil
}

// DisposeContext closes a context and all its pages.
func (b *Browser) DisposeContext(ctx context.Context, id string) error {
	if id == "" {
		return nil
	}
	return b.conn.Browser().Call(ctx, "Target.disposeBrowserContext", map[string]any{"browserContextId": id}, nil)
}

// Targets lists the browser's page targets.
func (b *Browser) Targets(ctx context.Context) ([]TargetInfo, error) {
	var r struct {
		TargetInfos []TargetInfo `json:"targetInfos"`
	}
	if err := b.conn.Browser().Call(ctx, "Target.getTargets", nil, &r); err != nil {
		return nil, err
	}
	return r.TargetInfos, nil
}

// NewPage opens a tab in the context ("" = the default context) and attaches.
func (b *Browser) NewPage(ctx context.Context, contextID string, o PageOptions) (*Page, error) {
	// A tab, not a window: a window costs Chromium a compositor and a
	// second of work on this machine. Background tabs stay fully live —
	// Chromium runs with timer throttling and renderer backgrounding off
	// (launch.go) and every tab emulates focus (newPage) — and the viewport
	// is the tab's device metrics override, not a window size.
	id, err := b.NewTarget(ctx, contextID)
	if err != nil {
		return nil, err
	}
	timing.Mark(ctx, "target")
	pg, err := b.AttachPage(ctx, id, o)
	if err != nil {
		cctx, cancel := cdp.Cleanup(ctx)
		defer cancel()
		_ = b.CloseTarget(cctx, id)
		return nil, err
	}
	return pg, nil
}

// NewTarget opens a blank tab in the context ("" = the default context),
// nobody attached, and returns its target id.
func (b *Browser) NewTarget(ctx context.Context, contextID string) (string, error) {
	p := map[string]any{"url": "about:blank"}
	if contextID != "" {
		p["browserContextId"] = contextID
	}
	var r struct {
		TargetID string `json:"targetId"`
	}
	// The new tab comes to the front: not in the middle of another's
	// capture.
	done, err := b.holdFront(ctx)
	if err != nil {
		return "", fmt.Errorf("opening a tab: %w", err)
	}
	defer done()
	if err := b.conn.Browser().Call(ctx, "Target.createTarget", p, &r); err != nil {
		return "", fmt.Errorf("opening a tab: %w", err)
	}
	return r.TargetID, nil
}

// CloseTarget closes a tab.
func (b *Browser) CloseTarget(ctx context.Context, targetID string) error {
	return b.conn.Browser().Call(ctx, "Target.closeTarget", map[string]any{"targetId": targetID}, nil)
}

// AttachPage attaches to an existing page target and sets it up.
func (b *Browser) AttachPage(ctx context.Context, targetID string, o PageOptions) (*Page, error) {
	var r struct {
		SessionID target.SessionID `json:"sessionId"`
	}
	if err := b.conn.Browser().Call(ctx, "Target.attachToTarget", map[string]any{"targetId": targetID, "flatten": true}, &r); err != nil {
		return nil, fmt.Errorf("attaching to tab: %w", err)
	}
	timing.Mark(ctx, "attached")
	return newPage(ctx, b, targetID, b.conn.Session(r.SessionID), o)
}
