package redact

import (
	"strings"
	"testing"

	"github.com/browserd/browserd/internal/tool"
)

func TestRedactor(t *testing.T) {
	r := New(map[string]string{"PW": "p@ss w&rd\"1", "PIN": "4711", "LONG": "4711-extra"})
	for in, want := range map[string]string{
		"typed p@ss w&rd\"1 here":          "typed <secret PW> here",
		"q=p%40ss+w%26rd%221":              "q=<secret PW>",
		"/p@ss%20w&rd%221/":                "/<secret PW>/",
		`{"password":"p@ss w\u0026rd\"1"}`: `{"password":"<secret PW>"}`,
		"value=&#34;p@ss w&amp;rd&#34;1":   "value=&#34;<secret PW>",
		"code 4711-extra and 4711":         "code <secret LONG> and <secret PIN>",
		"nothing secret":                   "nothing secret",
	} {
		if got := r.String(in); got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
		}
	}
	res := tool.Result{Title: "4711", Content: "x 4711", Notes: []string{"4711"}, Dialog: &tool.Dialog{Message: "pin 4711"},
		Tabs: []tool.Tab{{Title: "4711", URL: "https://x/?pin=4711"}}}
	r.Result(&res)
	if strings.Contains(res.Title+res.Content+res.Notes[0]+res.Dialog.Message+res.Tabs[0].Title+res.Tabs[0].URL, "4711") {
		t.Errorf("Result left a secret: %+v", res)
	}
	var none *Redactor
	if none.String("4711") != "4711" || New(nil) != nil {
		t.Error("the nil Redactor changed text, or New(nil) is not nil")
	}
}
