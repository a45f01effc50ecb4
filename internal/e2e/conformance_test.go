//go:build linux

package e2e

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/browserd/browserd/internal/testsite"
	"github.com/browserd/browserd/internal/tool"
)

// The conformance corpus (internal/testsite/conformance, served at /c/)
// holds pages modelled on the widget patterns and hard cases agents meet:
// pickers, spin buttons, to-do apps with double-click editing and hash
// routes, context menus, modifier clicks, multi-selects, delayed menus,
// scroll boxes, rotated and wrapped links, half-covered fields, the
// back/forward cache, autocompletes, form tables, quizzes, long values,
// hover reveals and a page that rewrites built-ins. An agent scripted in Go
// drives each page through the MCP client, acting only on refs it read in
// the answers it got; the test then reads the page's final state with
// evaluate, as the agent could not.

// confTool is a browser server as the scripted agent sees it: browserd's
// browser tool here, Playwright MCP in conformance_playwright_test.go.
// Every method returns the answer's text, which is all the agent reads.
type confTool interface {
	name() string
	navigate(url string) (string, error)
	click(ref string, o clickOpts) (string, error)
	typeText(ref, text string, clear, submit bool) (string, error)
	// typeKeys types text key by key at the caret, adding to what the
	// field holds (an editor after the agent placed the caret).
	typeKeys(ref, text string) (string, error)
	// waitText waits for text to show (gone false) or to go (gone true),
	// as an agent does when an answer came before the page's reaction.
	waitText(text string, gone bool) (string, error)
	selectValues(ref string, values []string) (string, error)
	hover(ref string) (string, error)
	press(ref, key string) (string, error)
	scroll(ref, dir string, amount int) (string, error)
	// drag drags the element of ref onto to: a ref, or text it shows.
	drag(ref, to string) (string, error)
	back() (string, error)
	extract(ref string) (string, error)
	upload(ref string, files []string) (string, error)
	// login gives the session an HTTP basic-auth login for origin.
	login(origin, user, password string) (string, error)
	// dialog answers the alert, confirm or prompt the page opened.
	dialog(accept bool) (string, error)
	// snapshot reads the page again.
	snapshot() (string, error)
	// eval is the test's own reading of the page, not the agent's.
	eval(js string) (string, error)
	uploadDir() string
}

type clickOpts struct {
	double    bool
	button    string
	modifiers []string
}

// errUnsupported marks a step the tool has no way to take.
var errUnsupported = errors.New("the tool has no way to do this")

// browserdTool drives browserd's browser tool through a driver.
type browserdTool struct {
	t    *testing.T
	d    driver
	task string
}

func (b *browserdTool) name() string { return "browserd" }

func (b *browserdTool) do(in tool.Input) (string, error) {
	in.Task = b.task
	r := b.d.do(b.t, in)
	if !r.Success {
		return r.Content, fmt.Errorf("%s %s: %s", in.Action, brief(in), r.Error)
	}
	// Every patched answer is checked against a whole read of the page
	// (BROWSERD_VERIFY_PATCH): a stale answer fails the step that got it.
	for _, n := range r.Notes {
		if strings.Contains(n, "BROWSERD_VERIFY_PATCH") {
			return r.Content, fmt.Errorf("%s %s: the answer's view of the page is not the page: %s", in.Action, brief(in), n)
		}
	}
	return r.Content, nil
}

func (b *browserdTool) navigate(url string) (string, error) {
	return b.do(tool.Input{Action: "navigate", URL: url})
}
func (b *browserdTool) click(ref string, o clickOpts) (string, error) {
	return b.do(tool.Input{Action: "click", Ref: ref, Double: o.double, Button: o.button, Modifiers: o.modifiers})
}
func (b *browserdTool) typeText(ref, text string, clear, submit bool) (string, error) {
	return b.do(tool.Input{Action: "type", Ref: ref, Text: text, Clear: clear, Submit: submit})
}
func (b *browserdTool) typeKeys(ref, text string) (string, error) {
	return b.typeText(ref, text, false, false)
}

// waitText is never called for browserd: its answers come when the page
// has settled, and the corpus scores that (see agent.lenient).
func (b *browserdTool) waitText(text string, gone bool) (string, error) {
	return "", errors.New("the agent does not wait with browserd")
}
func (b *browserdTool) selectValues(ref string, values []string) (string, error) {
	if len(values) == 1 {
		return b.do(tool.Input{Action: "select", Ref: ref, Value: values[0]})
	}
	return b.do(tool.Input{Action: "select", Ref: ref, Values: values})
}
func (b *browserdTool) hover(ref string) (string, error) {
	return b.do(tool.Input{Action: "hover", Ref: ref})
}
func (b *browserdTool) press(ref, key string) (string, error) {
	return b.do(tool.Input{Action: "press", Ref: ref, Key: key})
}
func (b *browserdTool) scroll(ref, dir string, amount int) (string, error) {
	return b.do(tool.Input{Action: "scroll", Ref: ref, Direction: dir, Amount: amount})
}
func (b *browserdTool) drag(ref, to string) (string, error) {
	return b.do(tool.Input{Action: "drag", Ref: ref, To: to})
}
func (b *browserdTool) back() (string, error) { return b.do(tool.Input{Action: "back", Timeout: 5000}) }
func (b *browserdTool) extract(ref string) (string, error) {
	return b.do(tool.Input{Action: "extract", Ref: ref})
}
func (b *browserdTool) upload(ref string, files []string) (string, error) {
	return b.do(tool.Input{Action: "upload", Ref: ref, Files: files})
}
func (b *browserdTool) login(origin, user, password string) (string, error) {
	return b.do(tool.Input{Action: "launch", HTTPCredentials: []tool.HTTPCredential{{Origin: origin, Username: user, Password: password}}})
}
func (b *browserdTool) snapshot() (string, error) { return b.do(tool.Input{Action: "snapshot"}) }
func (b *browserdTool) dialog(accept bool) (string, error) {
	return b.do(tool.Input{Action: "dialog", Accept: &accept})
}
func (b *browserdTool) eval(js string) (string, error) {
	return b.do(tool.Input{Action: "evaluate", Expression: js})
}
func (b *browserdTool) uploadDir() string { return filepath.Join(b.d.dataDir(), "uploads") }

// agent acts like a model that only knows what the tool answered: it
// keeps every answer (an answer may carry only what changed) and looks for
// an element in the newest first.
type agent struct {
	tool confTool
	last string   // the last answer that showed refs
	seen []string // every such answer, oldest first
}

// saw keeps an answer the agent will pick refs from.
func (a *agent) saw(text string, err error) (string, error) {
	text = pageOnly(text)
	if err == nil && strings.Contains(text, "ref=") {
		a.last = text
		a.seen = append(a.seen, text)
	}
	return text, err
}

// pageOnly drops the code an answer echoes (Playwright MCP's "Ran
// Playwright code" section: `await page.getByText('Call Bob').hover();`),
// which names elements without being them: a model reads the page's part.
func pageOnly(text string) string {
	for {
		i := strings.Index(text, "```js\n")
		if i < 0 {
			return text
		}
		j := strings.Index(text[i+6:], "```")
		if j < 0 {
			return text[:i]
		}
		text = text[:i] + text[i+6+j+3:]
	}
}

