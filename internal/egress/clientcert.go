package egress

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"software.sslmate.com/src/go-pkcs12"
)

// Client certificates (mutual TLS). A site that asks for a certificate
// gets the one its session was given for its origin, from browserd, not
// from Chromium: for such an origin the session's guard listener ends
// Chromium's TLS itself, with a certificate for the site that only
// Chromium trusts (its key's hash is on Chromium's
// --ignore-certificate-errors-spki-list, and the key never leaves this
// process), opens its own TLS connection to the address the guard
// checked, presenting the client certificate and checking the site's
// certificate (the system's roots, or the CA given with the client
// certificate), and relays the bytes between the two. The client
// certificate's key is never in Chromium, its profile or its memory.

// ClientCert is a client certificate for one origin.
type ClientCert struct {
	// HostPort is the origin's host:port (port 443 when the origin has
	// none), lower case.
	HostPort string
	Cert     tls.Certificate
	// Roots are the CAs the site's own certificate must chain to; nil:
	// the system's.
	Roots *x509.CertPool
}

// mitm is the proxy's key for the certificates it shows Chromium in place
// of a site's, and their cache.
type mitm struct {
	key  *ecdsa.PrivateKey
	spki string // base64 SHA-256 of the key's SubjectPublicKeyInfo

	mu    sync.Mutex
	certs map[string]*tls.Certificate // by host
}

func newMITM() (*mitm, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	der, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(der)
	return &mitm{key: key, spki: base64.StdEncoding.EncodeToString(sum[:]), certs: map[string]*tls.Certificate{}}, nil
}

// certFor is the certificate Chromium sees for host: self-signed with the
// proxy's key, valid for host.
func (m *mitm) certFor(host string) (*tls.Certificate, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if c := m.certs[host]; c != nil {
		return c, nil
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: host, Organization: []string{"browserd client-certificate bridge"}},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(30 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	if ip := net.ParseIP(host); ip != nil {
		tmpl.IPAddresses = []net.IP{ip}
	} else {
		tmpl.DNSNames = []string{host}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &m.key.PublicKey, m.key)
	if err != nil {
		return nil, err
	}
	c := &tls.Certificate{Certificate: [][]byte{der}, PrivateKey: m.key}
	m.certs[host] = c
	return c, nil
}

// BridgeSPKI is the base64 SHA-256 hash of the key of the certificates the
// proxy shows Chromium for sites it presents a client certificate to:
// the value of Chromium's --ignore-certificate-errors-spki-list.
func (p *Proxy) BridgeSPKI() string { return p.mitm.spki }

// SetClientCerts gives the session its client certificates (none: nil);
// tunnels opened before keep what they had.
func (s *Session) SetClientCerts(certs []ClientCert) {
	m := make(map[string]*ClientCert, len(certs))
	for i := range certs {
		c := certs[i]
		m[strings.ToLower(c.HostPort)] = &c
	}
	s.certs.Store(&m)
}

// clientCert is the session's certificate for host:port, nil for none.
func (s *Session) clientCert(host, port string) *ClientCert {
	m := s.certs.Load()
	if m == nil {
		return nil
	}
	return (*m)[strings.ToLower(net.JoinHostPort(strings.Trim(host, "[]"), port))]
}

// ErrClientCertRefused is in the error of a bridge whose site refused the
// session's client certificate or whose own certificate did not check.
var ErrClientCertRefused = errors.New("the TLS handshake with the site failed")

// bridge answers a CONNECT to a site the session has a client certificate
// for: TLS with the site first (a failure answers the CONNECT with 502),
// then TLS with Chromium, then the bytes relayed between them. up is the
// connection to the address the guard checked.
func (s *Session) bridge(w http.ResponseWriter, r *http.Request, up net.Conn, host string, cc *ClientCert) {
	ctx, cancel := context.WithTimeout(r.Context(), s.p.opts.DialTimeout)
	defer cancel()
	site := tls.Client(up, &tls.Config{
		ServerName:   strings.Trim(host, "[]"),
		Certificates: []tls.Certificate{cc.Cert},
		RootCAs:      cc.Roots,
		NextProtos:   []string{"http/1.1"},
		MinVersion:   tls.VersionTLS12,
	})
	if err := site.HandshakeContext(ctx); err != nil {
		why := handshakeWords(ctx, err)
		s.recordCertFailure(fmt.Sprintf("%v with %s, presenting the session's client certificate for it: %s", ErrClientCertRefused, host, why))
		http.Error(w, "browserd egress proxy: TLS with the site, presenting the session's client certificate, failed: "+why, http.StatusBadGateway)
		return
	}
	leaf, err := s.p.mitm.certFor(strings.Trim(host, "[]"))
	if err != nil {
		http.Error(w, "browserd egress proxy: "+err.Error(), http.StatusInternalServerError)
		return
	}
	conn, brw, ok := s.hijack(w)
	if !ok {
		return
	}
	defer s.untrack(conn)
	if _, err := conn.Write([]byte("HTTP/1.1 200 Connection Established\r\n\r\n")); err != nil {
		return
	}
	browser := tls.Server(&bufferedConn{Conn: conn, r: brw.Reader}, &tls.Config{
		Certificates: []tls.Certificate{*leaf},
		NextProtos:   []string{"http/1.1"},
		MinVersion:   tls.VersionTLS12,
	})
	if err := browser.HandshakeContext(ctx); err != nil {
		return
	}
	splice(browser, browser, site, site)
}

// handshakeWords says why a TLS handshake with a site failed, by its kind
// only: the error itself may quote what the other end sent (its
// certificate's names, a record's bytes), and that end may be an upstream
// proxy posing as the site; no byte it sent is shown to a page, an agent
// or a log.
func handshakeWords(ctx context.Context, err error) string {
	var rh tls.RecordHeaderError
	var cv *tls.CertificateVerificationError
	var alert tls.AlertError
	var ne net.Error
	switch {
	case errors.As(err, &rh):
		return "the site does not answer in TLS"
	case errors.As(err, &cv):
		return "the site's certificate does not check against the system's roots or the ca given for it"
	case errors.As(err, &alert):
		return "the site refused the handshake (a TLS alert): it may not accept this certificate"
	case ctx.Err() != nil || errors.As(err, &ne) && ne.Timeout():
		return "the site did not answer in time"
	}
	return "the handshake broke off (the site may not accept this certificate)"
}

func (s *Session) recordCertFailure(msg string) {
	s.p.log.Info("egress: client certificate handshake failed", "session", s.addr, "err", msg)
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.certFailed) < maxBlocked {
		s.certFailed = append(s.certFailed, msg)
	}
}

