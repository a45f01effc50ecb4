package httpapi

import (
	_ "embed"
	"net/http"
)

// openapiDoc is the API's OpenAPI 3.1 document (docs/api.md explains it).
// It is written by hand but for its ToolInput schema, which is tool.Input's
// (tool.InputSchema): go generate rewrites that part (TestOpenAPIToolInput).
//
//go:generate go test -run TestOpenAPIToolInput -update
//go:embed openapi.json
var openapiDoc []byte

func (a *api) openapi(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Write(openapiDoc)
}
