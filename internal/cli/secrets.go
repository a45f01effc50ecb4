package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/browserd/browserd/internal/auth"
	"github.com/browserd/browserd/internal/httpapi"
	"github.com/browserd/browserd/internal/secrets"
)

// secretCmd manages the secrets agents type by name without seeing them
// (PUT, GET and DELETE /api/secrets; package secrets says what they may be).
type secretCmd struct {
	Set  secretSetCmd  `cmd:"" help:"Keep a secret under NAME, its value read from stdin (typed unseen in a terminal), sealed in the store: agents type it with type or fill's secret field and never see it."`
	List secretListCmd `cmd:"" help:"List the secrets: name, origins, updated (never the values)."`
	Rm   secretRmCmd   `cmd:"" name:"rm" help:"Delete a secret."`
}

// secretOwner is the --owner flag of the secret commands: the CLI acts
// as admin, who may manage another owner's secrets.
type secretOwner struct {
	Owner string `name:"owner" placeholder:"NAME" help:"Manage this owner's secrets (those the agents with its tokens type) instead of admin's."`
}

// query is ?owner=… for the API, "" for admin's own.
func (o secretOwner) query() (string, error) {
	if o.Owner == "" {
		return "", nil
	}
	if err := auth.CheckOwner(o.Owner); err != nil {
		return "", usagef("--owner: %v", err)
	}
	return "?owner=" + url.QueryEscape(o.Owner), nil
}

type secretSetCmd struct {
	Name    string   `arg:"" name:"name" help:"The secret's name, e.g. GITHUB_PASSWORD: 1 to 64 letters, digits, '_', '.' and '-', starting with a letter."`
	Origins []string `name:"origin" sep:"none" placeholder:"URL" help:"Type it only on this origin, scheme://host[:port] (e.g. https://github.com); repeat for more (at most 16). Without: on any origin."`
	secretOwner
}

func (c *secretSetCmd) run(ctx context.Context, e *env) error {
	if err := secrets.CheckName(c.Name); err != nil {
		return usageError{err}
	}
	norm, err := secrets.Origins(c.Origins)
	if err != nil {
		return usagef("--origin: %v", err)
	}
	q, err := c.query()
	if err != nil {
		return err
	}
	value, err := readSecretValue(ctx, e.stdin, e.stderr, c.Name)
	if err != nil {
		return err
	}
	var info httpapi.SecretInfo
	if err := e.api(ctx, "PUT", "/api/secrets/"+url.PathEscape(c.Name)+q, httpapi.SecretRequest{Value: &value, Origins: norm}, &info); err != nil {
		return err
	}
	if e.g.JSON {
		return writeJSON(e.stdout, info)
	}
	where := "any origin"
	if len(info.Origins) > 0 {
		where = strings.Join(info.Origins, ", ")
	}
	fmt.Fprintf(e.stdout, "secret %s kept, typed on %s\n", info.Name, where)
	return nil
}

type secretListCmd struct {
	secretOwner
}

func (c *secretListCmd) run(ctx context.Context, e *env) error {
	q, err := c.query()
	if err != nil {
		return err
	}
	var l httpapi.SecretList
	if err := e.api(ctx, "GET", "/api/secrets"+q, nil, &l); err != nil {
		return err
	}
	if e.g.JSON {
		return writeJSON(e.stdout, l)
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tUPDATED\tORIGINS")
	for _, s := range l.Secrets {
		origins := "any"
		if len(s.Origins) > 0 {
			origins = strings.Join(s.Origins, " ")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", s.Name, s.Updated.Local().Format(time.DateTime), origins)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(l.Secrets) == 0 {
		fmt.Fprintln(e.stderr, "no secrets; keep one with: browserd secret set NAME [--origin URL] < file (or type it when asked)")
	}
	return nil
}

type secretRmCmd struct {
	Name string `arg:"" name:"name" help:"The secret's name (browserd secret list shows them)."`
	secretOwner
}

func (c *secretRmCmd) run(ctx context.Context, e *env) error {
	q, err := c.query()
	if err != nil {
		return err
	}
	if err := e.api(ctx, "DELETE", "/api/secrets/"+url.PathEscape(c.Name)+q, nil, nil); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "deleted secret %s\n", c.Name)
	return nil
}

// readSecretValue reads a secret's value from in: from a terminal one
// line typed without echo (prompted on prompt), else all of it; one
// trailing newline is dropped. It refuses an empty value, and one that
// package secrets refuses, without ever showing it.
func readSecretValue(ctx context.Context, in io.Reader, prompt io.Writer, name string) (string, error) {
	if in == nil {
		in = strings.NewReader("")
	}
	var (
		raw string
		err error
	)
	if f, ok := in.(*os.File); ok && isTerminal(f) {
		fmt.Fprintf(prompt, "value of secret %s (not shown; Enter ends it): ", name)
		raw, err = readHiddenLine(ctx, f)
		fmt.Fprintln(prompt)
	} else {
		var b []byte
		b, err = io.ReadAll(io.LimitReader(in, secrets.MaxValue+3)) // a CRLF past the longest value, and one byte to tell
		raw = string(b)
	}
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return "", errors.New("interrupted: no secret kept")
		}
		return "", fmt.Errorf("reading the secret's value from stdin: %w", err)
	}
	value := strings.TrimSuffix(raw, "\n")
	if len(value) < len(raw) {
		value = strings.TrimSuffix(value, "\r")
	}
	if value == "" {
		return "", usagef("no value on stdin: pipe it in (browserd secret set %s < file, or printf %%s \"$VALUE\" | browserd secret set %s), or run it in a terminal and type it when asked", name, name)
	}
	if err := secrets.CheckValue(value); err != nil {
		return "", usageError{err}
	}
	return value, nil
}
