package browser

import "testing"

// TestMoreSteps: each setting is its CDP command, and what a change
// leaves unset is undone.
func TestMoreSteps(t *testing.T) {
	m := More{Media: map[string]string{"prefers-color-scheme": "dark"}, Offline: true, CPU: 4, Headers: map[string]string{"X-A": "1"}}
	methods := func(steps [][2]any) map[string]int {
		got := map[string]int{}
		for _, s := range steps {
			got[s[0].(string)]++
		}
		return got
	}
	got := methods(moreSteps(&Device{Touch: true}, m))
	for _, want := range []string{"Emulation.setTouchEmulationEnabled", "Emulation.setEmulatedMedia", "Network.emulateNetworkConditions",
		"Emulation.setCPUThrottlingRate", "Network.setExtraHTTPHeaders"} {
		if got[want] != 1 {
			t.Errorf("%s: %d, want 1 (%v)", want, got[want], got)
		}
	}
	undo := resetSteps(m, More{})
	if len(undo) != 4 {
		t.Errorf("undoing everything: %v", undo)
	}
	if p := netConditions(More{}); p["offline"] != false || p["downloadThroughput"] != -1 {
		t.Errorf("back online: %v", p)
	}
	if len(resetSteps(m, m)) != 0 || len(moreSteps(nil, More{})) != 0 {
		t.Error("no change made steps")
	}
}
