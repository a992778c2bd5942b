package s3server_test

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/finledger/finledger/internal/testkit/s3server"
)

// StartTLS serves HTTPS with a certificate for 127.0.0.1 that CAFile makes trusted, and
// no plain HTTP; an object written lands as a file in its bucket's folder.
func TestStartTLS(t *testing.T) {
	s := s3server.StartTLS(t)
	if !strings.HasPrefix(s.URL, "https://127.0.0.1:") || s.CAFile == "" {
		t.Fatalf("URL %s, CAFile %q", s.URL, s.CAFile)
	}
	pemBytes, err := os.ReadFile(s.CAFile)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(pemBytes) {
		t.Fatalf("no certificate in %s", s.CAFile)
	}
	client, err := minio.New(s.Addr(), &minio.Options{
		Creds: credentials.NewStaticV4(s3server.AccessKey, s3server.SecretKey, ""), Region: s3server.Region, Secure: true,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CreateBucket("backups"); err != nil {
		t.Fatal(err)
	}
	body := []byte("over TLS")
	if _, err := client.PutObject(context.Background(), "backups", "a/b", bytes.NewReader(body), int64(len(body)), minio.PutObjectOptions{}); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(filepath.Join(s.BucketDir("backups"), "a", "b")); err != nil || !bytes.Equal(got, body) {
		t.Fatalf("the object's file: %q, %v", got, err)
	}
	// Without the certificate a client refuses the server, and plain HTTP gets no answer.
	if _, err := http.Get(s.URL); err == nil {
		t.Error("a client without the certificate trusted the server")
	}
	if resp, err := http.Get("http://" + s.Addr() + "/"); err == nil {
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode < 400 {
			t.Errorf("plain HTTP answered %s: %s", resp.Status, body)
		}
	}
}

// Start still serves plain HTTP, for the receipts' store.
func TestStartPlain(t *testing.T) {
	s := s3server.Start(t)
	if !strings.HasPrefix(s.URL, "http://127.0.0.1:") || s.CAFile != "" {
		t.Fatalf("URL %s, CAFile %q", s.URL, s.CAFile)
	}
	if _, err := os.Stat(s.BucketDir(s3server.Bucket)); err != nil {
		t.Fatal(err)
	}
}
