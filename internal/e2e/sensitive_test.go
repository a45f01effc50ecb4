//go:build linux

package e2e

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"os/exec"
	"strings"
	"testing"

	"software.sslmate.com/src/go-pkcs12"

	"github.com/browserd/browserd/internal/testsite"
)

// TestDrillCredentialsNotRecorded (issue 36 #4): after launch with client
// certificates (PEM, and PKCS#12 with its passphrase) and HTTP logins,
// the task's recording — GET /api/sessions/{id}/trace as JSON and HTML,
// and `browserd trace` — shows no private key, PKCS#12 file, passphrase
// or password: tool.Input declares those fields sensitive, and the
// recording keeps its redacted copy.
func TestDrillCredentialsNotRecorded(t *testing.T) {
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
	blk, _ := pemDecode(certPEM)
	leaf, _ := x509.ParseCertificate(blk)
	pair, _ := tls.X509KeyPair(certPEM, keyPEM)
	const passphrase, password = "Pf9-passphrase-Qx", "Hw7-password-Zk"
	pfxBytes, err := pkcs12.Modern.Encode(pair.PrivateKey, leaf, nil, passphrase)
	if err != nil {
		t.Fatal(err)
	}
	pfx := base64.StdEncoding.EncodeToString(pfxBytes)
	keyBody, _ := pemDecode(keyPEM)
	keyB64 := base64.StdEncoding.EncodeToString(keyBody)
	leaks := map[string]string{
		"the PEM key's header": "PRIVATE KEY", "the PEM key": keyB64[20:60], "the PEM key's end": keyB64[len(keyB64)-40:],
		"the PKCS#12 file": pfx[100:140], "the passphrase": passphrase, "the password": password,
	}

	data := t.TempDir()
	addr := freeAddr(t)
	startDaemon(t, data, "--listen", addr)
	admin := tcpAPI(t, addr, adminToken(t, data))
	var res struct {
		Success bool   `json:"success"`
		Error   string `json:"error"`
	}
	for session, cert := range map[string]map[string]string{
		"pem": {"origin": site.URL, "cert": string(certPEM), "key": string(keyPEM), "ca": string(pki.CAPEM)},
		"p12": {"origin": site.URL, "pfx": pfx, "passphrase": passphrase, "ca": string(pki.CAPEM)},
	} {
		admin.expect(200, "POST", "/api/actions", map[string]any{"action": "launch", "session": session,
			"clientCertificates": []map[string]string{cert},
			"httpCredentials":    []map[string]string{{"origin": site.URL, "username": "ada", "password": password}}}, &res)
		if !res.Success {
			t.Fatalf("launch %s: %s", session, res.Error)
		}
		admin.expect(200, "POST", "/api/actions", map[string]any{"action": "navigate", "session": session, "url": site.URL + "/"}, &res)
		if !res.Success {
			t.Fatalf("navigate %s: %s", session, res.Error)
		}
		traces := map[string]string{}
		for _, q := range []string{"", "?format=html"} {
			status, b := admin.call("GET", "/api/sessions/"+session+"/trace"+q, nil, nil)
			if status != 200 || !strings.Contains(string(b), "clientCertificates") {
				t.Fatalf("GET trace%s: %d %.300s", q, status, b)
			}
			traces["GET /api/sessions/"+session+"/trace"+q] = string(b)
		}
		out, err := exec.Command(browserdBin(t), append(daemonFlags(data), "trace", session)...).Output()
		if err != nil || !strings.Contains(string(out), "clientCertificates") {
			t.Fatalf("browserd trace: %v %.300s", err, out)
		}
		traces["browserd trace"] = string(out)
		for where, text := range traces {
			for what, s := range leaks {
				if strings.Contains(text, s) || strings.Contains(text, strings.ReplaceAll(s, "+", `\u002b`)) || strings.Contains(text, strings.ReplaceAll(s, "/", `\/`)) {
					t.Errorf("%s (session %s) shows %s", where, session, what)
				}
			}
		}
	}
}
