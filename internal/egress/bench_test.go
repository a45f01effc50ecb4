package egress

import (
	"io"
	"net/http"
	"testing"
)

// BenchmarkProxyGET compares a small GET through the proxy with the same
// GET made directly (both over keep-alive connections).
func BenchmarkProxyGET(b *testing.B) {
	up := startUpstream(b, "127.0.0.1", false)
	p := newProxy(b, Options{Policy: Policy{AllowHosts: []string{up.addr}}})
	target := up.URL + "/bench"
	run := func(b *testing.B, c *http.Client) {
		b.ReportAllocs()
		for b.Loop() {
			resp, err := c.Get(target)
			if err != nil {
				b.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				b.Fatalf("status %d", resp.StatusCode)
			}
		}
	}
	b.Run("direct", func(b *testing.B) {
		tr := &http.Transport{}
		defer tr.CloseIdleConnections()
		run(b, &http.Client{Transport: tr})
	})
	b.Run("proxy", func(b *testing.B) {
		run(b, proxyClient(b, p.URL(), nil))
	})
}