// CertFailures returns the TLS handshakes with sites the session presented
// a client certificate to that failed since the last call, and forgets
// them.
func (s *Session) CertFailures() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	f := s.certFailed
	s.certFailed = nil
	return f
}

// ParseClientCert reads a client certificate for origin
// (https://host[:port]): its chain and key as PEM, and the CAs the site's
// certificate must chain to (PEM; empty: the system's). Errors say what
// is wrong without quoting the key.
func ParseClientCert(origin, certPEM, keyPEM, caPEM string) (ClientCert, error) {
	hp, err := OriginHostPort(origin)
	if err != nil {
		return ClientCert{}, err
	}
	cert, err := tls.X509KeyPair([]byte(certPEM), []byte(keyPEM))
	if err != nil {
		return ClientCert{}, fmt.Errorf("the certificate and key for %s do not load as a PEM pair (%v): give the certificate (chain) and its unencrypted private key as PEM, or a PKCS#12 file as pfx", origin, errText(err))
	}
	if leaf, err := x509.ParseCertificate(cert.Certificate[0]); err == nil {
		cert.Leaf = leaf
		if time.Now().After(leaf.NotAfter) {
			return ClientCert{}, fmt.Errorf("the client certificate for %s (CN=%s) expired on %s", origin, leaf.Subject.CommonName, leaf.NotAfter.Format(time.DateOnly))
		}
	}
	cc := ClientCert{HostPort: hp, Cert: cert}
	if strings.TrimSpace(caPEM) != "" {
		cc.Roots = x509.NewCertPool()
		if !cc.Roots.AppendCertsFromPEM([]byte(caPEM)) {
			return ClientCert{}, fmt.Errorf("the ca for %s holds no PEM certificate", origin)
		}
	}
	return cc, nil
}

// errText is a TLS loading error without any of the key's bytes (Go's do
// not quote them; this keeps it so).
func errText(err error) string {
	s := err.Error()
	if i := strings.Index(s, "-----"); i >= 0 {
		s = s[:i]
	}
	return s
}

// OriginHostPort is an https origin's host:port (443 when it names none),
// lower case.
func OriginHostPort(origin string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(origin))
	if err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("origin %q: give an https origin, https://host[:port]; client certificates are presented over TLS only", origin)
	}
	port := u.Port()
	if port == "" {
		port = "443"
	}
	return strings.ToLower(net.JoinHostPort(u.Hostname(), port)), nil
}

// String says which certificate is presented: its subject
// and expiry, never its key.
func (c ClientCert) String() string {
	if c.Cert.Leaf == nil {
		return "a client certificate"
	}
	return fmt.Sprintf("client certificate CN=%s (until %s)", c.Cert.Leaf.Subject.CommonName, c.Cert.Leaf.NotAfter.Format(time.DateOnly))
}

// PFXToPEM turns a PKCS#12 file (base64) and its passphrase into the
// certificate chain and key as PEM, for ParseClientCert.
func PFXToPEM(pfxBase64, passphrase string) (certPEM, keyPEM string, err error) {
	data, err := base64.StdEncoding.DecodeString(strings.TrimSpace(pfxBase64))
	if err != nil {
		return "", "", fmt.Errorf("pfx is not base64: give the PKCS#12 file's bytes in base64 (base64 -w0 cert.p12)")
	}
	key, leaf, chain, err := pkcs12.DecodeChain(data, passphrase)
	if err != nil {
		return "", "", fmt.Errorf("the PKCS#12 file does not open (%v): check its passphrase", err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return "", "", fmt.Errorf("the PKCS#12 file's key: %w", err)
	}
	var b strings.Builder
	for _, c := range append([]*x509.Certificate{leaf}, chain...) {
		b.Write(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Raw}))
	}
	return b.String(), string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})), nil
}
