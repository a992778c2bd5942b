package eventstore

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

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

// chainPage is how many events a chain's reader asks for at a time, and holds while it
// hands them on: an export holds its page while its client reads it.
const chainPage = 500

// eachLink calls fn with every event of a stream in version order: its version, its
// stored hash and its canonical text. It reads a page, releases the connection, then
// calls fn on the page's events: fn may wait (on a client reading an export, say)
// without holding a connection of the pool meanwhile.
func eachLink(ctx context.Context, db Reader, streamID string, fn func(version int64, hash []byte, canonical string) error) error {
	type chainLink struct {
		version   int64
		hash      []byte
		canonical string
	}
	after := int64(0)
	for {
		rows, err := db.Query(ctx, `SELECT version, hash, eventstore_canonical(stream_id, version, event_id, type, recorded_at, data, metadata)
			FROM events WHERE stream_id = $1 AND version > $2 ORDER BY version LIMIT $3`, streamID, after, chainPage)
		if err != nil {
			return fmt.Errorf("eventstore: read the chain of %s: %w", streamID, err)
		}
		page, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (l chainLink, err error) {
			return l, row.Scan(&l.version, &l.hash, &l.canonical)
		})
		if err != nil {
			return fmt.Errorf("eventstore: read the chain of %s: %w", streamID, err)
		}
		for _, l := range page {
			if err := fn(l.version, l.hash, l.canonical); err != nil {
				return err
			}
		}
		if len(page) < chainPage {
			return nil
		}
		after = page[len(page)-1].version
	}
}

// ChainLinker recomputes chains from events a reader of the whole log brings, in log
// order, without reading them again: each stream's events come in version order there
// (see ReadAll). It builds each event's canonical text in Go from the columns read
// (appendCanonical), where VerifyChain has PostgreSQL build it; a stream whose chain
// seems to break here is recomputed by VerifyChain before it is reported, so the SQL
// definition stays the one that decides.
type ChainLinker struct {
	streams map[string]*linkedStream
	buf     []byte
}

// linkedStream is what a ChainLinker knows of a stream: its check so far, and the hash
// the next event must chain to.
type linkedStream struct {
	check ChainCheck
	prev  [sha256.Size]byte
}

// NewChainLinker returns a ChainLinker that has seen no event yet.
func NewChainLinker() *ChainLinker {
	return &ChainLinker{streams: map[string]*linkedStream{}}
}

// Link recomputes an event's link from its stored columns and compares it with its
// stored hash.
func (l *ChainLinker) Link(e RecordedEvent) {
	s := l.streams[e.StreamID]
	if s == nil {
		s = &linkedStream{}
		l.streams[e.StreamID] = s
	}
	if s.check.BrokenAt != 0 {
		return
	}
	l.buf = appendCanonical(l.buf[:0], e)
	want := link(s.prev, l.buf)
	s.check.Checked++
	if e.Version != s.check.Head.Version+1 || !bytes.Equal(e.Hash, want[:]) {
		s.check.BrokenAt = e.Version
		return
	}
	s.check.Head, s.prev = ChainHead{Version: e.Version, Hash: want}, want
}

// Report tells found, one stream after another, what the chain of every stream in db
// holds once the whole log has been linked. db must see the log the linker saw.
func (l *ChainLinker) Report(ctx context.Context, db Reader, found func(stream string, check ChainCheck)) error {
	rows, err := db.Query(ctx, `SELECT stream_id FROM streams ORDER BY stream_id`)
	if err != nil {
		return fmt.Errorf("eventstore: list the streams: %w", err)
	}
	streams, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return fmt.Errorf("eventstore: list the streams: %w", err)
	}
	for _, stream := range streams {
		var check ChainCheck
		if s := l.streams[stream]; s != nil {
			check = s.check
		}
		if check.BrokenAt != 0 {
			if check, err = VerifyChain(ctx, db, stream); err != nil {
				return err
			}
		}
		found(stream, check)
	}
	return nil
}

// appendCanonical appends an event's canonical text, as eventstore_canonical (migration
// 0018) builds it from the same columns, to b: data and metadata as PostgreSQL prints
// jsonb, which is how they are read, and the strings escaped as its to_json escapes them.
func appendCanonical(b []byte, e RecordedEvent) []byte {
	b = append(b, `{"stream":`...)
	b = appendJSONString(b, e.StreamID)
	b = append(b, `,"version":`...)
	b = strconv.AppendInt(b, e.Version, 10)
	b = append(b, `,"id":"`...)
	b = append(b, e.ID.String()...)
	b = append(b, `","type":`...)
	b = appendJSONString(b, e.Type)
	b = append(b, `,"recordedAt":"`...)
	b = e.RecordedAt.UTC().AppendFormat(b, "2006-01-02T15:04:05.000000Z")
	b = append(b, `","data":`...)
	b = append(b, e.Data...)
	b = append(b, `,"metadata":`...)
	b = append(b, e.Metadata...)
	return append(b, '}')
}

// appendJSONString appends s as PostgreSQL's to_json quotes a text: the quote, the
// backslash and the control characters escaped, as short escapes where JSON has them
// and as \u00xx (lowercase) otherwise, and every other byte as it is.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"':
			b = append(b, `\"`...)
		case '\\':
			b = append(b, `\\`...)
		case '\b':
			b = append(b, `\b`...)
		case '\f':
			b = append(b, `\f`...)
		case '\n':
			b = append(b, `\n`...)
		case '\r':
			b = append(b, `\r`...)
		case '\t':
			b = append(b, `\t`...)
		default:
			if c < ' ' {
				b = fmt.Appendf(b, `\u%04x`, c)
			} else {
				b = append(b, c)
			}
		}
	}
	return append(b, '"')
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
