// Package files lends the files that actions write on the daemon's disk
// (screenshots, PDFs) to clients on other machines: the HTTP API registers
// each such file under a random id for the owner whose call wrote it, and
// serves it at GET /api/files/{id} until the link expires (an hour by
// default) or the daemon stops — links are kept in memory only.
//
// A link is owner-checked: another owner's id reads as unknown (admin may
// read any). It lends the file that was written and nothing else: the id is
// only ever looked up, never joined to a path, and a file that was removed
// or overwritten since it was registered (another screenshot to the same
// path, a symbolic link put in its place) is not served.
//
// The registry deletes nothing: the files are the owner's, written to the
// data folder they asked for (<data>/screenshots, <data>/pdf), and stay
// there when their link expires.
package files

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/browserd/browserd/internal/auth"
)

// DefaultTTL is how long a link works unless Options say otherwise.
const DefaultTTL = time.Hour

// idBytes is the randomness of an id: 128 bits, hex-encoded.
const idBytes = 16

var (
	// ErrNotFound: no such link — never issued, expired, or another
	// owner's. The three are not told apart.
	ErrNotFound = errors.New("no such file link")
	// ErrGone: the link is the caller's, but its file was removed or
	// overwritten since.
	ErrGone = errors.New("the file behind this link was removed or overwritten")
)

// Options tune a Registry. The zero value is usable.
type Options struct {
	// TTL is how long a link works; 0 means DefaultTTL.
	TTL time.Duration
	// Now is the clock; nil means time.Now. Tests move it.
	Now func() time.Time
}

// Registry holds the links. It is safe for concurrent use.
type Registry struct {
	ttl time.Duration
	now func() time.Time

	mu    sync.Mutex
	links map[string]entry
	swept time.Time // when expired links were last dropped
}

type entry struct {
	owner, path string
	fi          fs.FileInfo // the file as registered: identity, size, time
	expires     time.Time
}

// New returns an empty registry.
func New(opts Options) *Registry {
	r := &Registry{ttl: opts.TTL, now: opts.Now, links: map[string]entry{}}
	if r.ttl <= 0 {
		r.ttl = DefaultTTL
	}
	if r.now == nil {
		r.now = time.Now
	}
	return r
}

// TTL is how long a link works.
func (r *Registry) TTL() time.Duration { return r.ttl }

// Link is a registered file: its id and when it stops working.
type Link struct {
	ID      string
	Expires time.Time
}

// URL is the link's path on the daemon's base URL: /api/files/{id}.
func (l Link) URL() string { return "/api/files/" + l.ID }

// Add registers the regular file at path for owner. The file must exist
// and not be a symbolic link.
func (r *Registry) Add(owner, path string) (Link, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return Link{}, err
	}
	if !fi.Mode().IsRegular() {
		return Link{}, fmt.Errorf("%s is not a regular file", path)
	}
	var b [idBytes]byte
	if _, err := rand.Read(b[:]); err != nil {
		return Link{}, err
	}
	now := r.now()
	l := Link{ID: hex.EncodeToString(b[:]), Expires: now.Add(r.ttl)}
	r.mu.Lock()
	defer r.mu.Unlock()
	if now.Sub(r.swept) > time.Minute {
		for id, e := range r.links {
			if !now.Before(e.expires) {
				delete(r.links, id)
			}
		}
		r.swept = now
	}
	r.links[l.ID] = entry{owner: owner, path: path, fi: fi, expires: l.Expires}
	return l, nil
}

// File is an open registered file. The caller closes it.
type File struct {
	*os.File
	// Name is the file's base name, for Content-Disposition.
	Name    string
	Size    int64
	ModTime time.Time
	Expires time.Time
}

// Open opens the file of link id for owner (admin opens any owner's). It
// returns ErrNotFound for an unknown, expired or another owner's link, and
// ErrGone when the file is no longer the one registered.
func (r *Registry) Open(owner, id string) (*File, error) {
	now := r.now()
	r.mu.Lock()
	e, ok := r.links[id]
	if ok && !now.Before(e.expires) {
		delete(r.links, id)
		ok = false
	}
	r.mu.Unlock()
	if !ok || (e.owner != owner && owner != auth.Admin) {
		return nil, ErrNotFound
	}
	// openFlags: not through a symbolic link put in the file's place, and
	// a FIFO there does not hang the request (where the system has them).
	f, err := os.OpenFile(e.path, openFlags, 0)
	if err != nil {
		return nil, ErrGone
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || !os.SameFile(fi, e.fi) ||
		fi.Size() != e.fi.Size() || !fi.ModTime().Equal(e.fi.ModTime()) {
		f.Close()
		return nil, ErrGone
	}
	return &File{File: f, Name: filepath.Base(e.path), Size: fi.Size(), ModTime: fi.ModTime(), Expires: e.expires}, nil
}

// Len is the number of links held, expired ones not yet dropped included.
func (r *Registry) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.links)
}
