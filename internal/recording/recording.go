// Package recording keeps, for each task, what its agent did and saw: a
// trace of its actions (time, action, arguments with secrets redacted,
// outcome, the answer's size, console errors, the requests the action
// caused) and a small JPEG of the page after each action. A person reads
// it beside the task's live view in the dashboard, or exports it:
// JSON (entries with a type) or one self-contained HTML file (html.go).
//
// On disk: <dir>/<session>/<task>/trace.jsonl, one entry a line, and the
// frames NNNNNN.jpg beside it; files 0600, folders 0700; each line and
// each frame sealed with the data folder's key (Options.Box): a trace
// holds what the agent typed and the URLs it visited. A trace lives as
// long as its task's tabs: the engine drops it with the task or the
// session. Frames are taken after the answer, by the recorder's one
// goroutine, once the tab has been left alone for FrameDelay — an agent
// reads its answer before it acts again — so recording adds nothing to
// an action's time: an action that comes sooner (Begin) cancels the frame
// of the one before (its step then has none), and a frame being taken
// when it comes is thrown away, so no frame shows another step's page.
// Nor does a frame take the CPU from the browser's next steps: while an
// action runs on any tab of its browser, or actions keep coming (an
// agent opening ten tabs), it waits for a pause of FrameDelay, at most
// BusyMax.
package recording

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/browserd/browserd/internal/browser"
	"github.com/browserd/browserd/internal/sealkey"
)

// Entry is one line of a trace. Type says which fields it uses:
// "action" (one call of the tool), "console" (an error or warning the
// page logged during an action), "request" (a request an action caused).
// Action links console and request entries to their action's Seq.
type Entry struct {
	Type string    `json:"type"`
	Seq  int       `json:"seq,omitempty"`
	Time time.Time `json:"time"`

	// action
	Name        string         `json:"action,omitempty"`
	Tab         string         `json:"tab,omitempty"`
	Args        map[string]any `json:"args,omitempty"`
	OK          *bool          `json:"success,omitempty"`
	Error       string         `json:"error,omitempty"`
	MS          int64          `json:"ms,omitempty"`
	AnswerBytes int            `json:"answerBytes,omitempty"`
	URL         string         `json:"url,omitempty"`
	Title       string         `json:"title,omitempty"`
	Frame       string         `json:"frame,omitempty"`
	// Reads says the step only read the page (a screenshot, a snapshot):
	// its frame shows the page the step before left, and marks that
	// step's point (mark.go). Not kept.
	Reads bool `json:"-"`
	// Locator is the element the action targeted, as found again without
	// its ref (long gone by the time a recording is exported or replayed):
	// its role and name when they were unique on the page, else a CSS
	// selector; resolved when the action ran. Fields are fill's fields'
	// (in order), To drag's drop target's.
	Locator *Locator  `json:"locator,omitempty"`
	Fields  []Locator `json:"fieldLocators,omitempty"`
	To      *Locator  `json:"toLocator,omitempty"`

	// console and request
	Of     int    `json:"of,omitempty"` // the action's Seq
	Level  string `json:"level,omitempty"`
	Text   string `json:"text,omitempty"`
	Method string `json:"method,omitempty"`
	Status string `json:"status,omitempty"` // 200, failed, refused, pending
	Kind   string `json:"resourceType,omitempty"`
}

// Locator finds an element again: by accessibility role and name, or
// by a CSS selector (Role empty).
type Locator struct {
	Role     string `json:"role,omitempty"`
	Name     string `json:"name,omitempty"`
	Selector string `json:"selector,omitempty"`
}

// Options configure a Recorder.
type Options struct {
	Dir string // where traces go (<data>/recordings)
	// MaxFrames bounds the frames kept per task: older ones are deleted
	// (their entries stay). Default 500.
	MaxFrames int
	// Width and Quality of the frames (default 640 px, JPEG 50).
	Width, Quality int
	// Box seals what is written (nil: written plain, for tests).
	Box *sealkey.Box
}

