// Package notify tells the operator something happened that a person
// should see: a JSON POST to the daemon's --notify-url (an agent asks for
// help with handoff; a call waits for a person's approval). A failure is
// the caller's to log: the dashboard shows what waits anyway.
package notify

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// Timeout bounds one notification.
const Timeout = 5 * time.Second

// Post POSTs note as JSON to hook (--notify-url), within Timeout.
func Post(ctx context.Context, hook string, note map[string]string) error {
	body, _ := json.Marshal(note)
	nctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(nctx, http.MethodPost, hook, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode >= 300 {
		return fmt.Errorf("it answered %s", resp.Status)
	}
	return nil
}
