package mcpserver

import (
	"context"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/browserd/browserd/internal/computer"
	"github.com/browserd/browserd/internal/tool"
)

// ComputerTool is the name of the tool for computer-use models.
const ComputerTool = "computer"

// addComputer offers the computer tool: Anthropic's computer action shape
// (package computer), each action carried out with browser tool calls
// through h and answered with one line and a screenshot of the viewport.
func addComputer(s *mcp.Server, h tool.Handler, d computer.Display) {
	c := computer.New(h, d)
	mcp.AddTool(s, &mcp.Tool{
		Name: ComputerTool,
		Description: fmt.Sprintf("Use the browser's screen (%dx%d) with the mouse and keyboard, as Anthropic's computer tool does: coordinates are pixels of the screenshot every action answers with. Keys by xdotool name (Return, ctrl+s).",
			d.Width, d.Height),
		InputSchema: computerSchema(),
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in computer.Input) (*mcp.CallToolResult, any, error) {
		res := c.Do(ctx, in)
		out := &mcp.CallToolResult{IsError: !res.Success}
		text := res.Text
		if !res.Success {
			text = "error: " + res.Error
		}
		out.Content = append(out.Content, &mcp.TextContent{Text: text})
		if len(res.Image) > 0 {
			out.Content = append(out.Content, &mcp.ImageContent{Data: res.Image, MIMEType: "image/png"})
		}
		return out, nil, nil
	})
}

func computerSchema() *jsonschema.Schema {
	s := tool.SchemaFor[computer.Input]()
	s.Properties["action"].Enum = nil
	for _, a := range computer.Actions {
		s.Properties["action"].Enum = append(s.Properties["action"].Enum, a)
	}
	dir := s.Properties["scroll_direction"]
	dir.Enum = nil
	for _, d := range computer.Directions {
		dir.Enum = append(dir.Enum, d)
	}
	for _, k := range []string{"coordinate", "start_coordinate", "region"} {
		p := s.Properties[k]
		p.Types, p.Type = nil, "array"
		n := 2
		if k == "region" {
			n = 4
		}
		p.MinItems, p.MaxItems = &n, &n
	}
	return s
}