// Recorder writes traces. Close stops its goroutine. A nil Recorder
// (--record=off) records nothing.
type Recorder struct {
	opts Options
	log  *slog.Logger

	mu     sync.Mutex
	traces map[string]*trace        // by folder
	gen    map[*browser.Page]uint64 // actions begun on each tab (Begin)
	// busy is when an action last began or ended on each browser, and
	// running how many run on it now (Begin, End): its frames wait until
	// none runs and FrameDelay has passed since (quietAt).
	busy    map[*browser.Browser]time.Time
	running map[*browser.Browser]int
	// points are the viewport points of the last step at a point on each
	// tab, while only reads followed it (mark.go).
	points map[*browser.Page][2]float64
	closed bool

	jobs chan job
	stop chan struct{} // closed by Close: frames still due are given up
	done chan struct{}
}

type trace struct {
	dir    string
	seq    int
	frames []int // seqs of the frames on disk, oldest first
}

type job struct {
	pg   *browser.Page
	path string
	t    *trace
	seq  int
	br   *browser.Browser // the tab's browser, whose other actions the frame waits out
	gen  uint64           // the tab's generation when its action ended
	due  time.Time        // when the frame is taken, if no action came meanwhile
	// x, y are the viewport point the step acted at (mark.go), when
	// point says it did.
	x, y  float64
	point bool
}

// FrameDelay is how long a tab must be left alone after an action for the
// frame of the page after it to be taken.
const FrameDelay = 300 * time.Millisecond

// BusyMax bounds how long past FrameDelay a frame waits for its browser
// to be left alone: a browser busy with many agents' tabs still has its
// frames taken. At 2 s, an agent opening tabs back to back had the first
// tabs' frames taken (each bringing its tab to the front, drawn again)
// while it opened the seventh and later: 10 s leaves them for its first
// pause (docs/benchmarks.md, "Issue 50, fifth steps").
const BusyMax = 10 * time.Second

// New returns a Recorder writing under opts.Dir and starts its goroutine.
func New(opts Options, log *slog.Logger) *Recorder {
	if opts.MaxFrames <= 0 {
		opts.MaxFrames = 500
	}
	if opts.Width <= 0 {
		opts.Width = 640
	}
	if opts.Quality <= 0 {
		opts.Quality = 50
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	r := &Recorder{opts: opts, log: log, traces: map[string]*trace{}, gen: map[*browser.Page]uint64{}, busy: map[*browser.Browser]time.Time{}, running: map[*browser.Browser]int{}, points: map[*browser.Page][2]float64{},
		jobs: make(chan job, 64), stop: make(chan struct{}), done: make(chan struct{})}
	go r.run()
	return r
}

// Close stops taking frames; the frames queued are given up.
func (r *Recorder) Close() {
	if r == nil {
		return
	}
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return
	}
	r.closed = true
	r.mu.Unlock()
	close(r.stop)
	close(r.jobs)
	<-r.done
}

// folder is a task's trace folder: the session's id and the task's name
// each one escaped path segment.
func (r *Recorder) folder(session, task string) string {
	return filepath.Join(r.opts.Dir, url.PathEscape(session), url.PathEscape(task))
}

