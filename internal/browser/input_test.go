package browser

import (
	"strings"
	"testing"
)

func TestKeyOf(t *testing.T) {
	for _, c := range []struct {
		r       rune
		key     string
		code    string
		keyCode int
		shift   bool
	}{
		{'a', "a", "KeyA", 65, false},
		{'Q', "Q", "KeyQ", 81, true},
		{'7', "7", "Digit7", 55, false},
		{'@', "@", "Digit2", 50, true},
		{' ', " ", "Space", 32, false},
		{'.', ".", "Period", 190, false},
		{'?', "?", "Slash", 191, true},
		{'\\', "\\", "Backslash", 220, false},
		{'é', "é", "", 0, false}, // no key on a US keyboard: its text alone
	} {
		d, mods := keyOf(c.r)
		if d.key != c.key || d.code != c.code || d.keyCode != c.keyCode || d.text != string(c.r) || (mods == modifierBits["shift"]) != c.shift {
			t.Errorf("keyOf(%q) = %+v, mods %d; want key %q code %q keyCode %d shift %v", c.r, d, mods, c.key, c.code, c.keyCode, c.shift)
		}
	}
}

func TestKeyTypeable(t *testing.T) {
	for text, want := range map[string]bool{
		"ada@example.com":                 true,
		"":                                true,
		"Grüße, 東京 🙂":                     true,
		"two\nlines":                      false, // Enter would send the form
		"a\tb":                            false,
		strings.Repeat("x", KeyTypeMax):   true,
		strings.Repeat("x", KeyTypeMax+1): false,
	} {
		if got := KeyTypeable(text); got != want {
			t.Errorf("KeyTypeable(%.20q…) = %v, want %v", text, got, want)
		}
	}
}
