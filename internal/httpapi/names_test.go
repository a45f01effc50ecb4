package httpapi_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/browserd/browserd/internal/auth"
	"github.com/browserd/browserd/internal/httpapi"
	"github.com/browserd/browserd/internal/store"
	"github.com/browserd/browserd/internal/tool"
)

// qualifiedSessions answers as the engine does for owner bob: its store's
// errors quote the qualified name ("bob~s9"); session "live" has one tab,
// of task "shop".
type qualifiedSessions struct{ fakeSessions }

func (q *qualifiedSessions) SessionInfo(ctx context.Context, id string) (tool.SessionInfo, []tool.Tab, error) {
	if id == "live" {
		return tool.SessionInfo{ID: id}, []tool.Tab{{ID: "t1", Task: "shop"}}, nil
	}
	return tool.SessionInfo{}, nil, fmt.Errorf("%w: session %q", store.ErrNotFound, auth.Owner(ctx)+"~"+id)
}

func (q *qualifiedSessions) CloseSession(ctx context.Context, id string) error {
	return fmt.Errorf("%w: session %q", store.ErrNotFound, auth.Owner(ctx)+"~"+id)
}

// TestErrorsNameTheCallersSessions (issue 36 point 8): a 404 names the
// session as its owner does, never the engine's qualified name.
func TestErrorsNameTheCallersSessions(t *testing.T) {
	h := httpapi.New(&qualifiedSessions{}, httpapi.Options{})
	for _, c := range []struct{ method, path string }{
		{"GET", "/api/sessions/s9"}, {"DELETE", "/api/sessions/s9"}, {"GET", "/api/sessions/s9/har"},
	} {
		req := httptest.NewRequest(c.method, c.path, nil).WithContext(auth.WithOwner(context.Background(), "bob"))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if body := rec.Body.String(); rec.Code != 404 || strings.Contains(body, "bob~") || !strings.Contains(body, `\"s9\"`) {
			t.Errorf("%s %s as bob: %d %s, want a 404 that names s9", c.method, c.path, rec.Code, body)
		}
	}
}

// TestHARNoSuchTask (issue 36 point 8): the HAR of a task the session does
// not have is a 404 that names its tasks, not an empty 200.
func TestHARNoSuchTask(t *testing.T) {
	h := httpapi.New(&qualifiedSessions{}, httpapi.Options{})
	rec, m := do(t, h, "GET", "/api/sessions/live/har?task=nope", "")
	if msg, _ := m["error"].(string); rec.Code != 404 || !strings.Contains(msg, `no task "nope"`) || !strings.Contains(msg, "shop") {
		t.Errorf("HAR of a task that does not exist: %d %v", rec.Code, m)
	}
	rec, m = do(t, h, "GET", "/api/sessions/live/har", "")
	if msg, _ := m["error"].(string); rec.Code != 404 || !strings.Contains(msg, `no task "default"`) {
		t.Errorf("HAR of the default task of a session without one: %d %v", rec.Code, m)
	}
}
