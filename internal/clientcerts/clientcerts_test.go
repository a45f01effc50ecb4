package clientcerts

import (
	"context"
	"strings"
	"testing"

	"github.com/browserd/browserd/internal/config"
	"github.com/browserd/browserd/internal/sessions"
	"github.com/browserd/browserd/internal/tool"
)

// TestReadClientCerts: none is none; a certificate that does not parse
// names its index; without browserd's guard, or attached, none applies.
func TestReadClientCerts(t *testing.T) {
	k := &Certs{Registry: &sessions.Registry{Cfg: config.Default()}}
	if certs, err := k.ReadClientCerts(&tool.Input{}); certs != nil || err != nil {
		t.Fatalf("none: %v %v", certs, err)
	}
	in := &tool.Input{ClientCertificates: []tool.ClientCertificate{{Origin: "https://mtls.test", Cert: "not a PEM", Key: "not a key"}}}
	if _, err := k.ReadClientCerts(in); err == nil || !strings.Contains(err.Error(), "clientCertificates[0]") {
		t.Fatalf("a bad certificate: %v", err)
	}
	k.NoProxy = true
	if _, err := k.ReadClientCerts(in); err == nil || !strings.Contains(err.Error(), "runs without") {
		t.Fatalf("without the guard: %v", err)
	}
	k.Cfg.CDP = "http://127.0.0.1:9222"
	if _, err := k.ReadClientCerts(in); err == nil || !strings.Contains(err.Error(), "--cdp") {
		t.Fatalf("attached: %v", err)
	}
}

// TestApplyNone: a session without certificates and without a profile
// gets none, and nothing is said.
func TestApplyNone(t *testing.T) {
	k := &Certs{Registry: &sessions.Registry{}}
	notes, err := k.ApplyClientCerts(context.Background(), &sessions.Session{ID: "s1"}, nil, true, true)
	if err != nil || len(notes) != 0 {
		t.Fatalf("notes %v, err %v", notes, err)
	}
}
