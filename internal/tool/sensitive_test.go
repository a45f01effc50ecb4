package tool

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// credentialName is what a field holding a credential is likely named.
var credentialName = regexp.MustCompile(`(?i)pass|pwd|secret|token|key|pfx|p12|cookie|state|credential|cert|private|auth|login|bearer|session_?id`)

// undeclared lists the fields under t (path-named) whose name looks like
// a credential's and that declare neither sensitive:"true" nor "false";
// and those that declare something else or are sensitive in a form
// Redacted cannot hide.
func undeclared(t reflect.Type, path string, seen map[reflect.Type]bool) []string {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || seen[t] {
		return nil
	}
	seen[t] = true
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name := path + "." + f.Name
		tag, declared := f.Tag.Lookup("sensitive")
		switch {
		case declared && tag != "true" && tag != "false":
			out = append(out, name+` (sensitive:"`+tag+`": say "true" or "false")`)
		case tag == "true":
			k := f.Type.Kind()
			if k != reflect.String && !(k == reflect.Slice && (f.Type.Elem().Kind() == reflect.String || f.Type.Elem().Kind() == reflect.Uint8)) {
				out = append(out, name+" (sensitive, but neither a string, a list of strings nor bytes: Redacted would only zero it)")
			}
			continue
		}
		json := strings.Split(f.Tag.Get("json"), ",")[0]
		leaf := !holdsStruct(f.Type)
		if leaf && !declared && (credentialName.MatchString(f.Name) || credentialName.MatchString(json)) {
			out = append(out, name)
		}
		out = append(out, undeclared(f.Type, name, seen)...)
	}
	return out
}

func holdsStruct(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	return t.Kind() == reflect.Struct
}

// TestSensitiveDeclared: every field of Input, and of the types it holds,
// whose name looks like a credential's says whether it is one
// (sensitive:"true" or "false") — a new credential field cannot be
// recorded or logged by forgetting to say so.
func TestSensitiveDeclared(t *testing.T) {
	if bad := undeclared(reflect.TypeFor[Input](), "Input", map[reflect.Type]bool{}); len(bad) > 0 {
		t.Errorf("fields whose names look like credentials declare neither sensitive:\"true\" nor sensitive:\"false\" (sensitive.go): %s", strings.Join(bad, ", "))
	}
	// The check catches one.
	type login struct {
		User     string `json:"user"`
		Password string `json:"password"`
	}
	type call struct {
		Logins []login `json:"logins"`
		APIKey string  `json:"apiKey" sensitive:"yes"`
	}
	if bad := undeclared(reflect.TypeFor[call](), "call", map[reflect.Type]bool{}); len(bad) != 2 {
		t.Errorf("undeclared(call) = %q, want Logins.Password and APIKey", bad)
	}
}

// filled is an Input with every sensitive field set to a value of its
// own, and those values.
func filled(t *testing.T) (Input, []string) {
	var in Input
	var values []string
	n := 0
	var fill func(v reflect.Value)
	fill = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Pointer:
			v.Set(reflect.New(v.Type().Elem()))
			fill(v.Elem())
		case reflect.Slice:
			if holdsStruct(v.Type()) {
				v.Set(reflect.MakeSlice(v.Type(), 2, 2))
				for i := range 2 {
					fill(v.Index(i))
				}
			}
		case reflect.Struct:
			for i := range v.NumField() {
				f, sf := v.Field(i), v.Type().Field(i)
				if !sf.IsExported() {
					continue
				}
				if !sensitive(sf) {
					fill(f)
					continue
				}
				n++
				val := fmt.Sprintf("credential-%02d-value", n)
				values = append(values, val)
				switch {
				case f.Kind() == reflect.String:
					f.SetString(val)
				case f.Type().Elem().Kind() == reflect.Uint8:
					b, _ := json.Marshal(map[string]string{"v": val})
					f.SetBytes(b)
				default:
					f.Set(reflect.ValueOf([]string{val}).Convert(f.Type()))
				}
			}
		}
	}
	fill(reflect.ValueOf(&in).Elem())
	if len(values) < 6 {
		t.Fatalf("only %d sensitive fields filled", len(values))
	}
	return in, values
}

// TestRedacted: the redacted copy of an Input holds none of its
// sensitive values — marshalled, logged, or quoted in a text — and the
// Input itself is left as it was.
func TestRedacted(t *testing.T) {
	in, values := filled(t)
	before, _ := json.Marshal(in)
	red := in.Redacted()
	out, _ := json.Marshal(red)
	var log strings.Builder
	slog.New(slog.NewJSONHandler(&log, nil)).Info("call", "in", in)
	said := in.HideSensitive("the proxy said: " + strings.Join(in.SensitiveValues(), " and "))
	for _, v := range values {
		for what, s := range map[string]string{"Redacted": string(out), "the log": log.String(), "HideSensitive": said} {
			if strings.Contains(s, v) {
				t.Errorf("%s holds %q: %s", what, v, s)
			}
		}
		if !strings.Contains(string(before), v) {
			t.Errorf("the test set no %q", v)
		}
	}
	if after, _ := json.Marshal(in); string(after) != string(before) {
		t.Errorf("Redacted changed its Input:\n%s\n%s", before, after)
	}
	hidden, _ := json.Marshal(Hidden)
	if !strings.Contains(string(out), `"password":`+string(hidden)) || !strings.Contains(string(out), `"state":`+string(hidden)) {
		t.Errorf("Redacted does not show which were given: %s", out)
	}
	if empty := (Input{Action: "launch", Proxy: &Proxy{Server: "http://p:1"}}).Redacted(); empty.Proxy.Password != "" || empty.Proxy.Server != "http://p:1" {
		t.Errorf("Redacted of a proxy without a password: %+v", empty.Proxy)
	}
}
