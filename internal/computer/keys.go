package computer

import (
	"fmt"
	"strings"
)

// Keys by their xdotool names (what Anthropic's computer tool sends:
// Return, ctrl+s, super+shift+t) and OpenAI's (ENTER, CTRL), as the
// browser tool's press takes them (Enter, Control+s).

// modifierNames are the modifiers, by xdotool's and OpenAI's names.
var modifierNames = map[string]string{
	"ctrl": "Control", "control": "Control", "control_l": "Control", "control_r": "Control",
	"alt": "Alt", "alt_l": "Alt", "alt_r": "Alt", "option": "Alt", "meta_l": "Meta", "meta_r": "Meta",
	"shift": "Shift", "shift_l": "Shift", "shift_r": "Shift",
	"super": "Meta", "super_l": "Meta", "super_r": "Meta", "meta": "Meta", "cmd": "Meta", "command": "Meta", "win": "Meta", "windows": "Meta",
}

// keyNames are the other keys with a name, by xdotool's and OpenAI's
// names.
var keyNames = map[string]string{
	"return": "Enter", "enter": "Enter", "kp_enter": "Enter",
	"escape": "Escape", "esc": "Escape", "tab": "Tab", "iso_left_tab": "Shift+Tab",
	"backspace": "Backspace", "delete": "Delete", "del": "Delete", "kp_delete": "Delete", "insert": "Insert",
	"space": "Space", "home": "Home", "end": "End", "kp_home": "Home", "kp_end": "End",
	"page_up": "PageUp", "pageup": "PageUp", "prior": "PageUp", "page_down": "PageDown", "pagedown": "PageDown", "next": "PageDown",
	"up": "ArrowUp", "down": "ArrowDown", "left": "ArrowLeft", "right": "ArrowRight",
	"arrowup": "ArrowUp", "arrowdown": "ArrowDown", "arrowleft": "ArrowLeft", "arrowright": "ArrowRight",
	"kp_up": "ArrowUp", "kp_down": "ArrowDown", "kp_left": "ArrowLeft", "kp_right": "ArrowRight",
	"minus": "-", "plus": "+", "equal": "=", "comma": ",", "period": ".", "slash": "/", "backslash": "\\",
	"semicolon": ";", "colon": ":", "apostrophe": "'", "quotedbl": "\"", "grave": "`", "asciitilde": "~",
	"bracketleft": "[", "bracketright": "]", "braceleft": "{", "braceright": "}", "parenleft": "(", "parenright": ")",
	"exclam": "!", "at": "@", "numbersign": "#", "dollar": "$", "percent": "%", "asciicircum": "^",
	"ampersand": "&", "asterisk": "*", "underscore": "_", "question": "?", "less": "<", "greater": ">", "bar": "|",
	"kp_add": "+", "kp_subtract": "-", "kp_multiply": "*", "kp_divide": "/",
}

// Chords turns a key action's text — chords separated by spaces, each
// keys joined by + (xdotool key's arguments: "ctrl+a Delete") — into the
// chords the browser tool's press takes.
func Chords(text string) ([]string, error) {
	fields := strings.Fields(text)
	if len(fields) == 0 {
		return nil, fmt.Errorf("no key in %q: give keys by xdotool name, e.g. Return, ctrl+s, Down", text)
	}
	if len(fields) > 100 {
		return nil, fmt.Errorf("at most 100 keys in one key action")
	}
	out := make([]string, 0, len(fields))
	for _, f := range fields {
		c, err := Chord(f)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// Chord turns one xdotool chord (ctrl+shift+t, Return, KP_Enter, a) into
// the browser tool's (Control+Shift+t, Enter).
func Chord(s string) (string, error) {
	parts := strings.Split(s, "+")
	if len(parts) > 1 && parts[len(parts)-1] == "" { // ctrl++
		parts = append(parts[:len(parts)-2], "plus")
	}
	var out []string
	for i, p := range parts {
		low := strings.ToLower(p)
		if m, ok := modifierNames[low]; ok && (i < len(parts)-1 || len(parts) == 1) {
			if i == len(parts)-1 { // a modifier alone: pressed as a key
				return m, nil
			}
			out = append(out, m)
			continue
		}
		if i < len(parts)-1 {
			return "", fmt.Errorf("key %q: %q is not a modifier (ctrl, alt, shift, super)", s, p)
		}
		switch k, ok := keyNames[low]; {
		case ok:
			out = append(out, k)
		case len([]rune(p)) == 1:
			out = append(out, p)
		case len(low) >= 2 && low[0] == 'f' && isNumber(low[1:]):
			out = append(out, "F"+low[1:])
		case strings.HasPrefix(low, "kp_") && len(low) == 4 && low[3] >= '0' && low[3] <= '9':
			out = append(out, low[3:])
		default:
			return "", fmt.Errorf("key %q: unknown key %q; use xdotool names such as Return, Escape, Tab, BackSpace, Delete, space, Up, Down, Left, Right, Home, End, Page_Up, Page_Down, F1–F12, a letter or digit, with ctrl+, alt+, shift+, super+", s, p)
		}
	}
	return strings.Join(out, "+"), nil
}

func isNumber(s string) bool {
	if s == "" || len(s) > 2 {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
