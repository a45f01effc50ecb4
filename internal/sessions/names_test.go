package sessions

import "testing"

func TestQualify(t *testing.T) {
	for _, tc := range []struct{ owner, name, q string }{
		{"admin", "work", "work"},
		{"", "work", "work"},
		{"bob", "work", "bob~work"},
		{"bob", "", ""},
	} {
		if got := Qualify(tc.owner, tc.name); got != tc.q {
			t.Errorf("qualify(%q, %q) = %q, want %q", tc.owner, tc.name, got, tc.q)
		}
		if tc.name == "" {
			continue
		}
		o, n := SplitName(tc.q)
		if want := tc.owner; (want == "" && o != "admin") || (want != "" && o != want) || n != tc.name {
			t.Errorf("splitName(%q) = %q, %q", tc.q, o, n)
		}
	}
	if err := CheckQualified("session", "bob~work"); err != nil {
		t.Errorf("a qualified name was refused: %v", err)
	}
	for _, bad := range []string{"Bob~work", "bob~wo~rk", "~work", "bob~", "bob~.hidden"} {
		if CheckQualified("session", bad) == nil {
			t.Errorf("checkQualified accepted %q", bad)
		}
	}
}
