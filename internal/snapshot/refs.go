package snapshot

import (
	"strconv"
	"strings"
	"sync"
)

// Key names a DOM node for ref purposes: the frame's id space (Frame.Key)
// and the node's backend DOM node id.
type Key struct {
	Frame   string
	Backend int64
}

type refEntry struct {
	ref   string
	key   Key
	owner string
	// role and name are the node's accessibility role and name when last
	// shown, to find the node that replaced it (see Label); unique says
	// no other ref of that snapshot had both.
	role, name string
	unique     bool
	// shownRole and shownName are how the last snapshot that printed the
	// ref named it (see Shown): the words an agent read.
	shownRole, shownName string
}

type ownerFrame struct {
	owner, frame string
}

// Refs hands out refs. It is safe for concurrent use. Refs are never reused:
// the same Key always gets the same ref, and a new Key gets "e" followed by
// the next number, even after the Key's previous ref was forgotten.
type Refs struct {
	mu      sync.Mutex
	next    int
	byKey   map[Key]*refEntry
	byRef   map[string]*refEntry
	byFrame map[ownerFrame]map[Key]struct{}
}

// NewRefs returns an empty ref table whose first ref is e1.
func NewRefs() *Refs {
	return &Refs{
		byKey:   make(map[Key]*refEntry),
		byRef:   make(map[string]*refEntry),
		byFrame: make(map[ownerFrame]map[Key]struct{}),
	}
}

// Assign returns k's ref, handing out a new one if k has none. owner is the
// tab that saw the node; it is recorded with the first assignment.
func (r *Refs) Assign(k Key, owner string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if e, ok := r.byKey[k]; ok {
		return e.ref
	}
	r.next++
	e := &refEntry{ref: "e" + strconv.Itoa(r.next), key: k, owner: owner}
	r.byKey[k] = e
	r.byRef[e.ref] = e
	of := ownerFrame{owner, k.Frame}
	set := r.byFrame[of]
	if set == nil {
		set = make(map[Key]struct{})
		r.byFrame[of] = set
	}
	set[k] = struct{}{}
	return e.ref
}

// Find is k's ref, if it has one; unlike Assign it hands out none.
func (r *Refs) Find(k Key) (string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if e, ok := r.byKey[k]; ok {
		return e.ref, true
	}
	return "", false
}

// Lookup returns the node and owner tab a ref names; ok is false for refs
// never handed out or forgotten.
func (r *Refs) Lookup(ref string) (k Key, owner string, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.byRef[ref]
	if !ok {
		return Key{}, "", false
	}
	return e.key, e.owner, true
}

// Label records what the node of ref is, in the accessibility tree's
// terms (role, name), as a snapshot showed it: if the page replaces the
// node with one like it (a re-render), the ref's new node can be found.
// unique says whether it was the only ref of that snapshot with both: only
// then can a look-alike stand in for it (two "Delete" buttons, one gone,
// must not make the other the first's heir).
func (r *Refs) Label(ref, role, name string, unique bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if e, ok := r.byRef[ref]; ok {
		e.role, e.name, e.unique = role, name, unique
	}
}

// Shown records how a snapshot printed ref: its role and name as the
// agent read them (textbox, label "Last reward:"), which an annotated
// screenshot's legend and a point's answer repeat.
func (r *Refs) Shown(ref, role, name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if e, ok := r.byRef[ref]; ok {
		e.shownRole, e.shownName = role, name
	}
}

// ShownOf returns what Shown recorded for ref, else what Label did.
func (r *Refs) ShownOf(ref string) (role, name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if e, ok := r.byRef[ref]; ok {
		if e.shownRole != "" {
			return e.shownRole, e.shownName
		}
		return e.role, e.name
	}
	return "", ""
}

// LabelOf returns what Label recorded for ref.
func (r *Refs) LabelOf(ref string) (role, name string, unique bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if e, ok := r.byRef[ref]; ok {
		return e.role, e.name, e.unique
	}
	return "", "", false
}

// Forget drops the refs of one frame of an owner, for instance after its
// document was replaced. Their refs are never handed out again; the nodes get
// new refs if seen again.
func (r *Refs) Forget(owner string, frame string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	of := ownerFrame{owner, frame}
	for k := range r.byFrame[of] {
		if e := r.byKey[k]; e != nil {
			delete(r.byRef, e.ref)
			delete(r.byKey, k)
		}
	}
	delete(r.byFrame, of)
}

// ForgetOwner drops every ref of an owner, for instance after its tab closed.
func (r *Refs) ForgetOwner(owner string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for of, keys := range r.byFrame {
		if of.owner != owner {
			continue
		}
		for k := range keys {
			if e := r.byKey[k]; e != nil {
				delete(r.byRef, e.ref)
				delete(r.byKey, k)
			}
		}
		delete(r.byFrame, of)
	}
}

// Issued reports whether ref was ever handed out, so a ref that Lookup no
// longer knows can be called stale rather than unknown.
func (r *Refs) Issued(ref string) bool {
	n, err := strconv.Atoi(strings.TrimPrefix(ref, "e"))
	if err != nil || !strings.HasPrefix(ref, "e") || n < 1 {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return n <= r.next
}

// Len returns the number of live (not forgotten) refs.
func (r *Refs) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.byRef)
}
