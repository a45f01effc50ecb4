package config

import (
	"regexp"
	"runtime/debug"
	"strings"
)

// The commit a build was made from, when the build could not record it
// itself: the Makefile sets them (-ldflags -X) from git, for a build in a
// git worktree, where the go command finds no repository to stamp.
var (
	buildCommit   string
	buildTime     string
	buildModified string
)

// Version is browserd's version as built: its module version when it is
// a release (go install …@v1.2.3), else the commit it was built from and
// that commit's date, from the build's own information (vcs.revision,
// vcs.time, vcs.modified), else the module version the go command gave
// (a pseudo-version naming a commit), else "devel".
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		bi = &debug.BuildInfo{}
	}
	return versionOf(bi, buildCommit, buildTime, buildModified)
}

// pseudo matches a pseudo-version's tail: a commit's time and hash.
var pseudo = regexp.MustCompile(`[-.]\d{14}-[0-9a-f]{12}$`)

// versionOf is Version on bi, with commit, time and modified the
// Makefile's fallback for vcs.revision, vcs.time and vcs.modified.
func versionOf(bi *debug.BuildInfo, commit, time, modified string) string {
	v := bi.Main.Version
	base, dirty := strings.CutSuffix(v, "+dirty")
	if v != "" && v != "(devel)" && !dirty && !pseudo.MatchString(base) {
		return v
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			commit = s.Value
		case "vcs.time":
			time = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if commit != "" {
		out := "commit " + commit
		if time != "" {
			out += " (" + time + ")"
		}
		if modified == "true" {
			out += ", with changes not committed"
		}
		return out
	}
	if v != "" && v != "(devel)" {
		return v
	}
	return "devel"
}
