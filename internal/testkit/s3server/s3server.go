// Package s3server runs a real S3-compatible server for tests: Versity's gateway
// (github.com/versity/versitygw) serving a temporary folder with its posix backend, so
// that an object is a plain file a test can damage. The gateway is built from the Go
// module proxy once per machine, into the user's cache folder. Start serves plain HTTP;
// StartTLS serves HTTPS with a certificate of its own for 127.0.0.1, for clients that
// speak S3 over TLS only (pgBackRest).
package s3server

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/finledger/finledger/attachments"
	"github.com/finledger/finledger/internal/testkit/gotool"
)

// Version is the versitygw the tests run.
const Version = "v1.8.0"

// The gateway's one account, the bucket Start creates, and the region it answers for.
const (
	AccessKey = "finledger"
	SecretKey = "finledger-test-secret"
	Bucket    = "receipts"
	Region    = "us-east-1"
)

// Server is a versitygw serving a folder of its own on a loopback port.
type Server struct {
	// URL is the endpoint, http://127.0.0.1:PORT, or https:// with StartTLS.
	URL string
	// Dir is the folder the posix backend keeps the buckets in, one folder each.
	Dir string
	// CAFile is, with StartTLS, the PEM file of the server's self-signed certificate,
	// which a client trusts to reach it; empty over plain HTTP.
	CAFile string

	bin, addr, meta string
	tls             *tlsFiles // nil over plain HTTP
	mu              sync.Mutex
	stop            func() // nil while stopped
}

// tlsFiles are the certificate and key the gateway serves HTTPS with, and the pool of
// the one certificate for this package's own requests.
type tlsFiles struct {
	cert, key string
	roots     *x509.CertPool
}

// Start builds versitygw if this machine has not yet, starts it on a free port with an
// empty folder and creates Bucket; it stops when the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	return startTest(t, false)
}

// StartTLS starts versitygw as Start does, serving HTTPS with a self-signed certificate
// for the address 127.0.0.1 made for it, kept in CAFile.
func StartTLS(t testing.TB) *Server {
	t.Helper()
	return startTest(t, true)
}

func startTest(t testing.TB, overTLS bool) *Server {
	t.Helper()
	s, err := launch(t.TempDir(), overTLS)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	return s
}

// Run starts versitygw as Start does, for a program that is no test (the benchmark):
// its buckets and its metadata go in two folders it makes in dir, and it runs until Stop.
func Run(dir string) (*Server, error) { return launch(dir, false) }

