package snapshot

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// tn is a test node: a compact way to write AX trees.
type tn struct {
	role, name, value, desc string
	ignored                 bool
	backend                 int64 // 0: auto (the node's index + 1); -1: none
	props                   map[string]string
	labels                  []int64 // backend ids of the labelledby property
	kids                    []tn
}

func n(role, name string, kids ...tn) tn { return tn{role: role, name: name, kids: kids} }

func txt(s string) tn { return tn{role: "StaticText", name: s} }

func (t tn) p(kv ...string) tn {
	m := make(map[string]string, len(t.props)+len(kv)/2)
	for k, v := range t.props {
		m[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	t.props = m
	return t
}

func (t tn) be(id int64) tn             { t.backend = id; return t }
func (t tn) val(v string) tn            { t.value = v; return t }
func (t tn) descr(d string) tn          { t.desc = d; return t }
func (t tn) ign() tn                    { t.ignored = true; return t }
func (t tn) labelledBy(ids ...int64) tn { t.labels = ids; return t }
func (t tn) focusable() tn              { return t.p("focusable", "true") }
func doc(name string, kids ...tn) tn    { return n("RootWebArea", name, kids...).focusable() }

// nodes flattens a test tree into CDP-ordered nodes (pre-order), ids "1"...
func nodes(root tn) []Node {
	var out []Node
	var walk func(t tn, parent string) string
	walk = func(t tn, parent string) string {
		id := strconv.Itoa(len(out) + 1)
		out = append(out, Node{})
		i := len(out) - 1
		nd := Node{ID: id, ParentID: parent, Ignored: t.ignored, Role: t.role, Name: t.name,
			Value: t.value, Description: t.desc, Props: t.props, LabelledBy: t.labels}
		switch {
		case t.backend > 0:
			nd.BackendID = t.backend
		case t.backend == 0:
			nd.BackendID = int64(len(out))
		}
		for _, k := range t.kids {
			nd.ChildIDs = append(nd.ChildIDs, walk(k, id))
		}
		out[i] = nd
		return id
	}
	walk(root, "")
	return out
}

// shortCells is row i of a table with short cell texts: 17 | Eve | u17@x.io | on.
func shortCells(i int) [4]string {
	names := []string{"Ann", "Bob", "Cy", "Dan", "Eve"}
	status := "on"
	if i%3 == 0 {
		status = "off"
	}
	return [4]string{strconv.Itoa(i), names[i%len(names)], fmt.Sprintf("u%d@x.io", i), status}
}

// userCells is row i of a table with longer cell texts:
// 17 | User 17 | user17@example.com | active.
func userCells(i int) [4]string {
	status := "active"
	if i%3 == 0 {
		status = "disabled"
	}
	return [4]string{strconv.Itoa(i), fmt.Sprintf("User %d", i), fmt.Sprintf("user%d@example.com", i), status}
}

// tableTree is a Chromium-like AX tree of a user table with the given rows:
// table > rowgroup > row > cell > StaticText, an Edit button in the last
// cell of each row.
func tableTree(rows int, cellsOf func(int) [4]string) tn {
	header := n("row", "# Name Email Status Action")
	for _, h := range []string{"#", "Name", "Email", "Status", "Action"} {
		header.kids = append(header.kids, n("columnheader", h, txt(h)))
	}
	body := n("rowgroup", "")
	for i := 1; i <= rows; i++ {
		cells := cellsOf(i)
		row := n("row", "")
		for _, c := range cells {
			row.kids = append(row.kids, n("cell", c, txt(c)))
		}
		row.kids = append(row.kids, n("cell", "Edit", n("button", "Edit", txt("Edit")).focusable()))
		row.name = fmt.Sprintf("%s %s %s %s Edit", cells[0], cells[1], cells[2], cells[3])
		body.kids = append(body.kids, row)
	}
	return doc("Users",
		n("generic", "", // body
			n("heading", "Users", txt("Users")).p("level", "1"),
			n("table", "",
				n("rowgroup", "", header),
				body,
			),
		).ign(),
	)
}

// cdpJSON encodes nodes the way Accessibility.getFullAXTree returns them,
// including fields Decode skips.
func cdpJSON(ns []Node) []byte {
	type related struct {
		BackendDOMNodeID int64  `json:"backendDOMNodeId"`
		Text             string `json:"text,omitempty"`
	}
	type val struct {
		Type         string    `json:"type"`
		Value        any       `json:"value,omitempty"`
		RelatedNodes []related `json:"relatedNodes,omitempty"`
	}
	type src struct {
		Type      string `json:"type"`
		Attribute string `json:"attribute,omitempty"`
	}
	type nameVal struct {
		Type    string `json:"type"`
		Value   any    `json:"value"`
		Sources []src  `json:"sources"`
	}
	type prop struct {
		Name  string `json:"name"`
		Value val    `json:"value"`
	}
	type node struct {
		NodeID           string   `json:"nodeId"`
		Ignored          bool     `json:"ignored"`
		IgnoredReasons   []prop   `json:"ignoredReasons,omitempty"`
		Role             *val     `json:"role,omitempty"`
		ChromeRole       *val     `json:"chromeRole,omitempty"`
		Name             *nameVal `json:"name,omitempty"`
		Value            *val     `json:"value,omitempty"`
		Description      *val     `json:"description,omitempty"`
		Properties       []prop   `json:"properties"`
		ParentID         string   `json:"parentId,omitempty"`
		ChildIDs         []string `json:"childIds"`
		BackendDOMNodeID int64    `json:"backendDOMNodeId,omitempty"`
		FrameID          string   `json:"frameId"`
	}
	out := make([]node, len(ns))
	for i, nd := range ns {
		o := node{NodeID: nd.ID, Ignored: nd.Ignored, ParentID: nd.ParentID, ChildIDs: nd.ChildIDs,
			BackendDOMNodeID: nd.BackendID, FrameID: "F1", Properties: []prop{}}
		if o.ChildIDs == nil {
			o.ChildIDs = []string{}
		}
		if nd.Ignored {
			o.IgnoredReasons = []prop{{Name: "uninteresting", Value: val{Type: "boolean", Value: true}}}
		}
		if nd.Role != "" {
			o.Role = &val{Type: "role", Value: nd.Role}
			o.ChromeRole = &val{Type: "internalRole", Value: 88}
		}
		if !nd.Ignored {
			o.Name = &nameVal{Type: "computedString", Value: nd.Name,
				Sources: []src{{Type: "attribute", Attribute: "aria-labelledby"}, {Type: "attribute", Attribute: "aria-label"}, {Type: "contents"}}}
		}
		if nd.Value != "" {
			o.Value = &val{Type: "string", Value: nd.Value}
		}
		if nd.Description != "" {
			o.Description = &val{Type: "computedString", Value: nd.Description}
		}
		for k, v := range nd.Props {
			var pv any = v
			switch v {
			case "true":
				pv = true
			case "false":
				pv = false
			default:
				if n, err := strconv.Atoi(v); err == nil {
					pv = n
				}
			}
			o.Properties = append(o.Properties, prop{Name: k, Value: val{Type: "booleanOrUndefined", Value: pv}})
		}
		if len(nd.LabelledBy) > 0 {
			v := val{Type: "nodeList"}
			for _, id := range nd.LabelledBy {
				v.RelatedNodes = append(v.RelatedNodes, related{BackendDOMNodeID: id, Text: "label"})
			}
			o.Properties = append(o.Properties, prop{Name: "labelledby", Value: v})
		}
		out[i] = o
	}
	b, err := json.Marshal(map[string]any{"nodes": out})
	if err != nil {
		panic(err)
	}
	return b
}
