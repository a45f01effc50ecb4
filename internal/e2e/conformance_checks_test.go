//go:build linux

package e2e

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// A task's check reads the page's final state; a check already true on
// the page as it loads scores nothing the agent did. TestConformanceChecksCanFail
// opens each page of both corpora fresh and evaluates every check of its
// tasks there, expecting false.

// confReadOnly and tpReadOnly name the tasks whose goal is to read the page,
// not to change it: no page state tells them from a fresh page, so their
// check cannot fail there; each is scored on what the agent reported (its
// run fails when the answer does not show what the task reads).
var (
	confReadOnly = map[string]bool{
		"long-value": true, // a cut value read whole (SECRET-CODE-4711)
	}
	tpReadOnly = map[string]bool{
		"nouislider:read": true, // "Price: 20 to 80" read as one line
	}
)

func TestConformanceChecksCanFail(t *testing.T) {
	ensureThirdParty(t)
	type page struct {
		url    string
		checks map[string]string // task → check
	}
	var pages []page
	for _, c := range confCases {
		if !confReadOnly[c.page] {
			pages = append(pages, page{site.URL("/c/" + c.page), map[string]string{c.page: c.check}})
		}
	}
	byPage := map[string]int{}
	for _, c := range tpTasks {
		if tpReadOnly[c.key()] {
			continue
		}
		i, ok := byPage[c.page]
		if !ok {
			i = len(pages)
			byPage[c.page] = i
			pages = append(pages, page{site.URL("/tp/" + c.page), map[string]string{}})
		}
		pages[i].checks[c.key()] = c.check
	}
	d := newMCPDriver(t)
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		bad  []string
		next = make(chan page)
	)
	for w := range 3 {
		wg.Add(1)
		tl := &browserdTool{t: t, d: d, task: fmt.Sprintf("fresh%d", w)}
		go func() {
			defer wg.Done()
			for p := range next {
				if _, err := tl.navigate(p.url); err != nil && !strings.Contains(p.url, "basic-auth") {
					mu.Lock()
					bad = append(bad, fmt.Sprintf("%s: %v", p.url, err))
					mu.Unlock()
					continue
				}
				for task, check := range p.checks {
					got, err := tl.eval("!!(" + check + ")")
					if err == nil && strings.Contains(got, "true") {
						mu.Lock()
						bad = append(bad, fmt.Sprintf("%s: the check is already true on a fresh page: %s", task, check))
						mu.Unlock()
					}
				}
			}
		}()
	}
	for _, p := range pages {
		next <- p
	}
	close(next)
	wg.Wait()
	for _, b := range bad {
		t.Error(b)
	}
}
