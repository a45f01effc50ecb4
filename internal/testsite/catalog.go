package testsite

import (
	"fmt"
	"net/http"
	"strings"
)

// catalogPage is the side-by-side benchmark's 1,000-row table
// (../shared/bench/site/server.mjs, "large"), byte for byte: a link and
// a button per row, and a status line the buttons set.
func catalogPage(w http.ResponseWriter, _ *http.Request) {
	var nav, rows strings.Builder
	for i := range 20 {
		fmt.Fprintf(&nav, `<li><a href="#section-%d">Section %d</a></li>`, i, i)
	}
	for i := 1; i <= 1000; i++ {
		if i > 1 {
			rows.WriteString("\n")
		}
		price := float64((i*7919)%10000) / 100
		fmt.Fprintf(&rows, `<tr><td><a href="/item/%d">Item %d</a> $%.2f</td><td><button type="button" data-i="%d">Add %d</button></td></tr>`, i, i, price, i, i)
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprintf(w, `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Large page</title></head>
<body>
<header><h1>Large catalog</h1><nav aria-label="Main"><ul>%s</ul></nav></header>
<main>
  <h2>Catalog table</h2>
  <p>This page has a table of 1,000 rows, each with a link and a button.</p>
  <div id="cart" role="status">Cart: empty</div>
  <table><thead><tr><th>Item</th><th>Action</th></tr></thead><tbody>%s</tbody></table>
  <h2>Footer section</h2>
</main>
<script>
document.querySelector('tbody').addEventListener('click', (e) => {
  const b = e.target.closest('button'); if (!b) return;
  document.getElementById('cart').textContent = 'Cart: item ' + b.dataset.i;
});
</script></body></html>`, nav.String(), rows.String())
}
