package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/browserd/browserd/internal/tool"
)

// callCmd sends one call of the browser tool written as JSON, with every
// field the tool takes, as MCP and the HTTP API take it: for what no
// command has a flag for (a launch's httpCredentials or geolocation, say)
// and for scripts. The global flags fill in what it leaves out.
type callCmd struct {
	JSON string `arg:"" name:"json" help:"The call as a JSON object, e.g. '{\"action\":\"click\",\"ref\":\"e3\"}'; - reads it from stdin."`
}

// maxCall bounds a call read from stdin (an inline storageState can be
// large, not unbounded).
const maxCall = 64 << 20

func (c *callCmd) input() (tool.Input, error) {
	raw := []byte(c.JSON)
	if c.JSON == "-" {
		b, err := io.ReadAll(io.LimitReader(os.Stdin, maxCall+1))
		if err != nil {
			return tool.Input{}, fmt.Errorf("reading the call from stdin: %w", err)
		}
		if len(b) > maxCall {
			return tool.Input{}, usagef("the call on stdin is larger than %d MB", maxCall>>20)
		}
		raw = b
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var in tool.Input
	if err := dec.Decode(&in); err != nil {
		return tool.Input{}, usagef("the call is not a browser tool call as JSON (%v): give an object such as '{\"action\":\"navigate\",\"url\":\"https://example.com\"}'", err)
	}
	if dec.More() {
		return tool.Input{}, usagef("the call holds more than one JSON value: give one object")
	}
	return in, nil
}
