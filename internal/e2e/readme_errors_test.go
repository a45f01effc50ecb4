//go:build linux

package e2e

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeErrors (issue #17 point 12): the error examples in the
// reference (docs/reference.md) are what the code prints today. Each line of the reference's block
// is matched (refs as any ref) against the error of a real action that
// meets that case.
func TestReadmeErrors(t *testing.T) {
	t.Parallel() // its own daemon or engine: waits more than it works, beside others (make test's budget)
	readme, err := os.ReadFile("../../docs/reference.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(readme)
	i := strings.Index(s, "Errors say what to do next:")
	if i < 0 {
		t.Fatal("the README has no error examples")
	}
	block := s[i:]
	block = block[strings.Index(block, "```\n")+4:]
	block = block[:strings.Index(block, "```")]
	examples := strings.Split(strings.TrimSpace(block), "\n")
	if len(examples) < 3 {
		t.Fatalf("the README's error examples: %q", examples)
	}

	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><title>Errors</title>
<button id="under" style="position:absolute;left:10px;top:10px;width:200px;height:40px">Under</button>
<div id="cover" style="position:absolute;left:0;top:0;width:400px;height:100px;background:#eee" onclick="0">Cookie banner</div>
<button id="later">Later</button>
<div style="overflow:clip;height:30px"><div style="height:40px"></div><button id="cut">Cut</button></div>`)
	}))
	defer page.Close()
	data := t.TempDir()
	startDaemon(t, data)
	r := cli(t, data, "open", page.URL)
	if !r.Success {
		t.Fatal(r.Error)
	}
	under := firstRefIn(r.Content, "button", "Under")
	later := firstRefIn(r.Content, "button", "Later")
	cut := firstRefIn(r.Content, "button", "Cut")
	if under == "" || later == "" || cut == "" {
		t.Fatalf("no refs in:\n%s", r.Content)
	}
	got := map[string]string{}
	got["covered"] = cli(t, data, "click", under).Error
	cli(t, data, "eval", "document.getElementById('later').style.display = 'none'")
	got["not visible"] = cli(t, data, "click", later).Error
	got["cut off"] = cli(t, data, "click", cut).Error
	got["refused: 10.0"] = cli(t, data, "open", "http://10.0.0.5/").Error
	got["credentials"] = cli(t, data, "open", "https://ann:s3cret@intranet.example/").Error

	ref := regexp.MustCompile(`\be\d+\b`)
	for _, ex := range examples {
		key := ""
		for k := range got {
			if strings.Contains(ex, k) {
				key = k
			}
		}
		if key == "" {
			t.Errorf("README example %q: no case of this test makes it; add one", ex)
			continue
		}
		pat := "^" + ref.ReplaceAllString(regexp.QuoteMeta(ex), `e\d+`) + "$"
		if !regexp.MustCompile(pat).MatchString(got[key]) {
			t.Errorf("README example:\n  %s\nthe code prints:\n  %s", ex, got[key])
		}
	}
}
