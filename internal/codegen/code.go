package codegen

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/browserd/browserd/internal/recording"
	"github.com/browserd/browserd/internal/tool"
)

// Line is the Playwright code of one call, on one line ("" for an action
// that has none: status, snapshot, …): what an answer carries with
// codegen.
func Line(in tool.Input, t Targets) string {
	return strings.Join(Lines(in, t), " ")
}

// Lines is the Playwright code of one call, a statement a line; a call
// whose target could not be placed, or that Playwright has no statement
// for, is a comment saying so.
func Lines(in tool.Input, t Targets) []string {
	c := call{in: in, t: t}
	if t.Locator != nil {
		c.loc = Locator(*t.Locator)
	}
	if w := writers[in.Action]; w != nil {
		return w(c)
	}
	return nil
}

// call is one call to write as Playwright code: its input, the targets
// the recording placed, and its own target's locator ("" when none).
type call struct {
	in  tool.Input
	t   Targets
	loc string
}

// needLoc writes f's statements for the call's target, or a comment
// saying it could not be placed. Actions that also act on the page as a
// whole get f("") then.
func (c call) needLoc(f func(l string) []string) []string {
	if c.loc == "" {
		if a := c.in.Action; a == "press" || a == "scroll" || a == "extract" || a == "screenshot" {
			return f("")
		}
		return []string{"// " + c.in.Action + ": its target could not be placed (no unique role and name, no selector)"}
	}
	return f(c.loc)
}

// opt is a Playwright options object of the pairs whose value is set:
// opt("button", "'right'", "modifiers", "") is "{ button: 'right' }";
// "" when none is.
func opt(kv ...string) string {
	var parts []string
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] != "" {
			parts = append(parts, kv[i]+": "+kv[i+1])
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "{ " + strings.Join(parts, ", ") + " }"
}

