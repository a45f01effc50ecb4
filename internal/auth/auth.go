// Package auth says who is calling: owners and their bearer tokens.
//
// Every profile, session, task and stored session belongs to one owner.
// Callers over the Unix socket and MCP stdio act as the owner "admin" (the
// socket is 0600: whoever can open it is the daemon's user). Callers over
// TCP — the HTTP API and MCP streamable HTTP — present
// "Authorization: Bearer <token>"; the token names their owner. Tokens are
// random, shown once, and stored only as their SHA-256, so a copy of the
// database grants nothing. Revoking a token takes effect on the next
// request: nothing is cached. A token may carry a policy (package policy):
// what its agents may do; Require puts it in the request's context.
package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/browserd/browserd/internal/policy"
)

// Admin is the owner of the Unix socket, MCP stdio and the first token.
const Admin = "admin"

type ownerKey struct{}

// WithOwner returns ctx acting as owner.
func WithOwner(ctx context.Context, owner string) context.Context {
	return context.WithValue(ctx, ownerKey{}, owner)
}

// Owner is the owner ctx acts as: Admin unless WithOwner said otherwise.
func Owner(ctx context.Context) string {
	if o, ok := ctx.Value(ownerKey{}).(string); ok && o != "" {
		return o
	}
	return Admin
}

// Token is a stored token: its hash, never the token itself.
type Token struct {
	ID      string    `json:"id"` // short, public: for list and revoke
	Owner   string    `json:"owner"`
	Label   string    `json:"label,omitempty"`
	Created time.Time `json:"created"`
	Hash    string    `json:"-"` // hex SHA-256 of the token
	// Policy is what the token's agents may do; nil: the daemon's
	// default policy applies.
	Policy *policy.Policy `json:"policy,omitempty"`
}

// PolicySource is how messages name a token's policy.
func (t Token) PolicySource() string { return "token " + t.ID }

// Store keeps tokens. The sqlite store implements it.
type Store interface {
	// CreateToken stores t; its ID and Hash are unique.
	CreateToken(ctx context.Context, t Token) error
	// TokenByHash returns the live token with this hash, or ErrUnknown.
	TokenByHash(ctx context.Context, hash string) (Token, error)
	// ListTokens lists the live tokens of owner ("" for all), oldest first.
	ListTokens(ctx context.Context, owner string) ([]Token, error)
	// RevokeToken deletes a token by ID, or returns ErrUnknown.
	RevokeToken(ctx context.Context, id string) error
}

// ErrUnknown: no such token (never issued, or revoked).
var ErrUnknown = errors.New("unknown token")

// Hash is the hex SHA-256 of a token, the form tokens are stored in.
func Hash(token string) string {
	h := sha256.Sum256([]byte(token))
	return hex.EncodeToString(h[:])
}

// New makes a token for owner and stores its hash. It returns the token,
// to be shown once.
func New(ctx context.Context, st Store, owner, label string) (string, Token, error) {
	return NewWithPolicy(ctx, st, owner, label, nil)
}

// NewWithPolicy is New for a token that carries a policy (nil: none).
func NewWithPolicy(ctx context.Context, st Store, owner, label string, pol *policy.Policy) (string, Token, error) {
	if err := CheckOwner(owner); err != nil {
		return "", Token{}, err
	}
	secret := make([]byte, 32)
	rand.Read(secret)
	tok := "bd_" + base64.RawURLEncoding.EncodeToString(secret)
	id := make([]byte, 6)
	rand.Read(id)
	t := Token{ID: "tk_" + hex.EncodeToString(id), Owner: owner, Label: label, Created: time.Now().UTC(), Hash: Hash(tok)}
	if !pol.Empty() {
		t.Policy = pol.Named(t.PolicySource())
	}
	if err := st.CreateToken(ctx, t); err != nil {
		return "", Token{}, fmt.Errorf("storing the token: %w", err)
	}
	return tok, t, nil
}

// CheckOwner says what is wrong with an owner name, if anything.
func CheckOwner(owner string) error {
	if owner == "" || len(owner) > 64 {
		return fmt.Errorf("owner name must be 1 to 64 characters, not %d", len(owner))
	}
	for i, r := range owner {
		if !(r == '-' || r == '_' || r == '.' && i > 0 || r >= '0' && r <= '9' || r >= 'a' && r <= 'z') {
			return fmt.Errorf("owner name %q: use lower-case letters, digits, '-', '_' and '.' (not first) only", owner)
		}
	}
	return nil
}

