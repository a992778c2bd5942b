package eventstore

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"

	"github.com/jackc/pgx/v5"
)

// A stream's events form a hash chain (migration 0018): each event's hash is the
// SHA-256 of the previous event's hash (32 zero bytes before the first) followed by the
// event's canonical text, which PostgreSQL's eventstore_canonical builds from the stored
// columns. The insert that appends an event writes its hash; these functions recompute
// the chain from what is stored now.

// ChainHead is a stream's last event and its hash: what an auditor keeps to compare
// later chains against.
type ChainHead struct {
	Version int64
	Hash    [sha256.Size]byte
}

// ChainCheck is what recomputing a stream's chain found.
type ChainCheck struct {
	Head    ChainHead // the last event whose hash was recomputed as stored
	Checked int64     // events checked
	// BrokenAt is the first version whose stored hash differs from the recomputed one,
	// or which is not the one after its predecessor; 0 when the chain holds.
	BrokenAt int64
}

// chainPage is how many events a chain's reader asks for at a time.
const chainPage = 2000

// eachLink calls fn with every event of a stream in version order: its version, its
// stored hash and its canonical text.
func eachLink(ctx context.Context, db Reader, streamID string, fn func(version int64, hash []byte, canonical string) error) error {
	after := int64(0)
	for {
		rows, err := db.Query(ctx, `SELECT version, hash, eventstore_canonical(stream_id, version, event_id, type, recorded_at, data, metadata)
			FROM events WHERE stream_id = $1 AND version > $2 ORDER BY version LIMIT $3`, streamID, after, chainPage)
		if err != nil {
			return fmt.Errorf("eventstore: read the chain of %s: %w", streamID, err)
		}
		n := 0
		for rows.Next() {
			var version int64
			var hash []byte
			var canonical string
			if err := rows.Scan(&version, &hash, &canonical); err != nil {
				rows.Close()
				return fmt.Errorf("eventstore: read the chain of %s: %w", streamID, err)
			}
			n++
			after = version
			if err := fn(version, hash, canonical); err != nil {
				rows.Close()
				return err
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("eventstore: read the chain of %s: %w", streamID, err)
		}
		if n < chainPage {
			return nil
		}
	}
}

// VerifyChains recomputes every stream's chain, one stream after another, and tells
// found what each check found.
func VerifyChains(ctx context.Context, db Reader, found func(stream string, check ChainCheck)) error {
	rows, err := db.Query(ctx, `SELECT stream_id FROM streams ORDER BY stream_id`)
	if err != nil {
		return fmt.Errorf("eventstore: list the streams: %w", err)
	}
	streams, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return fmt.Errorf("eventstore: list the streams: %w", err)
	}
	for _, stream := range streams {
		check, err := VerifyChain(ctx, db, stream)
		if err != nil {
			return err
		}
		found(stream, check)
	}
	return nil
}

// link returns an event's hash given its predecessor's and its canonical text.
func link(prev [sha256.Size]byte, canonical []byte) [sha256.Size]byte {
	h := sha256.New()
	h.Write(prev[:])
	h.Write(canonical)
	var out [sha256.Size]byte
	h.Sum(out[:0])
	return out
}

// VerifyChain recomputes a stream's chain and reports the first event where it breaks.
func VerifyChain(ctx context.Context, db Reader, streamID string) (ChainCheck, error) {
	var c ChainCheck
	var prev [sha256.Size]byte
	err := eachLink(ctx, db, streamID, func(version int64, hash []byte, canonical string) error {
		if c.BrokenAt != 0 {
			return nil
		}
		want := link(prev, []byte(canonical))
		c.Checked++
		if version != c.Head.Version+1 || !bytes.Equal(hash, want[:]) {
			c.BrokenAt = version
			return nil
		}
		c.Head, prev = ChainHead{Version: version, Hash: want}, want
		return nil
	})
	return c, err
}

// ExportLine is one line of a stream's export: the event's canonical text, exactly the
// bytes its hash covers, and the hash, in hexadecimal.
type ExportLine struct {
	Event string `json:"event"`
	Hash  string `json:"hash"`
}

// ExportChain writes a stream's events as JSON lines, one ExportLine each, in version
// order, and returns the head it wrote.
func ExportChain(ctx context.Context, db Reader, streamID string, w io.Writer) (ChainHead, error) {
	var head ChainHead
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	err := eachLink(ctx, db, streamID, func(version int64, hash []byte, canonical string) error {
		if err := enc.Encode(ExportLine{Event: canonical, Hash: hex.EncodeToString(hash)}); err != nil {
			return fmt.Errorf("eventstore: export %s: %w", streamID, err)
		}
		head.Version = version
		copy(head.Hash[:], hash)
		return nil
	})
	return head, err
}
