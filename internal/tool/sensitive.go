package tool

import (
	"encoding/json"
	"log/slog"
	"reflect"
	"strings"
	"sync"
)

// Which fields of Input hold a credential is declared once, on the type:
// a field tagged `sensitive:"true"` (in Input or a type it holds) is one,
// and everything that keeps or shows an Input — the recording, logs,
// errors — takes the copy Redacted makes, which has Hidden in its place.
// A field whose name says credential but holds none (a secret's name, a
// key to press) is tagged `sensitive:"false"`; TestSensitiveDeclared fails
// on a field whose name looks like a credential and has neither.

// Hidden stands for a sensitive field's value.
const Hidden = "<redacted>"

// Redacted is a copy of in with every sensitive field's value replaced by
// Hidden (an empty one stays empty, so the copy still says which were
// given). in is not changed: what it holds is copied where it changes.
func (in Input) Redacted() Input {
	v := reflect.ValueOf(&in).Elem()
	scrub(v)
	return in
}

// LogValue logs an Input as its redacted copy, in JSON.
func (in Input) LogValue() slog.Value {
	b, err := json.Marshal(in.Redacted())
	if err != nil {
		return slog.StringValue("<input>")
	}
	return slog.StringValue(string(b))
}

// SensitiveValues are the values of in's sensitive fields that are set.
func (in *Input) SensitiveValues() []string {
	var out []string
	walkSensitive(reflect.ValueOf(in).Elem(), func(f reflect.Value) {
		switch {
		case f.Kind() == reflect.String:
			out = append(out, f.String())
		case f.Kind() == reflect.Slice && f.Type().Elem().Kind() == reflect.Uint8:
			out = append(out, string(f.Bytes()))
		case f.Kind() == reflect.Slice && f.Type().Elem().Kind() == reflect.String:
			for i := range f.Len() {
				out = append(out, f.Index(i).String())
			}
		}
	})
	return out
}

// HideSensitive is s with every value of in's sensitive fields, and each
// line of 16 characters or more of one (a PEM key's), replaced by Hidden:
// for what browserd says about a call (its error, its notes), which should
// never quote one.
func (in *Input) HideSensitive(s string) string {
	if s == "" {
		return s
	}
	for _, v := range in.SensitiveValues() {
		if len(v) >= 4 && strings.Contains(s, v) {
			s = strings.ReplaceAll(s, v, Hidden)
		}
		if strings.Contains(v, "\n") {
			for _, line := range strings.Split(v, "\n") {
				if line = strings.TrimSpace(line); len(line) >= 16 {
					s = strings.ReplaceAll(s, line, Hidden)
				}
			}
		}
	}
	return s
}

// sensitive reports whether a struct field is declared sensitive.
func sensitive(f reflect.StructField) bool { return f.Tag.Get("sensitive") == "true" }

// scrub replaces the sensitive fields under v (settable) with Hidden,
// copying pointers and slices it changes under.
func scrub(v reflect.Value) {
	switch v.Kind() {
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			f := v.Field(i)
			if !f.CanSet() {
				continue
			}
			if sensitive(t.Field(i)) {
				hide(f)
			} else if holdsSensitive(f.Type()) {
				scrub(f)
			}
		}
	case reflect.Pointer:
		if !v.IsNil() {
			cp := reflect.New(v.Type().Elem())
			cp.Elem().Set(v.Elem())
			scrub(cp.Elem())
			v.Set(cp)
		}
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice {
			if v.IsNil() {
				return
			}
			cp := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
			reflect.Copy(cp, v)
			v.Set(cp)
		}
		for i := range v.Len() {
			scrub(v.Index(i))
		}
	}
}

// hide replaces a sensitive field's value: a string or each of a list's
// with Hidden, JSON (json.RawMessage) with Hidden as a JSON string,
// anything else with its zero value.
func hide(f reflect.Value) {
	switch {
	case f.IsZero():
	case f.Kind() == reflect.String:
		f.SetString(Hidden)
	case f.Kind() == reflect.Slice && f.Type().Elem().Kind() == reflect.Uint8:
		b, _ := json.Marshal(Hidden)
		f.SetBytes(b)
	case f.Kind() == reflect.Slice && f.Type().Elem().Kind() == reflect.String:
		cp := reflect.MakeSlice(f.Type(), f.Len(), f.Len())
		for i := range f.Len() {
			cp.Index(i).SetString(Hidden)
		}
		f.Set(cp)
	default:
		f.Set(reflect.Zero(f.Type()))
	}
}

// holds caches holdsSensitive (reflect.Type → bool).
var holds sync.Map

// holdsSensitive reports whether a value of type t can hold a sensitive
// field (a struct, or a pointer, slice or array of one).
func holdsSensitive(t reflect.Type) bool {
	if v, ok := holds.Load(t); ok {
		return v.(bool)
	}
	h := false
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array:
		h = holdsSensitive(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if f := t.Field(i); f.IsExported() && (sensitive(f) || holdsSensitive(f.Type)) {
				h = true
				break
			}
		}
	}
	holds.Store(t, h)
	return h
}

// walkSensitive calls fn with every set sensitive field under v.
func walkSensitive(v reflect.Value, fn func(reflect.Value)) {
	switch v.Kind() {
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			f := v.Field(i)
			if !t.Field(i).IsExported() {
				continue
			}
			if sensitive(t.Field(i)) {
				if !f.IsZero() {
					fn(f)
				}
			} else if holdsSensitive(f.Type()) {
				walkSensitive(f, fn)
			}
		}
	case reflect.Pointer:
		if !v.IsNil() {
			walkSensitive(v.Elem(), fn)
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			walkSensitive(v.Index(i), fn)
		}
	}
}
