package httpapi

import (
	_ "embed"
	"net/http"
)

// openapiDoc is the API's OpenAPI 3.1 document (docs/api.md explains it).
//
//go:embed openapi.json
var openapiDoc []byte

func (a *api) openapi(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	w.Write(openapiDoc)
}
