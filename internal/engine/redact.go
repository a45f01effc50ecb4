package engine

import (
	"context"

	"github.com/browserd/browserd/internal/act"
)

// Secrets the agent types by name (type's and fill's secret) are
// internal/ownersecrets': resolved for the call from the owner's stored
// secrets, and redacted from every answer, HAR file and recording as
// `<secret NAME>` (Engine.Redactor).

// resolveSecrets reads the secrets the call types, for the action on the
// page (act.Tab.Secrets).
func (c *call) resolveSecrets(ctx context.Context) (map[string]act.Secret, error) {
	return c.e.ResolveSecrets(ctx, c.owner, &c.in)
}