// Bootstrap makes sure admin has a token in file (0600): on first start it
// creates one and writes it there. A file whose token the store does not
// know (revoked, or a new database) is replaced.
func Bootstrap(ctx context.Context, st Store, file string) error {
	if b, err := os.ReadFile(file); err == nil {
		if t, err := st.TokenByHash(ctx, Hash(strings.TrimSpace(string(b)))); err == nil && t.Owner == Admin {
			return nil
		}
	}
	tok, _, err := New(ctx, st, Admin, "created on first start")
	if err != nil {
		return err
	}
	tmp := file + ".tmp"
	if err := os.WriteFile(tmp, []byte(tok+"\n"), 0o600); err != nil {
		return fmt.Errorf("writing the admin token: %w", err)
	}
	if err := os.Rename(tmp, file); err != nil {
		return fmt.Errorf("writing the admin token: %w", err)
	}
	return nil
}

// Verify returns the owner of a bearer token, or ErrUnknown.
func Verify(ctx context.Context, st Store, token string) (string, error) {
	t, err := VerifyToken(ctx, st, token)
	return t.Owner, err
}

// VerifyToken returns the stored token of a bearer token (its policy
// named for messages), or ErrUnknown.
func VerifyToken(ctx context.Context, st Store, token string) (Token, error) {
	if !strings.HasPrefix(token, "bd_") || len(token) > 128 {
		return Token{}, ErrUnknown
	}
	t, err := st.TokenByHash(ctx, Hash(token))
	if err != nil {
		return Token{}, err
	}
	t.Policy = t.Policy.Named(t.PolicySource())
	return t, nil
}

// Local reports whether r came over the Unix socket, whose callers act as
// admin without a token.
func Local(r *http.Request) bool {
	_, unix := r.Context().Value(http.LocalAddrContextKey).(*net.UnixAddr)
	return unix
}

// Require lets a request through as its owner: admin over the Unix socket,
// the bearer token's owner over TCP, with the token's policy if it has
// one (policy.From). Other requests get a 401 JSON error
// that says how to authenticate.
func Require(st Store, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if Local(r) {
			next.ServeHTTP(w, r.WithContext(WithOwner(r.Context(), Admin)))
			return
		}
		t, err := Token{}, error(errNoStore)
		if st != nil {
			t, err = TokenFromRequest(r, st)
		}
		if err != nil {
			w.Header().Set("WWW-Authenticate", `Bearer realm="browserd"`)
			w.Header().Set("Content-Type", "application/json")
			status := http.StatusUnauthorized
			if !errors.Is(err, ErrUnknown) && !errors.Is(err, errNoToken) && !errors.Is(err, errNoStore) {
				status = http.StatusInternalServerError
			}
			w.WriteHeader(status)
			fmt.Fprintf(w, "{\"error\":%q}\n", err.Error())
			return
		}
		next.ServeHTTP(w, r.WithContext(policy.With(WithOwner(r.Context(), t.Owner), t.Policy)))
	})
}

var errNoStore = errors.New("this server keeps no tokens: use the Unix socket")

var errNoToken = errors.New("no bearer token: send Authorization: Bearer <token> (the admin token is in <data>/token; browserd token create --owner NAME makes others)")

// FromRequest returns the owner of r's bearer token.
func FromRequest(r *http.Request, st Store) (string, error) {
	t, err := TokenFromRequest(r, st)
	return t.Owner, err
}

// TokenFromRequest returns r's bearer token as stored.
func TokenFromRequest(r *http.Request, st Store) (Token, error) {
	h := r.Header.Get("Authorization")
	scheme, tok, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(tok) == "" {
		return Token{}, errNoToken
	}
	t, err := VerifyToken(r.Context(), st, strings.TrimSpace(tok))
	if errors.Is(err, ErrUnknown) {
		return Token{}, fmt.Errorf("%w: the bearer token is not valid (revoked, or never issued)", ErrUnknown)
	}
	return t, err
}
