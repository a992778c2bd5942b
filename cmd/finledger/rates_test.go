package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/finledger/finledger/internal/testkit/testdb"
)

// `finledger rates` fetches the ECB's feed; without the network it says so and, with
// --snapshot, loads the history shipped with the binary, once.
func TestRatesCommand(t *testing.T) {
	ctx := context.Background()
	feed, err := os.ReadFile("../../internal/fx/testdata/eurofxref-daily.xml")
	if err != nil {
		t.Fatal(err)
	}
	ecb := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write(feed) }))
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusServiceUnavailable) }))
	defer ecb.Close()
	defer down.Close()
	cfg := config{DatabaseURL: testdb.URL(t), DBMaxConns: 2, ECBURL: ecb.URL}
	out := &bytes.Buffer{}
	if err := run(ctx, cfg, out, "rates", nil); err != nil || !strings.Contains(out.String(), "imported 29 reference rates") {
		t.Fatalf("%v: %s", err, out)
	}
	cfg.ECBURL = down.URL
	if err := run(ctx, cfg, out, "rates", nil); err == nil || !strings.Contains(err.Error(), "--snapshot") {
		t.Fatalf("without the feed: %v", err)
	}
	for _, want := range []string{"added 21", "added 0 "} {
		out.Reset()
		if err := run(ctx, cfg, out, "rates", []string{"--snapshot"}); err != nil || !strings.Contains(out.String(), "cannot be reached") ||
			!strings.Contains(out.String(), want) {
			t.Fatalf("--snapshot: %v: %s, want %q", err, out, want)
		}
	}
}
