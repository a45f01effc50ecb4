package engine

import (
	"errors"
	"fmt"
	"time"

	"github.com/browserd/browserd/internal/browser"
	"github.com/browserd/browserd/internal/snapshot"
)

// Bounded answers: a page cannot make an answer — or the daemon's memory —
// as big as it likes. An evaluate result is cut at browser.MaxEvalResult
// (in the page), and a page too big to read whole is read in part (see
// browser.MaxReadElements); each answer says what it left out, and a read
// that still runs out of time says why.

// treeTimeout says why reading the page's accessibility tree ran out of
// time: Chromium was still building or sending it — the page is too big
// to read in time, not busy with a script of its own (which the read's
// count of the page's elements, run first, would have waited for).
func treeTimeout(err error, what string, took time.Duration) error {
	var te *browser.TreeReadError
	errors.As(err, &te)
	size := "the page is too big to read in time"
	if te.Elements > 0 {
		size = fmt.Sprintf("the page is too big to read in time: it has %s elements, and Chromium was still building or sending its accessibility tree (the page is busy with that, not with a script of its own)", snapshot.Commas(te.Elements))
	}
	return fail("%s timed out after %s: %s — snapshot a part of it with selector, or extract it, or raise timeout (ms)", what, took, size)
}
