package eventstore

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
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

// secretFields names, per event type, the field of its data that holds a secret: the
// canonical text holds a commitment to it instead ("sha256:" and the hexadecimal SHA-256
// of the value), so that the export, which carries the canonical text, shows no secret
// and the chain still binds it. Migration 0023 (eventstore_redacted) is the definition;
// this is its twin, held equal by a test, and a test of package ledger holds it equal
// to the payload fields tagged secret.
var secretFields = map[string]string{
	"api_key.created.v1":        "hash",
	"webhook.created.v1":        "sealedSecret",
	"webhook.secret_rotated.v1": "sealedSecret",
	"whatsapp.linked.v1":        "phoneKey",
}

// SecretFields returns, per event type, the field of its data that the canonical text
// and so the export leave out (secretFields).
func SecretFields() map[string]string { return maps.Clone(secretFields) }

// appendCanonical appends an event's canonical text, as eventstore_canonical (migrations
// 0018 and 0023) builds it from the same columns, to b: data and metadata as PostgreSQL
// prints jsonb, which is how they are read, the data's secret redacted, and the strings
// escaped as its to_json escapes them.
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
	b = appendRedacted(b, e.Type, e.Data)
	b = append(b, `,"metadata":`...)
	b = append(b, e.Metadata...)
	return append(b, '}')
}

// appendRedacted appends an event's data as its canonical text holds it: with the value
// of its type's secret field, when present and not null, replaced by the commitment
// eventstore_commitment writes. The value is committed as ->> reads it: a string's
// characters, anything else as printed. Replacing a value keeps jsonb's order of keys,
// which goes by the keys alone, so the text is what PostgreSQL prints of the redacted
// data.
func appendRedacted(b []byte, eventType string, data []byte) []byte {
	field, ok := secretFields[eventType]
	if !ok {
		return append(b, data...)
	}
	start, end, found := memberValue(data, field)
	if !found || string(data[start:end]) == "null" {
		return append(b, data...)
	}
	value := data[start:end]
	var s string
	if value[0] == '"' && json.Unmarshal(value, &s) == nil {
		value = []byte(s)
	}
	sum := sha256.Sum256(value)
	b = append(b, data[:start]...)
	b = append(b, `"sha256:`...)
	b = hex.AppendEncode(b, sum[:])
	b = append(b, '"')
	return append(b, data[end:]...)
}

// memberValue finds where the value of an object's member lies in its JSON; found is
// false when data is no object or lacks the member.
func memberValue(data []byte, name string) (start, end int, found bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return 0, 0, false
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return 0, 0, false
		}
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return 0, 0, false
		}
		if key == name {
			end := int(dec.InputOffset())
			return end - len(value), end, true
		}
	}
	return 0, 0, false
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

// FormerHash returns the hash a stream's event at a version has under the canonical
// text of before migration 0023, which held the secrets that text now leaves out,
// recomputed from the events stored now (eventstore_former_hash). A head kept before
// then, a version and a hash, still holds when FormerHash gives that hash at that
// version: the history up to there is the one that was hashed. found is false when the
// stream has no event at that version.
func FormerHash(ctx context.Context, db Reader, streamID string, version int64) (hash [sha256.Size]byte, found bool, err error) {
	var h []byte
	err = db.QueryRow(ctx, `SELECT eventstore_former_hash($1, $2)
		WHERE EXISTS (SELECT FROM events WHERE stream_id = $1 AND version = $2)`, streamID, version).Scan(&h)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return hash, false, nil
	case err != nil:
		return hash, false, fmt.Errorf("eventstore: former hash of %s@%d: %w", streamID, version, err)
	}
	copy(hash[:], h)
	return hash, true, nil
}

// ExportLine is one line of a stream's export: the event's canonical text, exactly the
// bytes its hash covers, and the hash, in hexadecimal.
type ExportLine struct {
	Event string `json:"event"`
	Hash  string `json:"hash"`
}

// ErrExportNotTaken reports an export whose writer failed: its reader went away or
// stopped taking it, which is no fault of the store.
var ErrExportNotTaken = errors.New("eventstore: the export was not taken")

// ExportChain writes a stream's events as JSON lines, one ExportLine each, in version
// order, and returns the head it wrote. A failure of w is ErrExportNotTaken.
func ExportChain(ctx context.Context, db Reader, streamID string, w io.Writer) (ChainHead, error) {
	var head ChainHead
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	err := eachLink(ctx, db, streamID, func(version int64, hash []byte, canonical string) error {
		if err := enc.Encode(ExportLine{Event: canonical, Hash: hex.EncodeToString(hash)}); err != nil {
			return fmt.Errorf("%w: export %s: %w", ErrExportNotTaken, streamID, err)
		}
		head.Version = version
		copy(head.Hash[:], hash)
		return nil
	})
	return head, err
}
