package config

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/browserd/browserd/internal/policy"
)

// DefaultPolicySource is how messages name the daemon's default policy.
const DefaultPolicySource = "daemon default"

// resolvePolicy reads --default-policy (a JSON object, or a file that holds one)
// and folds --deny-actions into it: the daemon's default policy, for
// tokens without a policy of their own, the Unix socket and MCP over
// stdio. Calling it again is harmless.
func (c *Config) resolvePolicy() error {
	var p *policy.Policy
	if v := strings.TrimSpace(c.Policy); v != "" {
		b := []byte(v)
		if !strings.HasPrefix(v, "{") {
			abs, err := filepath.Abs(v)
			if err != nil {
				return fmt.Errorf("--default-policy %q: %w", v, err)
			}
			c.Policy = abs
			if b, err = os.ReadFile(abs); err != nil {
				return fmt.Errorf("--default-policy: give a JSON object or a file that holds one: %w", err)
			}
		}
		var err error
		if p, err = policy.Parse(b); err != nil {
			return fmt.Errorf("--default-policy: %w", err)
		}
	}
	if len(c.DenyActions) > 0 {
		if p == nil {
			p = &policy.Policy{}
		}
		q := *p
		q.Deny = slices.Clone(q.Deny)
		for _, a := range c.DenyActions {
			if !slices.Contains(q.Deny, a) {
				q.Deny = append(q.Deny, a)
			}
		}
		q.Allow = slices.DeleteFunc(slices.Clone(q.Allow), func(a string) bool { return slices.Contains(c.DenyActions, a) })
		q.Confirm = slices.DeleteFunc(slices.Clone(q.Confirm), func(a string) bool { return slices.Contains(c.DenyActions, a) })
		var err error
		if p, err = policy.Parse([]byte(mustJSON(&q))); err != nil {
			return fmt.Errorf("--deny-actions with --default-policy: %w", err)
		}
	}
	c.defaultPolicy = p.Named(DefaultPolicySource)
	return nil
}

func mustJSON(p *policy.Policy) string {
	if s := p.JSON(); s != "" {
		return s
	}
	return "{}"
}

// DefaultPolicy is the daemon's default policy (--default-policy with
// --deny-actions folded in); nil allows everything. Resolve sets it.
func (c *Config) DefaultPolicy() *policy.Policy { return c.defaultPolicy }
