// Package s3server runs a real S3-compatible server for tests: Versity's gateway
// (github.com/versity/versitygw) serving a temporary folder with its posix backend, so
// that an object is a plain file a test can damage. The gateway is built from the Go
// module proxy once per machine, into the user's cache folder.
package s3server

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
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

// The gateway's one account, and the bucket Start creates.
const (
	AccessKey = "finledger"
	SecretKey = "finledger-test-secret"
	Bucket    = "receipts"
)

// Server is a versitygw serving a folder of its own on a loopback port.
type Server struct {
	// URL is the endpoint, http://127.0.0.1:PORT.
	URL string
	// Dir is the folder the posix backend keeps the buckets in, one folder each.
	Dir string

	bin, addr, meta string
	mu              sync.Mutex
	stop            func() // nil while stopped
}

// Start builds versitygw if this machine has not yet, starts it on a free port with an
// empty folder and creates Bucket; it stops when the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	s, err := Run(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	return s
}

// Run starts versitygw as Start does, for a program that is no test (the benchmark):
// its buckets and its metadata go in two folders it makes in dir, and it runs until Stop.
func Run(dir string) (*Server, error) {
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
	if s.addr, err = freeAddr(); err != nil {
		return nil, err
	}
	s.URL = "http://" + s.addr
	if err := s.start(); err != nil {
		return nil, err
	}
	client, err := minio.New(s.addr, &minio.Options{Creds: credentials.NewStaticV4(AccessKey, SecretKey, "")})
	if err == nil {
		err = client.MakeBucket(context.Background(), Bucket, minio.MakeBucketOptions{})
	}
	if err != nil {
		s.Stop()
		return nil, fmt.Errorf("versitygw: create the bucket: %w", err)
	}
	return s, nil
}

// Config is the settings of a store of Bucket.
func (s *Server) Config() attachments.S3Config {
	return attachments.S3Config{Endpoint: s.URL, Bucket: Bucket, AccessKey: AccessKey, SecretKey: SecretKey}
}

// ObjectPath is the file that holds an object of Bucket.
func (s *Server) ObjectPath(name string) string {
	return filepath.Join(s.Dir, Bucket, filepath.FromSlash(name))
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
	stop, err := run(s.bin, s.addr, s.Dir, s.meta)
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

// run starts versitygw on addr, serving dir (its metadata in meta, a sidecar folder,
// which needs no extended attributes of the file system), and returns once it answers.
func run(bin, addr, dir, meta string) (func(), error) {
	cmd := exec.Command(bin, "--access", AccessKey, "--secret", SecretKey, "--port", addr, "--quiet",
		"posix", "--sidecar", meta, dir)
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
	client := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := client.Get("http://" + addr + "/")
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
