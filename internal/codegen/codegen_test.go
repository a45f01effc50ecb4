package codegen

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/browserd/browserd/internal/recording"
	"github.com/browserd/browserd/internal/tool"
)

func TestLines(t *testing.T) {
	btn := &recording.Locator{Role: "button", Name: "Save"}
	css := &recording.Locator{Selector: "ul > li:nth-of-type(2) > button"}
	yes := true
	for _, tt := range []struct {
		in   tool.Input
		t    Targets
		want string
	}{
		{tool.Input{Action: "navigate", URL: "https://example.com/"}, Targets{}, "await page.goto('https://example.com/');"},
		{tool.Input{Action: "click", Ref: "e3"}, Targets{Locator: btn}, "await page.getByRole('button', { name: 'Save', exact: true }).click();"},
		{tool.Input{Action: "click", Ref: "e3", Double: true}, Targets{Locator: css}, "await page.locator('ul > li:nth-of-type(2) > button').dblclick();"},
		{tool.Input{Action: "click", Ref: "e3", Button: "right", Modifiers: []string{"Shift"}}, Targets{Locator: btn}, "await page.getByRole('button', { name: 'Save', exact: true }).click({ button: 'right', modifiers: ['Shift'] });"},
		{tool.Input{Action: "click", Ref: "e3"}, Targets{}, "// click: its target could not be placed (no unique role and name, no selector)"},
		{tool.Input{Action: "type", Ref: "e4", Text: "it's\nhere", Submit: true}, Targets{Locator: &recording.Locator{Role: "textbox", Name: "Note"}},
			`await page.getByRole('textbox', { name: 'Note', exact: true }).fill('it\'s\nhere'); await page.getByRole('textbox', { name: 'Note', exact: true }).press('Enter');`},
		{tool.Input{Action: "type", Ref: "e4", Secret: "SHOP-PW"}, Targets{Locator: css}, "await page.locator('ul > li:nth-of-type(2) > button').fill(process.env.SHOP_PW ?? '');"},
		{tool.Input{Action: "press", Key: "Control+a"}, Targets{}, "await page.keyboard.press('Control+a');"},
		{tool.Input{Action: "wait", Text: "Done", Timeout: 2000}, Targets{}, "await expect(page.getByText('Done').first()).toBeVisible({ timeout: 2000 });"},
		{tool.Input{Action: "wait", TextGone: "Loading"}, Targets{}, "await expect(page.getByText('Loading')).toHaveCount(0);"},
		{tool.Input{Action: "select", Ref: "e5", Values: []string{"a", "b"}}, Targets{Locator: &recording.Locator{Role: "listbox", Name: "Tags"}}, "await page.getByRole('listbox', { name: 'Tags', exact: true }).selectOption(['a', 'b']);"},
		{tool.Input{Action: "fill", Fields: []tool.Field{{Ref: "e1", Value: "Ada"}, {Ref: "e2", Value: "true"}, {Ref: "e3", Secret: "PW"}, {Ref: "e4", Value: "x"}}},
			Targets{Fields: []recording.Locator{{Role: "textbox", Name: "Name"}, {Role: "checkbox", Name: "Subscribe"}, {Role: "textbox", Name: "Password"}, {}}},
			"await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Ada'); await page.getByRole('checkbox', { name: 'Subscribe', exact: true }).setChecked(true); await page.getByRole('textbox', { name: 'Password', exact: true }).fill(process.env.PW ?? ''); // fill: field e4 could not be placed (no unique role and name, no selector)"},
		{tool.Input{Action: "drag", Ref: "e1", To: "e2"}, Targets{Locator: btn, To: css}, "await page.getByRole('button', { name: 'Save', exact: true }).dragTo(page.locator('ul > li:nth-of-type(2) > button'));"},
		{tool.Input{Action: "screenshot", FullPage: &yes}, Targets{}, "await page.screenshot({ fullPage: true });"},
		{tool.Input{Action: "snapshot"}, Targets{}, ""},
		{tool.Input{Action: "evaluate", Expression: "document.title"}, Targets{}, "await page.evaluate('document.title');"},
	} {
		if got := Line(tt.in, tt.t); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.in.Action, got, tt.want)
		}
	}
}

