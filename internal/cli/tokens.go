package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/browserd/browserd/internal/auth"
	"github.com/browserd/browserd/internal/policy"
)

// tokenCmd manages the bearer tokens of the HTTP API and MCP over HTTP.
type tokenCmd struct {
	Create tokenCreateCmd `cmd:"" help:"Create a token for an owner and print it (it is shown once)."`
	List   tokenListCmd   `cmd:"" help:"List tokens: id, owner, label, created (never the tokens themselves)."`
	Revoke tokenRevokeCmd `cmd:"" help:"Revoke a token; it stops working at once."`
}

// apiCaller is the daemon client's raw API call (client.Client.API).
type apiCaller interface {
	API(ctx context.Context, method, path string, body, out any) error
}

// api calls the daemon's HTTP API over its socket, as admin.
func (e *env) api(ctx context.Context, method, path string, body, out any) error {
	h, done, err := e.connect(ctx, e.g.Config)
	if err != nil {
		return err
	}
	defer done()
	c, ok := h.(apiCaller)
	if !ok {
		return errors.New("this client cannot call the daemon's API")
	}
	return c.API(ctx, method, path, body, out)
}

type tokenCreateCmd struct {
	Owner  string `name:"owner" required:"" help:"Owner the token acts as; its profiles, sessions and stored sessions are its own."`
	Label  string `name:"label" help:"A note on what the token is for."`
	Policy string `name:"policy" help:"What the token's agents may do: a JSON object or a file that holds one, e.g. {\"deny\":[\"evaluate\"],\"confirm\":[\"upload\"],\"hosts\":[\"example.com\"]} (docs/security.md); none: the daemon's --default-policy applies." placeholder:"FILE|JSON"`
}

func (c *tokenCreateCmd) run(ctx context.Context, e *env) error {
	if err := auth.CheckOwner(c.Owner); err != nil {
		return err
	}
	body := map[string]any{"owner": c.Owner, "label": c.Label}
	if c.Policy != "" {
		raw := []byte(c.Policy)
		if !strings.HasPrefix(strings.TrimSpace(c.Policy), "{") {
			b, err := os.ReadFile(c.Policy)
			if err != nil {
				return usagef("--policy: give a JSON object or a file that holds one: %v", err)
			}
			raw = b
		}
		p, err := policy.Parse(raw)
		if err != nil {
			return usagef("--policy: %v", err)
		}
		if p != nil {
			body["policy"] = json.RawMessage(p.JSON())
		}
	}
	var t struct {
		auth.Token
		Secret string `json:"token"`
	}
	if err := e.api(ctx, "POST", "/api/tokens", body, &t); err != nil {
		return err
	}
	if e.g.JSON {
		return writeJSON(e.stdout, t)
	}
	fmt.Fprintln(e.stdout, t.Secret)
	pol := "the daemon's default policy"
	if t.Policy != nil {
		pol = "its policy: " + t.Policy.String()
	}
	fmt.Fprintf(e.stderr, "token %s for owner %s, under %s: send it as Authorization: Bearer …; it is not shown again (revoke with: browserd token revoke %s)\n", t.ID, t.Owner, pol, t.ID)
	return nil
}

type tokenListCmd struct {
	Owner string `name:"owner" help:"Only this owner's tokens."`
}

func (c *tokenListCmd) run(ctx context.Context, e *env) error {
	var l struct {
		Tokens []auth.Token `json:"tokens"`
	}
	if err := e.api(ctx, "GET", "/api/tokens?owner="+url.QueryEscape(c.Owner), nil, &l); err != nil {
		return err
	}
	if e.g.JSON {
		return writeJSON(e.stdout, l)
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tOWNER\tCREATED\tLABEL\tPOLICY")
	for _, t := range l.Tokens {
		pol := "(daemon default)"
		if t.Policy != nil {
			pol = t.Policy.JSON()
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", t.ID, t.Owner, t.Created.Local().Format(time.DateTime), t.Label, pol)
	}
	return tw.Flush()
}

type tokenRevokeCmd struct {
	ID string `arg:"" name:"id" help:"Token id (browserd token list shows them), e.g. tk_0123456789ab."`
}

func (c *tokenRevokeCmd) run(ctx context.Context, e *env) error {
	if err := e.api(ctx, "DELETE", "/api/tokens/"+url.PathEscape(c.ID), nil, nil); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "revoked %s\n", c.ID)
	return nil
}
