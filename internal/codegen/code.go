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
	loc := ""
	if t.Locator != nil {
		loc = Locator(*t.Locator)
	}
	needLoc := func(f func(l string) []string) []string {
		if loc == "" {
			if in.Action == "press" || in.Action == "scroll" || in.Action == "extract" || in.Action == "screenshot" {
				return f("")
			}
			return []string{"// " + in.Action + ": its target could not be placed (no unique role and name, no selector)"}
		}
		return f(loc)
	}
	opt := func(kv ...string) string {
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
	timeout := ""
	if in.Timeout > 0 {
		timeout = strconv.Itoa(in.Timeout)
	}
	switch in.Action {
	case "navigate":
		return []string{"await page.goto(" + Str(in.URL) + ");"}
	case "back":
		return []string{"await page.goBack();"}
	case "forward":
		return []string{"await page.goForward();"}
	case "reload":
		return []string{"await page.reload();"}
	case "click":
		return needLoc(func(l string) []string {
			button := ""
			if in.Button != "" && in.Button != "left" {
				button = Str(in.Button)
			}
			mods := ""
			if len(in.Modifiers) > 0 {
				q := make([]string, len(in.Modifiers))
				for i, m := range in.Modifiers {
					q[i] = Str(m)
				}
				mods = "[" + strings.Join(q, ", ") + "]"
			}
			m := "click"
			if in.Double {
				m = "dblclick"
			}
			return []string{"await " + l + "." + m + "(" + opt("button", button, "modifiers", mods) + ");"}
		})
	case "hover":
		return needLoc(func(l string) []string { return []string{"await " + l + ".hover();"} })
	case "type":
		return needLoc(func(l string) []string {
			out := []string{"await " + l + ".fill(" + value(in.Text, in.Secret) + ");"}
			if in.Submit {
				out = append(out, "await "+l+".press('Enter');")
			}
			return out
		})
	case "fill":
		var out []string
		for i, f := range in.Fields {
			var l recording.Locator
			if i < len(t.Fields) {
				l = t.Fields[i]
			}
			if l.Role == "" && l.Selector == "" {
				out = append(out, fmt.Sprintf("// fill: field %s could not be placed (no unique role and name, no selector)", f.Ref))
				continue
			}
			out = append(out, fillField(Locator(l), l.Role, f))
		}
		return out
	case "select":
		return needLoc(func(l string) []string {
			if len(in.Values) > 0 {
				q := make([]string, len(in.Values))
				for i, v := range in.Values {
					q[i] = Str(v)
				}
				return []string{"await " + l + ".selectOption([" + strings.Join(q, ", ") + "]);"}
			}
			return []string{"await " + l + ".selectOption(" + Str(in.Value) + ");"}
		})
	case "press":
		if loc != "" {
			return []string{"await " + loc + ".press(" + Str(in.Key) + ");"}
		}
		return []string{"await page.keyboard.press(" + Str(in.Key) + ");"}
	case "scroll":
		if loc != "" && in.Direction == "" {
			return []string{"await " + loc + ".scrollIntoViewIfNeeded();"}
		}
		amount := in.Amount
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
	case "wait":
		to := opt("timeout", timeout)
		switch {
		case in.Text != "":
			return []string{"await expect(page.getByText(" + StrEnv(in.Text, false) + ").first()).toBeVisible(" + to + ");"}
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
	case "evaluate":
		return []string{"await page.evaluate(" + Str(in.Expression) + ");"}
	case "drag":
		return needLoc(func(l string) []string {
			if t.To != nil {
				return []string{"await " + l + ".dragTo(" + Locator(*t.To) + ");"}
			}
			if strings.HasPrefix(in.To, "+") || strings.HasPrefix(in.To, "-") {
				return []string{"// drag by an offset " + oneLine(in.To) + ": not exported"}
			}
			return []string{"await " + l + ".dragTo(page.getByText(" + Str(in.To) + ", { exact: true }));"}
		})
	case "upload":
		return needLoc(func(l string) []string {
			q := make([]string, len(in.Files))
			for i, f := range in.Files {
				q[i] = Str(f)
			}
			return []string{"await " + l + ".setInputFiles([" + strings.Join(q, ", ") + "]); // files from browserd's <data>/uploads"}
		})
	case "screenshot":
		return []string{"await page.screenshot(" + opt("fullPage", boolOf(in.FullPage == nil || *in.FullPage)) + ");"}
	case "pdf":
		return []string{"await page.pdf();"}
	case "extract":
		if loc != "" {
			return []string{"await " + loc + ".innerText();"}
		}
		return []string{"await page.locator('body').innerText();"}
	case "tab_new":
		if in.URL != "" {
			return []string{"// tab_new " + oneLine(in.URL) + ": a test drives one page; not exported"}
		}
	}
	return nil
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
	return StrEnv(text, false)
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

// StrEnv is s as a JavaScript string expression in which a secret the
// recording redacted (<secret NAME>) is read from the environment, URL-
// encoded when inURL (a form sent by GET carries it so).
func StrEnv(s string, inURL bool) string {
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
		v := "(process.env." + EnvName(s[m[2]:m[3]]) + " ?? '')"
		if inURL {
			v = "encodeURIComponent" + v
		}
		parts = append(parts, v)
		at = m[1]
	}
	if at < len(s) {
		parts = append(parts, Str(s[at:]))
	}
	return strings.Join(parts, " + ")
}

// Secrets are the names of the secrets s refers to (<secret NAME>).
func Secrets(s string) []string {
	var out []string
	for _, m := range secretMark.FindAllStringSubmatch(s, -1) {
		out = append(out, EnvName(m[1]))
	}
	return out
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
