package main

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/finledger/finledger/httpapi/session"
	"github.com/finledger/finledger/internal/testkit/testdb"
)

// A serve process stopped by SIGTERM, with its relay and dispatcher busy on the
// in-process NATS server, exits 0 and logs no error on the way out.
func TestSIGTERMStopsServeWithoutAnError(t *testing.T) {
	dir := t.TempDir()
	bin, _ := buildBinaries(t, dir)
	const secret = "a-session-secret-for-the-stop-test"
	addr := freeAddr(t)
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(cmd.Environ(), "FINLEDGER_DATABASE_URL="+testdb.URL(t), "FINLEDGER_HTTP_ADDR="+addr,
		"FINLEDGER_DATA_DIR="+dir, "FINLEDGER_SESSION_HS256_SECRET="+secret, "FINLEDGER_DB_MAX_CONNS=4")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() { _ = cmd.Process.Kill() }()
	base := "http://" + addr
	for deadline := time.Now().Add(serveStartTimeout); ; time.Sleep(100 * time.Millisecond) {
		if resp, err := http.Get(base + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not start:\n%s", stderr.String())
		}
	}
	token, err := session.MintHS256(secret, session.Claims{Subject: "stopper", Email: "stop@example.com"}, time.Now(), time.Hour, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, body := range []string{`{"name":"Cash","isDefault":true}`, `{"type":"expense","amount":1}`} {
		path := "/api/wallets"
		if strings.Contains(body, "expense") {
			path = "/api/transactions"
		}
		if status, answer := call(t, "POST", base+path, token, body); status >= 300 {
			t.Fatalf("%s: %d %s", path, status, answer)
		}
	}
	time.Sleep(500 * time.Millisecond) // the relay publishes, the dispatcher pulls again
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	select {
	case err := <-exited:
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			t.Errorf("serve exited %d", exit.ExitCode())
		}
	case <-ctx.Done():
		t.Fatal("serve did not stop within a minute of SIGTERM")
	}
	if strings.Contains(stderr.String(), "level=ERROR") {
		t.Fatalf("errors logged:\n%s", stderr.String())
	}
}
