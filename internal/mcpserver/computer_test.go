package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/png"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/browserd/browserd/internal/computer"
	"github.com/browserd/browserd/internal/mcpserver"
	"github.com/browserd/browserd/internal/tool"
)

// TestComputerTool: with a display, the server offers the computer tool
// beside browser, in Anthropic's action shape; a call becomes browser
// tool calls at points and answers with a line and the screenshot.
func TestComputerTool(t *testing.T) {
	var shot bytes.Buffer
	_ = png.Encode(&shot, image.NewRGBA(image.Rect(0, 0, 1280, 800)))
	h := &fakeHandler{result: func(in tool.Input) (tool.Result, error) {
		r := tool.Result{Action: in.Action, Success: true}
		switch in.Action {
		case "click":
			r.Content = "clicked canvas#board at 120,80"
		case "screenshot":
			r.Image = shot.Bytes()
		}
		return r, nil
	}}
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	d := computer.DefaultDisplay
	ss, err := mcpserver.NewWith(h, "test", mcpserver.Options{Computer: &d}).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { cs.Close(); ss.Wait() }()

	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, tl := range list.Tools {
		if tl.Name == mcpserver.ComputerTool {
			found = true
			b, _ := json.Marshal(tl)
			t.Logf("the computer tool: %d bytes in tools/list", len(b))
			if len(b) > 2048 {
				t.Errorf("the computer tool is %d bytes, want at most 2 KB", len(b))
			}
		}
	}
	if !found {
		t.Fatal("no computer tool")
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "computer", Arguments: map[string]any{"action": "left_click", "coordinate": []int{120, 80}, "task": "draw"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || len(res.Content) != 2 {
		t.Fatalf("result %+v", res)
	}
	if txt := res.Content[0].(*mcp.TextContent).Text; txt != "clicked canvas#board at 120,80" {
		t.Errorf("text %q", txt)
	}
	if img, ok := res.Content[1].(*mcp.ImageContent); !ok || len(img.Data) == 0 {
		t.Errorf("no screenshot: %+v", res.Content[1])
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	var click *tool.Input
	for i, in := range h.inputs {
		if in.Action == "click" {
			click = &h.inputs[i]
		}
	}
	if click == nil || *click.X != 120 || *click.Y != 80 || click.Task != "draw" {
		t.Errorf("calls %+v", h.inputs)
	}
	// A shape the model never sends is refused by the schema.
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "computer", Arguments: map[string]any{"action": "left_click", "coordinate": []int{1, 2, 3}}}); err == nil && !res.IsError {
		t.Errorf("a coordinate of three numbers: %+v", res)
	}
}
