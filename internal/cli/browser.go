package cli

import (
	"strconv"
	"strings"

	"github.com/browserd/browserd/internal/tool"
)

type statusCmd struct{}

func (c *statusCmd) input() (tool.Input, error) { return tool.Input{Action: "status"}, nil }

// launchCmd starts the browser, and with the environment flags creates
// the session with them. --headed is the daemon's (every browser shows a
// window); --no-headless shows this session's only.
type launchCmd struct {
	Timeout     timeoutFlag `embed:""`
	Headless    *bool       `negatable:"" help:"--no-headless shows this session's browser in a window (needs a display); default: the daemon's --headed."`
	UserAgent   string      `name:"user-agent" placeholder:"UA" help:"User agent the session's pages send and see."`
	Timezone    string      `placeholder:"ZONE" help:"IANA time zone the session's pages see, e.g. Europe/Paris."`
	Locale      string      `placeholder:"TAG" help:"Language the session's pages see (Intl, navigator.language, Accept-Language), e.g. fr-FR."`
	Geolocation string      `placeholder:"LAT,LON[,ACC]" help:"Position navigator.geolocation reports: degrees, and the accuracy in metres."`
}

func (c *launchCmd) input() (tool.Input, error) {
	in := tool.Input{Action: "launch", Timeout: c.Timeout.Timeout, Headless: c.Headless,
		UserAgent: c.UserAgent, Timezone: c.Timezone, Locale: c.Locale}
	if c.Geolocation != "" {
		g, err := parseGeolocation(c.Geolocation)
		if err != nil {
			return tool.Input{}, err
		}
		in.Geolocation = g
	}
	return in, nil
}

// parseGeolocation reads LAT,LON[,ACC].
func parseGeolocation(s string) (*tool.Geolocation, error) {
	parts := strings.Split(s, ",")
	if len(parts) < 2 || len(parts) > 3 {
		return nil, usagef("--geolocation %q: want LAT,LON or LAT,LON,ACCURACY, e.g. 48.8566,2.3522", s)
	}
	var v [3]float64
	for i, p := range parts {
		f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil {
			return nil, usagef("--geolocation %q: %q is not a number; want LAT,LON[,ACCURACY] in degrees and metres", s, p)
		}
		v[i] = f
	}
	return &tool.Geolocation{Latitude: v[0], Longitude: v[1], Accuracy: v[2]}, nil
}

type closeCmd struct{}

func (c *closeCmd) input() (tool.Input, error) { return tool.Input{Action: "close"}, nil }

type taskEndCmd struct{}

func (c *taskEndCmd) input() (tool.Input, error) { return tool.Input{Action: "task_end"}, nil }
