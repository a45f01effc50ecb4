package snapshot

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// This file is a JSON reader for the getFullAXTree result, several times
// faster than encoding/json on it. It follows encoding/json's rules exactly:
// the whole input is validated, keys match fields case-insensitively (exact
// match first), null leaves a field as it is (a slice becomes nil), arrays
// decode into the elements already there, and a value of the wrong type is an
// error. FuzzDecode checks it against encoding/json.

// maxDepth is encoding/json's nesting limit.
const maxDepth = 10000

var errEOF = errors.New("unexpected end of JSON input")

type reader struct {
	b     []byte
	i     int
	depth int
}

func (r *reader) syntax(what string) error {
	if r.i >= len(r.b) {
		return errEOF
	}
	return fmt.Errorf("invalid character %q %s at offset %d", r.b[r.i], what, r.i)
}

func typeError(want string, r *reader) error {
	return fmt.Errorf("cannot decode JSON value at offset %d into %s", r.i, want)
}

func (r *reader) ws() {
	for r.i < len(r.b) {
		switch r.b[r.i] {
		case ' ', '\t', '\n', '\r':
			r.i++
		default:
			return
		}
	}
}

// peek skips white space and returns the next byte, 0 at the end.
func (r *reader) peek() byte {
	r.ws()
	if r.i >= len(r.b) {
		return 0
	}
	return r.b[r.i]
}

