package httpapi

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/browserd/browserd/internal/auth"
	"github.com/browserd/browserd/internal/store"
)

// TestFailSaysCallersNames (issue 47 point 5): an error about the caller's
// own session names it as the caller does, without the owner qualifier the
// store keys it by; admin, who names others' sessions qualified, sees them
// so; the status still follows the error's kind.
func TestFailSaysCallersNames(t *testing.T) {
	err := fmt.Errorf("%w: no session %q", store.ErrNotFound, "bob~priv")
	for owner, want := range map[string]string{"bob": `no session \"priv\"`, auth.Admin: `no session \"bob~priv\"`} {
		w := httptest.NewRecorder()
		r := httptest.NewRequest("GET", "/api/sessions/priv", nil).WithContext(auth.WithOwner(t.Context(), owner))
		fail(w, r, err, "")
		if w.Code != http.StatusNotFound || !strings.Contains(w.Body.String(), want) {
			t.Errorf("%s: %d %s, want 404 with %s", owner, w.Code, w.Body, want)
		}
	}
}
