package testsite

import (
	"net/http"
	"time"
)

// The order page (/order) is a short flow for recordings and replays: add
// a product to the cart (two buttons named "Add": a target with no unique
// role and name), type a note and a coupon (a password), check the stock (an answer 200 ms later),
// choose a quantity and gift wrap, and place the order (a navigation to
// /order/confirm). SetOrderRenamed serves a changed page at the same URL:
// its "Check stock" button is named "Check availability", as a site that
// changed after a recording was made.

// SetOrderRenamed switches the order page's "Check stock" button to
// "Check availability" (true) or back.
func (s *Site) SetOrderRenamed(on bool) { s.orderRenamed.Store(on) }

// orderModified is the order page's Last-Modified: a day before the site
// started.
var orderModified = time.Now().Add(-24 * time.Hour).UTC()

func (s *Site) orderPages(mux *http.ServeMux) {
	mux.HandleFunc("GET /order", func(w http.ResponseWriter, r *http.Request) {
		check := "Check stock"
		if s.orderRenamed.Load() || r.URL.Query().Get("v") == "2" {
			check = "Check availability"
		}
		// As most servers send a page: when it last changed, and no
		// Cache-Control. A browser may then serve it from its HTTP cache
		// for a while (a tenth of its age: here 2.4 hours) without asking,
		// which a replay must not let it do.
		w.Header().Set("Last-Modified", orderModified.Format(http.TimeFormat))
		render(w, "order.html", map[string]string{"Check": check})
	})
	mux.HandleFunc("GET /order/confirm", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		render(w, "order-confirm.html", map[string]any{"Item": q.Get("item"), "Qty": q.Get("qty"), "Note": q.Get("note"), "Gift": q.Get("gift") != "", "Coupon": q.Get("coupon") != ""})
	})
}
