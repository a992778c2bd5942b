package attachments

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// chunkSize is the length of every stored chunk of a content but its last, which holds
// the rest (1 to chunkSize bytes). A save or a download holds one chunk in memory; a
// file of MaxSize is 80 chunks, each its own round trip.
const chunkSize = 256 << 10

// Postgres is the Store of the tables attachment_contents and attachment_chunks
// (migration 0033).
type Postgres struct{ pool *pgxpool.Pool }

var _ Store = (*Postgres)(nil)

// NewPostgres returns the Store of the database that pool connects to.
func NewPostgres(pool *pgxpool.Pool) *Postgres { return &Postgres{pool: pool} }

// Save stores the upload in one transaction: the content's row, then its chunks, each
// read from the spooled file as it is written. A save that finds the content's row
// written by another writes nothing; while that other's transaction is open it waits
// for its end, and writes the content itself should that one roll back. The bytes
// written are hashed again, so that no content is ever stored under a hash its bytes do
// not have. A content stored already is saved anew (saveRow), so that the purge passes
// over it.
func (p *Postgres) Save(ctx context.Context, workspaceID uuid.UUID, u *Upload) error {
	err := pgx.BeginFunc(ctx, p.pool, func(tx pgx.Tx) error {
		inserted, err := saveRow(ctx, tx, workspaceID, u)
		if err != nil || !inserted {
			return err // or stored already
		}
		return writeChunks(ctx, tx, workspaceID, u)
	})
	if err != nil {
		return fmt.Errorf("attachments: save %s: %w", u.SHA256, err)
	}
	return nil
}

// writeChunks writes the upload's chunks in order, and fails with ErrCorrupt, which rolls
// the save back, unless their bytes are the upload's size and hash.
func writeChunks(ctx context.Context, tx pgx.Tx, workspaceID uuid.UUID, u *Upload) error {
	hash := sha256.New()
	file := io.TeeReader(u.whole(), hash)
	buf := make([]byte, chunkSize)
	var size int64
	for n := int64(0); ; n++ {
		k, err := io.ReadFull(file, buf)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("read the spooled file: %w", err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO attachment_chunks (workspace_id, sha256, n, data) VALUES ($1, $2, $3, $4)`,
			workspaceID, u.SHA256, n, buf[:k]); err != nil {
			return fmt.Errorf("write chunk %d: %w", n, err)
		}
		size += int64(k)
		if k < chunkSize {
			break
		}
	}
	if got := hex.EncodeToString(hash.Sum(nil)); size != u.Size || got != u.SHA256 {
		return fmt.Errorf("the file reads as %d bytes hashing to %s, not %d bytes: %w", size, got, u.Size, ErrCorrupt)
	}
	return nil
}

// Open reads the content's size and kind; its chunks are read as the Content is, one
// query each on the pool (chunks).
func (p *Postgres) Open(ctx context.Context, workspaceID uuid.UUID, sha256Hex string) (*Content, error) {
	size, kind, err := storedRow(ctx, p.pool, workspaceID, sha256Hex)
	if err != nil {
		return nil, err
	}
	body := &chunks{ctx: ctx, pool: p.pool, workspaceID: workspaceID, sha256: sha256Hex, size: size,
		count: (size + chunkSize - 1) / chunkSize}
	return newContent(workspaceID, sha256Hex, size, kind, body), nil
}

// Check reads the content back through Open and hashes it.
func (p *Postgres) Check(ctx context.Context, workspaceID uuid.UUID, sha256Hex string) error {
	return check(ctx, p, workspaceID, sha256Hex)
}

// Delete removes the content's row, and with it its chunks (their foreign key cascades).
func (p *Postgres) Delete(ctx context.Context, workspaceID uuid.UUID, sha256Hex string) error {
	if err := deleteRow(ctx, p.pool, workspaceID, sha256Hex); err != nil {
		return fmt.Errorf("attachments: delete %s: %w", sha256Hex, err)
	}
	return nil
}

// Purge deletes the contents no attachment keeps (the rule is purge's), their chunks
// with them.
func (p *Postgres) Purge(ctx context.Context, now time.Time) (int64, error) {
	return purge(ctx, p.pool, now, nil)
}

// chunks reads a content's chunks in order, each by a query of its own on the pool: no
// connection is held between two of them, so a client that takes a download slowly, or
// stops taking it, holds a chunk's memory and never one of the pool's connections
// (docs/architecture.md, decision 19). The count of chunks follows from the size, and
// each chunk must have the length the size gives it.
type chunks struct {
	ctx         context.Context // Open's, which the reading outlives no more than the request
	pool        *pgxpool.Pool
	workspaceID uuid.UUID
	sha256      string
	size        int64
	count, next int64 // how many chunks the size makes, and the number of the next to fetch
	buf         chunkBuffer
	off         int // how much of buf was read
}

// Read reads on from the current chunk, fetching the next once it is read.
func (c *chunks) Read(p []byte) (int, error) {
	if c.off == len(c.buf.b) {
		if c.next == c.count {
			return 0, io.EOF
		}
		if err := c.fetch(); err != nil {
			return 0, err
		}
	}
	n := copy(p, c.buf.b[c.off:])
	c.off += n
	return n, nil
}

// fetch reads the next chunk into buf.
func (c *chunks) fetch() error {
	err := c.pool.QueryRow(c.ctx, `SELECT data FROM attachment_chunks WHERE workspace_id = $1 AND sha256 = $2 AND n = $3`,
		c.workspaceID, c.sha256, c.next).Scan(&c.buf)
	if errors.Is(err, pgx.ErrNoRows) {
		return c.missing()
	}
	if err != nil {
		return fmt.Errorf("attachments: read chunk %d of %s: %w", c.next, c.sha256, err)
	}
	want := int64(chunkSize)
	if c.next == c.count-1 {
		want = c.size - c.next*chunkSize
	}
	if int64(len(c.buf.b)) != want {
		return fmt.Errorf("attachments: chunk %d of content %s of workspace %s holds %d bytes, not %d: %w",
			c.next, c.sha256, c.workspaceID, len(c.buf.b), want, ErrCorrupt)
	}
	c.next++
	c.off = 0
	return nil
}

// missing tells why a chunk is absent: its content was deleted while it was read, or it
// is lost.
func (c *chunks) missing() error {
	if _, _, err := storedRow(c.ctx, c.pool, c.workspaceID, c.sha256); err != nil {
		return err
	}
	return fmt.Errorf("attachments: chunk %d of %d of content %s of workspace %s is missing: %w",
		c.next, c.count, c.sha256, c.workspaceID, ErrCorrupt)
}

// Close lets the chunk's memory go; no connection is held to release.
func (c *chunks) Close() error {
	c.buf.b, c.off = nil, 0
	return nil
}

// chunkBuffer takes a chunk's bytes from the driver into memory it keeps from one chunk
// to the next (pgtype.BytesScanner), where a []byte would be a new allocation each time.
type chunkBuffer struct{ b []byte }

// ScanBytes copies the chunk's bytes, which the driver owns only for the call.
func (b *chunkBuffer) ScanBytes(v []byte) error {
	b.b = append(b.b[:0], v...)
	return nil
}
