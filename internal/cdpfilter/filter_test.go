package cdpfilter

import (
	"strings"
	"testing"
)

func TestFor(t *testing.T) {
	for _, c := range []struct {
		method  string
		browser bool
		want    Verdict
	}{
		{"Runtime.evaluate", false, Forward},
		{"Runtime.evaluate", true, Refuse}, // browser level: deny by default
		{"Page.navigate", false, Forward},
		{"Browser.getVersion", true, Forward},
		{"Browser.close", true, Emulate},
		{"Browser.crash", true, Refuse},
		{"Browser.crash", false, Refuse},
		{"Browser.executeBrowserCommand", false, Refuse},
		{"Target.getTargets", true, Emulate},
		{"Target.getTargets", false, Emulate}, // on a page too: it would list every tab
		{"Target.setDiscoverTargets", false, Emulate},
		{"Target.setAutoAttach", false, Forward}, // the page's own frames and workers
		{"Target.setAutoAttach", true, Emulate},
		{"Target.attachToBrowserTarget", true, Emulate},
		{"Target.exposeDevToolsProtocol", false, Refuse},
		{"SystemInfo.getInfo", false, Refuse},
		{"Tethering.bind", false, Refuse},
		{"Tracing.start", true, Refuse},
		{"Extensions.loadUnpacked", false, Refuse},
		{"Network.loadNetworkResource", false, Refuse},
		{"Page.setDownloadBehavior", false, Emulate},
		{"Browser.setDownloadBehavior", true, Emulate},
		{"Storage.getCookies", true, Forward},
		{"Storage.clearDataForOrigin", true, Refuse},
		{"Storage.clearDataForOrigin", false, Forward},
	} {
		r := For(c.method, c.browser)
		if r.Verdict != c.want {
			t.Errorf("For(%q, browser %v) = %v, want %v", c.method, c.browser, r.Verdict, c.want)
		}
		if r.Verdict == Refuse && r.Why == "" {
			t.Errorf("For(%q): a refusal says why", c.method)
		}
	}
	if r := For("Page.navigate", false); r.URL != "url" {
		t.Errorf("Page.navigate's URL is not checked: %+v", r)
	}
	if r := For("DOM.setFileInputFiles", false); !r.Files {
		t.Errorf("DOM.setFileInputFiles's files are not checked: %+v", r)
	}
	for _, m := range []string{"Storage.getCookies", "Browser.grantPermissions"} {
		if r := For(m, true); !r.Context {
			t.Errorf("%s's browser context is not checked", m)
		}
	}
}

// FuzzFor: whatever a client names, the browser level forwards only what
// its list allows, and a refusal says why.
func FuzzFor(f *testing.F) {
	for _, s := range []string{"Runtime.evaluate", "Browser.close", "Target.getTargets", "", ".", "SystemInfo.", "Storage.getCookies"} {
		f.Add(s, true)
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, method string, browser bool) {
		r := For(method, browser)
		if r.Verdict == Refuse && r.Why == "" {
			t.Fatalf("For(%q): refused without a reason", method)
		}
		if browser && r.Verdict == Forward {
			if _, ok := browserLevel[method]; !ok {
				t.Fatalf("For(%q) forwards at the browser level", method)
			}
		}
		domain, _, _ := strings.Cut(method, ".")
		if _, ok := refusedDomains[domain]; ok && r.Verdict != Refuse {
			t.Fatalf("For(%q) lets a refused domain through", method)
		}
	})
}
