package snapshot

import "slices"

// Memo keeps a tab's last build: building again from the same read (the
// frames a patch found unchanged) with the same options and refs gives
// the same text, so it is not built again — a snapshot of a page that did
// not change costs the look at its journal, not a walk of all its nodes.
// The zero Memo holds nothing.
type Memo struct {
	frames []Frame
	refs   *Refs
	opt    Options
	r      Result
}

// Build is Build, or the last result when frames are the ones last built
// (the same node slices) and refs and opt the same.
func (m *Memo) Build(frames []Frame, refs *Refs, opt Options) Result {
	if m.holds(frames, refs, opt) {
		return m.r
	}
	r := Build(frames, refs, opt)
	m.Keep(frames, refs, opt, r)
	return r
}

// Keep remembers r as the build of frames with refs and opt.
func (m *Memo) Keep(frames []Frame, refs *Refs, opt Options, r Result) {
	if opt.Root != nil || opt.Page != nil {
		*m = Memo{} // a part of the page depends on more than its options say
		return
	}
	*m = Memo{frames: frames, refs: refs, opt: opt, r: r}
}

func (m *Memo) holds(frames []Frame, refs *Refs, opt Options) bool {
	if len(frames) == 0 || len(frames) != len(m.frames) || refs != m.refs {
		return false
	}
	for i := range frames {
		a, b := &frames[i], &m.frames[i]
		if len(a.Nodes) == 0 || len(a.Nodes) != len(b.Nodes) || &a.Nodes[0] != &b.Nodes[0] ||
			a.Key != b.Key || a.ParentKey != b.ParentKey || a.OwnerBackendID != b.OwnerBackendID || a.Part != b.Part {
			return false
		}
	}
	o, p := opt, m.opt
	return o.Root == nil && o.Page == nil && o.Interactive == p.Interactive && o.Depth == p.Depth &&
		o.MaxChars == p.MaxChars && o.Owner == p.Owner && o.Origin == p.Origin && o.All == p.All &&
		slices.Equal(o.Windows, p.Windows)
}
