// Package browser drives Chromium over CDP: a Browser (one process that
// package chromium started, or one attached over --cdp) and its contexts,
// and Page, the handle of one tab with its event loop (console, dialogs,
// downloads, network activity, out-of-process frames) and the primitive
// operations actions are made of — navigation, input, the accessibility
// tree and the journal of changes that lets an answer re-read only what
// changed.
package browser
