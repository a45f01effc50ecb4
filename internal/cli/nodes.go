package cli

import (
	"context"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/browserd/browserd/internal/cluster"
)

// nodesCmd lists the node registry (GET /api/nodes; docs/cluster.md).
type nodesCmd struct{}

func (c *nodesCmd) run(ctx context.Context, e *env) error {
	var l struct {
		Nodes    []cluster.NodeInfo `json:"nodes"`
		LeaseTTL string             `json:"leaseTtl"`
	}
	if err := e.api(ctx, "GET", "/api/nodes", nil, &l); err != nil {
		return err
	}
	if e.g.JSON {
		return writeJSON(e.stdout, l)
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NODE\tSTATE\tURL\tSESSIONS\tTABS\tCHROMIUM\tHEARTBEAT")
	for _, n := range l.Nodes {
		state := "live"
		if !n.Live {
			state = "dead"
		}
		if n.Self {
			state += " (this one)"
		}
		url := n.URL
		if url == "" {
			url = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%s\t%s ago\n", n.ID, state, url, n.Sessions, n.Tabs, mib(n.ChromiumBytes), time.Since(n.Heartbeat).Round(time.Second))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(l.Nodes) <= 1 {
		fmt.Fprintln(e.stderr, "one node on this store; others join with the same --db and --secret-key-file (docs/cluster.md)")
	}
	return nil
}

// mib is a byte count in MiB, as ps shows memory.
func mib(b int64) string { return fmt.Sprintf("%d MiB", b>>20) }
