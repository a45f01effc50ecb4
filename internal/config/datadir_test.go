package config

import "testing"

// TestDefaultData: the data folder is where each system keeps an
// application's data.
func TestDefaultData(t *testing.T) {
	tests := []struct {
		goos string
		env  map[string]string
		home string
		want string
	}{
		{"linux", nil, "/home/ada", "/home/ada/.local/share/browserd"},
		{"linux", map[string]string{"XDG_DATA_HOME": "/data"}, "/home/ada", "/data/browserd"},
		{"linux", map[string]string{"XDG_DATA_HOME": "/data"}, "", "/data/browserd"},
		{"darwin", map[string]string{"XDG_DATA_HOME": "/data"}, "/Users/ada", "/Users/ada/Library/Application Support/browserd"},
		{"windows", map[string]string{"LocalAppData": `C:\Users\ada\AppData\Local`}, `C:\Users\ada`, `C:\Users\ada\AppData\Local\browserd`},
		{"windows", nil, `C:\Users\ada`, `C:\Users\ada\AppData\Local\browserd`},
	}
	for _, tt := range tests {
		got, err := DefaultData(tt.goos, func(k string) string { return tt.env[k] }, tt.home)
		if err != nil || got != tt.want {
			t.Errorf("DefaultData(%s, %v, %q) = %q, %v; want %q", tt.goos, tt.env, tt.home, got, err, tt.want)
		}
	}
	for _, goos := range []string{"linux", "darwin", "windows"} {
		if got, err := DefaultData(goos, func(string) string { return "" }, ""); err == nil {
			t.Errorf("DefaultData(%s) with no home nor variable = %q; want an error", goos, got)
		}
	}
}
