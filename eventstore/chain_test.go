package eventstore_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"testing"

	"github.com/finledger/finledger/eventstore"
	"github.com/finledger/finledger/eventstore/storetest"
	"github.com/finledger/finledger/internal/testkit/testdb"
)

// Appends chain each event to the one before it, across appends of one and of several
// events, in every stream apart; the export's lines are what the hashes cover; and a
// stored event changed afterwards breaks the chain at that event.
func TestEventsFormAHashChain(t *testing.T) {
	ctx := context.Background()
	pool := testdb.Pool(t)
	version := eventstore.NoStream
	for _, n := range []int{1, 3, 1, 5} {
		if _, err := appendTx(ctx, pool, "w", version, storetest.NewEvents(n, "a.v1")); err != nil {
			t.Fatal(err)
		}
		version += int64(n)
	}
	if _, err := appendTx(ctx, pool, "other", eventstore.NoStream, storetest.NewEvents(2, "b.v1")); err != nil {
		t.Fatal(err)
	}
	check, err := eventstore.VerifyChain(ctx, pool, "w")
	if err != nil || check.BrokenAt != 0 || check.Checked != 10 || check.Head.Version != 10 {
		t.Fatalf("intact chain: %+v, %v", check, err)
	}

	// The export, checked the way a third party would: each line's hash is the SHA-256
	// of the previous hash and the line's event, as bytes.
	var out bytes.Buffer
	head, err := eventstore.ExportChain(ctx, pool, "w", &out)
	if err != nil || head != check.Head {
		t.Fatalf("export head %+v, %v; verify's %+v", head, err, check.Head)
	}
	prev := make([]byte, sha256.Size)
	lines := 0
	for sc := bufio.NewScanner(&out); sc.Scan(); lines++ {
		var line eventstore.ExportLine
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatal(err)
		}
		var event struct {
			Stream  string `json:"stream"`
			Version int64  `json:"version"`
		}
		if err := json.Unmarshal([]byte(line.Event), &event); err != nil || event.Stream != "w" || event.Version != int64(lines+1) {
			t.Fatalf("line %d's event %q (%v)", lines+1, line.Event, err)
		}
		sum := sha256.Sum256(append(append([]byte{}, prev...), line.Event...))
		if hex.EncodeToString(sum[:]) != line.Hash {
			t.Fatalf("line %d: hash %s, recomputed %x", lines+1, line.Hash, sum)
		}
		prev = sum[:]
	}
	if lines != 10 || !bytes.Equal(prev, head.Hash[:]) {
		t.Fatalf("%d lines ending at %x, head %x", lines, prev, head.Hash)
	}
	// An export its reader does not take says so, apart from a failure of the store's.
	if _, err := eventstore.ExportChain(ctx, pool, "w", failingWriter{}); !errors.Is(err, eventstore.ErrExportNotTaken) {
		t.Fatalf("export to a writer that fails: %v, want ErrExportNotTaken", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := eventstore.ExportChain(cancelled, pool, "w", &out); err == nil || errors.Is(err, eventstore.ErrExportNotTaken) {
		t.Fatalf("export that cannot read the store: %v, want an error other than ErrExportNotTaken", err)
	}

	// Changing what an event says breaks the chain there.
	if _, err := pool.Exec(ctx, `UPDATE events SET data = jsonb_set(data, '{n}', '99') WHERE stream_id = 'w' AND version = 6`); err != nil {
		t.Fatal(err)
	}
	if check, err := eventstore.VerifyChain(ctx, pool, "w"); err != nil || check.BrokenAt != 6 || check.Head.Version != 5 {
		t.Fatalf("after changing event 6: %+v, %v", check, err)
	}
	// So does removing one.
	if _, err := pool.Exec(ctx, `DELETE FROM events WHERE stream_id = 'other' AND version = 1`); err != nil {
		t.Fatal(err)
	}
	if check, err := eventstore.VerifyChain(ctx, pool, "other"); err != nil || check.BrokenAt != 2 {
		t.Fatalf("after removing event 1: %+v, %v", check, err)
	}
}

// failingWriter is a reader that went away.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, io.ErrClosedPipe }

// Appends in one transaction, to one stream and another in turn (a group commit's, the
// parts of a statement's import), chain as appends apart do, and an append that failed
// in a savepoint leaves nothing the next one chains to.
func TestAppendsInOneTransactionChainAsAppendsApart(t *testing.T) {
	ctx := context.Background()
	pool := testdb.Pool(t)
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	versions := map[string]int64{"w": eventstore.NoStream, "other": eventstore.NoStream}
	appendTo := func(stream string, events []eventstore.Event) error {
		_, err := eventstore.Append(ctx, tx, stream, versions[stream], events, t0)
		if err == nil {
			versions[stream] += int64(len(events))
		}
		return err
	}
	for _, step := range []struct {
		stream string
		n      int
	}{{"w", 2}, {"other", 2}, {"w", 3}, {"w", 1}, {"other", 1}} {
		if err := appendTo(step.stream, storetest.NewEvents(step.n, "a.v1")); err != nil {
			t.Fatal(err)
		}
	}
	// An append whose second event repeats its first's id fails after the trigger chained
	// both; the next append at the same version chains to the stored head.
	if _, err := tx.Exec(ctx, "SAVEPOINT failing"); err != nil {
		t.Fatal(err)
	}
	twice := storetest.NewEvents(2, "a.v1")
	twice[1].ID = twice[0].ID
	if err := appendTo("w", twice); err == nil {
		t.Fatal("an append repeating an event's id was taken")
	}
	if _, err := tx.Exec(ctx, "ROLLBACK TO SAVEPOINT failing"); err != nil {
		t.Fatal(err)
	}
	if err := appendTo("w", storetest.NewEvents(2, "a.v1")); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	for stream, n := range map[string]int64{"w": 8, "other": 3} {
		check, err := eventstore.VerifyChain(ctx, pool, stream)
		if err != nil || check.BrokenAt != 0 || check.Checked != n {
			t.Fatalf("the chain of %s: %+v, %v; want %d events intact", stream, check, err, n)
		}
	}
}
