//go:build linux

package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// door is one route of the HTTP API as an agent's token meets it under a
// policy that allows nothing but status: what it sends, and why the door
// may answer (open) — "" for a door the policy must hold.
type door struct {
	method, path string
	body         any
	open         string
}

// TestPolicyEveryDoor (issue 47 point 2): every route of the HTTP API,
// walked with a token whose policy allows only status and grants no
// manage, on a session of its owner's that a person's token started. A
// door that does what the policy denies — runs an action, starts or
// closes a session, exports state, shows a page's pixels, bodies or
// text, manages — fails the test; the few that answer say why they may.
// Every route of openapi.json must have a row, so a new one is walked too;
// so must every MCP tool the token is offered over HTTP.
func TestPolicyEveryDoor(t *testing.T) {
	t.Parallel() // its own daemon: waits more than it works
	data := t.TempDir()
	addr := freeAddr(t)
	startDaemon(t, data, "--listen", addr)
	admin := tcpAPI(t, addr, adminToken(t, data))
	var person, agent struct {
		Token string `json:"token"`
	}
	admin.expect(201, "POST", "/api/tokens", map[string]any{"owner": "carol"}, &person)
	admin.expect(201, "POST", "/api/tokens", map[string]any{"owner": "carol", "policy": map[string]any{"allow": []string{"status"}}}, &agent)
	p, a := tcpAPI(t, addr, person.Token), tcpAPI(t, addr, agent.Token)

	// The person's session, with a page, a recording and a network log.
	var res struct {
		Success bool   `json:"success"`
		Error   string `json:"error"`
	}
	p.expect(200, "POST", "/api/actions", map[string]any{"action": "navigate", "session": "s", "url": site.URL("/form")}, &res)
	if !res.Success {
		t.Fatalf("the person's navigate: %s", res.Error)
	}
	var stored struct {
		ID string `json:"id"`
	}
	p.expect(201, "POST", "/api/stored-sessions", map[string]any{"name": "login", "storageState": loginState(t, "carol")}, &stored)
	p.expect(200, "PUT", "/api/secrets/PW", map[string]any{"value": "door-secret-42"}, nil)

	act := func(action string) map[string]any {
		return map[string]any{"action": action, "session": "s", "url": site.URL("/")}
	}
	doors := []door{
		{"GET", "/api/health", nil, "liveness, for a load balancer"},
		{"GET", "/api/openapi.json", nil, "the API's own description"},
		{"GET", "/api/policy", nil, "the caller's own policy"},
		{"GET", "/api/nodes", nil, "the cluster's nodes, as status shows them"},
		{"GET", "/api/sessions", nil, ""},
		{"GET", "/api/sessions/s", nil, "one session, as status shows it"},
		{"GET", "/api/sessions/s/captures", nil, ""},
		{"GET", "/api/sessions/s/hint", nil, "the domains it is logged in to, for the agent's prompt"},
		{"GET", "/api/secrets", nil, "the names of the secrets the agent types by name"},
		{"GET", "/api/stored-sessions", nil, "stored sessions' names and domains, never their state"},
		{"GET", "/api/stored-sessions/" + stored.ID, nil, "one stored session's name and domains"},
		{"GET", "/api/stored-sessions/" + stored.ID + "/hint", nil, "its domains, for the agent's prompt"},
		{"GET", "/api/profiles/s/exclude-cookie-domains", nil, "the domains left out of saved cookies"},
		{"GET", "/api/files/nope", nil, "a file an allowed action made, by its unguessable id (404 here)"},

		{"POST", "/api/actions", act("navigate"), ""},
		{"POST", "/api/sessions/s/actions", act("navigate"), ""},
		{"POST", "/api/computer", map[string]any{"action": "left_click", "session": "s", "coordinate": []int{10, 10}}, ""},
		{"POST", "/api/replay?task=r", map[string]any{"recording": map[string]any{"entries": []map[string]any{{"type": "action", "seq": 1, "action": "navigate", "success": true, "args": map[string]any{"url": site.URL("/")}}}}}, ""},
		{"POST", "/api/sessions", map[string]any{"name": "fresh"}, ""},
		{"POST", "/api/sandboxes", map[string]any{"name": "sandbox"}, ""},
		{"DELETE", "/api/sessions/s", nil, ""},
		{"POST", "/api/sessions/s/resume", nil, ""},
		{"POST", "/api/sessions/s/capture", map[string]any{"name": "taken"}, ""},
		{"GET", "/api/sessions/s/state", nil, ""},
		{"GET", "/api/sessions/s/har", nil, ""},
		{"GET", "/api/sessions/s/trace", nil, ""},
		{"GET", "/api/sessions/s/trace/frames/1", nil, ""},
		{"GET", "/api/stored-sessions/" + stored.ID + "/state", nil, ""},
		{"GET", "/api/stored-sessions/" + stored.ID + "/profile", nil, ""},
		{"POST", "/api/stored-sessions", map[string]any{"name": "mine", "storageState": loginState(t, "carol")}, ""},
		{"DELETE", "/api/stored-sessions/" + stored.ID, nil, ""},
		{"PUT", "/api/secrets/PW", map[string]any{"value": "replaced-by-agent"}, ""},
		{"DELETE", "/api/secrets/PW", nil, ""},
		{"GET", "/api/tokens", nil, ""},
		{"POST", "/api/tokens", map[string]any{"owner": "carol"}, ""},
		{"DELETE", "/api/tokens/tk_000000000000", nil, ""},
		{"POST", "/api/dashboard", nil, ""},
		{"POST", "/api/sessions/s/live", nil, ""},
		{"GET", "/api/sessions/s/live", nil, ""},
		{"DELETE", "/api/sessions/s/live", nil, ""},
		{"DELETE", "/api/sessions/s/live/nope", nil, ""},
		{"PUT", "/api/profiles/s/exclude-cookie-domains", map[string]any{"domains": []string{"x.example"}}, ""},
	}
	for _, d := range doors {
		code, body := a.call(d.method, d.path, d.body, nil)
		held := code == http.StatusForbidden || code == http.StatusNotFound && d.open != "" ||
			code == http.StatusOK && isRefusal(body)
		switch {
		case d.open == "" && !held:
			t.Errorf("%s %s answered the agent's token that allows only status: %d %.300s", d.method, d.path, code, body)
		case d.open != "" && code >= 500:
			t.Errorf("%s %s (open: %s): %d %.300s", d.method, d.path, d.open, code, body)
		}
	}
	// The MCP doors: every tool the agent's token is offered over
	// streamable HTTP, called as the agent would, is held the same way;
	// a new tool must have a row here.
	mcpDoors := map[string]map[string]any{
		"browser":        {"action": "navigate", "session": "s", "url": site.URL("/")},
		"computer":       {"action": "left_click", "session": "s", "coordinate": []int{10, 10}},
		"list_sessions":  {},
		"session_resume": {"session_id": "s"},
	}
	mc := mcp.NewClient(&mcp.Implementation{Name: "e2e-doors", Version: "1"}, nil)
	ms, err := mc.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: "http://" + addr + "/mcp", HTTPClient: bearerClient(agent.Token)}, nil)
	if err != nil {
		t.Fatalf("MCP over HTTP with the agent's token: %v", err)
	}
	defer ms.Close()
	tools, err := ms.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(tools.Tools, func(tl *mcp.Tool) bool { return tl.Name == "browser" }) {
		t.Fatalf("the agent's token is not offered the browser tool over MCP: %d tools", len(tools.Tools))
	}
	for _, tl := range tools.Tools {
		args, ok := mcpDoors[tl.Name]
		if !ok {
			t.Errorf("MCP tool %s has no row in TestPolicyEveryDoor: add the call an agent would make", tl.Name)
			continue
		}
		r, err := ms.CallTool(context.Background(), &mcp.CallToolParams{Name: tl.Name, Arguments: args})
		if err != nil {
			t.Errorf("MCP tool %s: %v", tl.Name, err)
			continue
		}
		var text strings.Builder
		for _, c := range r.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				text.WriteString(tc.Text)
			}
		}
		// (Refused by the policy, or by the tool's schema, which offers
		// the token only the actions its policy allows.)
		if !r.IsError || !strings.Contains(text.String(), "refused by policy") && !strings.Contains(text.String(), "does not equal any of") {
			t.Errorf("MCP tool %s answered the agent's token that allows only status: %.300s", tl.Name, text.String())
		}
	}

	// The person's session is still there: no door closed it.
	p.expect(200, "GET", "/api/sessions/s", nil, nil)

	// Every route of the API has its row.
	_, file, _, _ := runtime.Caller(0)
	b, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "httpapi", "openapi.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	for path, ms := range doc.Paths {
		for m := range ms {
			m = strings.ToUpper(m)
			if m == "PARAMETERS" {
				continue
			}
			if !slices.ContainsFunc(doors, func(d door) bool { return d.method == m && sameRoute(path, d.path) }) {
				t.Errorf("%s %s has no row in TestPolicyEveryDoor: add one, held or open with its reason", m, path)
			}
		}
	}
}

// isRefusal reports whether an answer of 200 is a refused call (an action
// or a replay that the policy stopped).
func isRefusal(body []byte) bool {
	var r struct {
		Success *bool  `json:"success"`
		Passed  *bool  `json:"passed"`
		Error   string `json:"error"`
		Failed  *struct {
			Why string `json:"why"`
		} `json:"failed"`
	}
	if json.Unmarshal(body, &r) != nil {
		return false
	}
	switch {
	case r.Success != nil:
		return !*r.Success && strings.Contains(r.Error, "refused by policy")
	case r.Passed != nil:
		return !*r.Passed && r.Failed != nil && strings.Contains(r.Failed.Why, "refused by policy")
	}
	return false
}

// sameRoute reports whether path (with its parameters filled in) is an
// instance of the route pattern (with {name} parameters).
func sameRoute(pattern, path string) bool {
	path, _, _ = strings.Cut(path, "?")
	ps, xs := strings.Split(pattern, "/"), strings.Split(path, "/")
	if len(ps) != len(xs) {
		return false
	}
	for i := range ps {
		if ps[i] != xs[i] && !strings.HasPrefix(ps[i], "{") {
			return false
		}
	}
	return true
}
