package notify

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestPost(t *testing.T) {
	var got map[string]string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("%s with %q, want a JSON POST", r.Method, r.Header.Get("Content-Type"))
		}
		_ = json.NewDecoder(r.Body).Decode(&got)
		if got["event"] == "fail" {
			w.WriteHeader(http.StatusBadGateway)
		}
	}))
	defer srv.Close()
	if err := Post(context.Background(), srv.URL, map[string]string{"event": "handoff", "tab": "t1"}); err != nil {
		t.Fatal(err)
	}
	if got["event"] != "handoff" || got["tab"] != "t1" {
		t.Errorf("posted %v", got)
	}
	if err := Post(context.Background(), srv.URL, map[string]string{"event": "fail"}); err == nil || !strings.Contains(err.Error(), "502") {
		t.Errorf("a 502: %v, want it said", err)
	}
}
