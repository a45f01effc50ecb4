package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/browserd/browserd/internal/auth"
	"github.com/browserd/browserd/internal/store"
)

// SecretStore manages the secrets of the owner in ctx (auth.Owner): the
// values an agent types by name (type and fill's secret field) without
// ever seeing them (issue 28 point 4). The engine implements it; no
// method gives a value back, nor puts one in an error.
type SecretStore interface {
	// SetSecret creates or replaces secret name, bound to origins (none:
	// any origin), and returns it without its value, its origins
	// normalized. A bad name, value or origin is an error with
	// UserError() true.
	SetSecret(ctx context.Context, name, value string, origins []string) (store.Secret, error)
	// ListSecrets lists the secrets by name, without values.
	ListSecrets(ctx context.Context) ([]store.Secret, error)
	// DeleteSecret deletes secret name: store.ErrNotFound (wrapped) when
	// there is none.
	DeleteSecret(ctx context.Context, name string) error
}

// MaxSecretBodyBytes bounds the body of PUT /api/secrets/{name}: a value
// of at most 4 KB (package secrets) and a few origins.
const MaxSecretBodyBytes = 8 << 10

// SecretRequest is the body of PUT /api/secrets/{name}.
type SecretRequest struct {
	Value   *string  `json:"value"`
	Origins []string `json:"origins,omitempty"`
}

// SecretInfo is a secret as the API shows it: never its value.
type SecretInfo struct {
	Name    string    `json:"name"`
	Origins []string  `json:"origins"` // [] for any origin
	Updated time.Time `json:"updated"`
}

// SecretList is the body of GET /api/secrets.
type SecretList struct {
	Secrets []SecretInfo `json:"secrets"`
}

func secretInfo(s store.Secret) SecretInfo {
	o := s.Origins
	if o == nil {
		o = []string{}
	}
	return SecretInfo{Name: s.Name, Origins: o, Updated: s.Updated}
}

// secretBody is what a PUT's body is, for the errors.
const secretBody = `{"value": "…", "origins": ["https://…"]}`

// secretStore is the handler's SecretStore and the context to call it
// with: the caller's, or with ?owner=NAME (admin only) that owner's. It
// answers the request itself when there is none.
func (a *api) secretStore(w http.ResponseWriter, r *http.Request) (SecretStore, context.Context, bool) {
	ss, ok := a.h.(SecretStore)
	if !ok {
		writeError(w, http.StatusNotImplemented, "this server keeps no secrets")
		return nil, nil, false
	}
	ctx := r.Context()
	if owner := r.URL.Query().Get("owner"); owner != "" {
		if auth.Owner(ctx) != auth.Admin {
			writeError(w, http.StatusForbidden, "only admin manages another owner's secrets: leave ?owner= out to manage your own")
			return nil, nil, false
		}
		if err := auth.CheckOwner(owner); err != nil {
			writeError(w, http.StatusBadRequest, err.Error())
			return nil, nil, false
		}
		ctx = auth.WithOwner(ctx, owner)
	}
	return ss, ctx, true
}

// putSecret is PUT /api/secrets/{name}: 200 with the secret as listed.
func (a *api) putSecret(w http.ResponseWriter, r *http.Request) {
	ss, ctx, ok := a.secretStore(w, r)
	if !ok {
		return
	}
	var body SecretRequest
	if !decodeSecret(w, r, &body) {
		return
	}
	if body.Value == nil {
		writeError(w, http.StatusBadRequest, "the body has no value: send "+secretBody+" (origins may be left out: then any origin)")
		return
	}
	s, err := ss.SetSecret(ctx, r.PathValue("name"), *body.Value, body.Origins)
	if err != nil {
		secretError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, secretInfo(s))
}

// listSecrets is GET /api/secrets.
func (a *api) listSecrets(w http.ResponseWriter, r *http.Request) {
	ss, ctx, ok := a.secretStore(w, r)
	if !ok {
		return
	}
	list, err := ss.ListSecrets(ctx)
	if err != nil {
		secretError(w, err)
		return
	}
	out := SecretList{Secrets: []SecretInfo{}}
	for _, s := range list {
		out.Secrets = append(out.Secrets, secretInfo(s))
	}
	writeJSON(w, http.StatusOK, out)
}

// deleteSecret is DELETE /api/secrets/{name}: 204, or 404.
func (a *api) deleteSecret(w http.ResponseWriter, r *http.Request) {
	ss, ctx, ok := a.secretStore(w, r)
	if !ok {
		return
	}
	if err := ss.DeleteSecret(ctx, r.PathValue("name")); err != nil {
		secretError(w, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// secretError answers err with the status its kind calls for.
func secretError(w http.ResponseWriter, err error) {
	var ue interface{ UserError() bool }
	switch {
	case errors.Is(err, errors.ErrUnsupported):
		writeError(w, http.StatusNotImplemented, err.Error())
	case errors.As(err, &ue) && ue.UserError():
		writeError(w, http.StatusBadRequest, err.Error())
	case errors.Is(err, store.ErrNotFound):
		writeError(w, http.StatusNotFound, strings.TrimPrefix(err.Error(), "store: not found: ")+"; GET /api/secrets (browserd secret list) lists yours")
	default:
		writeError(w, http.StatusInternalServerError, err.Error())
	}
}

// decodeSecret reads the body of a PUT into v, refusing unknown fields (a
// misspelt "origins" would bind the secret to any origin). Its errors
// never quote the body: it holds the value.
func decodeSecret(w http.ResponseWriter, r *http.Request, v *SecretRequest) bool {
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxSecretBodyBytes))
	var maxErr *http.MaxBytesError
	if errors.As(err, &maxErr) {
		writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("request body is over %d bytes: a secret's value is at most 4096 bytes", maxErr.Limit))
		return false
	}
	if err != nil {
		writeError(w, http.StatusBadRequest, "reading the request body failed")
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	err = dec.Decode(v)
	var (
		typeErr   *json.UnmarshalTypeError
		syntaxErr *json.SyntaxError
	)
	switch {
	case err == nil && dec.More():
		writeError(w, http.StatusBadRequest, "request body has more than one JSON value: send one object "+secretBody)
	case err == nil:
		return true
	case errors.As(err, &typeErr) && typeErr.Field != "":
		writeError(w, http.StatusBadRequest, fmt.Sprintf("field %q must be %s: send %s", typeErr.Field, jsonKind(typeErr.Type.Kind().String()), secretBody))
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		writeError(w, http.StatusBadRequest, fmt.Sprintf("unknown field %s: send %s", strings.TrimPrefix(err.Error(), "json: unknown field "), secretBody))
	case errors.As(err, &syntaxErr):
		writeError(w, http.StatusBadRequest, fmt.Sprintf("request body is not valid JSON (at byte %d): send %s", syntaxErr.Offset, secretBody))
	default:
		writeError(w, http.StatusBadRequest, "request body is not a JSON object: send "+secretBody)
	}
	return false
}
