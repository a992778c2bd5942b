// Package attachments owns the files of receipts attached to transactions: a file sent
// spooled to a temporary file as it comes (Spool), its kind told from its content, and
// its storage by SHA-256 per workspace (Store: Postgres holds the bytes in chunks in
// attachment_chunks, S3 as objects of a bucket; both index the contents in
// attachment_contents), and the purge of the contents no attachment keeps. The events that attach a file and the
// HTTP endpoints are not here: they name a content by the hash this package gives.
package attachments

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"

	"github.com/google/uuid"
)

// Errors of a Store.
var (
	// ErrNotFound is a content the workspace does not hold.
	ErrNotFound = errors.New("attachments: content not found")
	// ErrCorrupt is a stored content whose bytes are not those its hash names: another
	// hash, another size, or a chunk missing.
	ErrCorrupt = errors.New("attachments: content corrupt")
	// ErrUnavailable is a storage that cannot serve for now: its endpoint unreachable,
	// its bucket missing, or its server failing. A retry later may succeed.
	ErrUnavailable = errors.New("attachments: file storage unavailable")
)

// Store keeps receipts' files by their SHA-256 (Upload.SHA256, lowercase hex), apart per
// workspace: a workspace sees and deletes its own contents only, even when another holds
// the same file. It is the one API of every storage (PostgreSQL, an S3-compatible
// bucket), each of which passes the suite in attachments/storetest. Any method may fail
// with an error wrapping ErrUnavailable when the storage cannot be reached.
type Store interface {
	// Save stores the upload's bytes under its hash, unless the workspace holds them
	// already. It is idempotent: saves of the same content, one after another or at
	// once on several instances, all succeed once it is stored. It reads the upload from
	// its start whatever was read of it before, and leaves its offset alone.
	Save(ctx context.Context, workspaceID uuid.UUID, u *Upload) error
	// Open returns the content to read, or ErrNotFound. Its bytes are read as the
	// Content is, so ctx must last as long as the reading; the caller closes it.
	Open(ctx context.Context, workspaceID uuid.UUID, sha256 string) (*Content, error)
	// Check reads the content back whole and hashes it: nil when its bytes are those
	// its hash names, ErrNotFound, or an error wrapping ErrCorrupt that gives both
	// hashes.
	Check(ctx context.Context, workspaceID uuid.UUID, sha256 string) error
	// Delete removes the content; one already absent is no error.
	Delete(ctx context.Context, workspaceID uuid.UUID, sha256 string) error
}

// Content is a stored file being read: its size and kind, known before any of its bytes
// (a download's Content-Length and Content-Type), and its bytes as Read reaches them.
// The bytes are checked as they pass: Read ends with io.EOF only once they were Size
// bytes hashing to the content's name, and otherwise with an error wrapping ErrCorrupt,
// so that a damaged file is never sent as if whole.
type Content struct {
	// Size is the file's length in bytes.
	Size int64
	// Kind is the file's format; Kind.MIME() is its media type.
	Kind Kind

	body        io.ReadCloser
	workspaceID uuid.UUID
	sha256      string
	hash        hash.Hash
	read        int64
	err         error // what every Read returns once the end is reached or the content closed
}

// errClosed is a Read after Close.
var errClosed = errors.New("attachments: read of a closed content")

// newContent is a content of a store, whose bytes body reads.
func newContent(workspaceID uuid.UUID, sha256Hex string, size int64, kind Kind, body io.ReadCloser) *Content {
	return &Content{Size: size, Kind: kind, body: body, workspaceID: workspaceID, sha256: sha256Hex, hash: sha256.New()}
}

// Read reads the file's next bytes.
func (c *Content) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.body.Read(p)
	c.hash.Write(p[:n])
	c.read += int64(n)
	switch {
	case c.read > c.Size:
		c.err = fmt.Errorf("attachments: content %s of workspace %s holds more than its %d bytes: %w",
			c.sha256, c.workspaceID, c.Size, ErrCorrupt)
	case err == io.EOF:
		c.err = io.EOF
		if got := hex.EncodeToString(c.hash.Sum(nil)); c.read != c.Size || got != c.sha256 {
			c.err = fmt.Errorf("attachments: content %s of workspace %s reads as %d of its %d bytes, hashing to %s: %w",
				c.sha256, c.workspaceID, c.read, c.Size, got, ErrCorrupt)
		}
	case err != nil:
		c.err = err
	}
	return n, c.err
}

// Close ends the reading; it frees what the storage held for it.
func (c *Content) Close() error {
	c.err = errClosed
	return c.body.Close()
}

// check reads a content of s back whole, for Store.Check: Content's own checks tell
// whether its bytes are those its hash names.
func check(ctx context.Context, s Store, workspaceID uuid.UUID, sha256Hex string) error {
	c, err := s.Open(ctx, workspaceID, sha256Hex)
	if err != nil {
		return err
	}
	defer c.Close()
	_, err = io.Copy(io.Discard, c)
	return err
}
