package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/google/uuid"
)

// attachReceipt attaches a generated PDF-headed file of mb MB to a transaction of the
// seeded workspace over HTTP, then downloads it, and reports each one's time and the
// most the server held meanwhile: resident, and Go heap in use (sampled every 100 ms).
// inBucket says the server keeps its files in a bucket, not in the database.
func attachReceipt(ctx context.Context, s *importServer, mb int, inBucket bool, out io.Writer) error {
	var tx uuid.UUID
	if err := s.pool.QueryRow(ctx, `SELECT id FROM transactions WHERE deleted_at IS NULL ORDER BY created_version DESC LIMIT 1`).Scan(&tx); err != nil {
		return fmt.Errorf("a transaction to attach a receipt to: %w", err)
	}
	file := make([]byte, mb<<20)
	rng := rand.New(rand.NewPCG(28, 10))
	for i := range file {
		file[i] = byte(rng.UintN(256))
	}
	copy(file, "%PDF-1.7\n")
	where := "the database"
	if inBucket {
		where = "a bucket of versitygw"
	}
	fmt.Fprintf(out, "\n== a receipt of %d MB attached to a transaction of the same workspace, kept in %s, then downloaded\n", mb, where)
	path := "/api/transactions/" + tx.String() + "/attachments"

	idle, err := s.goHeap(ctx)
	if err != nil {
		return err
	}
	heapPeak := s.sampleHeap(ctx)
	s.peak.Store(0)
	started := time.Now()
	raw, err := s.send(ctx, http.MethodPost, path+"?fileName=receipt.pdf", "application/pdf", file, http.StatusCreated)
	took, most, rss := time.Since(started), heapPeak(), s.peakNow()
	if err != nil {
		s.keep = true
		return fmt.Errorf("attach: %w (server log: %s)", err, s.logPath)
	}
	var attached struct{ Attachment struct{ ID string } }
	if err := json.Unmarshal(raw, &attached); err != nil {
		return err
	}
	fmt.Fprintf(out, "upload: %.2f s; server RSS at most %d MiB, Go heap in use at most %d MiB (%d MiB before)\n",
		took.Seconds(), rss>>20, most>>20, idle>>20)

	heapPeak = s.sampleHeap(ctx)
	s.peak.Store(0)
	started = time.Now()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.base+path+"/"+attached.Attachment.ID, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+s.token)
	got, err := exchange(s.client, req, http.StatusOK)
	took, most, rss = time.Since(started), heapPeak(), s.peakNow()
	if err != nil {
		return fmt.Errorf("download: %w", err)
	}
	if !bytes.Equal(got, file) {
		return fmt.Errorf("download: %d bytes, not the %d attached", len(got), len(file))
	}
	fmt.Fprintf(out, "download: %.2f s; server RSS at most %d MiB, Go heap in use at most %d MiB\n", took.Seconds(), rss>>20, most>>20)
	return nil
}
