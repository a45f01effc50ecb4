// Command browserd is a browser server for AI agents: `browserd serve` runs
// the daemon, `browserd mcp` speaks MCP over stdio, and the other commands
// are browser actions. See `browserd --help`.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/browserd/browserd/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	code := cli.Run(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}
