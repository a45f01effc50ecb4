// Package browser starts and stops Chromium and drives its tabs over CDP:
// process launch with no orphans (process group, parent-death signal,
// leftovers swept at start), browser contexts, and Page, the handle of one
// tab with its event loop (console, dialogs, downloads, network activity,
// out-of-process frames) and the primitive operations actions are made of.
package browser
