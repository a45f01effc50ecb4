package metrics

import (
	"testing"
)

func TestPgrpOf(t *testing.T) {
	for _, tc := range []struct {
		stat string
		want int
		ok   bool
	}{
		{"4242 (chromium) S 1 4242 4242 0 -1", 4242, true},
		{"4243 (a) b) (c) S 4242 4242 4242 0", 4242, true}, // comm with spaces and parentheses
		{"garbage", 0, false},
		{"1 (x) S", 0, false},
	} {
		g, ok := pgrpOf([]byte(tc.stat))
		if g != tc.want || ok != tc.ok {
			t.Errorf("pgrpOf(%q) = %d, %v; want %d, %v", tc.stat, g, ok, tc.want, tc.ok)
		}
	}
}
