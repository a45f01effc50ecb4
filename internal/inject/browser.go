package inject

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/browserd/browserd/internal/browser"
	"github.com/browserd/browserd/internal/storagestate"
)

// Putting a state into a browser: the cookies of a context read back, the
// script that puts localStorage and sessionStorage in place before a
// page's own scripts run, and the position a context may read.

// ContextCookies reads every cookie of a browser context ("" for the
// default one), session-only and HttpOnly ones included.
func ContextCookies(ctx context.Context, br *browser.Browser, ctxID string) ([]storagestate.Cookie, error) {
	params := map[string]any{}
	if ctxID != "" {
		params["browserContextId"] = ctxID
	}
	var r struct {
		Cookies []storagestate.CDPCookie `json:"cookies"`
	}
	if err := br.Conn().Browser().Call(ctx, "Storage.getCookies", params, &r); err != nil {
		return nil, fmt.Errorf("reading cookies: %w", err)
	}
	return storagestate.FromCDP(r.Cookies), nil
}

// StorageScript returns a script that, run before a page's own scripts,
// puts the saved localStorage and sessionStorage of the page's origin back
// (once per tab and origin, and only keys the page does not have).
func StorageScript(origins []storagestate.Origin) string {
	return StorageScriptMarked(origins, "__browserd_restored")
}

// StorageScriptMarked is StorageScript with its own sessionStorage marker,
// so that two restores (a resume's and a profile's) do not stop each other.
func StorageScriptMarked(origins []storagestate.Origin, marker string) string {
	return StorageScriptOver(origins, marker, false)
}

// StorageScriptOver is StorageScriptMarked; with over, the saved values
// replace the keys the page already has (a capture picked to resume from,
// over a profile's newer storage).
func StorageScriptOver(origins []storagestate.Origin, marker string, over bool) string {
	type items struct {
		L [][2]string `json:"l,omitempty"`
		S [][2]string `json:"s,omitempty"`
	}
	data := map[string]items{}
	for _, o := range origins {
		var it items
		for _, kv := range o.LocalStorage {
			it.L = append(it.L, [2]string{kv.Name, kv.Value})
		}
		for _, kv := range o.SessionStorage {
			it.S = append(it.S, [2]string{kv.Name, kv.Value})
		}
		if len(it.L)+len(it.S) > 0 {
			data[o.Origin] = it
		}
	}
	if len(data) == 0 {
		return ""
	}
	b, _ := json.Marshal(data)
	return `(() => { const d = (` + string(b) + `)[location.origin]; if (!d) return;
  try { if (sessionStorage.getItem('` + marker + `')) return; sessionStorage.setItem('` + marker + `', '1'); } catch (e) { return; }
  const over = ` + strconv.FormatBool(over) + `;
  try { for (const [k, v] of d.l || []) if (over || localStorage.getItem(k) === null) localStorage.setItem(k, v); } catch (e) {}
  try { for (const [k, v] of d.s || []) if (over || sessionStorage.getItem(k) === null) sessionStorage.setItem(k, v); } catch (e) {}
})()`
}

// CombineScripts joins two init scripts.
func CombineScripts(a, b string) string {
	if a == "" {
		return b
	}
	return a + ";\n" + b
}

// GrantGeolocation lets the pages of a context (ctxID "" for the default
// one) read the position without a prompt.
func GrantGeolocation(ctx context.Context, br *browser.Browser, ctxID string) error {
	p := map[string]any{"permissions": []string{"geolocation"}}
	if ctxID != "" {
		p["browserContextId"] = ctxID
	}
	return br.Conn().Browser().Call(ctx, "Browser.grantPermissions", p, nil)
}
