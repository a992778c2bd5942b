package eventstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/finledger/finledger/internal/testkit/testdb"
)

// The canonical text built in Go is byte for byte the one eventstore_canonical builds in
// PostgreSQL, for streams, types and payloads with every character the quoting treats
// apart; a ChainLinker fed the log finds every chain intact without asking PostgreSQL,
// and finds a changed event where VerifyChain does.
func TestCanonicalTextInGoIsPostgreSQLs(t *testing.T) {
	ctx := context.Background()
	pool := testdb.Pool(t)
	awkward := "q\"b\\s/\b\f\n\r\t\x01\x1f\x7f é € 😀 <&>"
	streams := []string{"plain", "with " + awkward, strings.Repeat("long", 100)}
	payloads := []string{
		`{"n": 1}`,
		`{"text": "` + strings.NewReplacer("\\", `\\`, `"`, `\"`, "\b", `\b`, "\f", `\f`, "\n", `\n`, "\r", `\r`, "\t", `\t`, "\x01", `\u0001`, "\x1f", `\u001F`).Replace(awkward) + `", "esc": "\u00e9\ud83d\ude00"}`,
		`{"z": [1, 2.50, -0.000, 1e3, true, null], "a": {"b": {}}, "": "", "aa": []}`,
	}
	moments := []time.Time{
		time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 11, 24, 23, 59, 59, 999999000, time.FixedZone("CST", -6*3600)),
		time.Date(999, 1, 2, 3, 4, 5, 6000, time.UTC),
	}
	for i, stream := range streams {
		for j, payload := range payloads {
			err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
				_, err := Append(ctx, tx, stream, int64(j), []Event{{ID: uuid.New(), Type: "type." + awkward[:i*3],
					Data: json.RawMessage(payload), Metadata: json.RawMessage(`{"actor": "` + stream[:5] + `"}`)}}, moments[(i+j)%len(moments)])
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
		}
	}

	events, err := ReadAll(ctx, pool, Position{}, 100)
	if err != nil || len(events) != len(streams)*len(payloads) {
		t.Fatalf("%d events, %v", len(events), err)
	}
	linker := NewChainLinker()
	for _, e := range events {
		var want string
		if err := pool.QueryRow(ctx, `SELECT eventstore_canonical(stream_id, version, event_id, type, recorded_at, data, metadata)
			FROM events WHERE stream_id = $1 AND version = $2`, e.StreamID, e.Version).Scan(&want); err != nil {
			t.Fatal(err)
		}
		if got := string(appendCanonical(nil, e)); got != want {
			t.Fatalf("%s@%d:\n Go  %q\n SQL %q", e.StreamID, e.Version, got, want)
		}
		linker.Link(e)
	}
	for _, stream := range streams {
		if s := linker.streams[stream]; s == nil || s.check.BrokenAt != 0 || s.check.Checked != int64(len(payloads)) {
			t.Fatalf("linked %s: %+v", stream, s)
		}
	}

	// An event changed in place: the linker sees the break, and its report is
	// VerifyChain's. Where the linker's text is wrong (here an event of the second
	// stream is read wrong), PostgreSQL's canonical text decides: that chain holds.
	if _, err := pool.Exec(ctx, `UPDATE events SET data = jsonb_set(data, '{n}', '2') WHERE stream_id = 'plain' AND version = 1`); err != nil {
		t.Fatal(err)
	}
	if events, err = ReadAll(ctx, pool, Position{}, 100); err != nil {
		t.Fatal(err)
	}
	linker = NewChainLinker()
	for _, e := range events {
		if e.StreamID == streams[1] && e.Version == 2 {
			e.Data = json.RawMessage(`{"n":1}`)
		}
		linker.Link(e)
	}
	if s := linker.streams["plain"]; s.check.BrokenAt != 1 {
		t.Fatalf("linked after the change: %+v", s.check)
	}
	if s := linker.streams[streams[1]]; s.check.BrokenAt != 2 {
		t.Fatalf("linked with an event read wrong: %+v", s.check)
	}
	reported := map[string]ChainCheck{}
	if err := linker.Report(ctx, pool, func(stream string, check ChainCheck) { reported[stream] = check }); err != nil {
		t.Fatal(err)
	}
	for _, stream := range streams {
		want, err := VerifyChain(ctx, pool, stream)
		if err != nil {
			t.Fatal(err)
		}
		if reported[stream] != want {
			t.Fatalf("%s: reported %+v, VerifyChain %+v", stream, reported[stream], want)
		}
	}
	if reported["plain"].BrokenAt != 1 || reported[streams[1]].BrokenAt != 0 || reported[streams[1]].Checked != int64(len(payloads)) ||
		len(reported) != len(streams) {
		t.Fatalf("reported %+v", reported)
	}
}

