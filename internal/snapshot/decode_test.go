package snapshot

import (
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

const sampleTree = `{"nodes":[
{"nodeId":"1","ignored":false,"role":{"type":"internalRole","value":"RootWebArea"},"chromeRole":{"type":"internalRole","value":144},
 "name":{"type":"computedString","value":"T","sources":[{"type":"relatedElement","attribute":"aria-labelledby"},{"type":"contents","value":{"type":"computedString","value":"T"}}]},
 "properties":[{"name":"focusable","value":{"type":"booleanOrUndefined","value":true}},{"name":"focused","value":{"type":"booleanOrUndefined","value":false}}],
 "childIds":["2","3","4"],"backendDOMNodeId":1,"frameId":"F1"},
{"nodeId":"2","ignored":true,"ignoredReasons":[{"name":"uninteresting","value":{"type":"boolean","value":true}}],"role":{"type":"role","value":"none"},
 "parentId":"1","childIds":["5"],"backendDOMNodeId":7},
{"nodeId":"3","ignored":false,"role":{"type":"role","value":"heading"},"name":{"type":"computedString","value":"Say \"hi\"\u00e9\n"},
 "properties":[{"name":"level","value":{"type":"integer","value":2}},{"name":"labelledby","value":{"type":"nodeList","relatedNodes":[{"idref":"x","backendDOMNodeId":9}]}}],
 "parentId":"1","childIds":[],"backendDOMNodeId":8},
{"nodeId":"4","ignored":false,"role":{"type":"role","value":"slider"},"name":{"type":"computedString","value":""},"description":{"type":"computedString","value":"d"},
 "value":{"type":"number","value":0.5},
 "properties":[{"name":"valuetext","value":{"type":"string","value":"half"}},{"name":"checked","value":{"type":"tristate","value":"mixed"}},
  {"name":"owns","value":{"type":"idrefList","value":"","relatedNodes":[]}},{"name":"weird","value":{"type":"string","value":{"a":1}}},{"name":"nil","value":{"type":"string","value":null}}],
 "parentId":"1","childIds":[],"backendDOMNodeId":10},
{"nodeId":"5","ignored":false,"role":{"type":"role","value":"textbox"},"value":{"type":"string","value":"abc"},"parentId":"2","childIds":[]}
]}`

func TestDecode(t *testing.T) {
	got, err := Decode([]byte(sampleTree))
	if err != nil {
		t.Fatal(err)
	}
	want := []Node{
		{ID: "1", ChildIDs: []string{"2", "3", "4"}, Role: "RootWebArea", Name: "T",
			Props: map[string]string{"focusable": "true", "focused": "false"}, BackendID: 1},
		{ID: "2", ParentID: "1", ChildIDs: []string{"5"}, Ignored: true, Role: "none", BackendID: 7},
		{ID: "3", ParentID: "1", ChildIDs: []string{}, Role: "heading", Name: "Say \"hi\"é\n",
			Props: map[string]string{"level": "2"}, BackendID: 8, LabelledBy: []int64{9}},
		{ID: "4", ParentID: "1", ChildIDs: []string{}, Role: "slider", Value: "0.5", Description: "d",
			Props: map[string]string{"valuetext": "half", "checked": "mixed", "owns": ""}, BackendID: 10},
		{ID: "5", ParentID: "2", ChildIDs: []string{}, Role: "textbox", Value: "abc"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Decode mismatch (-want +got):\n%s", d)
	}

	text := Build([]Frame{{Key: "f", Nodes: got}}, NewRefs(), Options{}).Text
	wantText := `document "T"
  textbox [value="abc"]
  heading "Say \"hi\"é" [level=2]
  slider [ref=e1, checked=mixed, value="half"]`
	if d := cmp.Diff(wantText, text); d != "" {
		t.Errorf("Build of the decoded tree (-want +got):\n%s", d)
	}
}

func TestDecodeErrors(t *testing.T) {
	for _, raw := range []string{``, `{`, `[]`, `{"nodes":{}}`, `{"nodes":[{"nodeId":1}]}`, `{"nodes":[{"role":{"value":"x\u"}}]}`} {
		if _, err := Decode([]byte(raw)); err == nil {
			t.Errorf("Decode(%q) succeeded", raw)
		}
	}
	for _, raw := range []string{`{}`, `{"nodes":[]}`, `{"nodes":null}`, `{"nodes":[{}],"other":1}`} {
		if _, err := Decode([]byte(raw)); err != nil {
			t.Errorf("Decode(%q): %v", raw, err)
		}
	}
}

func TestDecodeRoundTrip(t *testing.T) {
	want := nodes(tableTree(20, userCells))
	got, err := Decode(cdpJSON(want))
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got, cmpopts.EquateEmpty()); d != "" {
		t.Errorf("round trip mismatch (-want +got):\n%s", d)
	}
}

// decodeEdgeCases are inputs on which Decode must agree with encoding/json.
var decodeEdgeCases = []string{
	``, ` `, `null`, ` null `, `{}`, `[]`, `"x"`, `1`, `{"nodes":null}`, `{"nodes":[]}`, `{"nodes":[null]}`,
	`{"nodes":[{}],"nodes":[{"nodeId":"b"}]}`,
	`{"nodes":[{"nodeId":"a","childIds":["1","2"]},{"nodeId":"b"}],"nodes":[{"childIds":["3"]}]}`,
	`{"nodes":[{"nodeId":"a"},{"nodeId":"b"}],"nodes":[{}],"nodes":[{},{}]}`,
	`{"NODES":[{"NodeID":"a","CHILDIDS":["x"],"\u006eame":{"VALUE":"n"},"ſodeId":"b"}]}`,
	`{"nodes":[{"nodeId":"a","nodeId":null,"ignored":null,"backendDOMNodeId":null,"childIds":null,"properties":null,"role":null}]}`,
	`{"nodes":[{"role":{"value":"a","value":{"x":1}},"name":{"value":"a","value":null},"value":{"value":1,"value":"s"}}]}`,
	`{"nodes":[{"properties":[null,{"name":"a","value":{"value":true}},{"name":"a","value":{"value":"x\n\u00e9\ud800"}}]}]}`,
	`{"nodes":[{"properties":[{"name":"a","value":{"type":"x"}}],"properties":[{"name":"b"}]}]}`,
	`{"nodes":[{"backendDOMNodeId":1.5}]}`, `{"nodes":[{"backendDOMNodeId":1e2}]}`,
	`{"nodes":[{"backendDOMNodeId":-0}]}`, `{"nodes":[{"backendDOMNodeId":99999999999999999999}]}`,
	`{"nodes":[{"backendDOMNodeId":"1"}]}`, `{"nodes":[{"ignored":"true"}]}`, `{"nodes":[{"ignored":1}]}`,
	`{"nodes":[{"childIds":[1]}]}`, `{"nodes":[{"childIds":{}}]}`, `{"nodes":[{"role":"button"}]}`,
	`{"nodes":[{"properties":[1]}]}`, `{"nodes":[{"properties":{}}]}`, `{"nodes":{}}`, `{"nodes":[1]}`,
	`{"nodes":[{"properties":[{"name":"labelledby","value":{"type":"nodeList","relatedNodes":[{"backendDOMNodeId":3,"text":"x"},null,{},{"BACKENDDOMNODEID":4}]}}]}]}`,
	`{"nodes":[{"properties":[{"name":"labelledby","value":{"relatedNodes":null}},{"name":"labelledby","value":{"relatedNodes":[]}}]}]}`,
	`{"nodes":[{"properties":[{"name":"labelledby","value":{"relatedNodes":[{"backendDOMNodeId":1}],"relatedNodes":[{"idref":"a"},{"backendDOMNodeId":2}]}}]}]}`,
	`{"nodes":[{"properties":[{"name":"labelledby","value":{"relatedNodes":[{"backendDOMNodeId":"1"}]}}]}]}`,
	`{"nodes":[{"properties":[{"name":"labelledby","value":{"relatedNodes":{}}}]}]}`, `{"nodes":[{"role":{"relatedNodes":[1]}}]}`,
	`{"nodes":[{"properties":[{"value":{"relatedNodes":[{"backendDOMNodeId":5}]},"name":"labelledby"},{"name":"describedby","value":{"relatedNodes":[{"backendDOMNodeId":6}]}}]}]}`,
	`{"nodes":[]} x`, `{"nodes":[]}}`, `{"nodes":[],}`, `{"nodes":[,]}`, `{"a":01}`, `{"a":-}`, `{"a":1.}`,
	`{"a":1e}`, `{"a":tru}`, `{"a":nulll}`, `{"a":"\x"}`, `{"a":"\u12"}`, "{\"a\":\"\x01\"}", `{"a" 1}`,
	"{\"a\":\"\xff\xfe\"}", "{\"nodes\":[{\"nodeId\":\"\xff\"}]}", `{"a":[[[[]]]],"b":{"c":{"d":[true,false,null,-1.5e+3]}}}`,
	"\t{\"nodes\" :\r\n[ { \"nodeId\" : \"1\" } ] }\n",
	strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	`{"a":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}`,
	`{"a":` + strings.Repeat("[", 9999) + strings.Repeat("]", 9999) + `}`,
}

func TestDecodeMatchesEncodingJSON(t *testing.T) {
	cases := append([]string{sampleTree, string(cdpJSON(nodes(tableTree(3, userCells))))}, decodeEdgeCases...)
	for _, raw := range cases {
		checkDecode(t, []byte(raw))
	}
}

// checkDecode fails unless Decode and encoding/json agree on raw.
func checkDecode(t *testing.T, raw []byte) {
	t.Helper()
	got, err := Decode(raw)
	want, wantErr := decodeStd(raw)
	name := string(raw)
	if len(name) > 80 {
		name = name[:80] + "..."
	}
	if (err == nil) != (wantErr == nil) {
		t.Fatalf("Decode(%q): error %v, encoding/json: %v", name, err, wantErr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Decode(%q) = %#v\nencoding/json: %#v", name, got, want)
	}
}

func FuzzDecode(f *testing.F) {
	f.Add([]byte(sampleTree))
	f.Add(cdpJSON(nodes(tableTree(2, shortCells))))
	f.Add([]byte(`{"nodes":[{"nodeId":"1","childIds":["1"],"parentId":"1"}]}`))
	f.Add([]byte(`{"nodes":[{"value":{"value":"\ud800"}},{"properties":[{"name":"a","value":{"value":-1e999}}]}]}`))
	for _, c := range decodeEdgeCases {
		if len(c) < 1000 {
			f.Add([]byte(c))
		}
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		checkDecode(t, raw)
		ns, err := Decode(raw)
		if err != nil {
			return
		}
		// Whatever decodes must build, within its budget.
		frames := []Frame{{Key: "f", Nodes: ns, Clickable: map[int64]bool{1: true, 2: true}}}
		r := Build(frames, NewRefs(), Options{MaxChars: 300})
		if len(r.Text) > 300 {
			t.Fatalf("Build exceeded MaxChars: %d bytes", len(r.Text))
		}
		Build(frames, NewRefs(), Options{Interactive: true, Depth: 2, Root: &Key{"f", 1}})
	})
}
