package httpapi

import (
	"context"
	"errors"
	"net/http"
)

// ProfileExcludes are a profile's excluded cookie domains (source 000's
// cookie domain filtering), kept in the store: its saved cookies of those
// domains, and their subdomains, are never put back.
type ProfileExcludes interface {
	ProfileExcludes(ctx context.Context, profile string) ([]string, error)
	SetProfileExcludes(ctx context.Context, profile string, domains []string) error
}

// excludesBody is the body of …/exclude-cookie-domains.
type excludesBody struct {
	Domains []string `json:"domains"`
}

// profileExcludes serves GET and PUT /api/profiles/{name}/exclude-cookie-domains.
func (a *api) profileExcludes(w http.ResponseWriter, r *http.Request) {
	pe, ok := a.h.(ProfileExcludes)
	if !ok {
		writeError(w, http.StatusNotImplemented, "this server keeps no profiles")
		return
	}
	name := r.PathValue("name")
	if r.Method == http.MethodPut {
		var b excludesBody
		if !decodeBody(w, r, MaxBodyBytes, &b) {
			return
		}
		if b.Domains == nil {
			writeError(w, http.StatusBadRequest, `give {"domains": ["example.com", …]}; [] clears the list`)
			return
		}
		if err := pe.SetProfileExcludes(r.Context(), name, b.Domains); err != nil {
			excludesError(w, err)
			return
		}
	}
	ds, err := pe.ProfileExcludes(r.Context(), name)
	if err != nil {
		excludesError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, excludesBody{Domains: ds})
}

// excludesError answers a refused name or list with 400, else 500.
func excludesError(w http.ResponseWriter, err error) {
	var ue interface{ UserError() bool }
	if errors.As(err, &ue) && ue.UserError() {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	writeError(w, http.StatusInternalServerError, err.Error())
}
