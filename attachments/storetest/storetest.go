// Package storetest is the conformance suite of attachments.Store: what every storage of
// receipts' files (PostgreSQL, an S3-compatible bucket) must do, written once
// and run by each implementation's tests. Run holds what a store promises its callers;
// RunCorruption, what it tells of bytes damaged behind its back, which only the store's
// own test knows how to damage.
package storetest

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/finledger/finledger/attachments"
)

// Run runs the suite against stores made by open, a fresh and empty one per test.
func Run(t *testing.T, open func(t *testing.T) attachments.Store) {
	tests := []struct {
		name string
		test func(*testing.T, attachments.Store)
	}{
		{"SaveThenOpenManyChunks", saveThenOpenManyChunks},
		{"SaveThenOpenSmall", saveThenOpenSmall},
		{"SaveTwice", saveTwice},
		{"SavesAtOnce", savesAtOnce},
		{"OtherWorkspace", otherWorkspace},
		{"Check", checkStored},
		{"DeleteThenOpen", deleteThenOpen},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.test(t, open(t)) })
	}
}

// RunCorruption checks that s reports a content whose stored bytes corrupt has changed
// behind its back: Check fails with ErrCorrupt naming the content, and so does reading
// it to the end, never ending as if whole. The content is a file of several chunks, as
// the store keeps it, so that corrupt may damage any part of it.
func RunCorruption(t *testing.T, s attachments.Store, corrupt func(t *testing.T, workspaceID uuid.UUID, sha256 string)) {
	t.Helper()
	ctx := context.Background()
	ws := uuid.New()
	u := Spool(t, PDF(t, 600<<10))
	if err := s.Save(ctx, ws, u); err != nil {
		t.Fatal(err)
	}
	corrupt(t, ws, u.SHA256)
	err := s.Check(ctx, ws, u.SHA256)
	if !errors.Is(err, attachments.ErrCorrupt) || !strings.Contains(err.Error(), u.SHA256) {
		t.Fatalf("check of a corrupt content: %v, want ErrCorrupt naming %s", err, u.SHA256)
	}
	c, err := s.Open(ctx, ws, u.SHA256)
	if err == nil {
		_, err = io.Copy(io.Discard, c)
		c.Close()
	}
	if !errors.Is(err, attachments.ErrCorrupt) {
		t.Fatalf("reading a corrupt content: %v, want ErrCorrupt", err)
	}
}

// PDF returns a file of size bytes that Spool takes for a PDF: its header, then random
// bytes, so that no two are alike.
func PDF(t testing.TB, size int) []byte {
	t.Helper()
	header := "%PDF-1.7\n"
	data := make([]byte, size)
	copy(data, header)
	if _, err := rand.Read(data[len(header):]); err != nil {
		t.Fatal(err)
	}
	return data
}

// Spool spools data as an upload of it, closed when t ends.
func Spool(t testing.TB, data []byte) *attachments.Upload {
	t.Helper()
	u, err := attachments.Spool(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("spool: %v", err)
	}
	t.Cleanup(func() { u.Close() })
	return u
}

// smallPNG is a PNG's signature and the start of its header chunk: a file of a few bytes,
// one chunk in any store.
var smallPNG = append([]byte{0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13}, "IHDR small receipt"...)

