package snapshot

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Node is the part of a CDP AXNode the snapshot uses.
type Node struct {
	ID, ParentID string
	ChildIDs     []string
	Ignored      bool

	Role, Name, Value, Description string

	// Props holds the AX properties with scalar values, stringified:
	// "checked" -> "true"/"mixed", "level" -> "2", "url" -> "http://..",
	// "focusable" -> "true", "expanded" -> "false", ... Properties whose value
	// is a node list are left out.
	Props map[string]string

	// BackendID is the node's backendDOMNodeId, 0 if it has none.
	BackendID int64

	// LabelledBy holds the backend ids of the nodes the "labelledby"
	// property names: the <label> elements and aria-labelledby targets that
	// gave the node its name.
	LabelledBy []int64

	// DescribedBy holds the backend ids of the aria-describedby targets that
	// gave the node its description.
	DescribedBy []int64
}

// scalar decodes a CDP AXValue's "value": strings as themselves, booleans and
// numbers as their JSON text. Objects, arrays and null leave it unset.
type scalar struct {
	s  string
	ok bool
}

// UnmarshalJSON implements json.Unmarshaler.
func (v *scalar) UnmarshalJSON(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	switch c := b[0]; {
	case c == '"':
		if len(b) >= 2 && bytes.IndexByte(b[1:len(b)-1], '\\') < 0 {
			v.s, v.ok = string(b[1:len(b)-1]), true
			return nil
		}
		if err := json.Unmarshal(b, &v.s); err != nil {
			return err
		}
		v.ok = true
	case c == 't' || c == 'f' || c == '-' || (c >= '0' && c <= '9'):
		v.s, v.ok = string(b), true
	}
	return nil
}

type axValue struct {
	Value scalar `json:"value"`
}

// axPropValue is a property's AXValue, which may list related nodes.
type axPropValue struct {
	Value        scalar          `json:"value"`
	RelatedNodes []axRelatedNode `json:"relatedNodes"`
}

type axRelatedNode struct {
	BackendID int64 `json:"backendDOMNodeId"`
}

type axProperty struct {
	Name  string      `json:"name"`
	Value axPropValue `json:"value"`
}

type axNode struct {
	NodeID      string       `json:"nodeId"`
	Ignored     bool         `json:"ignored"`
	Role        axValue      `json:"role"`
	Name        axValue      `json:"name"`
	Description axValue      `json:"description"`
	Value       axValue      `json:"value"`
	Properties  []axProperty `json:"properties"`
	ParentID    string       `json:"parentId"`
	ChildIDs    []string     `json:"childIds"`
	BackendID   int64        `json:"backendDOMNodeId"`
}

type axTree struct {
	Nodes []axNode `json:"nodes"`
}

// Decode parses the raw JSON result of Accessibility.getFullAXTree
// ({"nodes":[...]}), keeping only the fields Node needs. It accepts exactly
// what encoding/json accepts and decodes it the same way, several times
// faster.
func Decode(raw []byte) ([]Node, error) {
	var t axTree
	if err := parseTree(raw, &t); err != nil {
		return nil, fmt.Errorf("decode accessibility tree: %w", err)
	}
	return convert(t.Nodes), nil
}

// decodeStd is Decode with encoding/json, the reference for tests.
func decodeStd(raw []byte) ([]Node, error) {
	var t axTree
	if err := json.Unmarshal(raw, &t); err != nil {
		return nil, fmt.Errorf("decode accessibility tree: %w", err)
	}
	return convert(t.Nodes), nil
}

func convert(raw []axNode) []Node {
	nodes := make([]Node, len(raw))
	for i := range raw {
		a := &raw[i]
		n := &nodes[i]
		n.ID, n.ParentID, n.ChildIDs = a.NodeID, a.ParentID, a.ChildIDs
		n.Ignored = a.Ignored
		n.Role, n.Name = a.Role.Value.s, a.Name.Value.s
		n.Value, n.Description = a.Value.Value.s, a.Description.Value.s
		n.BackendID = a.BackendID
		for _, p := range a.Properties {
			switch p.Name {
			case "labelledby":
				for _, r := range p.Value.RelatedNodes {
					if r.BackendID != 0 {
						n.LabelledBy = append(n.LabelledBy, r.BackendID)
					}
				}
			case "describedby":
				for _, r := range p.Value.RelatedNodes {
					if r.BackendID != 0 {
						n.DescribedBy = append(n.DescribedBy, r.BackendID)
					}
				}
			}
			if !p.Value.Value.ok || p.Name == "" {
				continue
			}
			if n.Props == nil {
				n.Props = make(map[string]string, len(a.Properties))
			}
			n.Props[p.Name] = p.Value.Value.s
		}
	}
	return nodes
}
