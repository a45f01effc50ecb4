package engine

import (
	"github.com/browserd/browserd/internal/httpapi"
	"github.com/browserd/browserd/internal/live"
)

// The dashboard finds what it needs on the engine (the daemon checks it
// at run time).
var _ live.Engine = (*Engine)(nil)

// The API manages secrets through the engine.
var _ httpapi.SecretStore = (*Engine)(nil)
