package snapshot

// idIndex finds a node of a frame by its AX id. Chromium numbers a
// document's AX nodes from 1 and reports the numbers as strings: those are
// looked up in a slice, without hashing a string (a build looks up every
// node's children: a third of its time went to a string-keyed map on the
// 1,000-row table). Ids that are not such numbers go in a map.
type idIndex struct {
	dense []int32 // position+1 by numeric id; 0: none
	other map[string]int
}

// denseSpan bounds the slice: ids up to denseSpan times the node count
// (a page that made and dropped many nodes has sparse ids) plus a margin.
const denseSpan = 8

// newIDIndex indexes nodes by ID; the first of duplicate ids wins.
func newIDIndex(nodes []Node) idIndex {
	var x idIndex
	limit := denseSpan*len(nodes) + 1024
	maxID := 0
	for i := range nodes {
		if v, ok := numericID(nodes[i].ID); ok && v < limit {
			maxID = max(maxID, v)
		}
	}
	x.dense = make([]int32, maxID+1)
	for i := range nodes {
		id := nodes[i].ID
		if v, ok := numericID(id); ok && v < len(x.dense) {
			if x.dense[v] == 0 {
				x.dense[v] = int32(i + 1)
			}
			continue
		}
		if x.other == nil {
			x.other = map[string]int{}
		}
		if _, dup := x.other[id]; !dup {
			x.other[id] = i
		}
	}
	return x
}

// get returns the position of the node with id.
func (x *idIndex) get(id string) (int, bool) {
	if v, ok := numericID(id); ok && v < len(x.dense) {
		p := x.dense[v]
		return int(p) - 1, p != 0
	}
	i, ok := x.other[id]
	return i, ok
}

// numericID parses a canonical decimal id ("0", "17"; not "017", "+1" or
// one of more than nine digits): one spelling per number, so that a
// string id and its number name one node.
func numericID(s string) (int, bool) {
	if len(s) == 0 || len(s) > 9 || s[0] == '0' && len(s) > 1 {
		return 0, false
	}
	v := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int(c-'0')
	}
	return v, true
}
