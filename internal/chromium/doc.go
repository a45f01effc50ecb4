// Package chromium finds, starts and stops the Chromium process, with no
// orphans — on Linux a process group and a parent-death signal, on macOS
// a process group and a watchdog, on Windows a kill-on-close job object —
// the pid file a later daemon sweeps leftovers by, the pipes CDP runs
// over. Find knows where each system installs Chromium, Google Chrome
// and Microsoft Edge (find.go). It prepares the user-data-dir it runs on —
// quiet preferences, a profile that keeps no record of its pages
// (forget.go), a stale lock cleared or a broken profile moved aside
// (profile.go). Package browser drives what it starts.
package chromium