// strTok scans the string at r.i, returning it with its quotes; simple
// tells that it is ASCII without escapes.
func (r *reader) strTok() (tok []byte, simple bool, err error) {
	start := r.i
	r.i++
	simple = true
	for r.i < len(r.b) {
		c := r.b[r.i]
		switch {
		case c == '"':
			r.i++
			return r.b[start:r.i], simple, nil
		case c == '\\':
			simple = false
			r.i++
			if r.i >= len(r.b) {
				return nil, false, errEOF
			}
			switch r.b[r.i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				r.i++
			case 'u':
				r.i++
				for range 4 {
					if r.i >= len(r.b) {
						return nil, false, errEOF
					}
					if !isHex(r.b[r.i]) {
						return nil, false, r.syntax("in \\\\u escape")
					}
					r.i++
				}
			default:
				return nil, false, r.syntax("in string escape code")
			}
		case c < 0x20:
			return nil, false, r.syntax("in string literal")
		default:
			if c >= 0x80 {
				simple = false
			}
			r.i++
		}
	}
	return nil, false, errEOF
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// unquote decodes a string token as encoding/json does.
func unquote(tok []byte, simple bool) (string, error) {
	if simple {
		return string(tok[1 : len(tok)-1]), nil
	}
	var s string
	err := json.Unmarshal(tok, &s)
	return s, err
}

func (r *reader) literal(word string) error {
	for k := 0; k < len(word); k++ {
		if r.i >= len(r.b) {
			return errEOF
		}
		if r.b[r.i] != word[k] {
			return r.syntax("in literal " + word)
		}
		r.i++
	}
	return nil
}

func (r *reader) number() error {
	if r.b[r.i] == '-' {
		r.i++
	}
	if r.i >= len(r.b) {
		return errEOF
	}
	switch c := r.b[r.i]; {
	case c == '0':
		r.i++
	case '1' <= c && c <= '9':
		r.i++
		r.digits()
	default:
		return r.syntax("in numeric literal")
	}
	if r.i < len(r.b) && r.b[r.i] == '.' {
		r.i++
		if r.digits() == 0 {
			return r.syntax("after decimal point in numeric literal")
		}
	}
	if r.i < len(r.b) && (r.b[r.i] == 'e' || r.b[r.i] == 'E') {
		r.i++
		if r.i < len(r.b) && (r.b[r.i] == '+' || r.b[r.i] == '-') {
			r.i++
		}
		if r.digits() == 0 {
			return r.syntax("in exponent of numeric literal")
		}
	}
	return nil
}

func (r *reader) digits() int {
	start := r.i
	for r.i < len(r.b) && '0' <= r.b[r.i] && r.b[r.i] <= '9' {
		r.i++
	}
	return r.i - start
}

// skip validates and skips one value.
func (r *reader) skip() error {
	switch c := r.peek(); {
	case c == '"':
		_, _, err := r.strTok()
		return err
	case c == '{':
		return r.object(func([]byte, bool) error { return r.skip() })
	case c == '[':
		return r.array(r.skip)
	case c == 't':
		return r.literal("true")
	case c == 'f':
		return r.literal("false")
	case c == 'n':
		return r.literal("null")
	case c == '-' || ('0' <= c && c <= '9'):
		return r.number()
	default:
		return r.syntax("looking for beginning of value")
	}
}

func (r *reader) push() error {
	r.depth++
	if r.depth > maxDepth {
		return errors.New("exceeded max depth")
	}
	r.i++
	return nil
}

// object reads the object at r.i, calling field for each key (its token)
// with r.i at the value, which field must consume.
func (r *reader) object(field func(tok []byte, simple bool) error) error {
	if err := r.push(); err != nil {
		return err
	}
	if r.peek() == '}' {
		r.i++
		r.depth--
		return nil
	}
	for {
		if r.peek() != '"' {
			return r.syntax("looking for beginning of object key string")
		}
		tok, simple, err := r.strTok()
		if err != nil {
			return err
		}
		if r.peek() != ':' {
			return r.syntax("after object key")
		}
		r.i++
		r.ws()
		if err := field(tok, simple); err != nil {
			return err
		}
		switch r.peek() {
		case ',':
			r.i++
		case '}':
			r.i++
			r.depth--
			return nil
		default:
			return r.syntax("after object key:value pair")
		}
	}
}

// array reads the array at r.i, calling elem for each element.
func (r *reader) array(elem func() error) error {
	if err := r.push(); err != nil {
		return err
	}
	if r.peek() == ']' {
		r.i++
		r.depth--
		return nil
	}
	for {
		if err := elem(); err != nil {
			return err
		}
		switch r.peek() {
		case ',':
			r.i++
		case ']':
			r.i++
			r.depth--
			return nil
		default:
			return r.syntax("after array element")
		}
	}
}

// fieldIndex returns the index of the key in names, matching as
// encoding/json does, or -1.
func fieldIndex(tok []byte, simple bool, names []string) (int, error) {
	k := tok[1 : len(tok)-1]
	if !simple {
		s, err := unquote(tok, simple)
		if err != nil {
			return -1, err
		}
		k = []byte(s)
	}
	for i, n := range names {
		if string(k) == n {
			return i, nil
		}
	}
	for i, n := range names {
		if bytes.EqualFold(k, []byte(n)) {
			return i, nil
		}
	}
	return -1, nil
}

// null consumes a null if one is next.
func (r *reader) null() (bool, error) {
	if r.peek() != 'n' {
		return false, nil
	}
	return true, r.literal("null")
}

func (r *reader) str(dst *string) error {
	switch r.peek() {
	case 'n':
		return r.literal("null")
	case '"':
		tok, simple, err := r.strTok()
		if err != nil {
			return err
		}
		*dst, err = unquote(tok, simple)
		return err
	}
	return typeError("string", r)
}

func (r *reader) boolean(dst *bool) error {
	switch r.peek() {
	case 'n':
		return r.literal("null")
	case 't':
		*dst = true
		return r.literal("true")
	case 'f':
		*dst = false
		return r.literal("false")
	}
	return typeError("bool", r)
}

func (r *reader) int64(dst *int64) error {
	switch c := r.peek(); {
	case c == 'n':
		return r.literal("null")
	case c == '-' || ('0' <= c && c <= '9'):
		start := r.i
		if err := r.number(); err != nil {
			return err
		}
		v, err := strconv.ParseInt(string(r.b[start:r.i]), 10, 64)
		if err != nil {
			return typeError("int64", r)
		}
		*dst = v
		return nil
	}
	return typeError("int64", r)
}

// slice decodes an array into *s the way encoding/json does: into the
// elements already there, then truncated; null makes it nil.
func slice[T any](r *reader, s *[]T, elem func(*T) error) error {
	switch r.peek() {
	case 'n':
		*s = nil
		return r.literal("null")
	case '[':
	default:
		return typeError("slice", r)
	}
	v := *s
	i := 0
	err := r.array(func() error {
		if i >= cap(v) {
			v = append(v[:cap(v)], *new(T))
		}
		if i >= len(v) {
			v = v[:i+1]
		}
		i++
		return elem(&v[i-1])
	})
	if err != nil {
		return err
	}
	v = v[:i]
	if i == 0 {
		v = make([]T, 0)
	}
	*s = v
	return nil
}

var (
	treeFields  = []string{"nodes"}
	valueFields = []string{"value", "relatedNodes"}
	relFields   = []string{"backendDOMNodeId"}
	propFields  = []string{"name", "value"}
	nodeFields  = []string{"nodeId", "ignored", "role", "name", "description", "value",
		"properties", "parentId", "childIds", "backendDOMNodeId"}
)

func (r *reader) axValue(v *axValue) error {
	return r.valueObject(&v.Value, nil)
}

func (r *reader) propValue(v *axPropValue) error {
	return r.valueObject(&v.Value, &v.RelatedNodes)
}

// valueObject reads an AXValue object: its value into v, its relatedNodes
// into rel if rel is not nil.
func (r *reader) valueObject(v *scalar, rel *[]axRelatedNode) error {
	switch r.peek() {
	case 'n':
		return r.literal("null")
	case '{':
	default:
		return typeError("object", r)
	}
	fields := valueFields[:1]
	if rel != nil {
		fields = valueFields
	}
	return r.object(func(tok []byte, simple bool) error {
		f, err := fieldIndex(tok, simple, fields)
		if err != nil || f < 0 {
			if err == nil {
				err = r.skip()
			}
			return err
		}
		if f == 1 {
			return slice(r, rel, r.relatedNode)
		}
		start := r.i
		if err := r.skip(); err != nil {
			return err
		}
		return v.UnmarshalJSON(r.b[start:r.i])
	})
}

func (r *reader) relatedNode(n *axRelatedNode) error {
	if null, err := r.null(); null || err != nil {
		return err
	}
	if r.peek() != '{' {
		return typeError("object", r)
	}
	return r.object(func(tok []byte, simple bool) error {
		f, err := fieldIndex(tok, simple, relFields)
		if err != nil {
			return err
		}
		if f == 0 {
			return r.int64(&n.BackendID)
		}
		return r.skip()
	})
}

func (r *reader) property(p *axProperty) error {
	if null, err := r.null(); null || err != nil {
		return err
	}
	if r.peek() != '{' {
		return typeError("object", r)
	}
	return r.object(func(tok []byte, simple bool) error {
		f, err := fieldIndex(tok, simple, propFields)
		switch {
		case err != nil:
			return err
		case f == 0:
			return r.str(&p.Name)
		case f == 1:
			return r.propValue(&p.Value)
		}
		return r.skip()
	})
}

func (r *reader) node(n *axNode) error {
	if null, err := r.null(); null || err != nil {
		return err
	}
	if r.peek() != '{' {
		return typeError("object", r)
	}
	return r.object(func(tok []byte, simple bool) error {
		f, err := fieldIndex(tok, simple, nodeFields)
		if err != nil {
			return err
		}
		switch f {
		case 0:
			return r.str(&n.NodeID)
		case 1:
			return r.boolean(&n.Ignored)
		case 2:
			return r.axValue(&n.Role)
		case 3:
			return r.axValue(&n.Name)
		case 4:
			return r.axValue(&n.Description)
		case 5:
			return r.axValue(&n.Value)
		case 6:
			return slice(r, &n.Properties, r.property)
		case 7:
			return r.str(&n.ParentID)
		case 8:
			return slice(r, &n.ChildIDs, r.str)
		case 9:
			return r.int64(&n.BackendID)
		}
		return r.skip()
	})
}

// parseTree decodes raw into t as json.Unmarshal would.
func parseTree(raw []byte, t *axTree) error {
	r := &reader{b: raw}
	if t.Nodes == nil {
		// One allocation for the usual case; decoding into spare capacity
		// is the same as growing the slice.
		t.Nodes = make([]axNode, 0, bytes.Count(raw, []byte(`"nodeId"`)))
	}
	var err error
	switch r.peek() {
	case 'n':
		err = r.literal("null")
	case '{':
		err = r.object(func(tok []byte, simple bool) error {
			f, err := fieldIndex(tok, simple, treeFields)
			if err != nil || f < 0 {
				if err == nil {
					err = r.skip()
				}
				return err
			}
			return slice(r, &t.Nodes, r.node)
		})
	default:
		if err = r.skip(); err == nil {
			err = typeError("object", r)
		}
	}
	if err != nil {
		return err
	}
	if r.ws(); r.i < len(r.b) {
		return r.syntax("after top-level value")
	}
	return nil
}