// The canonical text holds a commitment to each secret field instead of its value, in
// Go as in PostgreSQL, byte for byte: for every type that carries one, with the value a
// string (escapes included), another JSON value, null or absent, and beside awkward
// neighbours; events of other types keep a field of the same name.
func TestCanonicalTextCommitsToSecrets(t *testing.T) {
	ctx := context.Background()
	pool := testdb.Pool(t)
	commitment := func(text string) string {
		sum := sha256.Sum256([]byte(text))
		return "sha256:" + hex.EncodeToString(sum[:])
	}
	type secretCase struct {
		typ, payload string
		// secret is what the text must not hold, committed the commitment it must hold
		// instead; "" where the data must stay as it is.
		secret, committed string
	}
	var cases []secretCase
	for typ, field := range SecretFields() {
		member := `"` + field + `": `
		cases = append(cases,
			secretCase{typ, `{` + member + `"c2VjcmV0IGJ5dGVz", "name": "k", "a": [1, 2.50], "zz": {"x": "\u00e9"}}`, "c2VjcmV0IGJ5dGVz", commitment("c2VjcmV0IGJ5dGVz")},
			secretCase{typ, `{` + member + `"q\"b\\s\n\u00e9", "id": 1}`, `q\"b\\s`, commitment("q\"b\\s\n\u00e9")},
			secretCase{typ, `{` + member + `{"k": [1, "two"]}, "b": true}`, `"two"`, commitment(`{"k": [1, "two"]}`)},
			secretCase{typ, `{` + member + `12.50}`, "12.50", commitment("12.50")},
			secretCase{typ, `{` + member + `null, "n": 1}`, "", ""},
			secretCase{typ, `{"other": "c2VjcmV0"}`, "", ""},
			secretCase{"a.v1", `{` + member + `"c2VjcmV0"}`, "", ""},
		)
	}
	for i, c := range cases {
		err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			_, err := Append(ctx, tx, fmt.Sprintf("s-%d", i), NoStream, []Event{{ID: uuid.New(), Type: c.typ,
				Data: json.RawMessage(c.payload), Metadata: json.RawMessage(`{}`)}}, time.Now())
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	events, err := ReadAll(ctx, pool, Position{}, 1000)
	if err != nil || len(events) != len(cases) {
		t.Fatalf("%d events, %v", len(events), err)
	}
	linker := NewChainLinker()
	for _, e := range events {
		var want, data string
		if err := pool.QueryRow(ctx, `SELECT eventstore_canonical(stream_id, version, event_id, type, recorded_at, data, metadata), data::text
			FROM events WHERE stream_id = $1 AND version = $2`, e.StreamID, e.Version).Scan(&want, &data); err != nil {
			t.Fatal(err)
		}
		got := string(appendCanonical(nil, e))
		if got != want {
			t.Fatalf("%s %s:\n Go  %s\n SQL %s", e.Type, e.Data, got, want)
		}
		var i int
		fmt.Sscanf(e.StreamID, "s-%d", &i)
		c := cases[i]
		switch {
		case c.committed == "" && !strings.Contains(got, `"data":`+data+`,`):
			t.Errorf("%s %s: the data changed: %s", e.Type, data, got)
		case c.committed != "" && (strings.Contains(got, c.secret) || !strings.Contains(got, `"`+c.committed+`"`)):
			t.Errorf("%s %s: want the commitment %s and no %s: %s", e.Type, data, c.committed, c.secret, got)
		}
		linker.Link(e)
	}
	for stream, s := range linker.streams {
		if s.check.BrokenAt != 0 {
			t.Errorf("the chain of %s, hashed by PostgreSQL, breaks in Go", stream)
		}
	}
}