// hashOf is the name a store keeps data under.
func hashOf(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// wantStored fails t unless the workspace holds data as a content of that kind, read
// whole with its size known before.
func wantStored(t *testing.T, s attachments.Store, workspaceID uuid.UUID, data []byte, kind attachments.Kind) {
	t.Helper()
	c, err := s.Open(context.Background(), workspaceID, hashOf(data))
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	defer c.Close()
	if c.Size != int64(len(data)) || c.Kind != kind {
		t.Fatalf("opened a content of %d bytes of kind %q, want %d bytes of kind %q", c.Size, c.Kind, len(data), kind)
	}
	got, err := io.ReadAll(c)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	if !bytes.Equal(got, data) {
		t.Fatalf("read %d bytes unlike the %d saved", len(got), len(data))
	}
}

// wantNotFound fails t unless Open and Check both say the workspace lacks the content.
func wantNotFound(t *testing.T, s attachments.Store, workspaceID uuid.UUID, contentHash string) {
	t.Helper()
	ctx := context.Background()
	if c, err := s.Open(ctx, workspaceID, contentHash); !errors.Is(err, attachments.ErrNotFound) {
		if err == nil {
			c.Close()
		}
		t.Fatalf("open: %v, want ErrNotFound", err)
	}
	if err := s.Check(ctx, workspaceID, contentHash); !errors.Is(err, attachments.ErrNotFound) {
		t.Fatalf("check: %v, want ErrNotFound", err)
	}
}

// A file of several chunks comes back as it went, with its size and kind.
func saveThenOpenManyChunks(t *testing.T, s attachments.Store) {
	ws, data := uuid.New(), PDF(t, 600<<10)
	if err := s.Save(context.Background(), ws, Spool(t, data)); err != nil {
		t.Fatal(err)
	}
	wantStored(t, s, ws, data, attachments.PDF)
}

// A file of a few bytes comes back as it went.
func saveThenOpenSmall(t *testing.T, s attachments.Store) {
	ws := uuid.New()
	if err := s.Save(context.Background(), ws, Spool(t, smallPNG)); err != nil {
		t.Fatal(err)
	}
	wantStored(t, s, ws, smallPNG, attachments.PNG)
}

// A save of a content stored already succeeds and changes nothing, whether it is the
// same upload, partly read meanwhile, or the same file sent again.
func saveTwice(t *testing.T, s attachments.Store) {
	ctx, ws, data := context.Background(), uuid.New(), PDF(t, 300<<10)
	u := Spool(t, data)
	if err := s.Save(ctx, ws, u); err != nil {
		t.Fatal(err)
	}
	if _, err := io.CopyN(io.Discard, u, 1000); err != nil {
		t.Fatal(err)
	}
	if err := s.Save(ctx, ws, u); err != nil {
		t.Fatalf("second save of the upload: %v", err)
	}
	if err := s.Save(ctx, ws, Spool(t, data)); err != nil {
		t.Fatalf("save of the file sent again: %v", err)
	}
	wantStored(t, s, ws, data, attachments.PDF)
}

// Saves of one content at once, as instances receiving the same file would make them,
// all succeed, and the content is stored once whole.
func savesAtOnce(t *testing.T, s attachments.Store) {
	const saves = 4
	ws, data := uuid.New(), PDF(t, 600<<10)
	uploads := make([]*attachments.Upload, saves)
	for i := range uploads {
		uploads[i] = Spool(t, data)
	}
	start := make(chan struct{})
	errs := make([]error, saves)
	var wg sync.WaitGroup
	for i, u := range uploads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			errs[i] = s.Save(context.Background(), ws, u)
		}()
	}
	close(start)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("save %d: %v", i, err)
		}
	}
	wantStored(t, s, ws, data, attachments.PDF)
	if err := s.Check(context.Background(), ws, hashOf(data)); err != nil {
		t.Fatalf("check: %v", err)
	}
}

// A workspace sees nothing of another's contents, even one it holds too: not to read,
// not to check, not to delete.
func otherWorkspace(t *testing.T, s attachments.Store) {
	ctx, owner, other, data := context.Background(), uuid.New(), uuid.New(), PDF(t, 300<<10)
	if err := s.Save(ctx, owner, Spool(t, data)); err != nil {
		t.Fatal(err)
	}
	wantNotFound(t, s, other, hashOf(data))
	if err := s.Delete(ctx, other, hashOf(data)); err != nil {
		t.Fatalf("delete in another workspace: %v", err)
	}
	wantStored(t, s, owner, data, attachments.PDF)

	if err := s.Save(ctx, other, Spool(t, data)); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, other, hashOf(data)); err != nil {
		t.Fatal(err)
	}
	wantNotFound(t, s, other, hashOf(data))
	wantStored(t, s, owner, data, attachments.PDF)
}

// Check passes for a content stored whole, and says when there is none.
func checkStored(t *testing.T, s attachments.Store) {
	ctx, ws := context.Background(), uuid.New()
	u := Spool(t, PDF(t, 600<<10))
	if err := s.Save(ctx, ws, u); err != nil {
		t.Fatal(err)
	}
	if err := s.Check(ctx, ws, u.SHA256); err != nil {
		t.Fatalf("check of a stored content: %v", err)
	}
	if err := s.Check(ctx, ws, hashOf(smallPNG)); !errors.Is(err, attachments.ErrNotFound) {
		t.Fatalf("check of an absent content: %v, want ErrNotFound", err)
	}
}

// A deleted content is gone; deleting it again is no error, and it can be saved again.
func deleteThenOpen(t *testing.T, s attachments.Store) {
	ctx, ws, data := context.Background(), uuid.New(), PDF(t, 600<<10)
	if err := s.Save(ctx, ws, Spool(t, data)); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, ws, hashOf(data)); err != nil {
		t.Fatal(err)
	}
	wantNotFound(t, s, ws, hashOf(data))
	if err := s.Delete(ctx, ws, hashOf(data)); err != nil {
		t.Fatalf("delete of an absent content: %v", err)
	}
	if err := s.Save(ctx, ws, Spool(t, data)); err != nil {
		t.Fatal(err)
	}
	wantStored(t, s, ws, data, attachments.PDF)
}
