package act

import (
	"context"
	"fmt"
	"strings"

	"github.com/browserd/browserd/internal/browser"
)

// Extract returns the readable text of the page or an element, and its links.
func (c *Tab) Extract(ctx context.Context) error {
	pg := c.Page
	const fn = `function(max) {
	  const root = this && this.nodeType ? (this.nodeType === 1 ? this : this.parentElement) : document.body;
	  if (!root) return {text: '', links: []};
	  // A field's text is its value, which innerText does not show.
	  const field = ['INPUT', 'TEXTAREA', 'SELECT'].includes(root.tagName);
	  let text = field ? (root.tagName === 'SELECT' ? [...root.selectedOptions].map(o => o.label).join('\n') : String(root.value)) :
	    (root.innerText || root.textContent || '').replace(/[ \t]+\n/g, '\n').replace(/\n{3,}/g, '\n\n').trim();
	  const links = [];
	  for (const a of root.querySelectorAll('a[href]')) {
	    if (links.length >= 200) break;
	    const t = (a.innerText || a.getAttribute('aria-label') || '').trim().replace(/\s+/g, ' ');
	    if (t) links.push(t.slice(0, 100) + ' → ' + a.href);
	  }
	  return {text, links, total: text.length};
	}`
	var r struct {
		Text  string   `json:"text"`
		Links []string `json:"links"`
		Total int      `json:"total"`
	}
	if c.In.Ref != "" || c.In.Selector != "" || c.In.Role != "" {
		el, err := c.Target(ctx)
		if err != nil {
			return err
		}
		if err := pg.CallOn(ctx, el, fn, &r, 0); err != nil {
			return err
		}
	} else {
		expr := "(" + fn + ").call(null, 0)"
		if err := pg.Run(ctx, expr, &r); err != nil {
			return err
		}
	}
	limit := c.In.MaxChars
	if limit == 0 {
		limit = 20000
	}
	var b strings.Builder
	text := r.Text
	if len(text) > limit {
		text = text[:limit]
		fmt.Fprintf(&b, "%s\n[text cut at %d of %d chars — raise maxChars or extract a narrower element (ref or selector)]", text, limit, r.Total)
	} else {
		b.WriteString(text)
	}
	if len(r.Links) > 0 {
		b.WriteString("\n\nLinks:\n")
		for _, l := range r.Links {
			b.WriteString("- " + l + "\n")
		}
	}
	c.Res.Content = strings.TrimRight(b.String(), "\n")
	return nil
}

// Evaluate runs the agent's JavaScript in the tab's page. A result longer
// than browser.MaxEvalResult is cut (in the page, for an expression), and
// a note says how much was left out and how to read the rest: the daemon
// never holds a page's 100 MB string for an answer.
func (c *Tab) Evaluate(ctx context.Context) error {
	r, err := c.Page.EvalBounded(ctx, c.In.Expression, browser.MaxEvalResult)
	if err != nil {
		return err
	}
	c.Res.Content = r.Text
	if note := browser.EvalNote(r); note != "" {
		c.Res.Notes = append(c.Res.Notes, note)
	}
	return nil
}
