package tool

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
)

// The JSON Schema of the tool's input, made from the declarations (Input,
// its jsonschema tags, Actions, ScrollDirections): MCP's tools/list
// publishes it, and the HTTP API's OpenAPI document holds a copy
// (internal/httpapi/openapi.json's ToolInput, TestOpenAPIToolInput).

// schemaTypes are the tool's types whose JSON is not what their Go type
// says: a capture is an id (a number) or a time (a string), and an inline
// storageState (json.RawMessage, which would publish as an array of bytes)
// is an object ({cookies, origins}).
var schemaTypes = map[reflect.Type]*jsonschema.Schema{
	reflect.TypeFor[CaptureRef]():      {Types: []string{"string", "integer"}},
	reflect.TypeFor[json.RawMessage](): {Type: "object"},
}

// SchemaFor is the JSON Schema of T, a struct of the tool's fields, with
// the tool's types as they are sent (schemaTypes) and each field's
// jsonschema tag as its description.
func SchemaFor[T any]() *jsonschema.Schema {
	s, err := jsonschema.For[T](&jsonschema.ForOptions{TypeSchemas: schemaTypes})
	if err != nil {
		// T is a fixed struct; failing here is a programming error.
		panic(fmt.Sprintf("tool: schema of %T: %v", *new(T), err))
	}
	return s
}

// InputSchema is the JSON Schema of Input: its action is one of Actions
// but those in deny (the operator's --deny-actions, which the engine
// refuses anyway), so that a model sees the whole list, and scroll's
// direction one of ScrollDirections.
func InputSchema(deny ...string) *jsonschema.Schema {
	s := SchemaFor[Input]()
	action := s.Properties["action"]
	if action == nil {
		panic("tool: Input has no action property")
	}
	action.Enum = nil
	for _, a := range Actions {
		if !slices.Contains(deny, a) {
			action.Enum = append(action.Enum, a)
		}
	}
	for _, k := range []string{"x", "y"} { // a point: never null
		if p := s.Properties[k]; p != nil {
			p.Types, p.Type = nil, "integer"
		}
	}
	if dir := s.Properties["direction"]; dir != nil {
		dir.Enum = nil
		for _, d := range ScrollDirections {
			dir.Enum = append(dir.Enum, d)
		}
	}
	return s
}
