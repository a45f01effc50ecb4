package cluster

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/browserd/browserd/internal/auth"
	"github.com/browserd/browserd/internal/policy"
	"github.com/browserd/browserd/internal/tool"
)

// DoPath is where a node serves the tool calls other nodes forward to it.
const DoPath = "/api/cluster/do"

// MaxForwardBody bounds a request body a node buffers to forward (the API
// takes at most 1 MiB per action; an inline storage state may be larger).
const MaxForwardBody = 16 << 20

// ErrServeHere: the session's node died and its lease has run out, so
// the call is to be served (and the session taken over) where it arrived.
var ErrServeHere = errors.New("cluster: serve here")

// wireResult is a tool result as one node sends it to another: with the
// screenshot's bytes, which tool.Result keeps out of its JSON.
type wireResult struct {
	tool.Result
	Image []byte `json:"image,omitempty"`
}

// Do forwards a tool call of owner (in as the caller sent it, before the
// engine qualified its names) to the session's node p. ErrServeHere means
// p could not be reached and its lease has expired since: serve it here.
func (c *Cluster) Do(ctx context.Context, p *Peer, owner string, in tool.Input) (tool.Result, error) {
	body, err := json.Marshal(in)
	if err != nil {
		return tool.Result{}, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.URL+DoPath, bytes.NewReader(body))
	if err != nil {
		return tool.Result{}, fmt.Errorf("forwarding to node %s at %s: %w", p.ID, p.URL, err)
	}
	req.Header.Set("Content-Type", "application/json")
	c.sign(req, owner)
	resp, err := c.client.Do(req)
	if err != nil {
		c.count("action", false)
		return tool.Result{}, c.unreachable(ctx, p, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		c.count("action", false)
		var e struct {
			Error string `json:"error"`
		}
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		if json.Unmarshal(b, &e) != nil || e.Error == "" {
			e.Error = strings.TrimSpace(string(b))
		}
		return tool.Result{}, fmt.Errorf("node %s, which runs the session, refused the forwarded call (%s): %s", p.ID, resp.Status, e.Error)
	}
	var w wireResult
	if err := json.NewDecoder(resp.Body).Decode(&w); err != nil {
		c.count("action", false)
		return tool.Result{}, fmt.Errorf("node %s, which runs the session, stopped answering during the call (%v); if it died, the session comes back on another node from its last capture within --lease-ttl: send the call again", p.ID, err)
	}
	c.count("action", true)
	w.Result.Image = w.Image
	return w.Result, nil
}

// unreachable turns a failed forward into ErrServeHere when the peer was
// not reached at all (after waiting for its lease to expire), else into an
// error that says the call's fate is unknown.
func (c *Cluster) unreachable(ctx context.Context, p *Peer, err error) error {
	c.forget()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if !dialFailed(err) && c.reachable(ctx, p) {
		return fmt.Errorf("node %s, which runs the session, stopped answering during the call (%v); if it died, the session comes back on another node from its last capture within --lease-ttl: send the call again", p.ID, err)
	}
	c.log.Warn("a session's node does not answer; taking the session over when its lease expires", "node", p.ID, "url", p.URL, "session", p.Session, "err", err)
	if werr := c.awaitExpiry(ctx, p.Session, p.ID, p.Until); werr != nil {
		return werr
	}
	return ErrServeHere
}

// reachable reports whether p accepts a new connection: a request that
// failed on a kept-alive connection to a node that died meanwhile is the
// same as one that could not be sent (the node, and what it held in
// memory, is gone; its session comes back from its last capture).
func (c *Cluster) reachable(ctx context.Context, p *Peer) bool {
	u, err := url.Parse(p.URL)
	if err != nil {
		return false
	}
	host := u.Host
	if u.Port() == "" {
		host = net.JoinHostPort(u.Hostname(), map[string]string{"https": "443"}[u.Scheme]+map[string]string{"http": "80"}[u.Scheme])
	}
	conn, err := (&net.Dialer{Timeout: 2 * time.Second}).DialContext(ctx, "tcp", host)
	if err != nil {
		return false
	}
	conn.Close()
	return true
}

func (c *Cluster) count(kind string, ok bool) {
	if c.onForward != nil {
		c.onForward(kind, ok)
	}
}

// DoHandler serves DoPath: a tool call another node forwarded, run by h
// as the owner the (already verified, see Trust) request carries.
func (c *Cluster) DoHandler(h tool.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !Forwarded(r.Context()) {
			writeError(w, http.StatusForbidden, "this endpoint serves other browserd nodes only")
			return
		}
		var in tool.Input
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, MaxForwardBody)).Decode(&in); err != nil {
			writeError(w, http.StatusBadRequest, "reading the forwarded call: "+err.Error())
			return
		}
		res, err := h.Do(r.Context(), in)
		if err != nil {
			writeError(w, http.StatusInternalServerError, err.Error())
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(wireResult{Result: res, Image: res.Image})
	})
}