// shownOnly drops what Playwright MCP marks hidden from assistive
// technology, with everything under it: the native <select> Select2 hides
// (`listbox [aria-hidden]`) and its options, which take no clicks.
func shownOnly(answer string) string {
	var out []string
	hidden := -1 // the indentation of the hidden line being skipped
	for _, l := range strings.Split(answer, "\n") {
		ind := len(l) - len(strings.TrimLeft(l, " "))
		if hidden >= 0 && ind > hidden {
			continue
		}
		hidden = -1
		if strings.Contains(l, "[aria-hidden]") {
			hidden = ind
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

// lenient says whether the agent reads names as a model does with this
// tool: whatever their case (MUI's "Account", which browserd prints as the
// page shows it, "ACCOUNT") and, when no element of the role has the name,
// by the name alone (jQuery UI's tab named by the link in it, a Shoelace
// checkbox by its label). browserd is held to the roles and names it
// prints, which is what the corpus tests of it.
func (a *agent) lenient() bool { return a.tool.name() != "browserd" }

func (a *agent) open(page string) error {
	_, err := a.saw(a.tool.navigate(site.URL("/c/" + page)))
	return err
}

// refs are eN in browserd's answers; Playwright MCP's are fNeN in a page a
// click navigated to.
var quotedRef = regexp.MustCompile(`ref=((?:f\d+)?e\d+)`)

// find returns the ref of the first element named name (and of the role,
// when role is not empty) in the last answer: a line `role "name" … [ref=eN]`
// or, as for list items whose name is their text, `role [ref=eN]: name`.
func (a *agent) find(role, name string) (string, error) {
	if refs := a.candidates(a.seen, role, name); len(refs) > 0 {
		return refs[0], nil
	}
	return "", fmt.Errorf("no %s %q with a ref in the answers:\n%s", cmpOr(role, "element"), name, a.last)
}

// candidates are the refs of the elements of role named name in the newest
// of answers that shows any, in the order it shows them; a lenient agent
// then reads names whatever their case, then whatever the role.
func (a *agent) candidates(answers []string, role, name string) []string {
	ways := []func(string) []string{func(ans string) []string { return findAllIn(ans, role, name) }}
	if a.lenient() {
		ways = append(ways,
			func(ans string) []string { return findAllIn(strings.ToLower(ans), role, strings.ToLower(name)) },
			func(ans string) []string { return findAllIn(strings.ToLower(ans), "", strings.ToLower(name)) })
	}
	for _, way := range ways {
		for i := len(answers) - 1; i >= 0; i-- {
			if refs := way(answers[i]); len(refs) > 0 {
				return refs
			}
		}
	}
	if a.lenient() && role != "" {
		// A control without a name after the text that labels it
		// (Playwright MCP's `- text: City` before Choices.js's box).
		for i := len(answers) - 1; i >= 0; i-- {
			ls := strings.Split(answers[i], "\n")
			for j, l := range ls {
				if strings.TrimSpace(strings.TrimLeft(l, " -")) != "text: "+name {
					continue
				}
				for _, next := range ls[j+1:] {
					if strings.Contains(next, "[aria-hidden]") {
						continue
					}
					if m := quotedRef.FindStringSubmatch(next); m != nil {
						if strings.HasPrefix(strings.TrimLeft(next, " -"), role+" ") {
							return []string{m[1]}
						}
						break
					}
				}
			}
		}
	}
	return nil
}

// findIn looks for the element in one answer; lines a diff marks removed
// ("- ") do not count.
func findIn(answer, role, name string) (string, bool) {
	refs := findAllIn(answer, role, name)
	if len(refs) == 0 {
		return "", false
	}
	return refs[0], true
}

// findAllIn is every ref findIn could answer, one a line, in order.
func findAllIn(answer, role, name string) []string {
	var refs []string
	for _, line := range strings.Split(answer, "\n") {
		if strings.HasPrefix(line, "- ") {
			continue
		}
		if ref, ok := findInLine(line, role, name); ok {
			refs = append(refs, ref)
		}
	}
	return refs
}

func findInLine(line, role, name string) (string, bool) {
	q := `"` + name + `"`
	for rest := line; ; {
		i := strings.Index(rest, q)
		if i < 0 {
			break
		}
		before := strings.TrimRight(rest[:i], " ")
		gotRole := before[strings.LastIndexAny(before, " |-:+")+1:]
		after := rest[i+len(q):]
		if j := strings.Index(after, `"`); j >= 0 {
			after = after[:j]
		}
		if m := quotedRef.FindStringSubmatch(after); m != nil && (role == "" || gotRole == role) {
			return m[1], true
		}
		rest = rest[i+len(q):]
	}
	if head, text, ok := strings.Cut(line, "]: "); ok && strings.TrimSpace(text) == name {
		if m := quotedRef.FindStringSubmatch(head); m != nil {
			f := strings.Fields(strings.TrimLeft(head, " -+"))
			if role == "" || len(f) > 0 && f[0] == role {
				return m[1], true
			}
		}
	}
	return "", false
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func (a *agent) click(role, name string, o clickOpts) (string, error) {
	refs := a.candidates(a.seen, role, name)
	if len(refs) == 0 {
		_, err := a.find(role, name)
		return "", err
	}
	txt, err := a.saw(a.tool.click(refs[0], o))
	if err == nil || !a.lenient() {
		return txt, err
	}
	// A lenient agent whose click failed tries the other elements of that
	// name in the same answer (the native <select>'s hidden options before
	// the ones the library drew), then whatever else shows the name (the
	// label of a radio whose input the label covers).
	tried := map[string]bool{refs[0]: true}
	more := append(refs[1:], a.candidates(a.seen, "", name)...)
	for _, ref := range more {
		if err == nil || len(tried) >= 4 {
			break
		}
		if !tried[ref] {
			tried[ref] = true
			txt, err = a.saw(a.tool.click(ref, o))
		}
	}
	return txt, err
}

// typeExpect types text into the field named name and wants the answer to
// show expect; a lenient agent that does not see it types again, key by
// key (browser_type's slowly: pages that listen to keys hear no fill).
func (a *agent) typeExpect(role, name, text, expect string) error {
	txt, err := a.typeInto(role, name, text, false, false)
	werr := a.want(txt, err, expect)
	if werr == nil || err != nil || !a.lenient() {
		return werr
	}
	if _, err := a.typeInto(role, name, "", true, false); err != nil {
		return err
	}
	txt, err = a.typeKeys(role, name, text)
	return a.want(txt, err, expect)
}

// typeKeys types text key by key into the element named name, at its caret.
func (a *agent) typeKeys(role, name, text string) (string, error) {
	ref, err := a.find(role, name)
	if err != nil {
		return "", err
	}
	return a.saw(a.tool.typeKeys(ref, text))
}

// want fails unless the answer shows text. A lenient agent reads it
// whatever its case and quoting, and when it is not there yet waits for
// it (browser_wait_for) and reads that answer.
func (a *agent) want(text string, err error, what string) error {
	if err != nil || strings.Contains(text, what) || !a.lenient() {
		return want(text, err, what)
	}
	plain := strings.ReplaceAll(what, `\"`, `"`)
	shows := func(t string) bool { return strings.Contains(strings.ToLower(t), strings.ToLower(plain)) }
	if shows(text) {
		return nil
	}
	waited, werr := a.saw(a.tool.waitText(plain, false))
	if werr == nil && shows(waited) {
		return nil
	}
	return fmt.Errorf("the answer does not show %q, nor after waiting for it (%v):\n%s", what, werr, text)
}

// waitGone waits, as a lenient agent does, until text has gone from the
// page (a carousel's slide that is still leaving); browserd's answer came
// when the page had settled.
func (a *agent) waitGone(text string) error {
	if !a.lenient() {
		return nil
	}
	_, err := a.saw(a.tool.waitText(text, true))
	return err
}

// pickRef chooses values in the control of ref: one select call with all
// of them. A lenient agent whose select is refused (Playwright MCP's
// browser_select_option works on a native <select> only) takes the click
// path an agent takes on a dropdown the page draws: it opens the control,
// types the value when opening shows no such option (a combobox that
// filters), and clicks the option, for each value.
func (a *agent) pickRef(ref string, values ...string) (string, error) {
	txt, err := a.saw(a.tool.selectValues(ref, values))
	if err == nil || !a.lenient() {
		return txt, err
	}
	for _, v := range values {
		option := func() []string {
			if refs := a.candidates([]string{shownOnly(a.last)}, "option", v); len(refs) > 0 {
				return refs
			}
			return nil
		}
		if option() == nil {
			if txt, err = a.saw(a.tool.click(ref, none)); err != nil {
				return txt, err
			}
		}
		if option() == nil {
			if txt, err = a.saw(a.tool.typeKeys(ref, v)); err != nil {
				return txt, err
			}
		}
		refs := option()
		if refs == nil {
			return txt, fmt.Errorf("select refused and no option %q showed after opening the control:\n%s", v, a.last)
		}
		for _, r := range refs[:min(len(refs), 3)] {
			if txt, err = a.saw(a.tool.click(r, none)); err == nil {
				break
			}
		}
		if err != nil {
			return txt, err
		}
	}
	return txt, nil
}

func (a *agent) typeInto(role, name, text string, clear, submit bool) (string, error) {
	ref, err := a.find(role, name)
	if err != nil {
		return "", err
	}
	return a.saw(a.tool.typeText(ref, text, clear, submit))
}

func (a *agent) pick(role, name string, values ...string) (string, error) {
	ref, err := a.find(role, name)
	if err != nil {
		return "", err
	}
	return a.pickRef(ref, values...)
}

func (a *agent) hover(role, name string) (string, error) {
	ref, err := a.find(role, name)
	if err != nil {
		return "", err
	}
	return a.saw(a.tool.hover(ref))
}

func (a *agent) press(role, name, key string) (string, error) {
	ref, err := a.find(role, name)
	if err != nil {
		return "", err
	}
	return a.saw(a.tool.press(ref, key))
}

func (a *agent) scroll(role, name, dir string, amount int) (string, error) {
	ref := ""
	if name != "" {
		var err error
		if ref, err = a.find(role, name); err != nil {
			return "", err
		}
	}
	return a.saw(a.tool.scroll(ref, dir, amount))
}

// refBefore is the ref of the line just before the newest line showing
// role "name" — a control of role want that has no name of its own and
// stands beside the text that tells what it is for (TodoMVC's checkbox
// before its label), as a model reads it.
func (a *agent) refBefore(role, name, want string) (string, error) {
	// `label "Buy milk"` here; `generic [ref=e11]: Buy milk` in Playwright
	// MCP's snapshots.
	shows := func(l string) bool {
		return strings.Contains(l, role+` "`+name+`"`) || strings.HasSuffix(strings.TrimSpace(l), ": "+name)
	}
	for i := len(a.seen) - 1; i >= 0; i-- {
		lines := strings.Split(a.seen[i], "\n")
		for j := len(lines) - 1; j > 0; j-- {
			// A diff's removed lines start with "- " at the margin.
			if strings.HasPrefix(lines[j], "- ") || strings.HasPrefix(lines[j-1], "- ") || !shows(lines[j]) {
				continue
			}
			prev := strings.TrimLeft(lines[j-1], " +~-")
			if m := quotedRef.FindStringSubmatch(prev); m != nil && strings.HasPrefix(prev, want+" ") {
				return m[1], nil
			}
		}
	}
	return "", fmt.Errorf("no %s with a ref just before %q in the answers:\n%s", want, name, a.last)
}

// refAfter is the ref of the first line with a ref after the newest line
// showing text — a control without a name that stands after the text it
// acts on (a date picker's unnamed "next month" arrow after the month), as
// a model reads it.
func (a *agent) refAfter(text string) (string, error) { return a.refAfterRole(text, "") }

// refAfterRole is refAfter's ref of the first line of role after text
// (the textbox of a code editor, not the wrapper around it).
func (a *agent) refAfterRole(text, role string) (string, error) {
	for i := len(a.seen) - 1; i >= 0; i-- {
		lines := strings.Split(shownOnly(a.seen[i]), "\n")
		for j := len(lines) - 2; j >= 0; j-- {
			if strings.HasPrefix(lines[j], "- ") || !strings.Contains(lines[j], text) {
				continue
			}
			for _, next := range lines[j+1:] {
				// Not a control hidden from assistive technology: Playwright
				// MCP shows the native <select> Select2 replaced as
				// `combobox [aria-hidden]`, which takes no clicks.
				if strings.HasPrefix(next, "- ") || strings.Contains(next, "[aria-hidden]") {
					continue
				}
				if m := quotedRef.FindStringSubmatch(next); m != nil && (role == "" || strings.HasPrefix(strings.TrimLeft(next, " -+~"), role+" ")) {
					return m[1], nil
				}
			}
		}
	}
	return "", fmt.Errorf("no ref after %q in the answers:\n%s", text, a.last)
}

// refNear is the ref of a control within the lines lines from the newest
// line showing text (the row or notice it acts on) whose attributes say
// word — a control without a name that a model picks by what its line
// says (an icon button's hint="trash").
func (a *agent) refNear(text, word string, lines int) (string, error) {
	re := regexp.MustCompile(`\[ref=((?:f\d+)?e\d+)[^\]]*` + regexp.QuoteMeta(word))
	ls := strings.Split(a.last, "\n")
	for i, l := range ls {
		if !strings.Contains(l, text) {
			continue
		}
		for _, m := range ls[i:min(i+lines, len(ls))] {
			if r := re.FindStringSubmatch(m); r != nil {
				return r[1], nil
			}
		}
	}
	return "", fmt.Errorf("nothing near %q in the answer says %q:\n%s", text, word, a.last)
}

// drag drags the element named name onto another: the element toName
// of role toRole, or, when toRole is "text", the element of that name
// when an answer gave it a ref, else whatever shows the text (a drop zone
// seldom has a ref of its own).
func (a *agent) drag(role, name, toRole, toName string) (string, error) {
	ref, err := a.find(role, name)
	if err != nil {
		return "", err
	}
	to := toName
	if toRole == "text" {
		if r, err := a.find("", toName); err == nil {
			to = r
		}
	} else if to, err = a.find(toRole, toName); err != nil {
		return "", err
	}
	return a.saw(a.tool.drag(ref, to))
}

type confCase struct {
	page  string
	what  string               // the classes of failure it covers
	run   func(a *agent) error // the agent's way through
	check string               // JavaScript that yields true when the task is done
}

// steps runs the agent's steps until one fails.
func steps(fs ...func() error) error {
	for _, f := range fs {
		if err := f(); err != nil {
			return err
		}
	}
	return nil
}

// want fails unless the answer shows text.
func want(text string, err error, what string) error {
	if err != nil {
		return err
	}
	if !strings.Contains(text, what) {
		return fmt.Errorf("the answer does not show %q:\n%s", what, text)
	}
	return nil
}

func e(_ string, err error) error { return err }

var none clickOpts

var confCases = []confCase{
	{"inputs-datetime", "date, time, month, week, colour and range inputs take typed values", func(a *agent) error {
		if err := a.open("inputs-datetime"); err != nil {
			return err
		}
		for _, f := range [][2]string{{"Day", "2025-03-14"}, {"Start", "09:30"}, {"Meeting", "2025-03-14T09:30"},
			{"Month", "2025-03"}, {"Week", "2025-W11"}, {"Colour", "#ff8800"}, {"Volume", "7"}} {
			if _, err := a.typeInto("", f[0], f[1], false, false); err != nil {
				return err
			}
		}
		return nil
	}, `['day','start','meet','month','week','colour','vol'].map(id => document.getElementById(id).value).join('|') === '2025-03-14|09:30|2025-03-14T09:30|2025-03|2025-W11|#ff8800|7'`},
	{"spinbutton", "typing into a narrow number input; aria-hidden arrow buttons have refs", func(a *agent) error {
		return steps(func() error { return a.open("spinbutton") },
			func() error { return e(a.typeInto("spinbutton", "Guests", "4", false, false)) },
			func() error { return e(a.click("", "▲", none)) })
	}, `document.getElementById('guests').value === '5'`},
	{"todo", "double-click to edit, hash routes, back on a same-document entry", func(a *agent) error {
		return steps(func() error { return a.open("todo") },
			func() error { return e(a.click("", "Buy milk", clickOpts{double: true})) },
			func() error { return e(a.typeInto("textbox", "Edit Buy milk", "Buy oat milk", true, true)) },
			func() error { return e(a.click("link", "Active", none)) },
			func() error { return e(a.click("link", "Completed", none)) },
			func() error { txt, err := a.saw(a.tool.back()); return a.want(txt, err, "Showing active") })
	}, `location.hash === '#/active' && document.getElementById('list').textContent.includes('Buy oat milk')`},
	{"contextmenu", "right-click opens a custom context menu", func(a *agent) error {
		return steps(func() error { return a.open("contextmenu") },
			func() error { return e(a.click("button", "report.pdf", clickOpts{button: "right"})) },
			func() error { return e(a.click("menuitem", "Delete", none)) })
	}, `document.getElementById('out').textContent === 'deleted report.pdf'`},
	{"modifier-click", "shift-click selects a range", func(a *agent) error {
		return steps(func() error { return a.open("modifier-click") },
			func() error { return e(a.click("option", "Alpha", none)) },
			func() error { return e(a.click("option", "Gamma", clickOpts{modifiers: []string{"Shift"}})) })
	}, `document.getElementById('out').textContent === 'selected: Alpha,Beta,Gamma'`},
	{"multiselect", "select takes several values", func(a *agent) error {
		return steps(func() error { return a.open("multiselect") },
			func() error { return e(a.pick("listbox", "Toppings", "Olives", "Basil")) })
	}, `document.getElementById('out').textContent === 'chosen: olive,basil'`},
	{"menu-delayed", "a submenu that opens 250 ms after the click is in the click's answer", func(a *agent) error {
		return steps(func() error { return a.open("menu-delayed") },
			func() error { return e(a.click("menuitem", "File", none)) },
			func() error { return e(a.click("menuitem", "Save", none)) })
	}, `document.getElementById('out').textContent === 'saved'`},
	{"delayed-content", "content that appears 300 ms after a click is in the click's answer", func(a *agent) error {
		return steps(func() error { return a.open("delayed-content") },
			func() error { return e(a.click("button", "Show results", none)) },
			func() error { return e(a.click("button", "Open first result", none)) })
	}, `document.getElementById('res').textContent === 'first result opened'`},
	{"scrollbox", "a button at the bottom of a scroll box is scrolled into view and clicked", func(a *agent) error {
		return steps(func() error { return a.open("scrollbox") },
			func() error { return e(a.click("button", "I agree", none)) })
	}, `document.getElementById('out').textContent === 'agreed'`},
	{"rotated-link", "rotated and wrapped links are clicked on themselves, not reported covered", func(a *agent) error {
		return steps(func() error { return a.open("rotated-link") },
			func() error { return e(a.click("link", "Rotated link text here", none)) },
			func() error { return e(a.click("link", "a link that wraps over two lines", none)) })
	}, `location.hash === '#wrapped' && history.length >= 3`},
	{"half-covered", "a half-covered field takes typing; a half-covered box scrolls", func(a *agent) error {
		return steps(func() error { return a.open("half-covered") },
			func() error { return e(a.typeInto("textbox", "Email", "a@b.c", false, false)) },
			func() error { return e(a.scroll("", "Log", "down", 100)) })
	}, `document.getElementById('email').value === 'a@b.c' && document.getElementById('log').scrollTop > 0`},
	{"overflow-body", "the body's overflow passes to the window: a Save button below its 720 px is clicked", func(a *agent) error {
		return steps(func() error { return a.open("overflow-body") },
			func() error { return e(a.typeInto("textbox", "Summary", "typo", false, false)) },
			func() error { return e(a.click("button", "Save page", none)) })
	}, `document.getElementById('out').textContent === 'saved: typo'`},
	{"overflow-kinds", "buttons in clipping, contained, transformed, fixed and sticky boxes are clicked", func(a *agent) error {
		return steps(func() error { return a.open("overflow-kinds") },
			func() error { return e(a.click("button", "Paint inside", none)) },
			func() error { return e(a.click("button", "In a moved scroll box", none)) },
			func() error { return e(a.click("button", "Far down", none)) },
			func() error { return e(a.click("button", "Fixed in a clipped parent", none)) })
	}, `document.getElementById('out').textContent === 'clicked: fixed' && scrollY > 500`},
	{"block-editor", "a block editor's blocks (role document, contenteditable) are typed into", func(a *agent) error {
		return steps(func() error { return a.open("block-editor") },
			func() error { return e(a.typeInto("document", "Block: Heading", "Hello blocks", false, false)) },
			func() error { return e(a.click("button", "Publish", none)) })
	}, `document.getElementById('out').textContent.startsWith('published: Hello blocks')`},
	{"bfcache-a", "back to a page from the back/forward cache answers at once", func(a *agent) error {
		return steps(func() error { return a.open("bfcache-a") },
			func() error { return e(a.click("link", "Go to B", none)) },
			func() error {
				return func() error { txt, err := a.saw(a.tool.back()); return a.want(txt, err, "Page A") }()
			})
	}, `location.pathname === '/c/bfcache-a' && (document.getElementById('shown').textContent === 'restored from cache' || performance.getEntriesByType('navigation')[0].type === 'back_forward')`},
	{"delayed-nav", "a click that saves (a 200 ms request) then navigates answers with the new page, loaded", func(a *agent) error {
		return steps(func() error { return a.open("delayed-nav") },
			func() error {
				txt, err := a.click("button", "Continue", none)
				return a.want(txt, err, "Page B")
			},
			func() error { return e(a.click("link", "Go to A", none)) })
	}, `location.pathname === '/c/bfcache-a'`},
	{"autocomplete", "suggestions without a role or a pointer cursor have refs", func(a *agent) error {
		return steps(func() error { return a.open("autocomplete") },
			func() error { return e(a.typeInto("textbox", "City", "Pa", false, false)) },
			func() error { return e(a.click("", "Parma", none)) })
	}, `document.getElementById('out').textContent === 'city: Parma'`},
	{"table-form", "controls in a compact table row keep their role and name", func(a *agent) error {
		return steps(func() error { return a.open("table-form") },
			func() error { return e(a.typeInto("textbox", "Genre", "Jazz", false, false)) },
			func() error { return e(a.click("checkbox", "Newsletter", none)) },
			func() error { return e(a.typeInto("spinbutton", "Rating", "4", false, false)) })
	}, `document.getElementById('genre').value === 'Jazz' && document.getElementById('news').checked && document.getElementById('rating').value === '4'`},
	{"quiz", "the question's text is its own line, not merged with its neighbour's", func(a *agent) error {
		if err := a.open("quiz"); err != nil {
			return err
		}
		for _, line := range strings.Split(a.last, "\n") {
			if strings.Contains(line, "when done.") && strings.Contains(line, "3 x 9") {
				return fmt.Errorf("the instructions and the question share a line: %q", line)
			}
		}
		if !strings.Contains(a.last, "3 x 9 =") {
			return errors.New("the question is not in the snapshot")
		}
		return steps(func() error { return e(a.typeInto("textbox", "Answer", "27", false, false)) },
			func() error { return e(a.click("button", "Check", none)) })
	}, `document.getElementById('out').textContent === 'correct'`},
	{"long-value", "a cut value says so, and extract on its ref reads it whole", func(a *agent) error {
		if err := a.open("long-value"); err != nil {
			return err
		}
		if strings.Contains(a.last, "SECRET-CODE-4711") {
			return nil // printed whole
		}
		if !strings.Contains(a.last, "extract") {
			return errors.New("the cut value does not say how to read the rest")
		}
		ref, err := a.find("textbox", "Licence text")
		if err != nil {
			return err
		}
		return func() error { txt, err := a.tool.extract(ref); return a.want(txt, err, "SECRET-CODE-4711") }()
	}, `document.getElementById('lic').value.endsWith('SECRET-CODE-4711')`}, // read-only: confReadOnly
	{"hover-avatar", "an image has a ref; hovering it reveals its caption", func(a *agent) error {
		return steps(func() error { return a.open("hover-avatar") },
			func() error {
				return func() error { txt, err := a.hover("img", "Ada Lovelace"); return a.want(txt, err, "first programmer") }()
			})
	}, `getComputedStyle(document.getElementById('cap')).visibility === 'visible'`},
	{"basic-auth", "HTTP basic authentication with per-session credentials", func(a *agent) error {
		return steps(func() error {
			return e(a.tool.login(strings.TrimSuffix(site.URL("/"), "/"), testsite.BasicUser, testsite.BasicPassword))
		},
			func() error { return a.open("basic-auth") },
			func() error {
				return func() error {
					txt, err := a.click("link", "Open the members area", none)
					return a.want(txt, err, "Welcome, ann")
				}()
			})
	}, `document.querySelector('h1').textContent === 'Welcome, ann'`},
	{"hostile", "a page that rewrites built-ins cannot bend browserd's helpers", func(a *agent) error {
		return steps(func() error { return a.open("hostile") },
			func() error { return e(a.typeInto("textbox", "Name", "Ann", false, false)) },
			func() error { return e(a.pick("combobox", "Color", "Green")) },
			func() error { return e(a.click("button", "Go", none)) })
	}, `document.getElementById('out').textContent === 'clicked Ann' && document.getElementById('color').value === 'g'`},
	{"apg-menubutton", "menu button", func(a *agent) error {
		return steps(func() error { return a.open("apg-menubutton") },
			func() error { return e(a.click("button", "Actions", none)) },
			func() error { return e(a.click("menuitem", "Duplicate", none)) })
	}, `document.getElementById('out').textContent === 'did Duplicate'`},
	{"apg-tree", "tree: expand a branch, pick a leaf", func(a *agent) error {
		return steps(func() error { return a.open("apg-tree") },
			func() error { return e(a.click("treeitem", "Fruits", none)) },
			func() error { return e(a.click("treeitem", "Banana", none)) })
	}, `document.getElementById('out').textContent === 'picked Banana'`},
	{"apg-combobox", "ARIA combobox with a debounced listbox", func(a *agent) error {
		return steps(func() error { return a.open("apg-combobox") },
			func() error { return e(a.typeInto("combobox", "Fruit", "ap", false, false)) },
			func() error { return e(a.click("option", "Apricot", none)) })
	}, `document.getElementById('out').textContent === 'fruit: Apricot'`},
	{"apg-listbox", "single-select listbox", func(a *agent) error {
		return steps(func() error { return a.open("apg-listbox") },
			func() error { return e(a.click("option", "Blue", none)) })
	}, `document.querySelector('[aria-selected=true]').textContent === 'Blue'`},
	{"apg-slider", "slider moved with the keyboard", func(a *agent) error {
		return steps(func() error { return a.open("apg-slider") },
			func() error { return e(a.press("slider", "Temperature", "ArrowRight")) },
			func() error { return e(a.press("slider", "Temperature", "ArrowRight")) },
			func() error { return e(a.press("slider", "Temperature", "ArrowRight")) })
	}, `document.querySelector('[role=slider]').getAttribute('aria-valuenow') === '3'`},
	{"apg-tabs", "tabs: a control in a hidden panel appears after its tab is chosen", func(a *agent) error {
		return steps(func() error { return a.open("apg-tabs") },
			func() error { return e(a.click("tab", "Shipping", none)) },
			func() error { return e(a.click("radio", "Express", none)) })
	}, `document.querySelector('input[value=express]').checked`},
	{"apg-dialog", "modal dialog", func(a *agent) error {
		return steps(func() error { return a.open("apg-dialog") },
			func() error { return e(a.click("button", "Open settings", none)) },
			func() error { return e(a.typeInto("textbox", "Nickname", "Zed", false, false)) },
			func() error { return e(a.click("button", "Save", none)) })
	}, `document.getElementById('out').textContent === 'nickname Zed'`},
	{"apg-disclosure", "disclosure", func(a *agent) error {
		return steps(func() error { return a.open("apg-disclosure") },
			func() error { return e(a.click("button", "Show details", none)) },
			func() error { return e(a.click("link", "Read the manual", none)) })
	}, `location.hash === '#manual'`},
	{"apg-accordion", "accordion", func(a *agent) error {
		return steps(func() error { return a.open("apg-accordion") },
			func() error { return e(a.click("button", "Notifications", none)) },
			func() error { return e(a.click("checkbox", "Email me", none)) })
	}, `document.getElementById('mail').checked`},
	{"apg-grid", "grid: a cell takes a click", func(a *agent) error {
		return steps(func() error { return a.open("apg-grid") },
			func() error { return e(a.click("gridcell", "11", none)) })
	}, `document.getElementById('out').textContent === 'day 11'`},
	{"table-no-headers", "a table without headers: the button of one row", func(a *agent) error {
		if err := a.open("table-no-headers"); err != nil {
			return err
		}
		// Three buttons share the name: the agent takes the first one at or
		// after the line that names Gadget.
		lines := strings.Split(a.last, "\n")
		for i, line := range lines {
			if !strings.Contains(line, "Gadget") {
				continue
			}
			for _, l := range lines[i:] {
				if m := quotedRef.FindStringSubmatch(l); m != nil && strings.Contains(l, `button "Buy"`) {
					return e(a.saw(a.tool.click(m[1], none)))
				}
			}
		}
		return fmt.Errorf("no Buy button at or after Gadget's line:\n%s", a.last)
	}, `document.getElementById('out').textContent === 'bought Gadget'`},
	{"apg-feed", "feed: scroll loads more stories", func(a *agent) error {
		if err := a.open("apg-feed"); err != nil {
			return err
		}
		for i := 0; i < 8 && !strings.Contains(a.last, "Read story 12"); i++ {
			if _, err := a.scroll("", "", "down", 600); err != nil {
				return err
			}
		}
		return e(a.click("link", "Read story 12", none))
	}, `location.hash === '#story12'`},
	{"apg-checkbox-mixed", "tri-state checkbox", func(a *agent) error {
		return steps(func() error { return a.open("apg-checkbox-mixed") },
			func() error { return e(a.click("checkbox", "All condiments", none)) })
	}, `[...document.querySelectorAll('.c')].every(c => c.checked)`},
	{"apg-radiogroup", "ARIA radio group", func(a *agent) error {
		return steps(func() error { return a.open("apg-radiogroup") },
			func() error { return e(a.click("radio", "Large", none)) })
	}, `document.querySelector('[role=radio][aria-checked=true]').textContent === 'Large'`},
	{"apg-switch", "switch", func(a *agent) error {
		return steps(func() error { return a.open("apg-switch") },
			func() error { return e(a.click("switch", "Dark mode", none)) })
	}, `document.getElementById('sw').getAttribute('aria-checked') === 'true'`},
	{"apg-toolbar", "toolbar toggle button; contenteditable text", func(a *agent) error {
		return steps(func() error { return a.open("apg-toolbar") },
			func() error { return e(a.click("button", "Bold", none)) },
			func() error { return e(a.typeInto("textbox", "Text", " world", false, false)) })
	}, `document.getElementById('bold').getAttribute('aria-pressed') === 'true' && document.getElementById('ed').textContent === 'Hello world'`},
	{"apg-alertdialog", "alert dialog that opens after a delay", func(a *agent) error {
		return steps(func() error { return a.open("apg-alertdialog") },
			func() error { return e(a.click("button", "Delete account", none)) },
			func() error { return e(a.click("button", "Delete", none)) })
	}, `document.getElementById('out').textContent === 'account deleted'`},
	{"inputs-text", "email, password, search, tel, url, number and textarea", func(a *agent) error {
		if err := a.open("inputs-text"); err != nil {
			return err
		}
		for _, f := range [][2]string{{"Email", "a@b.c"}, {"Password", "hunter2"}, {"Search", "shoes"}, {"Phone", "+1 555 0100"},
			{"Website", "https://example.com"}, {"Age", "42"}, {"Message", "Hi there"}} {
			if _, err := a.typeInto("", f[0], f[1], false, false); err != nil {
				return err
			}
		}
		return nil
	}, `['email','pw','q','tel','url','age','msg'].map(id => document.getElementById(id).value).join('|') === 'a@b.c|hunter2|shoes|+1 555 0100|https://example.com|42|Hi there'`},
	{"inputs-choice", "checkbox, radio and select", func(a *agent) error {
		return steps(func() error { return a.open("inputs-choice") },
			func() error { return e(a.click("checkbox", "I accept the terms", none)) },
			func() error { return e(a.click("radio", "Team", none)) },
			func() error { return e(a.pick("combobox", "Country", "Portugal")) })
	}, `document.getElementById('terms').checked && document.querySelector('input[value=team]').checked && document.getElementById('country').value === 'pt'`},
	{"inputs-file", "file input", func(a *agent) error {
		if err := os.MkdirAll(a.tool.uploadDir(), 0o700); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(a.tool.uploadDir(), "cv.txt"), []byte("cv"), 0o600); err != nil {
			return err
		}
		if err := a.open("inputs-file"); err != nil {
			return err
		}
		ref, err := a.find("", "Attachment")
		if err != nil {
			return err
		}
		_, err = a.saw(a.tool.upload(ref, []string{"cv.txt"}))
		return err
	}, `document.getElementById('out').textContent === 'attached cv.txt'`},
	{"apg-tooltip", "a tooltip shown on hover after a delay", func(a *agent) error {
		return steps(func() error { return a.open("apg-tooltip") },
			func() error {
				return func() error {
					txt, err := a.hover("button", "Why?")
					return a.want(txt, err, "Because the sky is blue")
				}()
			})
	}, `getComputedStyle(document.getElementById('tip')).display === 'block'`},
	{"apg-carousel", "carousel: the link on the third slide", func(a *agent) error {
		return steps(func() error { return a.open("apg-carousel") },
			func() error { return e(a.click("button", "Next slide", none)) },
			func() error { return e(a.click("button", "Next slide", none)) },
			func() error { return e(a.click("link", "Winter sale", none)) })
	}, `location.hash === '#winter'`},
	{"shop-checkout", "a shop checkout: cart, form, shipping, terms, order", func(a *agent) error {
		return steps(func() error { return a.open("shop-checkout") },
			func() error { return e(a.click("button", "Add Tea to cart", none)) },
			func() error { return e(a.click("button", "Checkout (1)", none)) },
			func() error { return e(a.typeInto("textbox", "Full name", "Ann Lee", false, false)) },
			func() error { return e(a.typeInto("textbox", "Address", "1 Main St", false, false)) },
			func() error { return e(a.pick("combobox", "Shipping", "Express")) },
			func() error { return e(a.click("checkbox", "I agree to the terms", none)) },
			func() error {
				return func() error {
					txt, err := a.click("button", "Place order", none)
					return a.want(txt, err, "Order confirmed")
				}()
			})
	}, `!!window.orderDone && orderDone.cart === 'Tea' && orderDone.name === 'Ann Lee' && orderDone.ship === 'exp'`},
	{"todomvc", "TodoMVC as written: add with Enter, an unnamed checkbox beside its label, a delete button that shows on hover, filters", func(a *agent) error {
		add := func(title string) func() error {
			return func() error { return e(a.typeInto("textbox", "What needs to be done?", title, false, true)) }
		}
		return steps(func() error { return a.open("todomvc") },
			add("Buy milk"), add("Walk the dog"), add("Pay rent"),
			func() error {
				ref, err := a.refBefore("label", "Buy milk", "checkbox")
				if err != nil {
					return err
				}
				return e(a.saw(a.tool.click(ref, none)))
			},
			func() error { return e(a.hover("", "Walk the dog")) },
			func() error { return e(a.click("button", "×", none)) },
			func() error {
				txt, err := a.click("link", "Active", none)
				return a.want(txt, err, "Pay rent")
			})
	}, `location.hash === '#/active' && todos.map(t => t.title + (t.done ? '+' : '')).join(',') === 'Buy milk+,Pay rent'`},
	{"table-sort", "a table sorted by clicking its column headers (no role of their own, a pointer cursor)", func(a *agent) error {
		return steps(func() error { return a.open("table-sort") },
			func() error { return e(a.click("", "Age", none)) },
			func() error {
				txt, err := a.click("", "Age", none)
				return a.want(txt, err, "sorted by age descending")
			})
	}, `document.querySelector('#t tbody tr td').textContent === 'Cy'`},
	{"upload-button", "a styled button that clicks a hidden file input, and a drop zone with its input hidden inside", func(a *agent) error {
		if err := os.MkdirAll(a.tool.uploadDir(), 0o700); err != nil {
			return err
		}
		for _, f := range []string{"me.txt", "cv.txt"} {
			if err := os.WriteFile(filepath.Join(a.tool.uploadDir(), f), []byte(f), 0o600); err != nil {
				return err
			}
		}
		return steps(func() error { return a.open("upload-button") },
			func() error {
				ref, err := a.find("button", "Choose a photo")
				if err != nil {
					return err
				}
				return e(a.saw(a.tool.upload(ref, []string{"me.txt"})))
			},
			func() error {
				ref, err := a.find("", "Drop your CV here")
				if err != nil {
					return err
				}
				txt, err := a.saw(a.tool.upload(ref, []string{"cv.txt"}))
				return a.want(txt, err, "cv: cv.txt")
			})
	}, `document.getElementById('out').textContent === 'photo: me.txt' && document.getElementById('out2').textContent === 'cv: cv.txt'`},
	{"otp", "a one-time code in six one-digit boxes that move the focus on: the whole code typed into the first", func(a *agent) error {
		return steps(func() error { return a.open("otp") },
			func() error { return e(a.typeInto("textbox", "Digit 1", "482913", false, false)) },
			func() error {
				// A lenient agent that sees the last box empty types the
				// code again, key by key, as the page moves the focus on.
				if !a.lenient() || regexp.MustCompile(`"Digit 6"[^\n]*: "3"`).MatchString(a.last) {
					return nil
				}
				if _, err := a.typeInto("textbox", "Digit 1", "", true, false); err != nil {
					return err
				}
				return e(a.typeKeys("textbox", "Digit 1", "482913"))
			},
			func() error {
				txt, err := a.click("button", "Verify", none)
				return a.want(txt, err, "verified 482913")
			})
	}, `document.getElementById('out').textContent === 'verified 482913'`},
	{"custom-select", "react-select's markup: a menu that opens on mousedown, options that are plain focusable divs", func(a *agent) error {
		return steps(func() error { return a.open("custom-select") },
			func() error { return e(a.click("textbox", "Flavour", none)) },
			func() error { return e(a.click("", "Strawberry", none)) },
			func() error {
				txt, err := a.click("button", "Order", none)
				return a.want(txt, err, "ordered: Strawberry")
			})
	}, `document.getElementById('out').textContent === 'ordered: Strawberry'`},
	{"custom-checkbox", "checkboxes and radios whose real input is clipped to 1 px or moved off screen, drawn by their label", func(a *agent) error {
		return steps(func() error { return a.open("custom-checkbox") },
			func() error { return e(a.click("checkbox", "Send me the newsletter", none)) },
			func() error { return e(a.click("checkbox", "Dark mode", none)) },
			func() error { return e(a.click("radio", "Team", none)) },
			func() error {
				txt, err := a.click("button", "Save", none)
				return a.want(txt, err, "saved: news=true dark=true plan=team")
			})
	}, `document.getElementById('news').checked && document.getElementById('dark').checked && document.getElementById('team').checked`},
	{"drag-html5", "a card dragged to another column of a board (HTML5 drag and drop)", func(a *agent) error {
		return steps(func() error { return a.open("drag-html5") },
			func() error {
				txt, err := a.drag("", "Write docs", "text", "Done")
				return a.want(txt, err, "Write docs is now in Done")
			})
	}, `document.getElementById('done').contains(document.getElementById('c1')) && document.getElementById('todo').contains(document.getElementById('c2'))`},
	{"drag-sortable", "a list reordered by dragging (pointer events, a 5 px threshold, the button held)", func(a *agent) error {
		return steps(func() error { return a.open("drag-sortable") },
			func() error {
				txt, err := a.drag("listitem", "Ship the release", "listitem", "Answer email")
				return a.want(txt, err, "order: 4,1,2,3")
			})
	}, `[...document.querySelectorAll('#list li')].map(x => x.dataset.id).join(',') === '4,1,2,3'`},

	{"datepicker", "date pickers as sites ship them: flatpickr (unnamed SVG month arrows, days as focusable spans) and the APG date picker dialog", func(a *agent) error {
		// The arrow after the month's name is "next month"; a model reads
		// it once and clicks it as often as it needs.
		var arrow string
		next := func() error { return e(a.saw(a.tool.click(arrow, none))) }
		return steps(func() error { return a.open("datepicker") },
			func() error {
				txt, err := a.click("textbox", "Check-in", none)
				if err = a.want(txt, err, "March 2025"); err != nil {
					return err
				}
				arrow, err = a.refAfter("March 2025")
				return err
			},
			next,
			func() error {
				txt, err := a.saw(a.tool.click(arrow, none))
				return a.want(txt, err, "May 2025")
			},
			func() error { return e(a.click("", "May 14, 2025", none)) },
			func() error { return e(a.click("button", "Choose Date", none)) },
			func() error { return e(a.click("button", "next month", none)) },
			func() error { return e(a.click("button", "next month", none)) },
			func() error {
				txt, err := a.click("button", "next month", none)
				return a.want(txt, err, "June 2025")
			},
			func() error { return e(a.click("", "3", none)) },
			func() error {
				txt, err := a.click("button", "Book", none)
				return a.want(txt, err, "booked: 2025-05-14 to 06/03/2025")
			})
	}, `document.getElementById('checkin').value === '2025-05-14' && document.getElementById('checkout').value === '06/03/2025'`},
	{"hover-menu", "a navigation menu that opens on hover with CSS alone (nothing in the DOM changes), a submenu inside it", func(a *agent) error {
		return steps(func() error { return a.open("hover-menu") },
			func() error {
				txt, err := a.hover("link", "Products ▾")
				return a.want(txt, err, "Phones")
			},
			func() error {
				txt, err := a.hover("link", "Phones ▸")
				return a.want(txt, err, "iPhone")
			},
			func() error {
				txt, err := a.click("link", "iPhone", none)
				return a.want(txt, err, "showing iphone")
			})
	}, `location.hash === '#iphone'`},
	{"form-validation", "a form the browser's own checks stop (an email without an @): the answer says which field and why, so the agent can correct it", func(a *agent) error {
		return steps(func() error { return a.open("form-validation") },
			func() error { return e(a.typeInto("textbox", "Name", "Ada", false, false)) },
			func() error { return e(a.typeInto("textbox", "Email", "ada.example.com", false, false)) },
			func() error { return e(a.typeInto("textbox", "Password", "secret12", false, false)) },
			func() error { return e(a.click("checkbox", "I accept the terms", none)) },
			func() error {
				txt, err := a.click("button", "Sign up", none)
				return a.want(txt, err, "missing an '@'")
			},
			func() error { return e(a.typeInto("textbox", "Email", "ada@example.com", true, false)) },
			func() error {
				txt, err := a.click("button", "Sign up", none)
				return a.want(txt, err, "welcome Ada")
			})
	}, `document.getElementById('out').textContent === 'welcome Ada' && document.getElementById('email').value === 'ada@example.com'`},
	{"card-iframe", "card fields in a cross-site frame marked role=presentation, formatting what is typed (Stripe Elements)", func(a *agent) error {
		return steps(func() error { return a.open("card-iframe") },
			func() error { return e(a.typeInto("textbox", "Name on card", "Ada Lovelace", false, false)) },
			func() error {
				return e(a.typeInto("textbox", "Credit or debit card number", "4242424242424242", false, false))
			},
			func() error {
				return e(a.typeInto("textbox", "Credit or debit card expiration date", "1234", false, false))
			},
			func() error { return e(a.typeInto("textbox", "Credit or debit card CVC/CVV", "123", false, false)) },
			func() error {
				txt, err := a.click("button", "Pay $20.00", none)
				return a.want(txt, err, "card ending 4242, expires 12/34")
			})
	}, `document.getElementById('out').textContent === 'paid by Ada Lovelace: card ending 4242, expires 12/34'`},
	{"shadow-nested", "fields two shadow roots deep, one root closed, and a button labelled by a slot (web components)", func(a *agent) error {
		return steps(func() error { return a.open("shadow-nested") },
			func() error { return e(a.typeInto("textbox", "City", "Lyon", false, false)) },
			func() error { return e(a.typeInto("textbox", "Postcode", "69001", false, false)) },
			func() error {
				txt, err := a.click("button", "Save address", none)
				return a.want(txt, err, "saved Lyon 69001")
			})
	}, `document.getElementById('out').textContent === 'saved Lyon 69001'`},
	{"keyboard-listeners", "pages that hear only the keyboard: a search filtered on keyup, a phone mask that takes each key on keydown and refuses inserted text", func(a *agent) error {
		return steps(func() error { return a.open("keyboard-listeners") },
			func() error { return a.typeExpect("textbox", "Search people", "ann", "3 people") },
			func() error { return e(a.click("link", "Joanna Park", none)) },
			func() error { return a.typeExpect("textbox", "Phone", "5551234567", "(555) 123-4567") },
			func() error {
				txt, err := a.click("button", "Save", none)
				return a.want(txt, err, "saved Joanna Park (555) 123-4567")
			})
	}, `document.getElementById('out').textContent === 'saved Joanna Park (555) 123-4567'`},
	{"virtual-list", "a virtualised list (react-window): only the rows in view exist; scrolling the page scrolls the list beside the middle of the window, and its new rows are in the answer", func(a *agent) error {
		if err := a.open("virtual-list"); err != nil {
			return err
		}
		for range 30 {
			if _, err := a.find("", "Contact 137"); err == nil {
				txt, err := a.click("", "Contact 137", none)
				return a.want(txt, err, "opened Contact 137")
			}
			if _, err := a.saw(a.tool.scroll("", "down", 0)); err != nil {
				return err
			}
		}
		return fmt.Errorf("Contact 137 never showed in the answers:\n%s", a.last)
	}, `document.getElementById('out').textContent === 'opened Contact 137'`},
	{"popover", "the platform's own widgets: a popover menu that closes on a click outside (no attribute changes), <details>, a modal <dialog>", func(a *agent) error {
		return steps(func() error { return a.open("popover") },
			func() error {
				txt, err := a.click("button", "Actions", none)
				return a.want(txt, err, "Archive")
			},
			// A click outside closes the menu: the answer says its items went.
			func() error {
				txt, err := a.click("", "Sharing options", none)
				if err != nil {
					return err
				}
				if _, open := findIn(txt, "button", "Rename"); open {
					return fmt.Errorf("the answer shows the closed menu's items:\n%s", txt)
				}
				return nil
			},
			func() error { return e(a.click("checkbox", "Anyone with the link can view", none)) },
			func() error { return e(a.click("button", "Actions", none)) },
			func() error {
				txt, err := a.click("button", "Archive", none)
				return a.want(txt, err, "Archive report.pdf?")
			},
			func() error {
				txt, err := a.click("button", "Archive it", none)
				return a.want(txt, err, "archived report.pdf, link shared")
			})
	}, `document.getElementById('out').textContent === 'archived report.pdf, link shared' && !document.getElementById('menu').matches(':popover-open')`},
	{"icon-buttons", "icon buttons drawn by an icon font (a private-use glyph, no text, no label): which is the bin and which the pencil", func(a *agent) error {
		return steps(func() error { return a.open("icon-buttons") },
			func() error {
				ref, err := a.refNear("Invoice 2", "trash", 8)
				if err != nil {
					return err
				}
				txt, err := a.saw(a.tool.click(ref, none))
				return a.want(txt, err, "deleted Invoice 2")
			})
	}, `document.getElementById('out').textContent === 'deleted Invoice 2' && document.querySelectorAll('tr').length === 2`},
	{"dropdowns", "select on dropdowns the page draws: a Headless UI listbox, a combobox whose options appear as you type, react-select (the agent falls back to clicks when select refuses)", func(a *agent) error {
		pick := func(role, name, value string, typeFirst bool) func() error {
			return func() error {
				ref, err := a.find(role, name)
				if err != nil {
					return err
				}
				if _, err := a.saw(a.tool.selectValues(ref, []string{value})); err == nil {
					return nil
				}
				// As an agent does when select refuses: open it (typing
				// into a combobox that filters), then click the option.
				if typeFirst {
					_, err = a.saw(a.tool.typeText(ref, value, true, false))
				} else {
					_, err = a.saw(a.tool.click(ref, none))
				}
				if err != nil {
					return err
				}
				return e(a.click("", value, none))
			}
		}
		return steps(func() error { return a.open("dropdowns") },
			pick("button", "Speed Standard", "Express", false),
			pick("combobox", "Country", "Germany", true),
			pick("textbox", "Gift wrap", "Ribbon and card", false),
			func() error {
				txt, err := a.click("button", "Ship", none)
				return a.want(txt, err, "shipping Express to Germany, wrap: Ribbon and card")
			})
	}, `document.getElementById('out').textContent === 'shipping Express to Germany, wrap: Ribbon and card'`},
	{"rerender", "a form drawn again every 300 ms: the agent acts with the refs of the snapshot it planned from, whose elements were replaced since", func(a *agent) error {
		if err := a.open("rerender"); err != nil {
			return err
		}
		var name, city, save string
		var err error
		if name, err = a.find("textbox", "Display name"); err != nil {
			return err
		}
		if city, err = a.find("textbox", "City"); err != nil {
			return err
		}
		if save, err = a.find("button", "Save profile"); err != nil {
			return err
		}
		time.Sleep(400 * time.Millisecond) // the agent thinks; the page draws the form again
		return steps(func() error { return e(a.tool.typeText(name, "Ada", false, false)) },
			func() error { return e(a.tool.typeText(city, "Lyon", false, false)) },
			func() error {
				txt, err := a.tool.click(save, none)
				return a.want(txt, err, "saved Ada from Lyon")
			})
	}, `document.getElementById('out').textContent === 'saved Ada from Lyon'`},
	{"animated-menu", "a menu that scales into place over 600 ms: the click on its last item waits until it comes to rest", func(a *agent) error {
		return steps(func() error { return a.open("animated-menu") },
			func() error {
				txt, err := a.click("button", "File", none)
				return a.want(txt, err, "Move to bin")
			},
			func() error {
				txt, err := a.click("menuitem", "Move to bin", none)
				return a.want(txt, err, "chose Move to bin")
			})
	}, `document.getElementById('out').textContent === 'chose Move to bin'`},
	{"resize", "a panel resized by dragging its edge: a handle with only a resize cursor and a class, dragged by an offset the agent works out from the width the page shows", func(a *agent) error {
		if err := a.open("resize"); err != nil {
			return err
		}
		m := regexp.MustCompile(`width: (\d+)px`).FindStringSubmatch(a.last)
		if m == nil {
			return fmt.Errorf("the answer does not show the panel's width:\n%s", a.last)
		}
		w, _ := strconv.Atoi(m[1])
		handle, err := a.refNear("width:", "handle", 4)
		if err != nil {
			return err
		}
		txt, err := a.saw(a.tool.drag(handle, fmt.Sprintf("%+d,0", 320-w)))
		return a.want(txt, err, "width: 320px")
	}, `document.getElementById('panel').offsetWidth === 320`},
	{"loading-overlay", "a loading overlay over the page for 900 ms after an action, and a button that comes on only when the data has arrived: the next click waits for them", func(a *agent) error {
		return steps(func() error { return a.open("loading-overlay") },
			func() error { return e(a.click("button", "Refresh data", none)) },
			func() error {
				txt, err := a.click("button", "Export CSV", none)
				return a.want(txt, err, "exported report.csv")
			})
	}, `document.getElementById('out').textContent === 'exported report.csv'`},
	{"close-buttons", "close controls drawn by CSS alone (an empty span, a background image, a pointer cursor) at the end of each notice", func(a *agent) error {
		return steps(func() error { return a.open("close-buttons") },
			func() error {
				ref, err := a.refNear("Password changed", "close", 4)
				if err != nil {
					return err
				}
				txt, err := a.saw(a.tool.click(ref, none))
				return a.want(txt, err, "dismissed Password changed")
			})
	}, `document.getElementById('out').textContent === 'dismissed Password changed' && document.querySelectorAll('#list li').length === 2`},
}

// confSelected says whether page is to be run: every page, or only those
// BROWSERD_CONFORMANCE_ONLY lists (comma-separated), for working on a few.
func confSelected(page string) bool {
	only := os.Getenv("BROWSERD_CONFORMANCE_ONLY")
	return only == "" || slices.Contains(strings.Split(only, ","), page)
}

// confResult is one page's outcome for one tool.
type confResult struct {
	pass bool
	err  error
	ms   int64
}

// runConformance drives every case, parallel at a time, with the tools
// newTool makes (one per case, so tasks do not share tabs) and returns
// the outcomes by page.
func runConformance(parallel int, newTool func(i int) confTool) map[string]confResult {
	var jobs []confJob
	for i, c := range confCases {
		if confSelected(c.page) {
			jobs = append(jobs, confJob{i: i, key: c.page, run: c.run, check: c.check})
		}
	}
	return runJobs(parallel, jobs, newTool)
}

// confJob is one task of a corpus as runJobs drives it.
type confJob struct {
	i     int    // its index in its corpus: newTool's argument
	key   string // its outcome's key
	run   func(a *agent) error
	check string // JavaScript that yields true when the task is done
}

// runJobs drives jobs, parallel at a time, with the tools newTool makes
// (one per job, made on the test's goroutine), and returns the outcomes
// by key: a job passes when its run ends without error and its check
// holds on the page.
func runJobs(parallel int, jobs []confJob, newTool func(i int) confTool) map[string]confResult {
	var (
		mu  sync.Mutex
		out = map[string]confResult{}
		wg  sync.WaitGroup
		sem = make(chan struct{}, parallel)
	)
	for _, j := range jobs {
		wg.Add(1)
		sem <- struct{}{}
		tl := newTool(j.i)
		go func() {
			defer func() { <-sem; wg.Done() }()
			start := time.Now()
			err := j.run(&agent{tool: tl})
			if err == nil {
				got, eerr := tl.eval("!!(" + j.check + ")")
				if eerr != nil || !strings.Contains(got, "true") {
					err = fmt.Errorf("the page's final state is not the task's goal (%s): %v %s", j.check, eerr, got)
				}
			}
			r := confResult{pass: err == nil, err: err, ms: time.Since(start).Milliseconds()}
			if errors.Is(err, errUnsupported) {
				r = confResult{err: err}
			}
			mu.Lock()
			out[j.key] = r
			mu.Unlock()
		}()
	}
	wg.Wait()
	return out
}

// confFlags are the corpus runs' daemon flags: an action may take 30 s, not
// 10. The corpora ask whether browserd finishes each task, not how soon —
// docs/benchmarks.md measures that — and on a machine also running the
// unit tests under the race detector, three tasks in tabs that share one
// renderer's thread made one select on MUI's Autocomplete (two waits of a
// settle of 1.2 s at most each, 2.7 s here) run out of 10 s (a make test
// run, stop 62). A daemon that hangs still fails at 30 s, and its warning
// (engine: "action timed out") says which step it waited in.
var confFlags = []string{"--action-timeout", "30s"}

// TestConformance drives every page of the corpus through MCP; browserd
// must finish every task. With BROWSERD_CONFORMANCE_OUT set it writes the
// results as JSON for docs/conformance.md.
func TestConformance(t *testing.T) {
	d := newMCPDriver(t, confFlags...)
	covered := map[string]bool{"bfcache-b": true, "card-frame": true}
	for _, c := range confCases {
		covered[c.page] = true
	}
	for _, p := range testsite.ConformancePages() {
		if !covered[p] {
			t.Errorf("corpus page %s has no case", p)
		}
	}
	// One task at a time. Three at once (as the third-party corpus runs)
	// lost the answers of pages that change late — a menu 250 ms after
	// the click, a dialog's close event — until Settle's window for the
	// page's timers was anchored on the page's clock and the watch waited
	// for a closed dialog's close event; in 10 runs since, 2 lost one
	// task each (virtual-list, rerender), not yet understood.
	// BROWSERD_CONFORMANCE_PARALLEL=N runs N at once, to work on that.
	parallel := 1
	if n, err := strconv.Atoi(os.Getenv("BROWSERD_CONFORMANCE_PARALLEL")); err == nil && n > 0 {
		parallel = n
	}
	res := runConformance(parallel, func(i int) confTool { return &browserdTool{t: t, d: d, task: fmt.Sprintf("conf%d", i)} })
	passed := 0
	for _, c := range confCases {
		r, ran := res[c.page]
		if !ran {
			continue
		}
		if r.pass {
			passed++
		} else {
			t.Errorf("%s (%s): %v", c.page, c.what, r.err)
		}
	}
	t.Logf("browserd finished %d of %d conformance tasks", passed, len(res))
	writeConformance(t, "browserd", res)
}

// writeConformance appends one tool's results to the JSON file named by
// BROWSERD_CONFORMANCE_OUT, if set.
func writeConformance(t *testing.T, tool string, res map[string]confResult) {
	var rows []confRow
	for _, c := range confCases {
		if r, ran := res[c.page]; ran {
			rows = append(rows, newConfRow(tool, c.page, c.what, r))
		}
	}
	writeRows(t, rows)
}

// confRow is one task's outcome for one tool, as docs/conformance.md's
// tables are made from.
type confRow struct {
	Tool, Page, What, Error string
	Pass                    bool
	Ms                      int64
}

func newConfRow(tool, page, what string, r confResult) confRow {
	msg := ""
	if r.err != nil {
		msg = r.err.Error()
		if len(msg) > 300 {
			msg = msg[:300]
		}
	}
	return confRow{tool, page, what, msg, r.pass, r.ms}
}

// writeRows appends rows to the JSON file named by
// BROWSERD_CONFORMANCE_OUT, if set.
func writeRows(t *testing.T, rows []confRow) {
	out := os.Getenv("BROWSERD_CONFORMANCE_OUT")
	if out == "" {
		return
	}
	b, _ := json.MarshalIndent(rows, "", " ")
	f, err := os.OpenFile(out, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Errorf("writing %s: %v", out, err)
		return
	}
	defer f.Close()
	_, _ = f.Write(append(b, '\n'))
}
