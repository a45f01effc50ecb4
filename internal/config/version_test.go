package config

import (
	"runtime/debug"
	"testing"
)

// TestVersion: a release prints its version; any other build the commit
// it was built from and its date, from the build's information or the
// Makefile's; "devel" only when nothing is known.
func TestVersion(t *testing.T) {
	vcs := []debug.BuildSetting{
		{Key: "vcs", Value: "git"},
		{Key: "vcs.revision", Value: "341616761d18a2aa02dce35352366c6e3b1b91ae"},
		{Key: "vcs.time", Value: "2026-11-28T18:45:23Z"},
		{Key: "vcs.modified", Value: "false"},
	}
	dirty := append(vcs[:3:3], debug.BuildSetting{Key: "vcs.modified", Value: "true"})
	tests := []struct {
		name                   string
		version                string
		settings               []debug.BuildSetting
		commit, time, modified string
		want                   string
	}{
		{"release", "v1.2.3", vcs, "", "", "", "v1.2.3"},
		{"go install of a release", "v1.2.3", nil, "", "", "", "v1.2.3"},
		{"go install of a commit", "v0.0.0-20261128184523-341616761d18", nil, "", "", "", "v0.0.0-20261128184523-341616761d18"},
		{"built in a clone", "v0.0.0-20261128184523-341616761d18", vcs, "", "", "", "commit 341616761d18a2aa02dce35352366c6e3b1b91ae (2026-11-28T18:45:23Z)"},
		{"built in a clone with changes", "v0.0.0-20261128184523-341616761d18+dirty", dirty, "", "", "", "commit 341616761d18a2aa02dce35352366c6e3b1b91ae (2026-11-28T18:45:23Z), with changes not committed"},
		{"after a tag", "v1.2.4-0.20261128184523-341616761d18", vcs, "", "", "", "commit 341616761d18a2aa02dce35352366c6e3b1b91ae (2026-11-28T18:45:23Z)"},
		{"the Makefile's, in a worktree", "(devel)", nil, "abc123", "2026-11-28T19:00:00Z", "true", "commit abc123 (2026-11-28T19:00:00Z), with changes not committed"},
		{"nothing known", "(devel)", nil, "", "", "", "devel"},
		{"no build info", "", nil, "", "", "", "devel"},
	}
	for _, tt := range tests {
		bi := &debug.BuildInfo{Main: debug.Module{Version: tt.version}, Settings: tt.settings}
		if got := versionOf(bi, tt.commit, tt.time, tt.modified); got != tt.want {
			t.Errorf("%s: versionOf = %q, want %q", tt.name, got, tt.want)
		}
	}
}