// Trust serves a request another node signed with signed, as the owner it
// carries and marked Forwarded; a request without a signature goes to
// unsigned (which authenticates its caller); a bad signature gets 401.
func (c *Cluster) Trust(signed, unsigned http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		owner, ok, err := c.verify(r)
		if !ok {
			unsigned.ServeHTTP(w, r)
			return
		}
		if err == nil && owner != auth.Admin {
			err = auth.CheckOwner(owner)
		}
		if err != nil {
			writeError(w, http.StatusUnauthorized, err.Error())
			return
		}
		pol, err := decodePolicy(r.Header.Get(HeaderPolicy))
		if err != nil {
			writeError(w, http.StatusUnauthorized, err.Error())
			return
		}
		ctx := context.WithValue(policy.With(auth.WithOwner(r.Context(), owner), pol), forwardedKey{}, true)
		signed.ServeHTTP(w, r.WithContext(ctx))
	})
}

// Router says where a session's requests go: nil for this node.
type Router func(ctx context.Context, owner, session string) (*Peer, error)

// Proxy forwards the requests of the routes under /api/sessions/{id} for
// a session another node runs to that node, streaming its answer back; it
// serves the others, and what was forwarded here, with next. The caller's
// owner is in the request's context (auth.Require ran before).
func (c *Cluster) Proxy(route Router, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rest, isSession := strings.CutPrefix(r.URL.Path, "/api/sessions/")
		id, _, _ := strings.Cut(rest, "/")
		if !isSession || id == "" || Forwarded(r.Context()) {
			next.ServeHTTP(w, r)
			return
		}
		owner := auth.Owner(r.Context())
		p, err := route(r.Context(), owner, id)
		if err != nil {
			status := http.StatusServiceUnavailable
			if errors.Is(err, context.Canceled) {
				status = 499
			}
			writeError(w, status, err.Error())
			return
		}
		if p == nil {
			next.ServeHTTP(w, r)
			return
		}
		var body []byte
		if r.Body != nil {
			if body, err = io.ReadAll(http.MaxBytesReader(w, r.Body, MaxForwardBody)); err != nil {
				writeError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("request body over %d MiB", MaxForwardBody>>20))
				return
			}
		}
		served, err := c.proxy(w, r, p, owner, body)
		switch {
		case served:
		case errors.Is(err, ErrServeHere):
			r.Body = io.NopCloser(bytes.NewReader(body))
			next.ServeHTTP(w, r)
		default:
			writeError(w, http.StatusBadGateway, err.Error())
		}
	})
}

// proxy sends r to p and streams the answer to w; served is true once
// anything was written to w.
func (c *Cluster) proxy(w http.ResponseWriter, r *http.Request, p *Peer, owner string, body []byte) (served bool, err error) {
	req, err := http.NewRequestWithContext(r.Context(), r.Method, p.URL+r.URL.RequestURI(), bytes.NewReader(body))
	if err != nil {
		return false, err
	}
	for _, h := range []string{"Content-Type", "Accept"} {
		if v := r.Header.Get(h); v != "" {
			req.Header.Set(h, v)
		}
	}
	c.sign(req, owner)
	resp, err := c.client.Do(req)
	if err != nil {
		c.count("api", false)
		return false, c.unreachable(r.Context(), p, err)
	}
	defer resp.Body.Close()
	c.count("api", resp.StatusCode < 500)
	for k, vs := range resp.Header {
		switch http.CanonicalHeaderKey(k) {
		case "Connection", "Keep-Alive", "Transfer-Encoding", "Upgrade", "Trailer", "Content-Length":
			continue
		}
		w.Header()[k] = vs
	}
	w.Header().Set("X-Browserd-Served-By", p.ID)
	w.WriteHeader(resp.StatusCode)
	rc := http.NewResponseController(w)
	buf := make([]byte, 32<<10)
	for {
		n, rerr := resp.Body.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return true, nil
			}
			_ = rc.Flush()
		}
		if rerr != nil {
			return true, nil
		}
	}
}

func writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": msg})
}

// NodesHandler serves GET /api/nodes: the registry, each node marked live
// or not and this one marked self.
func (c *Cluster) NodesHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ns, err := c.Nodes(r.Context())
		if err != nil {
			writeError(w, http.StatusInternalServerError, "reading the node registry: "+err.Error())
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"nodes": ns, "leaseTtl": c.ttl.String()})
	})
}
