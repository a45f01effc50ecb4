package cli

import (
	"strings"

	"github.com/browserd/browserd/internal/tool"
)

// media are the media features launch and emulate set.
type media struct {
	ColorScheme   string `name:"color-scheme" placeholder:"SCHEME" help:"prefers-color-scheme: light, dark or no-preference."`
	ReducedMotion string `name:"reduced-motion" placeholder:"VALUE" help:"prefers-reduced-motion: reduce or no-preference."`
	ForcedColors  string `name:"forced-colors" placeholder:"VALUE" help:"forced-colors: active or none."`
}

// emulateCmd sends emulate.
type emulateCmd struct {
	media       `embed:""`
	Offline     *bool             `negatable:"" help:"Cut the session's pages off the network (--no-offline: back on)."`
	Throttle    string            `placeholder:"SPEED" help:"Network speed: Slow 3G, Fast 3G, Slow 4G, 4G, none, or DOWN,UP,LATENCY in kbit/s and ms."`
	CPU         float64           `name:"cpu" placeholder:"RATE" help:"Slow the CPU down this many times (1: none)."`
	Header      map[string]string `placeholder:"NAME=VALUE" help:"A header every request sends (an empty value removes it); repeatable."`
	Permission  []string          `placeholder:"NAME" help:"Grant a permission (geolocation, notifications, clipboard-read, clipboard-write, camera, microphone; none takes back all); repeatable."`
	Origin      string            `placeholder:"ORIGIN" help:"The origin --permission grants to (default: every origin)."`
	InitScript  string            `name:"init-script" placeholder:"JS" help:"A script every new document runs before its own (main world)."`
	Geolocation string            `placeholder:"LAT,LON[,ACC]" help:"Position navigator.geolocation reports from now on: degrees, and the accuracy in metres (grant it with --permission geolocation)."`
	Timeout     timeoutFlag       `embed:""`
}

func (c *emulateCmd) input() (tool.Input, error) {
	in := tool.Input{Action: "emulate", ColorScheme: c.ColorScheme, ReducedMotion: c.ReducedMotion, ForcedColors: c.ForcedColors,
		Offline: c.Offline, Throttle: c.Throttle, CPU: c.CPU, Headers: c.Header, Permissions: c.Permission, URL: c.Origin,
		InitScript: c.InitScript, Timeout: c.Timeout.Timeout}
	if c.Geolocation != "" {
		g, err := parseGeolocation(c.Geolocation)
		if err != nil {
			return in, err
		}
		in.Geolocation = g
	}
	return in, nil
}

// routeCmd sends route.
type routeCmd struct {
	Pattern     string            `arg:"" help:"The URLs to answer: a glob (**/api/items*) or a regular expression (/\\/api\\//)."`
	Status      int               `placeholder:"CODE" help:"Answer with this HTTP status (default 200 with --body or --path)."`
	Body        string            `placeholder:"TEXT" help:"Answer with this body."`
	Path        string            `placeholder:"FILE" help:"Answer with this file's content (a file in the uploads folder)."`
	ContentType string            `name:"content-type" placeholder:"TYPE" help:"The answer's Content-Type (default: from the body or file)."`
	Header      map[string]string `placeholder:"NAME=VALUE" help:"A header of the answer, or of the request passed on; repeatable."`
	Abort       string            `placeholder:"REASON" help:"Fail the request: failed, aborted, timedout, accessdenied, connectionrefused, internetdisconnected, …"`
	Fetch       bool              `help:"Answer with the server's own answer, changed by --status, --header, --content-type and --replace (Playwright's route.fetch() then fulfill)."`
	Replace     string            `placeholder:"TEXT=VALUE" help:"With --fetch: put VALUE in place of every TEXT in the server's body."`
	Delay       int               `placeholder:"MS" help:"Wait this long first."`
	Scope       string            `placeholder:"SCOPE" help:"task (default: this task's tabs) or session (every task's)."`
	Timeout     timeoutFlag       `embed:""`
}

func (c *routeCmd) input() (tool.Input, error) {
	in := tool.Input{Action: "route", URL: c.Pattern, Status: c.Status, Body: c.Body, Path: c.Path, ContentType: c.ContentType,
		Headers: c.Header, Abort: strings.ToLower(c.Abort), Delay: c.Delay, Scope: c.Scope, Timeout: c.Timeout.Timeout, Fetch: c.Fetch}
	if c.Replace != "" {
		from, to, ok := strings.Cut(c.Replace, "=")
		if !ok || from == "" {
			return in, usagef("--replace %q: give TEXT=VALUE, the text of the server's body and what to put in its place", c.Replace)
		}
		in.Text, in.Value = from, to
	}
	return in, nil
}

// unrouteCmd sends unroute.
type unrouteCmd struct {
	Pattern string      `arg:"" optional:"" help:"The route's pattern as given to route (none: every route of the scope)."`
	Scope   string      `placeholder:"SCOPE" help:"task (default) or session."`
	Timeout timeoutFlag `embed:""`
}

func (c *unrouteCmd) input() (tool.Input, error) {
	return tool.Input{Action: "unroute", URL: c.Pattern, Scope: c.Scope, Timeout: c.Timeout.Timeout}, nil
}
