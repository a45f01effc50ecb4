// Package codegen turns what an agent did into Playwright code: the line
// of each action (an answer carries it with --codegen or codegen: true)
// and a task's recording as a runnable @playwright/test file. Targets are
// written as Playwright's role locators (page.getByRole('button', { name:
// 'Save', exact: true })) when the snapshot that showed them gave their
// role and name to one element only, and as a CSS selector otherwise;
// Resolve finds which when the action runs, since the ref will be gone by
// the time the code runs. Secrets are written as process.env.NAME, never
// their values.
package codegen

import (
	"context"
	"encoding/json"

	"github.com/browserd/browserd/internal/browser"
	"github.com/browserd/browserd/internal/recording"
	"github.com/browserd/browserd/internal/tool"
)

// Refs is what Resolve needs of a task's refs: the element of a ref, and
// the role and name the snapshot that showed it gave it (unique: no other
// ref of that snapshot had both).
type Refs interface {
	Elem(ref string) (browser.Elem, error)
	LabelOf(ref string) (role, name string, unique bool)
}

// Targets are the locators of a call's targets (see recording.Entry).
type Targets struct {
	Locator *recording.Locator
	Fields  []recording.Locator
	To      *recording.Locator
}

// Resolve finds the locators of in's targets on pg before the action runs:
// a ref's role and name when they were unique and are a role Playwright
// knows, else a CSS selector made for its element (one page call); a role
// and name, or a selector, as given. A target it cannot place is left
// nil: the code says so instead of guessing.
func Resolve(ctx context.Context, pg *browser.Page, refs Refs, in tool.Input) Targets {
	var t Targets
	switch {
	case in.Ref != "":
		t.Locator = ofRef(ctx, pg, refs, in.Ref)
	case in.Role != "":
		t.Locator = &recording.Locator{Role: in.Role, Name: in.Name}
	case in.Selector != "" && in.Action != "wait" && in.Action != "snapshot":
		t.Locator = &recording.Locator{Selector: in.Selector}
	}
	for _, f := range in.Fields {
		l := ofRef(ctx, pg, refs, f.Ref)
		if l == nil {
			l = &recording.Locator{}
		}
		t.Fields = append(t.Fields, *l)
	}
	if in.Action == "drag" && isRef(in.To) {
		t.To = ofRef(ctx, pg, refs, in.To)
	}
	return t
}

func isRef(s string) bool {
	if len(s) < 2 || s[0] != 'e' {
		return false
	}
	for _, r := range s[1:] {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// ofRef is the locator of a ref: its role and name, or a selector.
func ofRef(ctx context.Context, pg *browser.Page, refs Refs, ref string) *recording.Locator {
	if refs == nil || ref == "" {
		return nil
	}
	role, name, unique := refs.LabelOf(ref)
	if unique && name != "" && Role(role) != "" {
		return &recording.Locator{Role: Role(role), Name: name}
	}
	if pg == nil {
		return nil
	}
	el, err := refs.Elem(ref)
	if err != nil {
		return nil
	}
	var sel string
	if err := pg.CallOn(ctx, el, cssOf, &sel); err != nil || sel == "" {
		return nil
	}
	return &recording.Locator{Selector: sel}
}

// cssOf makes a CSS selector that matches this element alone in its
// document: its id, a test id or name attribute, or a path of
// :nth-of-type steps (the shortest that is unique) up to the nearest
// ancestor with a unique id.
const cssOf = `function() {
  const doc = this.ownerDocument, esc = CSS.escape;
  const one = s => { try { return doc.querySelectorAll(s).length === 1 && doc.querySelector(s) === this; } catch (e) { return false; } };
  if (this.id && one('#' + esc(this.id))) return '#' + esc(this.id);
  const tag = this.localName;
  for (const a of ['data-testid', 'data-test', 'data-test-id', 'name', 'aria-label', 'placeholder']) {
    const v = this.getAttribute(a);
    if (v) { const s = tag + '[' + a + '="' + v.replace(/["\\]/g, '\\$&') + '"]'; if (one(s)) return s; }
  }
  const steps = [];
  for (let el = this; el && el.nodeType === 1; el = el.parentElement) {
    if (el !== this && el.id && doc.querySelectorAll('#' + esc(el.id)).length === 1) {
      steps.unshift('#' + esc(el.id));
      break;
    }
    let step = el.localName, i = 1;
    for (let s = el.previousElementSibling; s; s = s.previousElementSibling) if (s.localName === el.localName) i++;
    let more = false;
    for (let s = el.nextElementSibling; s; s = s.nextElementSibling) if (s.localName === el.localName) { more = true; break; }
    if (i > 1 || more) step += ':nth-of-type(' + i + ')';
    steps.unshift(step);
    if (el.localName === 'html') break;
  }
  for (let k = 1; k <= steps.length; k++) {
    const s = steps.slice(-k).join(' > ');
    if (one(s)) return s;
  }
  return '';
}`

// Role is Playwright's name for an accessibility role Chromium reports, ""
// when getByRole cannot find it (text, generic containers).
func Role(chromium string) string {
	switch chromium {
	case "image":
		return "img"
	case "":
		return ""
	}
	if ariaRoles[chromium] {
		return chromium
	}
	return ""
}

var ariaRoles = map[string]bool{}

func init() {
	for _, r := range []string{"alert", "alertdialog", "application", "article", "banner", "blockquote", "button", "caption", "cell", "checkbox", "code", "columnheader", "combobox", "complementary", "contentinfo", "definition", "deletion", "dialog", "directory", "document", "emphasis", "feed", "figure", "form", "grid", "gridcell", "group", "heading", "img", "insertion", "link", "list", "listbox", "listitem", "log", "main", "marquee", "math", "meter", "menu", "menubar", "menuitem", "menuitemcheckbox", "menuitemradio", "navigation", "note", "option", "paragraph", "progressbar", "radio", "radiogroup", "region", "row", "rowgroup", "rowheader", "scrollbar", "search", "searchbox", "separator", "slider", "spinbutton", "status", "strong", "subscript", "superscript", "switch", "tab", "table", "tablist", "tabpanel", "term", "textbox", "time", "timer", "toolbar", "tooltip", "tree", "treegrid", "treeitem"} {
		ariaRoles[r] = true
	}
}

// InputOf is the call an action entry of a recording made, as far as the
// recording kept it (its arguments; secrets by name).
func InputOf(e recording.Entry) tool.Input {
	var in tool.Input
	if b, err := json.Marshal(e.Args); err == nil {
		_ = json.Unmarshal(b, &in)
	}
	in.Action = e.Name
	return in
}