// Record appends an action with its console messages and requests to the
// task's trace and, when pg is set, queues a frame of it. It returns the
// action's Seq.
func (r *Recorder) Record(session, task string, a Entry, console []Entry, requests []Entry, pg *browser.Page) (int, error) {
	if r == nil {
		return 0, nil
	}
	dir := r.folder(session, task)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return 0, errors.New("the recorder is closed")
	}
	t := r.traces[dir]
	if t == nil {
		t = &trace{dir: dir}
		t.seq = r.lastSeq(dir)
		r.traces[dir] = t
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return 0, fmt.Errorf("making the recording folder: %w", err)
	}
	t.seq++
	a.Type, a.Seq = "action", t.seq
	var frame string
	if pg != nil {
		frame = fmt.Sprintf("%06d.jpg", t.seq)
		a.Frame = frame
	}
	var buf bytes.Buffer
	buf.Write(r.line(a, dir))
	for _, es := range [][]Entry{console, requests} {
		for _, e := range es {
			e.Of = t.seq
			buf.Write(r.line(e, dir))
		}
	}
	f, err := os.OpenFile(filepath.Join(dir, "trace.jsonl"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return 0, fmt.Errorf("opening the trace: %w", err)
	}
	_, err = f.Write(buf.Bytes())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, fmt.Errorf("writing the trace: %w", err)
	}
	if pg != nil {
		now := time.Now()
		j := job{pg: pg, br: pg.Browser(), path: filepath.Join(dir, frame), t: t, seq: t.seq, gen: r.gen[pg], due: now.Add(FrameDelay)}
		r.busy[j.br] = now
		j.x, j.y, j.point = pointOf(a.Args)
		switch {
		case j.point:
			r.points[pg] = [2]float64{j.x, j.y}
		case a.Reads:
			if p, ok := r.points[pg]; ok {
				j.x, j.y, j.point = p[0], p[1], true
			}
		default:
			delete(r.points, pg)
		}
		select {
		case r.jobs <- j:
		default:
			r.log.Warn("recording: frames fall behind; one skipped", "session", session, "task", task)
		}
	}
	return t.seq, nil
}

// Begin says an action starts on pg: the frame of its last action is not
// taken if it was not yet, and thrown away if it is being taken. Until
// End says it ended, no frame of its browser is taken (but for BusyMax).
func (r *Recorder) Begin(pg *browser.Page) {
	if r == nil {
		return
	}
	r.mu.Lock()
	r.gen[pg]++
	now := time.Now()
	r.busy[pg.Browser()] = now
	r.running[pg.Browser()]++
	if len(r.busy) > 16 {
		for b, at := range r.busy {
			if now.Sub(at) > FrameDelay+BusyMax {
				delete(r.busy, b) // its frames wait for nothing any more
			}
		}
	}
	if len(r.gen) > 64 {
		// Forget the tabs that closed since (a tab_close leaves no frame
		// to take, so nothing else would).
		for p := range r.gen {
			if p.Closed() {
				delete(r.gen, p)
				delete(r.points, p)
			}
		}
	}
	r.mu.Unlock()
}

// current reports whether no action began on j's tab since j's.
func (r *Recorder) current(j job) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.gen[j.pg] == j.gen
}

// run takes the queued frames, one at a time, until Close: each once
// its browser has been left alone (quietAt), in the order they came, a
// frame waiting for its busy browser holding up no other browser's. A
// frame whose tab acted again meanwhile is given up at once.
func (r *Recorder) run() {
	defer close(r.done)
	var waiting []job
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		var next time.Time
		kept := waiting[:0]
		for _, j := range waiting {
			select {
			case <-r.stop:
				return // the frames still waiting are given up
			default:
			}
			if at := r.quietAt(j); r.current(j) && at.After(time.Now()) {
				if next.IsZero() || at.Before(next) {
					next = at
				}
				kept = append(kept, j)
				continue
			}
			r.take(j) // due, or no longer current: take forgets it
		}
		clear(waiting[len(kept):])
		waiting = kept
		var due <-chan time.Time
		if !next.IsZero() {
			timer.Reset(time.Until(next))
			due = timer.C
		}
		select {
		case j, ok := <-r.jobs:
			if !ok {
				return
			}
			waiting = append(waiting, j)
		case <-due:
		case <-r.stop:
			return
		}
	}
}

// End says the action Begin said started on pg has ended (its answer is
// made): its browser's frames may be taken once it has been left alone
// for FrameDelay.
func (r *Recorder) End(pg *browser.Page) {
	if r == nil {
		return
	}
	br := pg.Browser()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.busy[br] = time.Now()
	if r.running[br]--; r.running[br] <= 0 {
		delete(r.running, br)
	}
}

