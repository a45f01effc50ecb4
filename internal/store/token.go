package store

import (
	"fmt"

	"github.com/browserd/browserd/internal/policy"
)

// TokenPolicy reads the policy a token row keeps ("" for none). A policy
// that no longer reads fails the token: its agents get nothing rather
// than more than their owner gave.
func TokenPolicy(id, raw string) (*policy.Policy, error) {
	p, err := policy.Parse([]byte(raw))
	if err != nil {
		return nil, fmt.Errorf("token %s: its stored policy does not read (%w); revoke it and create it again", id, err)
	}
	return p, nil
}
