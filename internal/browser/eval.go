package browser

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/browserd/browserd/internal/snapshot"
)

// MaxEvalResult bounds an evaluate result: the first this many characters
// of its JSON text (and at most this many bytes) are returned, the rest
// left out (EvalResult.Total says how much there was).
const MaxEvalResult = 1 << 20

// EvalResult is what Eval returns: the result as JSON text (or a
// description for values JSON cannot carry), at most the bound given.
type EvalResult struct {
	Text string
	// Total is the length of the whole text, in characters (UTF-16 code
	// units, as JavaScript counts them); Shown is how many of them Text
	// holds. Cut when Shown < Total.
	Total, Shown int
}

// Cut reports whether part of the result was left out.
func (r EvalResult) Cut() bool { return r.Shown < r.Total }

// evalCutJS wraps an expression (%[1]s) so that a string result longer
// than the bound (%[2]d) is cut in the page: the daemon receives the bound,
// not the page's 100 MB. It uses only the language's own syntax and the
// string's length and slice — no JSON.stringify or other global a page
// may rewrite (a page that rewrites String.prototype.slice gets its own
// words back, which the answer cuts again). The cut comes back under a key
// (%[3]q) the page cannot guess; any other result comes as Chromium
// serializes it.
const evalCutJS = `(async () => { const __browserdResult = await (%[1]s
); return typeof __browserdResult === 'string' && __browserdResult.length > %[2]d ? {%[3]q: __browserdResult.slice(0, %[2]d), n: __browserdResult.length} : __browserdResult; })()`

// EvalBounded evaluates the agent's JavaScript in the main frame's main
// world — the page's own globals, as the agent asked — awaiting a promise,
// and returns the result as JSON text (or a description for values JSON
// cannot carry), its first limit characters at most (see EvalResult).
//
// An expression is evaluated inside evalCutJS, which cuts a long string
// result in the page. A script of statements runs as it is; what it
// returns comes whole from Chromium and is cut here. browserd's own
// scripts use Run instead.
func (p *Page) EvalBounded(ctx context.Context, expr string, limit int) (EvalResult, error) {
	if limit <= 0 {
		limit = MaxEvalResult
	}
	var nonce [8]byte
	_, _ = rand.Read(nonce[:])
	key := "__browserdCut" + hex.EncodeToString(nonce[:])
	script := expr
	if wrapped := fmt.Sprintf(evalCutJS, expr, limit, key); p.compiles(ctx, wrapped) {
		script = wrapped
	}
	var r struct {
		Result    evalObject     `json:"result"`
		Exception *evalException `json:"exceptionDetails"`
	}
	if err := p.sess.Call(ctx, "Runtime.evaluate", map[string]any{"expression": script, "returnByValue": true, "awaitPromise": true, "userGesture": true}, &r); err != nil {
		return EvalResult{}, err
	}
	if err := r.Exception.err(); err != nil {
		return EvalResult{}, err
	}
	if cut, ok := r.Result.cut(key, limit); ok {
		return cut, nil
	}
	return r.Result.primitive(limit), nil
}

