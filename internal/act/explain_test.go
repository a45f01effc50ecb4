package act

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/cdproto"

	"github.com/browserd/browserd/internal/tool"
)

// TestExplainCDPError (issue 47 point 5): an error the browser answered
// with is said in the agent's terms, not quoted as the protocol's text.
func TestExplainCDPError(t *testing.T) {
	c := &Tab{In: tool.Input{Action: "click"}}
	err := fmt.Errorf("DOM.resolveNode: %w", &cdproto.Error{Code: -32000, Message: "Could not find node with given id"})
	msg, ok := c.Explain(err)
	if !ok || strings.Contains(msg, "DOM.resolveNode") || strings.Contains(msg, "-32000") || !strings.Contains(msg, "take a new snapshot") {
		t.Fatalf("Explain = %q, %v", msg, ok)
	}
}
