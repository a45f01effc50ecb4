// Package cdpfilter says what a client of browserd's CDP endpoint
// (internal/cdpproxy) may send: which commands go to Chromium as they
// are, which browserd answers itself (the Target domain, so that a client
// sees only its task's pages), which are checked or changed on the way
// (a navigation's URL, a browser context, a download folder, a file to
// upload) and which are refused, with the reason a person reads.
//
// The rule is deny by default at the browser level (a session with no
// target, where a command reaches every tab) and allow by default on a
// page's own session, where a command reaches only that page — except
// the domains that reach past it: the host (SystemInfo, Tethering,
// Extensions, PWA), the whole browser (Tracing, Browser.close) or other
// targets (Target).
package cdpfilter

import "strings"

// Verdict is what happens to a command.
type Verdict int

const (
	// Forward sends the command to Chromium, after the rule's checks.
	Forward Verdict = iota
	// Emulate: the endpoint answers it itself (Target, Browser.close,
	// download behaviour).
	Emulate
	// Refuse answers it with an error saying Why.
	Refuse
)

// Rule is what to do with one command.
type Rule struct {
	Verdict Verdict
	// Why is a refusal's reason.
	Why string
	// URL names the parameter holding a URL that the session's guard
	// and hosts must allow (Page.navigate's "url").
	URL string
	// Context: the command's browserContextId must be the session's or
	// one the client created; when missing it is the session's.
	Context bool
	// Files: the command names files on browserd's machine
	// (DOM.setFileInputFiles): each must be in the owner's upload folder.
	Files bool
}

// refusedDomains reach past the client's pages at any level.
var refusedDomains = map[string]string{
	"SystemInfo":         "SystemInfo describes browserd's machine, which a client may not read",
	"Tethering":          "Tethering opens ports on browserd's machine",
	"Extensions":         "Extensions loads code from browserd's disk into the browser other tasks share",
	"PWA":                "PWA installs applications on browserd's machine",
	"Tracing":            "Tracing records every tab of the browser, other tasks' included",
	"Cast":               "Cast reaches devices on browserd's network",
	"BluetoothEmulation": "BluetoothEmulation is not offered",
}

// browserLevel are the commands a client may send with no session (the
// browser's own): every other is refused there.
var browserLevel = map[string]Rule{
	"Browser.getVersion":          {Verdict: Forward},
	"Browser.getWindowForTarget":  {Verdict: Emulate},
	"Browser.getWindowBounds":     {Verdict: Forward},
	"Browser.setWindowBounds":     {Verdict: Forward},
	"Browser.setContentsSize":     {Verdict: Forward},
	"Browser.grantPermissions":    {Verdict: Forward, Context: true},
	"Browser.setPermission":       {Verdict: Forward, Context: true},
	"Browser.resetPermissions":    {Verdict: Forward, Context: true},
	"Browser.cancelDownload":      {Verdict: Forward, Context: true},
	"Browser.setDownloadBehavior": {Verdict: Emulate},
	"Browser.close":               {Verdict: Emulate},
	"Storage.getCookies":          {Verdict: Forward, Context: true},
	"Storage.setCookies":          {Verdict: Forward, Context: true},
	"Storage.clearCookies":        {Verdict: Forward, Context: true},
}

// refused are commands refused at any level, with why.
var refused = map[string]string{
	"Browser.crash":                 "the session's browser serves other tasks: a client may not crash it",
	"Browser.crashGpuProcess":       "the session's browser serves other tasks: a client may not crash it",
	"Browser.executeBrowserCommand": "browser commands act on the whole browser other tasks share",
	"Browser.getBrowserCommandLine": "the browser's command line describes browserd's machine",
	"Browser.getHistograms":         "the browser's histograms describe every tab, other tasks' included",
	"Browser.getHistogram":          "the browser's histograms describe every tab, other tasks' included",
	"Network.loadNetworkResource":   "Network.loadNetworkResource loads resources past the page's own rules (file: included)",
	"Page.setDownloadBehavior":      "", // emulated below
	"Target.exposeDevToolsProtocol": "it gives a page the browser's whole protocol",
	"Target.sendMessageToTarget":    "use flat sessions (Target.attachToTarget with flatten: true; every current client does)",
	"Target.setRemoteLocations":     "it makes the browser reach other machines",
	"Target.openDevTools":           "DevTools windows are not offered",
}

// For is the rule for method, sent on a page's session (browser false) or
// with no session (browser true).
func For(method string, browser bool) Rule {
	domain, _, _ := strings.Cut(method, ".")
	if why, ok := refusedDomains[domain]; ok {
		return Rule{Verdict: Refuse, Why: why}
	}
	if why, ok := refused[method]; ok && why != "" {
		return Rule{Verdict: Refuse, Why: why}
	}
	switch {
	case method == "Page.setDownloadBehavior":
		return Rule{Verdict: Emulate}
	case domain == "Target":
		if !browser {
			switch method {
			case "Target.setAutoAttach", "Target.autoAttachRelated", "Target.detachFromTarget":
				// Within the page: its frames and workers.
				return Rule{Verdict: Forward}
			}
		}
		return Rule{Verdict: Emulate}
	case domain == "Browser" || domain == "Storage" && browser:
		if r, ok := browserLevel[method]; ok {
			return r
		}
		if browser {
			return Rule{Verdict: Refuse, Why: "not offered to a client of browserd's CDP endpoint at the browser level; send it on a page's session"}
		}
		return Rule{Verdict: Refuse, Why: "the Browser domain acts on the whole browser other tasks share; this command is not offered"}
	case browser:
		return Rule{Verdict: Refuse, Why: "not offered at the browser level, where it would reach every task's tabs; send it on a page's session (Target.attachToTarget with flatten: true)"}
	case method == "Page.navigate":
		return Rule{Verdict: Forward, URL: "url"}
	case method == "DOM.setFileInputFiles":
		return Rule{Verdict: Forward, Files: true}
	case method == "Storage.getCookies" || method == "Storage.setCookies" || method == "Storage.clearCookies":
		return Rule{Verdict: Forward, Context: true}
	}
	return Rule{Verdict: Forward}
}
