package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"github.com/browserd/browserd/internal/untrusted"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/browserd/browserd/internal/replay"
)

// traceCmd is `browserd trace`: a task's recording (what its agent did and
// saw) as JSON, one self-contained HTML file, or a Playwright test.
type traceCmd struct {
	ID     string `arg:"" optional:"" name:"session" help:"The session (default: the profile's, default)."`
	HTML   bool   `name:"html" help:"One self-contained HTML file to open offline, frames included (default: JSON); same as --format html."`
	Format string `name:"format" enum:",json,html,playwright" default:"" help:"json (default), html, or playwright: a runnable @playwright/test file (name it *.spec.ts)."`
	Output string `name:"output" short:"o" placeholder:"FILE" help:"Write it to FILE instead of standard output."`
}

func (c *traceCmd) run(ctx context.Context, e *env) error {
	session := cmp.Or(c.ID, e.g.Profile, "default")
	task := cmp.Or(e.g.Session, "default")
	path := "/api/sessions/" + url.PathEscape(session) + "/trace?task=" + url.QueryEscape(task)
	format := c.Format
	if c.HTML {
		format = "html"
	}
	if format != "" && format != "json" {
		path += "&format=" + format
	}
	var b []byte
	if err := e.api(ctx, "GET", path, nil, &b); err != nil {
		return err
	}
	return writeOut(e, c.Output, b, "the trace")
}

func writeOut(e *env, path string, b []byte, what string) error {
	if path != "" {
		if err := os.WriteFile(path, b, 0o600); err != nil {
			return fmt.Errorf("writing %s: %w", what, err)
		}
		_, err := fmt.Fprintln(e.stdout, path)
		return err
	}
	_, err := e.stdout.Write(b)
	return err
}

// replayCmd is `browserd replay FILE`: a recording (browserd trace's JSON)
// walked again without the model, in a task of its own.
type replayCmd struct {
	File   string   `arg:"" name:"file" help:"The recording: the JSON of browserd trace (- reads standard input)."`
	Params []string `name:"param" short:"p" help:"A value to type instead of the recorded one: STEP=VALUE (the step's number), TEXT=VALUE (the text it typed) or SECRET=OTHER (a secret's name); repeatable." placeholder:"K=V"`
}

func (c *replayCmd) run(ctx context.Context, e *env) error {
	var raw []byte
	var err error
	if c.File == "-" {
		raw, err = io.ReadAll(io.LimitReader(os.Stdin, maxCall))
	} else {
		raw, err = os.ReadFile(c.File)
	}
	if err != nil {
		return fmt.Errorf("reading the recording: %w", err)
	}
	req, err := replay.Parse(raw)
	if err != nil {
		return err
	}
	for _, p := range c.Params {
		k, v, ok := strings.Cut(p, "=")
		if !ok || k == "" {
			return fmt.Errorf("--param %q: give KEY=VALUE (a step's number, the text it typed, or a secret's name)", p)
		}
		if req.Params == nil {
			req.Params = map[string]string{}
		}
		req.Params[k] = v
	}
	// The global --task names the task the replay runs in (default:
	// replay-<the recorded task>, a fresh one).
	task := cmp.Or(e.g.Session, "replay-"+cmp.Or(req.Recording.Task, "default"))
	path := "/api/replay?task=" + url.QueryEscape(task)
	if e.g.Profile != "" {
		path += "&session=" + url.QueryEscape(e.g.Profile)
	}
	var rep replay.Report
	if err := e.api(ctx, "POST", path, req, &rep); err != nil {
		return err
	}
	if e.g.JSON {
		if err := writeJSON(e.stdout, rep); err != nil {
			return err
		}
	} else {
		saveFrames(ctx, e, &rep)
		printReport(e, rep)
	}
	if !rep.Passed {
		return errReported
	}
	return nil
}

// saveFrames fetches the failed step's two pictures — the recording's
// frame and the page's screenshot when it broke — into files a person
// opens, and names those files in their place: the URLs the daemon gives
// need its token, which a person at a terminal does not hold. A picture
// that cannot be fetched (the recording keeps only its last frames) is
// left out, saying why on stderr.
func saveFrames(ctx context.Context, e *env, rep *replay.Report) {
	f := rep.Failed
	if f == nil || (f.Expected.Frame == "" && f.Actual.Frame == "") {
		return
	}
	dir, err := os.MkdirTemp("", "browserd-replay-")
	if err != nil {
		return
	}
	save := func(link *string, name string) {
		if !strings.HasPrefix(*link, "/api/") {
			return
		}
		var raw []byte
		if err := e.api(ctx, "GET", *link, nil, &raw); err != nil || len(raw) == 0 {
			fmt.Fprintf(e.stderr, "browserd: the %s picture of step %d is not saved: %v\n", name, f.Seq, err)
			*link = "" // a link that needs the daemon's token helps no one here
			return
		}
		ext := ".png"
		if strings.Contains(http.DetectContentType(raw), "jpeg") {
			ext = ".jpg"
		}
		path := filepath.Join(dir, fmt.Sprintf("step-%d-%s%s", f.Seq, name, ext))
		if os.WriteFile(path, raw, 0o600) == nil {
			*link = path
		}
	}
	save(&f.Expected.Frame, "recorded")
	save(&f.Actual.Frame, "now")
}

// printReport writes a replay's report for a person. The steps' code
// (locators hold the page's names), why a step broke and what the page
// showed are page content: they go inside one untrusted-content envelope,
// as every answer's page text does; browserd's own verdict stays outside.
func printReport(e *env, rep replay.Report) {
	w := &errWriter{w: e.stdout}
	var in strings.Builder
	for _, s := range rep.Steps {
		mark := "ok  "
		if !s.OK {
			mark = "FAIL"
		}
		fmt.Fprintf(&in, "%s step %d %s (%d ms)  %s\n", mark, s.Seq, s.Action, s.MS, s.Code)
	}
	if f := rep.Failed; f != nil {
		fmt.Fprintf(&in, "why: %s\n", f.Why)
		// As a person reads it: < and > as themselves, not \u003c (the
		// envelope defuses what could pass for its markers).
		enc := json.NewEncoder(&in)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		_ = enc.Encode(map[string]any{"expected": f.Expected, "actual": f.Actual})
	}
	w.println(untrusted.New().Wrap(in.String()))
	if rep.Passed {
		w.println(fmt.Sprintf("replay passed: %d steps in task %s", len(rep.Steps), rep.Task))
		return
	}
	if f := rep.Failed; f != nil {
		w.println(fmt.Sprintf("replay stopped at step %d (%s); why, and what the page shows, are above", f.Seq, f.Action))
	}
}