func TestRole(t *testing.T) {
	for in, want := range map[string]string{"button": "button", "image": "img", "StaticText": "", "generic": "", "LabelText": "", "": ""} {
		if got := Role(in); got != want {
			t.Errorf("Role(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestStr(t *testing.T) {
	for in, want := range map[string]string{`a'b`: `'a\'b'`, `c:\x`: `'c:\\x'`, "l\u2028s": `'l\u2028s'`, "\x00": `'\x00'`, "</script>": `'</script>'`} {
		if got := Str(in); got != want {
			t.Errorf("Str(%q) = %s, want %s", in, got, want)
		}
	}
}

// TestTest: the exported file has the steps that succeeded, in order, the
// answer to a dialog set up before the step that opened it, the URL a
// click went to expected (relative to the first page's origin, the
// baseURL; its path whatever its query), the last title the agent saw,
// secrets from the environment — never their values — and nothing for
// what only read the page.
func TestTest(t *testing.T) {
	ok, bad := true, false
	args := func(s string) map[string]any {
		var m map[string]any
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	x := recording.Export{Session: "s1", Task: "log in\nnow", Exported: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Entries: []recording.Entry{
		{Type: "action", Seq: 1, Name: "navigate", Args: args(`{"url":"http://x.test/login"}`), OK: &ok, URL: "http://x.test/login"},
		{Type: "request", Of: 1, URL: "http://x.test/app.js"},
		{Type: "action", Seq: 2, Name: "snapshot", OK: &ok, URL: "http://x.test/login"},
		{Type: "action", Seq: 3, Name: "type", Args: args(`{"ref":"e2","secret":"SITE_PW"}`), OK: &ok, URL: "http://x.test/login", Locator: &recording.Locator{Role: "textbox", Name: "Password"}},
		{Type: "action", Seq: 4, Name: "click", Args: args(`{"ref":"e9"}`), OK: &bad, Error: "covered"},
		{Type: "action", Seq: 5, Name: "click", Args: args(`{"ref":"e3"}`), OK: &ok, URL: "http://x.test/confirm", Locator: &recording.Locator{Role: "button", Name: "Log in"}},
		{Type: "action", Seq: 6, Name: "dialog", Args: args(`{"accept":true,"text":"yes"}`), OK: &ok, URL: "http://x.test/confirm"},
		{Type: "action", Seq: 7, Name: "wait", Args: args(`{"text":"Welcome"}`), OK: &ok, URL: "http://x.test/home"},
		{Type: "action", Seq: 8, Name: "click", Args: args(`{"ref":"e5"}`), OK: &ok, URL: "http://x.test/search?q=mugs&sid=91", Title: "Results: mugs", Locator: &recording.Locator{Role: "link", Name: "Mugs"}},
	}}
	got := string(Test(x))
	want := `// A browserd recording as a Playwright test: session s1, task log in now, exported 2026-01-02 03:04:05Z.
// Secrets come from the environment: SITE_PW.
import { test, expect } from '@playwright/test';

test.use({ baseURL: 'http://x.test' });

test('log in\nnow', async ({ page }) => {
  // step 1: navigate
  await page.goto('/login');
  // step 3: type
  await page.getByRole('textbox', { name: 'Password', exact: true }).fill(process.env.SITE_PW ?? '');
  page.once('dialog', d => d.accept('yes'));
  // step 5: click
  await page.getByRole('button', { name: 'Log in', exact: true }).click();
  await expect(page).toHaveURL('/confirm');
  // step 7: wait
  await expect(page.getByText('Welcome').first()).toBeVisible();
  await expect(page).toHaveURL('/home');
  // step 8: click
  await page.getByRole('link', { name: 'Mugs', exact: true }).click();
  await expect(page).toHaveURL(new RegExp('^[a-z][a-z0-9+.-]*://[^/?#]+/search(?:[?#].*)?$'));
  await expect(page).toHaveTitle('Results: mugs');
});
`
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

// BenchmarkLine: what codegen adds to an action's answer, besides placing
// its target (done for the recording anyway): formatting one line.
func BenchmarkLine(b *testing.B) {
	in := tool.Input{Action: "click", Ref: "e12"}
	tg := Targets{Locator: &recording.Locator{Role: "button", Name: "Add to cart"}}
	var n int
	for b.Loop() {
		n = len(Line(in, tg))
	}
	b.ReportMetric(float64(n+len("playwright: ")), "bytes/line")
}

// TestRedactedText (issue 47 point 4): a <secret NAME> inside recorded
// text exports as an expression that fails, never as an environment read;
// in a URL, as a regular expression that takes any value there.
func TestRedactedText(t *testing.T) {
	if got, want := StrRedacted("plain"), "'plain'"; got != want {
		t.Errorf("StrRedacted(plain) = %s", got)
	}
	got := StrRedacted("Hello <secret AWS_KEY>!")
	if strings.Contains(got, "process.env") || !strings.Contains(got, "throw new Error(") || !strings.HasPrefix(got, "'Hello ' + ") {
		t.Errorf("StrRedacted = %s", got)
	}
	u := URLMatch("http://x.test/a.b?code=<secret SHOP_PW>&b=1")
	if want := `new RegExp('^http://x\\.test/a\\.b\\?code=[^&#/]*&b=1$')`; u != want {
		t.Errorf("URLMatch = %s, want %s", u, want)
	}
	if u := URLMatch("http://x.test/"); u != "'http://x.test/'" {
		t.Errorf("URLMatch(plain) = %s", u)
	}
}