func launch(dir string, overTLS bool) (*Server, error) {
	bin, err := gotool.Binary("github.com/versity/versitygw/cmd/versitygw", Version)
	if err != nil {
		return nil, err
	}
	s := &Server{bin: bin, Dir: filepath.Join(dir, "buckets"), meta: filepath.Join(dir, "metadata")}
	for _, d := range []string{s.Dir, s.meta} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, fmt.Errorf("versitygw: %w", err)
		}
	}
	if overTLS {
		if s.tls, err = selfSigned(filepath.Join(dir, "tls")); err != nil {
			return nil, err
		}
		s.CAFile = s.tls.cert
	}
	// Another process may bind the free port before the gateway does (the suite's
	// packages run side by side): it is then started on another.
	for attempt := 1; ; attempt++ {
		if s.addr, err = freeAddr(); err != nil {
			return nil, err
		}
		err = s.start()
		if err == nil || attempt == 3 || !strings.Contains(err.Error(), "address already in use") {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	s.URL = "http://" + s.addr
	if overTLS {
		s.URL = "https://" + s.addr
	}
	if err := s.CreateBucket(Bucket); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

// CreateBucket creates another bucket, a folder of its own in Dir.
func (s *Server) CreateBucket(name string) error {
	opts := &minio.Options{Creds: credentials.NewStaticV4(AccessKey, SecretKey, ""), Region: Region}
	if s.tls != nil {
		opts.Secure = true
		opts.Transport = &http.Transport{TLSClientConfig: &tls.Config{RootCAs: s.tls.roots}}
	}
	client, err := minio.New(s.addr, opts)
	if err == nil {
		err = client.MakeBucket(context.Background(), name, minio.MakeBucketOptions{Region: Region})
	}
	if err != nil {
		return fmt.Errorf("versitygw: create the bucket %s: %w", name, err)
	}
	return nil
}

// Addr is the address the gateway listens on, 127.0.0.1:PORT.
func (s *Server) Addr() string { return s.addr }

// BucketDir is the folder that holds a bucket's objects, each a file under it.
func (s *Server) BucketDir(bucket string) string { return filepath.Join(s.Dir, bucket) }

// Config is the settings of a store of Bucket.
func (s *Server) Config() attachments.S3Config {
	return attachments.S3Config{Endpoint: s.URL, Bucket: Bucket, AccessKey: AccessKey, SecretKey: SecretKey}
}

// ObjectPath is the file that holds an object of Bucket.
func (s *Server) ObjectPath(name string) string {
	return filepath.Join(s.BucketDir(Bucket), filepath.FromSlash(name))
}

// Stop ends the gateway: until Resume, its port refuses every request, as an endpoint
// out of reach would.
func (s *Server) Stop() {
	s.mu.Lock()
	stop := s.stop
	s.stop = nil
	s.mu.Unlock()
	if stop != nil {
		stop()
	}
}

// Resume starts the gateway again, on the same port and folders.
func (s *Server) Resume(t testing.TB) {
	t.Helper()
	if err := s.start(); err != nil {
		t.Fatal(err)
	}
}

func (s *Server) start() error {
	stop, err := run(s.bin, s.addr, s.Dir, s.meta, s.tls)
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.stop = stop
	s.mu.Unlock()
	return nil
}

// freeAddr returns a loopback address no one listens on: the gateway prints no address
// it chose itself, so it is given one.
func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("versitygw: find a free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// selfSigned writes into dir a self-signed certificate for the address 127.0.0.1 (as an
// address and as a name), valid for a day, and its key.
func selfSigned(dir string) (*tlsFiles, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("versitygw: %w", err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("versitygw: certificate key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 64))
	if err != nil {
		return nil, fmt.Errorf("versitygw: certificate serial: %w", err)
	}
	template := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: "127.0.0.1"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		// pgBackRest (2.45) matches the host it was given against the names of type DNS
		// alone, the address among them.
		DNSNames:              []string{"127.0.0.1"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true, // its own authority, which clients are given
	}
	der, err := x509.CreateCertificate(rand.Reader, template, template, &key.PublicKey, key)
	if err != nil {
		return nil, fmt.Errorf("versitygw: certificate: %w", err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("versitygw: certificate key: %w", err)
	}
	cert, _ := x509.ParseCertificate(der)
	f := &tlsFiles{cert: filepath.Join(dir, "cert.pem"), key: filepath.Join(dir, "key.pem"), roots: x509.NewCertPool()}
	f.roots.AddCert(cert)
	if err := os.WriteFile(f.cert, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		return nil, fmt.Errorf("versitygw: %w", err)
	}
	if err := os.WriteFile(f.key, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		return nil, fmt.Errorf("versitygw: %w", err)
	}
	return f, nil
}

// run starts versitygw on addr, serving dir (its metadata in meta, a sidecar folder,
// which needs no extended attributes of the file system), over TLS with certs unless
// nil, and returns once it answers.
func run(bin, addr, dir, meta string, certs *tlsFiles) (func(), error) {
	args := []string{"--access", AccessKey, "--secret", SecretKey, "--region", Region, "--port", addr, "--quiet"}
	scheme, client := "http", &http.Client{Timeout: time.Second}
	if certs != nil {
		// Keep-alive spares a client that makes thousands of requests (pgBackRest's
		// backups and restores) a TLS handshake for each.
		args = append(args, "--cert", certs.cert, "--key", certs.key, "--keep-alive")
		scheme = "https"
		client.Transport = &http.Transport{TLSClientConfig: &tls.Config{RootCAs: certs.roots}}
	}
	cmd := exec.Command(bin, append(args, "posix", "--sidecar", meta, dir)...)
	var output bytes.Buffer
	cmd.Stdout, cmd.Stderr = &output, &output
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start versitygw: %w", err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			_ = cmd.Process.Kill()
			<-exited
		})
	}
	// Any answer, a refusal of the unsigned request included, says it listens.
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := client.Get(scheme + "://" + addr + "/")
		if err == nil {
			resp.Body.Close()
			return stop, nil
		}
		select {
		case <-exited:
			return nil, fmt.Errorf("versitygw exited before listening on %s: %s", addr, output.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			stop()
			return nil, fmt.Errorf("versitygw did not listen on %s within 30s: %s", addr, output.String())
		}
	}
}
