package remote_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/vxrun/vx/internal/cache"
	"github.com/vxrun/vx/internal/remote"
	"github.com/vxrun/vx/internal/remote/remotetest"
	"github.com/vxrun/vx/internal/testdir"
	"github.com/vxrun/vx/internal/testtool"
)

// pki writes a CA, a server certificate for 127.0.0.1 and a client
// certificate, both signed by the CA, as PEM files in dir.
func pki(t *testing.T, dir string) (ca, srvCert, srvKey, cliCert, cliKey string) {
	t.Helper()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "vx test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, _ := x509.ParseCertificate(caDER)
	write := func(name, typ string, der []byte) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600)
		return p
	}
	leaf := func(name string, serial int64, usage x509.ExtKeyUsage) (string, string) {
		k, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: name},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
			ExtKeyUsage: []x509.ExtKeyUsage{usage}, IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &k.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		kb, _ := x509.MarshalECPrivateKey(k)
		return write(name+".pem", "CERTIFICATE", der), write(name+"-key.pem", "EC PRIVATE KEY", kb)
	}
	ca = write("ca.pem", "CERTIFICATE", caDER)
	srvCert, srvKey = leaf("server", 2, x509.ExtKeyUsageServerAuth)
	cliCert, cliKey = leaf("client", 3, x509.ExtKeyUsageClientAuth)
	return
}

// TestBazelRemoteMutualTLS: grpcs:// with a private CA (VX_REMOTE_TLS_CA)
// and a client certificate pair against a bazel-remote that requires one.
func TestBazelRemoteMutualTLS(t *testing.T) {
	if _, ok := remotetest.ServerBinary(); !ok {
		testtool.Missing(t, "bazel-remote", "make bazel-remote builds bin/bazel-remote; .ci/run does")
	}
	dir := testdir.New(t)
	ca, sc, sk, cc, ck := pki(t, dir)
	srv := remotetest.Start(t, remotetest.Options{TLS: true, Args: []string{"--tls_cert_file", sc, "--tls_key_file", sk, "--tls_ca_file", ca}})
	ctx := ctxT(t)

	c, warn := startClient(t, remote.Config{URL: srv.URL, TLSCA: ca, TLSCert: cc, TLSKey: ck, Write: true})
	out := blob(t, []byte("over mutual TLS"))
	if err := c.UploadBlobs(ctx, []cache.BlobSource{out}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetActionResult(ctx, digestOf([]byte("tls"))); !errors.Is(err, cache.ErrNotFound) {
		t.Fatalf("with the client certificate: %v, want a miss", err)
	}
	if w := warn.list(); len(w) != 0 {
		t.Fatalf("warnings: %q", w)
	}

	noCert, noCertWarn := startClient(t, remote.Config{URL: srv.URL, TLSCA: ca, Timeout: 5 * time.Second})
	if _, err := noCert.GetActionResult(ctx, digestOf([]byte("tls"))); err == nil || errors.Is(err, cache.ErrNotFound) {
		t.Fatalf("without a client certificate: %v, want a fault", err)
	}
	if len(noCertWarn.list()) != 1 {
		t.Errorf("warnings = %q", noCertWarn.list())
	}
	untrusted, _ := startClient(t, remote.Config{URL: srv.URL, Timeout: 5 * time.Second})
	if _, err := untrusted.GetActionResult(ctx, digestOf([]byte("tls"))); err == nil || errors.Is(err, cache.ErrNotFound) {
		t.Fatalf("a server certificate from an unknown CA was accepted: %v", err)
	}
}
