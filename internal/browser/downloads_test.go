package browser

import (
	"testing"
	"time"
)

// A tab's word that a download is its (Page.downloadWillBegin) comes on
// the tab's session, the browser-wide events on the browser's: the tab's
// may be heard first. Until the browser's come, the download is the
// tab's and pending, so an action's answer waits for it; never another
// tab's, and not for ever.
func TestDownloadsClaimBeforeTheBrowserHearsOfIt(t *testing.T) {
	b := &Browser{downloads: map[string]*Download{}, dlDir: t.TempDir()}
	since := time.Now()
	b.claimDownload("g1", "tab-a")

	got := b.Downloads(since, map[string]bool{"tab-a": true})
	if len(got) != 1 || got[0].GUID != "g1" || got[0].State != "inProgress" {
		t.Fatalf("the claimed download before the browser's event: %+v, want it pending", got)
	}
	if got := b.Downloads(since, map[string]bool{"tab-b": true}); len(got) != 0 {
		t.Fatalf("another tab sees %+v", got)
	}
	if got := b.Downloads(time.Now().Add(time.Second), nil); len(got) != 0 {
		t.Fatalf("a download claimed before since: %+v", got)
	}

	// The browser's events come: the download is reported once, as the
	// browser says, under the tab that claimed it (the browser names
	// another frame when browserd's own navigate became the download).
	b.downloads["g1"] = &Download{GUID: "g1", URL: "http://127.0.0.1/f.csv", Name: "f.csv", FrameID: "other", State: "inProgress", Started: time.Now(), Dir: b.dlDir}
	got = b.Downloads(since, map[string]bool{"tab-a": true})
	if len(got) != 1 || got[0].URL != "http://127.0.0.1/f.csv" {
		t.Fatalf("after the browser's event: %+v", got)
	}

	// A claim the browser never follows up (a browser browserd attached
	// to, whose downloads it did not set up) stops being pending.
	b.claims["g2"] = claim{tab: "tab-a", at: time.Now().Add(-3 * time.Second)}
	got = b.Downloads(since.Add(-5*time.Second), map[string]bool{"tab-a": true})
	if len(got) != 1 || got[0].GUID != "g1" {
		t.Fatalf("a stale claim: %+v", got)
	}
}
