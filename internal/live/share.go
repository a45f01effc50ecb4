package live

import (
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/browserd/browserd/internal/auth"
	"github.com/browserd/browserd/internal/store"
)

// A read-only share link shows one session's tabs live, without control,
// to whoever has the link (a reviewer who has no token): POST
// /api/sessions/{id}/live makes one, DELETE revokes it. The link carries
// a random 256-bit secret; the daemon keeps the links in memory only, so a
// restart revokes them all.

const (
	// ShareTTL is how long a share link works when the caller names no
	// time; MaxShareTTL is the longest it may.
	ShareTTL    = time.Hour
	MaxShareTTL = 7 * 24 * time.Hour
)

// share is one read-only link to a session.
type share struct {
	ID      string    `json:"id"` // names the link for revoking; not the secret
	Session string    `json:"session"`
	URL     string    `json:"url"`
	Expires time.Time `json:"expiresAt"`
	owner   string
	secret  string
}

// shares keeps the live share links by secret.
type shares struct {
	mu  sync.Mutex
	all map[string]*share
	now func() time.Time
}

func newShares() *shares { return &shares{all: map[string]*share{}, now: time.Now} }

// add makes a link to owner's session, working for ttl.
func (sh *shares) add(base, owner, session string, ttl time.Duration) share {
	secret := randomID()
	s := &share{ID: randomID()[:16], Session: session, URL: base + "/dashboard/share/" + secret + "/",
		Expires: sh.now().Add(ttl).UTC().Truncate(time.Second), owner: owner, secret: secret}
	sh.mu.Lock()
	defer sh.mu.Unlock()
	sh.gc()
	sh.all[secret] = s
	return *s
}

// get is the unexpired link with this secret.
func (sh *shares) get(secret string) (share, bool) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	s, ok := sh.all[secret]
	if !ok || sh.now().After(s.Expires) {
		delete(sh.all, secret)
		return share{}, false
	}
	return *s, true
}

// list is owner's unexpired links to session, oldest first.
func (sh *shares) list(owner, session string) []share {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	sh.gc()
	out := []share{}
	for _, s := range sh.all {
		if s.owner == owner && s.Session == session {
			out = append(out, *s)
		}
	}
	slices.SortFunc(out, func(a, b share) int { return a.Expires.Compare(b.Expires) })
	return out
}

// revoke drops owner's link id to session ("" for all of them) and says
// how many it dropped.
func (sh *shares) revoke(owner, session, id string) int {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	n := 0
	for k, s := range sh.all {
		if s.owner == owner && s.Session == session && (id == "" || s.ID == id) {
			delete(sh.all, k)
			n++
		}
	}
	return n
}

// gc forgets expired links. Call with mu held.
func (sh *shares) gc() {
	now := sh.now()
	for k, s := range sh.all {
		if now.After(s.Expires) {
			delete(sh.all, k)
		}
	}
}

// ShareLinks serves /api/sessions/{id}/live for the caller's owner: POST
// makes a read-only link ({"ttl": "2h"}, default 1 h, at most 7 days),
// GET lists the session's links, DELETE revokes them all and DELETE
// /api/sessions/{id}/live/{link} one. Mount it behind auth.Require.
func (s *Server) ShareLinks() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		owner, session := auth.Owner(r.Context()), r.PathValue("id")
		if r.Method == http.MethodPost && s.base == "" {
			writeJSON(w, http.StatusConflict, map[string]string{"error": "the daemon has no HTTP listener for the dashboard: start it with --listen HOST:PORT"})
			return
		}
		if _, _, err := s.eng.SessionInfo(r.Context(), session); err != nil {
			status := http.StatusInternalServerError
			if errors.Is(err, store.ErrNotFound) {
				status = http.StatusNotFound
			}
			writeJSON(w, status, map[string]string{"error": err.Error()})
			return
		}
		switch r.Method {
		case http.MethodPost:
			var in struct {
				TTL string `json:"ttl"`
			}
			if r.ContentLength != 0 {
				if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4096)).Decode(&in); err != nil {
					writeJSON(w, http.StatusBadRequest, map[string]string{"error": "the body must be JSON like {\"ttl\": \"2h\"}: " + err.Error()})
					return
				}
			}
			ttl := ShareTTL
			if in.TTL != "" {
				d, err := time.ParseDuration(in.TTL)
				if err != nil || d <= 0 || d > MaxShareTTL {
					writeJSON(w, http.StatusBadRequest, map[string]string{"error": "ttl must be a duration like \"30m\" or \"2h\", above zero and at most " + MaxShareTTL.String()})
					return
				}
				ttl = d
			}
			sh := s.shares.add(s.base, owner, session, ttl)
			s.log.Info("read-only share link made", "owner", owner, "session", session, "link", sh.ID, "expires", sh.Expires)
			writeJSON(w, http.StatusCreated, sh)
		case http.MethodGet:
			writeJSON(w, http.StatusOK, map[string]any{"links": s.shares.list(owner, session)})
		case http.MethodDelete:
			id := r.PathValue("link")
			n := s.shares.revoke(owner, session, id)
			if id != "" && n == 0 {
				writeJSON(w, http.StatusNotFound, map[string]string{"error": "no share link " + id + " to session " + session + " (expired, revoked, or lost in a daemon restart)"})
				return
			}
			writeJSON(w, http.StatusOK, map[string]int{"revoked": n})
		default:
			w.Header().Set("Allow", "GET, POST, DELETE")
			writeJSON(w, http.StatusMethodNotAllowed, map[string]string{"error": "use GET, POST or DELETE"})
		}
	})
}

// shared runs h for the holder of a share link: the request's context
// carries the link's owner, and the session is the link's.
func (s *Server) shared(h func(http.ResponseWriter, *http.Request, share)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		sh, ok := s.shares.get(r.PathValue("secret"))
		if !ok {
			http.Error(w, "this share link expired or was revoked: ask the session's owner for a new one", http.StatusForbidden)
			return
		}
		h(w, r.WithContext(auth.WithOwner(r.Context(), sh.owner)), sh)
	}
}

// shareTabs lists the shared session's tabs.
func (s *Server) shareTabs(w http.ResponseWriter, r *http.Request, sh share) {
	info, tabs, err := s.eng.SessionInfo(r.Context(), sh.Session)
	if err != nil {
		writeJSON(w, http.StatusNotFound, map[string]string{"error": "the session is gone"})
		return
	}
	v := SessionView{SessionInfo: info, Tabs: []TabView{}}
	for _, t := range tabs {
		v.Tabs = append(v.Tabs, TabView{Tab: t})
	}
	writeJSON(w, http.StatusOK, map[string]any{"session": v, "expiresAt": sh.Expires})
}
