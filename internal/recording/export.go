package recording

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html/template"
	"time"
)

// Export is a trace as GET /api/sessions/{id}/trace answers it.
type Export struct {
	Session  string    `json:"session"`
	Task     string    `json:"task"`
	Exported time.Time `json:"exported"`
	Entries  []Entry   `json:"entries"`
}

// JSON is the task's trace as one JSON document.
func (r *Recorder) JSON(session, task string) ([]byte, error) {
	return r.JSONAs(session, session, task)
}

// JSONAs is JSON naming the session shown, as its caller knows it (not
// the owner-qualified name the recording is kept under).
func (r *Recorder) JSONAs(session, shown, task string) ([]byte, error) {
	es, err := r.Entries(session, task)
	if err != nil {
		return nil, err
	}
	if es == nil {
		es = []Entry{}
	}
	return json.MarshalIndent(Export{Session: shown, Task: task, Exported: time.Now().UTC(), Entries: es}, "", "  ")
}

// HTML is the task's trace as one self-contained HTML file a person opens
// offline: the steps, and beside them the frame of the chosen step (the
// frames inlined), stepped through with the arrow keys.
func (r *Recorder) HTML(session, task string) ([]byte, error) {
	return r.HTMLAs(session, session, task)
}

// HTMLAs is HTML naming the session shown (see JSONAs).
func (r *Recorder) HTMLAs(session, shown, task string) ([]byte, error) {
	return r.HTMLFrames(session, shown, task, true)
}

// HTMLFrames is HTMLAs with the frames or without them (for a caller
// that may not see pictures of the page).
func (r *Recorder) HTMLFrames(session, shown, task string, withFrames bool) ([]byte, error) {
	es, err := r.Entries(session, task)
	if err != nil {
		return nil, err
	}
	frames := map[int]string{}
	for _, e := range es {
		if withFrames && e.Type == "action" && e.Frame != "" {
			if b, err := r.Frame(session, task, e.Seq); err == nil {
				frames[e.Seq] = "data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(b)
			}
		}
	}
	data, err := json.Marshal(map[string]any{"entries": es, "frames": frames})
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	err = page.Execute(&buf, map[string]any{
		"Title": fmt.Sprintf("browserd trace: session %s, task %s", shown, task),
		// Page text in entries is data: it reaches the page only as a
		// JSON string, read with textContent, never as markup.
		"Data": template.JS(safeJSON(data)),
	})
	return buf.Bytes(), err
}

// safeJSON escapes what could end a <script> element early.
func safeJSON(b []byte) string {
	b = bytes.ReplaceAll(b, []byte("<"), []byte(`\u003c`))
	b = bytes.ReplaceAll(b, []byte(">"), []byte(`\u003e`))
	b = bytes.ReplaceAll(b, []byte("\u2028"), []byte(`\u2028`))
	b = bytes.ReplaceAll(b, []byte("\u2029"), []byte(`\u2029`))
	return string(b)
}

var page = template.Must(template.New("trace").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<title>{{.Title}}</title>
<style>
body{font-family:sans-serif;margin:0;display:flex;height:100vh}
#steps{width:40%;overflow:auto;border-right:1px solid #ccc;margin:0;padding:0;list-style:none}
#steps li{padding:.4em .6em;border-bottom:1px solid #eee;cursor:pointer;font-size:13px}
#steps li.on{background:#e8f0fe}
#steps li.bad{color:#b00}
#steps .sub{color:#666;font-size:12px;white-space:pre-wrap;word-break:break-all}
#view{flex:1;padding:1em;overflow:auto}
#view img{max-width:100%;border:1px solid #ccc}
#meta{white-space:pre-wrap;font-size:13px}
</style>
</head>
<body>
<ol id="steps"></ol>
<div id="view"><h1 id="h"></h1><img id="frame" alt="the page after this step"><div id="meta"></div></div>
<script>
'use strict';
const trace = {{.Data}};
const actions = trace.entries.filter(e => e.type === 'action');
const subs = {};
for (const e of trace.entries) if (e.type !== 'action') (subs[e.of] = subs[e.of] || []).push(e);
const list = document.getElementById('steps');
let cur = 0;
actions.forEach((a, i) => {
  const li = document.createElement('li');
  li.textContent = a.seq + '. ' + a.action + (a.success === false ? ' — failed' : '') + ' (' + (a.ms || 0) + ' ms)';
  if (a.success === false) li.className = 'bad';
  const sub = document.createElement('div');
  sub.className = 'sub';
  sub.textContent = JSON.stringify(a.args || {});
  li.append(sub);
  li.onclick = () => show(i);
  list.append(li);
});
function show(i) {
  if (i < 0 || i >= actions.length) return;
  cur = i;
  const a = actions[i];
  [...list.children].forEach((li, j) => li.classList.toggle('on', j === i));
  document.getElementById('h').textContent = a.seq + '. ' + a.action + ' at ' + a.time;
  const img = document.getElementById('frame');
  const f = trace.frames[a.seq];
  img.hidden = !f;
  if (f) img.src = f;
  const lines = [];
  if (a.error) lines.push('error: ' + a.error);
  if (a.url) lines.push('page: ' + (a.title ? a.title + ' — ' : '') + a.url);
  lines.push('answer: ' + (a.answerBytes || 0) + ' bytes');
  for (const s of subs[a.seq] || []) lines.push(s.type === 'console' ? 'console ' + s.level + ': ' + s.text : 'request ' + s.method + ' ' + s.status + ' ' + s.resourceType + ' ' + s.url);
  document.getElementById('meta').textContent = lines.join('\n');
  list.children[i].scrollIntoView({block: 'nearest'});
}
document.addEventListener('keydown', e => {
  if (e.key === 'ArrowDown' || e.key === 'ArrowRight') { show(cur + 1); e.preventDefault(); }
  if (e.key === 'ArrowUp' || e.key === 'ArrowLeft') { show(cur - 1); e.preventDefault(); }
});
show(0);
</script>
</body>
</html>
`))