// quietAt is when j's frame may be taken: FrameDelay after its action,
// and after the last action begun, recorded or ended on its browser since
// — while an action runs on it, FrameDelay from now at the soonest (a
// frame taken in the middle of a long action, a new tab opening, slowed
// it) — but no later than BusyMax past that.
func (r *Recorder) quietAt(j job) time.Time {
	r.mu.Lock()
	at := r.busy[j.br].Add(FrameDelay)
	if r.running[j.br] > 0 {
		at = later(at, time.Now().Add(FrameDelay))
	}
	r.mu.Unlock()
	if at.Before(j.due) {
		return j.due
	}
	if last := j.due.Add(BusyMax); at.After(last) {
		return last
	}
	return at
}

// take takes j's frame, unless its tab closed or acted again since.
func (r *Recorder) take(j job) {
	defer func() {
		r.mu.Lock()
		if r.gen[j.pg] == j.gen && j.pg.Closed() {
			delete(r.gen, j.pg) // the tab is gone: forget it
			delete(r.points, j.pg)
		}
		r.mu.Unlock()
	}()
	if j.pg.Closed() || !r.current(j) {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if j.pg.Dialog() != nil {
		return // a dialog blocks the page's painting: no frame
	}
	// A dialog that opens meanwhile ends the capture (it would wait for
	// the dialog).
	actx, stop := j.pg.ActionContext(ctx)
	defer stop()
	img, err := j.pg.Thumbnail(actx, r.opts.Width, r.opts.Quality)
	if err != nil {
		return // a tab closed or busy with a dialog: the entry has no frame
	}
	if j.point {
		img = markFrame(actx, j.pg, img, j.x, j.y, r.opts.Quality)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.gen[j.pg] != j.gen {
		return // the next action began meanwhile: this is not its page
	}
	if _, ok := r.traces[j.t.dir]; !ok {
		return // dropped meanwhile
	}
	if err := os.WriteFile(j.path, r.seal(img, j.t.dir, filepath.Base(j.path)), 0o600); err != nil {
		r.log.Warn("recording: writing a frame failed", "err", err)
		return
	}
	j.t.frames = append(j.t.frames, j.seq)
	for len(j.t.frames) > r.opts.MaxFrames {
		_ = os.Remove(filepath.Join(j.t.dir, fmt.Sprintf("%06d.jpg", j.t.frames[0])))
		j.t.frames = j.t.frames[1:]
	}
}

// seal and open a trace's lines and frames under a label of their own
// folder: one moved to another task's folder does not open.
func (r *Recorder) seal(b []byte, dir, what string) []byte {
	if r.opts.Box == nil {
		return b
	}
	return r.opts.Box.Seal(b, "recording:"+filepath.Base(filepath.Dir(dir))+"/"+filepath.Base(dir)+"/"+what)
}

func (r *Recorder) open(b []byte, dir, what string) ([]byte, error) {
	if r.opts.Box == nil {
		return b, nil
	}
	return r.opts.Box.Open(b, "recording:"+filepath.Base(filepath.Dir(dir))+"/"+filepath.Base(dir)+"/"+what)
}

// line is one entry as trace.jsonl holds it: sealed and in base64 when
// the recorder seals.
func (r *Recorder) line(e Entry, dir string) []byte {
	b, _ := json.Marshal(e)
	if r.opts.Box == nil {
		return append(b, '\n')
	}
	return append([]byte(base64.StdEncoding.EncodeToString(r.seal(b, dir, "trace"))), '\n')
}

// readLine is the entry of one line of trace.jsonl.
func (r *Recorder) readLine(l []byte, dir string) (Entry, error) {
	var e Entry
	if r.opts.Box != nil {
		raw, err := base64.StdEncoding.DecodeString(string(l))
		if err != nil {
			return e, err
		}
		if l, err = r.open(raw, dir, "trace"); err != nil {
			return e, err
		}
	}
	err := json.Unmarshal(l, &e)
	return e, err
}

// lastSeq is the Seq of the last action of a trace already on disk (a
// daemon that restarted goes on counting).
//
// Entries are appended in order, so the trace is read from its end, a
// block at a time, until a block holds an action — not whole: a trace
// grows with every step of its task, and reading a few megabytes of it
// sealed held the first answer after each restart 70-100 ms.
func (r *Recorder) lastSeq(dir string) int {
	return r.lastSeqBlocks(dir, 64<<10)
}

// lastSeqBlocks is lastSeq reading blocks of the given size.
func (r *Recorder) lastSeqBlocks(dir string, block int64) int {
	f, err := os.Open(filepath.Join(dir, "trace.jsonl"))
	if err != nil {
		return 0
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0
	}
	// cut is the start of the line the block after this one began in
	// the middle of: it ends this block.
	var cut []byte
	for end := st.Size(); end > 0; {
		start := max(0, end-block)
		buf := make([]byte, end-start, end-start+int64(len(cut)))
		if _, err := f.ReadAt(buf, start); err != nil {
			return 0
		}
		lines := bytes.Split(append(buf, cut...), []byte("\n"))
		first := 0
		if start > 0 {
			cut, first = lines[0], 1 // its start is in the block before
		}
		for i := len(lines) - 1; i >= first; i-- {
			// A line cut short (a daemon killed while it wrote) reads as
			// nothing.
			if e, err := r.readLine(lines[i], dir); err == nil && e.Type == "action" && e.Seq > 0 {
				return e.Seq
			}
		}
		end = start
	}
	return 0
}

// Entries reads a task's trace, oldest first; none (nil) when it has none.
func (r *Recorder) Entries(session, task string) ([]Entry, error) {
	dir := r.folder(session, task)
	r.mu.Lock()
	defer r.mu.Unlock()
	b, err := os.ReadFile(filepath.Join(dir, "trace.jsonl"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the trace: %w", err)
	}
	var out []Entry
	for _, line := range bytes.Split(b, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		e, err := r.readLine(line, dir)
		if err != nil {
			continue // a line cut by a crash, or sealed with another key
		}
		out = append(out, e)
	}
	return out, nil
}

// Frame is the JPEG of the page after the task's action seq; ErrNoFrame
// when it has none (not taken, or dropped for a newer one).
func (r *Recorder) Frame(session, task string, seq int) ([]byte, error) {
	dir, name := r.folder(session, task), fmt.Sprintf("%06d.jpg", seq)
	b, err := os.ReadFile(filepath.Join(dir, name))
	if errors.Is(err, os.ErrNotExist) {
		return nil, ErrNoFrame
	}
	if err != nil {
		return nil, err
	}
	return r.open(b, dir, name)
}

// ErrNoFrame: the action has no frame.
var ErrNoFrame = errors.New("no frame of that step: it was not taken (no tab, a dialog open), or only the last frames are kept")

// DropTask deletes a task's trace.
func (r *Recorder) DropTask(session, task string) {
	if r == nil {
		return
	}
	dir := r.folder(session, task)
	r.mu.Lock()
	delete(r.traces, dir)
	r.mu.Unlock()
	_ = os.RemoveAll(dir)
}

// DropSession deletes the traces of every task of a session.
func (r *Recorder) DropSession(session string) {
	if r == nil {
		return
	}
	dir := filepath.Join(r.opts.Dir, url.PathEscape(session))
	r.mu.Lock()
	for k := range r.traces {
		if filepath.Dir(k) == dir {
			delete(r.traces, k)
		}
	}
	r.mu.Unlock()
	_ = os.RemoveAll(dir)
}

// Sessions lists the sessions that have traces on disk (their ids), for
// a sweep of those that ended while the daemon was down.
func (r *Recorder) Sessions() []string {
	des, err := os.ReadDir(r.opts.Dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, d := range des {
		if id, err := url.PathUnescape(d.Name()); err == nil && d.IsDir() {
			out = append(out, id)
		}
	}
	return out
}

// later is the later of two times.
func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