// cut is the result evalCutJS cut in the page, if it is one.
func (o evalObject) cut(key string, limit int) (EvalResult, bool) {
	if o.Type != "object" || len(o.Value) == 0 || o.Value[0] != '{' {
		return EvalResult{}, false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(o.Value, &m) != nil || len(m) != 2 {
		return EvalResult{}, false
	}
	var part string
	var total int
	if json.Unmarshal(m[key], &part) != nil || json.Unmarshal(m["n"], &total) != nil {
		return EvalResult{}, false
	}
	text, _ := json.Marshal(part)
	if len(text) > limit {
		text = cutUTF8(text, limit)
	}
	// As JSON text, as the other results count: with its two quotes.
	return EvalResult{Text: string(text), Total: total + 2, Shown: min(utf16Len([]byte(part)), total)}, true
}

// Eval is EvalBounded with MaxEvalResult, for the text alone.
func (p *Page) Eval(ctx context.Context, expr string) (string, error) {
	r, err := p.EvalBounded(ctx, expr, MaxEvalResult)
	return r.Text, err
}

// compiles reports whether script is valid JavaScript, without running it.
func (p *Page) compiles(ctx context.Context, script string) bool {
	var r struct {
		Exception *struct{} `json:"exceptionDetails"`
	}
	err := p.sess.Call(ctx, "Runtime.compileScript", map[string]any{"expression": script, "sourceURL": "", "persistScript": false}, &r)
	return err == nil && r.Exception == nil
}

// evalObject is a RemoteObject whose value is kept as its JSON text.
type evalObject struct {
	Type         string          `json:"type"`
	Subtype      string          `json:"subtype"`
	Value        json.RawMessage `json:"value"`
	Unserialized string          `json:"unserializableValue"`
	Description  string          `json:"description"`
}

// evalException is a CDP ExceptionDetails, as a *ScriptError.
type evalException struct {
	Text      string       `json:"text"`
	Exception remoteObject `json:"exception"`
}

func (e *evalException) err() error {
	if e == nil {
		return nil
	}
	return &ScriptError{Msg: firstNonEmpty(e.Exception.Description, e.Text)}
}

// primitive is the result of a primitive value, which Chromium sends
// whole: its JSON text cut to limit, copied out of the message.
func (o evalObject) primitive(limit int) EvalResult {
	switch {
	case o.Type == "undefined":
		return whole("undefined")
	case o.Unserialized != "":
		return whole(o.Unserialized)
	case len(o.Value) > 0:
		v := []byte(o.Value)
		total := utf16Len(v)
		if len(v) > limit {
			v = cutUTF8(v, limit)
		}
		return bounded(string(v), total, limit, true)
	}
	return whole(firstNonEmpty(o.Description, o.Type))
}

// whole is a short result shown whole.
func whole(s string) EvalResult {
	n := utf16Len([]byte(s))
	return EvalResult{Text: s, Total: n, Shown: n}
}

// bounded makes the result of text (the first characters of a text total
// characters long) at most limit bytes long. Whole JSON text is written as
// browserd always wrote it (encoding/json's form: keys sorted, <, > and &
// escaped); a part is shown as the page wrote it.
func bounded(text string, total, limit int, isJSON bool) EvalResult {
	if len(text) > limit {
		text = string(cutUTF8([]byte(text), limit))
	}
	shown := utf16Len([]byte(text))
	if shown >= total && isJSON {
		var v any
		if json.Unmarshal([]byte(text), &v) == nil {
			if b, err := json.Marshal(v); err == nil && len(b) <= limit {
				text = string(b)
			}
		}
	}
	return EvalResult{Text: text, Total: max(total, shown), Shown: shown}
}

// cutUTF8 returns the longest prefix of b of at most n bytes (n < len(b))
// that ends on a character boundary.
func cutUTF8(b []byte, n int) []byte {
	for n > 0 && !utf8.RuneStart(b[n]) {
		n--
	}
	return b[:n]
}

// utf16Len is the length of UTF-8 text b in UTF-16 code units, as
// JavaScript counts.
func utf16Len(b []byte) int {
	n := 0
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		b = b[size:]
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// EvalNote says what an answer left out of a result and how to read more,
// or "" when nothing was left out. The slice it suggests starts a little
// before where the shown part ends and is short enough to come whole.
func EvalNote(r EvalResult) string {
	if !r.Cut() {
		return ""
	}
	from := max(r.Shown-1, 0) / 1000 * 1000
	return fmt.Sprintf("the result is %s characters long (as JSON), more than an answer holds (%s): the first %s are shown and %s left out; to read more, evaluate a part of it — for a string, append .slice(%d, %d) to the expression — or only the fields you need",
		snapshot.Commas(r.Total), sizeName(MaxEvalResult), snapshot.Commas(r.Shown), snapshot.Commas(r.Total-r.Shown), from, from+evalSlice)
}

// evalSlice is the length of the slice EvalNote suggests: with its quotes
// and a few escapes its JSON text still fits in MaxEvalResult.
const evalSlice = 1_000_000

// sizeName writes a byte count as "1 MB".
func sizeName(n int) string {
	if n%(1<<20) == 0 {
		return strconv.Itoa(n>>20) + " MB"
	}
	return snapshot.Commas(n) + " bytes"
}