// strs is a JavaScript array of the strings.
func strs(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = Str(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// fixed is a writer of one statement whatever the call.
func fixed(stmt string) func(call) []string {
	return func(call) []string { return []string{stmt} }
}

// writers writes each action's statements; an action not here has none.
var writers = map[string]func(c call) []string{
	"navigate": func(c call) []string { return []string{"await page.goto(" + Str(c.in.URL) + ");"} },
	"back":     fixed("await page.goBack();"),
	"forward":  fixed("await page.goForward();"),
	"reload":   fixed("await page.reload();"),
	"click":    clickLines,
	"hover": func(c call) []string {
		return c.needLoc(func(l string) []string { return []string{"await " + l + ".hover();"} })
	},
	"type": func(c call) []string {
		return c.needLoc(func(l string) []string {
			out := []string{"await " + l + ".fill(" + value(c.in.Text, c.in.Secret) + ");"}
			if c.in.Submit {
				out = append(out, "await "+l+".press('Enter');")
			}
			return out
		})
	},
	"fill":   fillLines,
	"select": selectLines,
	"press": func(c call) []string {
		if c.loc != "" {
			return []string{"await " + c.loc + ".press(" + Str(c.in.Key) + ");"}
		}
		return []string{"await page.keyboard.press(" + Str(c.in.Key) + ");"}
	},
	"scroll":   scrollLines,
	"wait":     waitLines,
	"evaluate": func(c call) []string { return []string{"await page.evaluate(" + Str(c.in.Expression) + ");"} },
	"drag":     dragLines,
	"upload": func(c call) []string {
		return c.needLoc(func(l string) []string {
			return []string{"await " + l + ".setInputFiles(" + strs(c.in.Files) + "); // files from browserd's <data>/uploads"}
		})
	},
	"screenshot": func(c call) []string {
		return []string{"await page.screenshot(" + opt("fullPage", boolOf(c.in.FullPage == nil || *c.in.FullPage)) + ");"}
	},
	"pdf": fixed("await page.pdf();"),
	"extract": func(c call) []string {
		if c.loc != "" {
			return []string{"await " + c.loc + ".innerText();"}
		}
		return []string{"await page.locator('body').innerText();"}
	},
	"tab_new": func(c call) []string {
		if c.in.URL != "" {
			return []string{"// tab_new " + oneLine(c.in.URL) + ": a test drives one page; not exported"}
		}
		return nil
	},
}

func clickLines(c call) []string {
	return c.needLoc(func(l string) []string {
		button := ""
		if c.in.Button != "" && c.in.Button != "left" {
			button = Str(c.in.Button)
		}
		mods := ""
		if len(c.in.Modifiers) > 0 {
			mods = strs(c.in.Modifiers)
		}
		m := "click"
		if c.in.Double {
			m = "dblclick"
		}
		return []string{"await " + l + "." + m + "(" + opt("button", button, "modifiers", mods) + ");"}
	})
}

func fillLines(c call) []string {
	var out []string
	for i, f := range c.in.Fields {
		var l recording.Locator
		if i < len(c.t.Fields) {
			l = c.t.Fields[i]
		}
		if l.Role == "" && l.Selector == "" {
			out = append(out, fmt.Sprintf("// fill: field %s could not be placed (no unique role and name, no selector)", f.Ref))
			continue
		}
		out = append(out, fillField(Locator(l), l.Role, f))
	}
	return out
}

func selectLines(c call) []string {
	return c.needLoc(func(l string) []string {
		if len(c.in.Values) > 0 {
			return []string{"await " + l + ".selectOption(" + strs(c.in.Values) + ");"}
		}
		return []string{"await " + l + ".selectOption(" + Str(c.in.Value) + ");"}
	})
}

func scrollLines(c call) []string {
	in := c.in
	if c.loc != "" && in.Direction == "" {
		return []string{"await " + c.loc + ".scrollIntoViewIfNeeded();"}
	}
	amount := in.Amount
	if in.Clicks > 0 {
		amount = 100 * in.Clicks // a wheel click (less over a smaller box)
	}
	if amount <= 0 {
		amount = 600
	}
	switch in.Direction {
	case "top":
		return []string{"await page.evaluate(() => window.scrollTo(0, 0));"}
	case "bottom":
		return []string{"await page.evaluate(() => window.scrollTo(0, document.scrollingElement.scrollHeight));"}
	case "up":
		return []string{fmt.Sprintf("await page.mouse.wheel(0, -%d);", amount)}
	case "left":
		return []string{fmt.Sprintf("await page.mouse.wheel(-%d, 0);", amount)}
	case "right":
		return []string{fmt.Sprintf("await page.mouse.wheel(%d, 0);", amount)}
	}
	return []string{fmt.Sprintf("await page.mouse.wheel(0, %d);", amount)}
}

func waitLines(c call) []string {
	in := c.in
	timeout := ""
	if in.Timeout > 0 {
		timeout = strconv.Itoa(in.Timeout)
	}
	to := opt("timeout", timeout)
	switch {
	case in.Text != "":
		return []string{"await expect(page.getByText(" + StrRedacted(in.Text) + ").first()).toBeVisible(" + to + ");"}
	case in.TextGone != "":
		return []string{"await expect(page.getByText(" + Str(in.TextGone) + ")).toHaveCount(0" + prefixComma(to) + ");"}
	case in.Selector != "":
		return []string{"await page.locator(" + Str(in.Selector) + ").first().waitFor(" + to + ");"}
	case in.URL != "":
		return []string{"await page.waitForURL(u => u.href.includes(" + Str(in.URL) + ")" + prefixComma(to) + ");"}
	case in.Load:
		return []string{"await page.waitForLoadState('load');"}
	case in.Time > 0:
		return []string{fmt.Sprintf("await page.waitForTimeout(%d);", in.Time)}
	}
	return []string{"// wait: for a person's hand-back (no code)"}
}

func dragLines(c call) []string {
	return c.needLoc(func(l string) []string {
		if c.t.To != nil {
			return []string{"await " + l + ".dragTo(" + Locator(*c.t.To) + ");"}
		}
		if strings.HasPrefix(c.in.To, "+") || strings.HasPrefix(c.in.To, "-") {
			return []string{"// drag by an offset " + oneLine(c.in.To) + ": not exported"}
		}
		return []string{"await " + l + ".dragTo(page.getByText(" + Str(c.in.To) + ", { exact: true }));"}
	})
}

func boolOf(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

func prefixComma(s string) string {
	if s == "" {
		return ""
	}
	return ", " + s
}

func oneLine(s string) string {
	return strings.NewReplacer("\n", " ", "\r", " ", "\u2028", " ", "\u2029", " ").Replace(s)
}

// fillField is one field of fill: checked or unchecked for a checkbox,
// radio or switch; an option for a select; typed otherwise.
func fillField(l, role string, f tool.Field) string {
	switch {
	case f.Secret != "":
		return "await " + l + ".fill(" + value("", f.Secret) + ");"
	case (role == "checkbox" || role == "radio" || role == "switch" || role == "menuitemcheckbox" || role == "") && (f.Value == "true" || f.Value == "false"):
		return "await " + l + ".setChecked(" + f.Value + ");"
	case role == "combobox" || role == "listbox":
		return "await " + l + ".selectOption(" + Str(f.Value) + ");"
	}
	return "await " + l + ".fill(" + Str(f.Value) + ");"
}

// value is a typed text, or a secret read from the environment.
func value(text, secret string) string {
	if secret != "" {
		return "process.env." + EnvName(secret) + " ?? ''"
	}
	return StrRedacted(text)
}

// EnvName is a secret's name as a JavaScript identifier (letters, digits,
// _ and $; others become _).
func EnvName(name string) string {
	var b strings.Builder
	for i, r := range name {
		ok := r == '_' || r == '$' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9'
		if !ok {
			r = '_'
		}
		b.WriteRune(r)
	}
	if b.Len() == 0 {
		return "_"
	}
	return b.String()
}

// secretMark is how a recording writes a secret's value it redacted.
var secretMark = regexp.MustCompile(`<secret ([A-Za-z0-9_.-]+)>`)

// StrRedacted is s as a JavaScript string expression. A secret the
// recording redacted inside recorded text (<secret NAME>) is not read
// from the environment: the text may have been a page's words or the
// agent's, and a test that typed an environment variable where a page
// asked would hand it over. It becomes an expression that fails the test
// there, saying what to write by hand; only a step's own secret field
// reads the environment (value).
func StrRedacted(s string) string {
	ms := secretMark.FindAllStringSubmatchIndex(s, -1)
	if len(ms) == 0 {
		return Str(s)
	}
	var parts []string
	at := 0
	for _, m := range ms {
		if m[0] > at {
			parts = append(parts, Str(s[at:m[0]]))
		}
		parts = append(parts, "(() => { throw new Error("+Str("the recording redacted secret "+s[m[2]:m[3]]+" in this text: write the text here by hand")+"); })()")
		at = m[1]
	}
	if at < len(s) {
		parts = append(parts, Str(s[at:]))
	}
	return strings.Join(parts, " + ")
}

// URLMatch is what toHaveURL is given for a recorded URL: the URL as a
// string, or, where the recording redacted a secret in it (a form sent by
// GET), a regular expression that takes any value there.
func URLMatch(u string) string {
	ms := secretMark.FindAllStringSubmatchIndex(u, -1)
	if len(ms) == 0 {
		return Str(u)
	}
	var b strings.Builder
	b.WriteString("^")
	at := 0
	for _, m := range ms {
		b.WriteString(regexp.QuoteMeta(u[at:m[0]]))
		b.WriteString("[^&#/]*")
		at = m[1]
	}
	b.WriteString(regexp.QuoteMeta(u[at:]))
	b.WriteString("$")
	return "new RegExp(" + Str(b.String()) + ")"
}

// Locator is a locator as Playwright code.
func Locator(l recording.Locator) string {
	if l.Role != "" {
		if l.Name == "" {
			return "page.getByRole(" + Str(l.Role) + ")"
		}
		return "page.getByRole(" + Str(l.Role) + ", { name: " + Str(l.Name) + ", exact: true })"
	}
	if l.Selector == "" {
		return ""
	}
	return "page.locator(" + Str(l.Selector) + ")"
}

// Str is s as a single-quoted JavaScript string literal.
func Str(s string) string {
	var b strings.Builder
	b.WriteByte('\'')
	for _, r := range s {
		switch r {
		case '\\':
			b.WriteString(`\\`)
		case '\'':
			b.WriteString(`\'`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\u2028':
			b.WriteString(`\u2028`)
		case '\u2029':
			b.WriteString(`\u2029`)
		default:
			if r < 0x20 || r == 0x7f {
				fmt.Fprintf(&b, `\x%02x`, r)
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('\'')
	return b.String()
}
