package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/browserd/browserd/internal/computer"
)

// computerCmd sends one action of a computer-use model — Anthropic's
// computer tool shape, or an OpenAI computer-use action — to POST
// /api/computer, and prints what happened and the screenshot's path.
type computerCmd struct {
	JSON string `arg:"" name:"json" help:"The action as JSON: '{\"action\":\"left_click\",\"coordinate\":[480,240]}' (Anthropic) or '{\"type\":\"click\",\"x\":480,\"y\":240}' (OpenAI)."`
}

func (c *computerCmd) run(ctx context.Context, e *env) error {
	var body map[string]any
	if err := json.Unmarshal([]byte(c.JSON), &body); err != nil || body == nil {
		return usagef("computer takes one action as a JSON object, e.g. '{\"action\":\"left_click\",\"coordinate\":[480,240]}': %v", err)
	}
	if _, ok := body["task"]; !ok && e.g.Session != "" {
		body["task"] = e.g.Session // --task (or --session) names the task, as for every command
	}
	var res computer.Result
	if err := e.api(ctx, "POST", "/api/computer", body, &res); err != nil {
		return err
	}
	if res.Action == "zoom" && len(res.Image) > 0 && strings.HasSuffix(res.ScreenshotPath, ".png") {
		// The region, beside the screenshot it was cut from.
		zoom := strings.TrimSuffix(res.ScreenshotPath, ".png") + "-zoom.png"
		if err := os.WriteFile(zoom, res.Image, 0o600); err == nil {
			res.ScreenshotPath = zoom
		}
	}
	res.Image = nil // on disk at screenshotPath
	if e.g.JSON {
		if err := writeJSON(e.stdout, res); err != nil {
			return err
		}
	} else {
		if res.Text != "" {
			fmt.Fprintln(e.stdout, res.Text)
		}
		if res.ScreenshotPath != "" {
			fmt.Fprintf(e.stdout, "screenshot %s (%d×%d)\n", res.ScreenshotPath, res.Width, res.Height)
		}
	}
	if !res.Success {
		return fmt.Errorf("%s", res.Error)
	}
	return nil
}
