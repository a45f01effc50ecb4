package browser

import (
	"math"
	"strings"
	"testing"

	"github.com/browserd/browserd/internal/tool"
)

func TestEmulationCheck(t *testing.T) {
	for _, tc := range []struct {
		e    Emulation
		want string // the bad fields, comma-separated
	}{
		{Emulation{}, ""},
		{Emulation{UserAgent: "Mozilla/5.0 x", Timezone: "America/Argentina/Buenos_Aires", Geolocation: &Geolocation{Latitude: -33.9, Longitude: 151.2}}, ""},
		{Emulation{Timezone: "Etc/GMT+5"}, ""},
		{Emulation{UserAgent: "a\nb"}, "userAgent"},
		{Emulation{UserAgent: strings.Repeat("a", 1025)}, "userAgent"},
		{Emulation{Timezone: "../../etc/passwd"}, "timezone"},
		{Emulation{Timezone: "Europe/Paris; rm"}, "timezone"},
		{Emulation{Timezone: "Foo/Bar"}, "timezone"},
		{Emulation{Timezone: "Local"}, "timezone"},
		{Emulation{Geolocation: &Geolocation{Latitude: 90.5, Longitude: -181, Accuracy: -1}}, "geolocation.latitude,geolocation.longitude,geolocation.accuracy"},
		{Emulation{Geolocation: &Geolocation{Latitude: math.NaN()}}, "geolocation.latitude"},
		{Emulation{Locale: "fr-FR"}, ""},
		{Emulation{Locale: "fr_FR"}, "locale"},
		{Emulation{Locale: strings.Repeat("a", 36)}, "locale"},
	} {
		var got []string
		for _, f := range tc.e.Check() {
			got = append(got, f.Path)
		}
		if strings.Join(got, ",") != tc.want {
			t.Errorf("%+v: bad fields %v, want %q", tc.e, got, tc.want)
		}
	}
	if steps := emulationSteps(Emulation{Geolocation: &Geolocation{Latitude: 1, Longitude: 2}}); len(steps) != 1 || steps[0][1].(map[string]any)["accuracy"] != 10.0 {
		t.Errorf("geolocation step: %v", steps)
	}
	// A locale alone keeps the browser's user agent ("") and sets the
	// language pages read (acceptLanguage) and Intl's (setLocaleOverride).
	steps := emulationSteps(Emulation{Locale: "de-DE"})
	if len(steps) != 2 || steps[0][0] != "Emulation.setUserAgentOverride" || steps[0][1].(map[string]any)["userAgent"] != "" ||
		steps[0][1].(map[string]any)["acceptLanguage"] != "de-DE" || steps[1][0] != "Emulation.setLocaleOverride" {
		t.Errorf("locale steps: %v", steps)
	}
	if (Emulation{Locale: "de"}).IsZero() {
		t.Error("an emulation with a locale is zero")
	}
}

// TestEnvironmentRulesAgree: Validate refuses what the HTTP API refuses
// for the same fields (Emulation.Check), and nothing else.
func TestEnvironmentRulesAgree(t *testing.T) {
	for _, tz := range []string{"Europe/Paris", "America/Argentina/Buenos_Aires", "Etc/GMT+5", "UTC", "Foo/Bar", "Local", "../etc", "Europe/Paris; rm", ""} {
		for _, l := range []string{"fr", "fr-FR", "zh-Hant-TW", "es-419", "x", "fr_FR", "1fr", "toolongtag-x", ""} {
			in := tool.Input{Action: "launch", Timezone: tz, Locale: l}
			emu := Emulation{Timezone: tz, Locale: l}
			if valid, checked := in.Validate() == nil, len(emu.Check()) == 0; valid != checked {
				t.Errorf("timezone %q locale %q: Validate says %v, Emulation.Check %v", tz, l, valid, checked)
			}
		}
	}
}
