//go:build linux

package e2e

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"software.sslmate.com/src/go-pkcs12"

	"github.com/browserd/browserd/internal/testsite"
	"github.com/browserd/browserd/internal/tool"
)

// TestClientCertificates: a site that requires a client certificate (mutual
// TLS, on loopback) opens for a session launched with one — PEM or
// PKCS#12, kept with its profile for the profile's next sessions — through
// the engine, MCP and the CLI; not for a session without one, and a
// site whose certificate the given CA did not sign is refused, saying so.
func TestClientCertificates(t *testing.T) {
	t.Parallel() // its own daemon or engine: waits more than it works, beside others (make test's budget)
	pki, err := testsite.NewPKI("test CA")
	if err != nil {
		t.Fatal(err)
	}
	site, err := pki.MTLSServer()
	if err != nil {
		t.Fatal(err)
	}
	defer site.Close()
	certPEM, keyPEM, err := pki.Issue("ada", true)
	if err != nil {
		t.Fatal(err)
	}
	cc := tool.ClientCertificate{Origin: site.URL, Cert: string(certPEM), Key: string(keyPEM), CA: string(pki.CAPEM)}
	cfg := testConfig(t)
	_, do := newEngine(t, cfg)

	// No certificate: the site is not reached.
	if r := do(tool.Input{Action: "navigate", Session: "plain", URL: site.URL + "/"}); r.Success && strings.Contains(r.Content, "Hello") {
		t.Fatalf("a session without a client certificate reached the site: %s", r.Content)
	}
	// A profile's session with one: the site greets the certificate.
	r := do(tool.Input{Action: "launch", Profile: "bank", ClientCertificates: []tool.ClientCertificate{cc}})
	if !r.Success || !strings.Contains(strings.Join(r.Notes, " "), "presents client certificate CN=ada") {
		t.Fatalf("launch with a client certificate: ok=%v err=%q notes=%q", r.Success, r.Error, r.Notes)
	}
	if r := do(tool.Input{Action: "navigate", Profile: "bank", URL: site.URL + "/"}); !r.Success || !strings.Contains(r.Content, "Hello ada") {
		t.Fatalf("navigate with the certificate: ok=%v err=%q %s", r.Success, r.Error, r.Content)
	}
	for _, x := range []string{string(keyPEM)[30:60], "PRIVATE KEY"} {
		if strings.Contains(r.Content+strings.Join(r.Notes, " "), x) {
			t.Fatal("an answer shows the key")
		}
	}
	// Kept with the profile: its next session has it without asking.
	if r := do(tool.Input{Action: "close", Profile: "bank"}); !r.Success {
		t.Fatal(r.Error)
	}
	if r := do(tool.Input{Action: "navigate", Profile: "bank", URL: site.URL + "/"}); !r.Success || !strings.Contains(r.Content, "Hello ada") {
		t.Fatalf("the profile's next session: ok=%v err=%q %s", r.Success, r.Error, r.Content)
	}
	// PKCS#12.
	blk, _ := pemDecode(certPEM)
	leaf, _ := x509.ParseCertificate(blk)
	pair, _ := tls.X509KeyPair(certPEM, keyPEM)
	pfx, err := pkcs12.Modern.Encode(pair.PrivateKey, leaf, nil, "s3cret")
	if err != nil {
		t.Fatal(err)
	}
	p12 := tool.ClientCertificate{Origin: site.URL, PFX: base64.StdEncoding.EncodeToString(pfx), Passphrase: "s3cret", CA: string(pki.CAPEM)}
	if r := do(tool.Input{Action: "launch", Session: "p12", ClientCertificates: []tool.ClientCertificate{p12}}); !r.Success {
		t.Fatalf("launch with a PKCS#12: %s", r.Error)
	}
	if r := do(tool.Input{Action: "navigate", Session: "p12", URL: site.URL + "/"}); !r.Success || !strings.Contains(r.Content, "Hello ada") {
		t.Fatalf("navigate with the PKCS#12: ok=%v err=%q", r.Success, r.Error)
	}
	p12.Passphrase = "wrong"
	if r := do(tool.Input{Action: "launch", Session: "p12b", ClientCertificates: []tool.ClientCertificate{p12}}); r.Success || !strings.Contains(r.Error, "passphrase") {
		t.Errorf("a wrong passphrase: ok=%v err=%q", r.Success, r.Error)
	}
	// A CA that did not sign the site's certificate: refused, and said.
	other, _ := testsite.NewPKI("other CA")
	bad := cc
	bad.CA = string(other.CAPEM)
	do(tool.Input{Action: "launch", Session: "badca", ClientCertificates: []tool.ClientCertificate{bad}})
	r = do(tool.Input{Action: "navigate", Session: "badca", URL: site.URL + "/"})
	if strings.Contains(r.Content, "Hello") || !strings.Contains(strings.Join(r.Notes, " ")+r.Error, "TLS handshake with a site the session has a client certificate for failed") {
		t.Errorf("a site certificate the CA did not sign: ok=%v err=%q notes=%q", r.Success, r.Error, r.Notes)
	}

	// Through MCP and the CLI.
	m := newMCPDriver(t)
	ok(t, m, tool.Input{Action: "launch", Task: "m", ClientCertificates: []tool.ClientCertificate{cc}})
	if r := ok(t, m, tool.Input{Action: "navigate", Task: "m", URL: site.URL + "/"}); !strings.Contains(r.Content, "Hello ada") {
		t.Errorf("MCP: %s", r.Content)
	}
	dir := t.TempDir()
	for name, b := range map[string][]byte{"me.crt": certPEM, "me.key": keyPEM, "ca.crt": pki.CAPEM} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	data := t.TempDir()
	t.Cleanup(func() { stopDaemon(t, data) })
	if r := cli(t, data, "launch", "--client-cert", site.URL+"="+filepath.Join(dir, "me.crt")+","+filepath.Join(dir, "me.key")+","+filepath.Join(dir, "ca.crt")); !r.Success {
		t.Fatalf("CLI launch: %s", r.Error)
	}
	if r := cli(t, data, "open", site.URL+"/"); !r.Success || !strings.Contains(r.Content, "Hello ada") {
		t.Errorf("CLI open: ok=%v err=%q %s", r.Success, r.Error, r.Content)
	}
}

func pemDecode(b []byte) ([]byte, bool) {
	blk, _ := pem.Decode(b)
	if blk == nil {
		return nil, false
	}
	return blk.Bytes, true
}
