// Package storetest is the conformance suite of the event store: the guarantees of
// eventstore.Store (optimistic concurrency on append; idempotent appends by event id;
// gap-free stream versions; each stream in version order for every reader, the global
// log included; and a global read that never skips a transaction that commits late,
// under many concurrent writers of which some abort), written once and run by each
// implementation's tests.
package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/finledger/finledger/eventstore"
)

// Run runs every guarantee against stores made by open, a fresh and empty one per test.
func Run(t *testing.T, open func(t *testing.T) eventstore.Store) {
	tests := []struct {
		name string
		test func(*testing.T, eventstore.Store)
	}{
		{"AppendAndReadStream", appendAndReadStream},
		{"OptimisticConcurrency", optimisticConcurrency},
		{"IdempotentAppend", idempotentAppend},
		{"GapFreeVersionsUnderConcurrentWriters", gapFreeVersions},
		{"LateCommitIsNotSkipped", lateCommitIsNotSkipped},
		{"StreamOrderWhenAnOlderTransactionAppendsLast", streamOrderWhenOlderAppendsLast},
		{"TailUnderConcurrentWritersSomeAborting", tailUnderConcurrentWriters},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.test(t, open(t)) })
	}
}

// NewEvents returns n new events of a type, each with a fresh id.
func NewEvents(n int, typ string) []eventstore.Event {
	out := make([]eventstore.Event, n)
	for i := range out {
		out[i] = eventstore.Event{ID: uuid.New(), Type: typ, Data: json.RawMessage(fmt.Sprintf(`{"n":%d}`, i)),
			Metadata: json.RawMessage(`{"actor":"test"}`)}
	}
	return out
}

// appendCommitted appends in a unit of work of its own.
func appendCommitted(ctx context.Context, s eventstore.Store, stream string, expected int64, events []eventstore.Event) (eventstore.AppendResult, error) {
	tx, err := s.Begin(ctx)
	if err != nil {
		return eventstore.AppendResult{}, err
	}
	res, err := tx.Append(ctx, stream, expected, events)
	if err != nil {
		_ = tx.Rollback(ctx)
		return eventstore.AppendResult{}, err
	}
	return res, tx.Commit(ctx)
}

func mustAppend(t *testing.T, s eventstore.Store, stream string, expected int64, events []eventstore.Event) eventstore.AppendResult {
	t.Helper()
	res, err := appendCommitted(context.Background(), s, stream, expected, events)
	if err != nil {
		t.Fatalf("append to %s at %d: %v", stream, expected, err)
	}
	return res
}

// readWholeLog reads the global log from the start as a tailing subscriber would.
func readWholeLog(t *testing.T, s eventstore.Store) []eventstore.RecordedEvent {
	t.Helper()
	var out []eventstore.RecordedEvent
	var from eventstore.Position
	for {
		events, err := s.ReadAll(context.Background(), from, 3)
		if err != nil {
			t.Fatal(err)
		}
		if len(events) == 0 {
			return out
		}
		out = append(out, events...)
		from = events[len(events)-1].Position
	}
}

func appendAndReadStream(t *testing.T, s eventstore.Store) {
	first := NewEvents(3, "thing.happened.v1")
	res := mustAppend(t, s, "s-1", eventstore.NoStream, first)
	if res.Duplicate || len(res.Events) != 3 {
		t.Fatalf("append result = %+v", res)
	}
	mustAppend(t, s, "s-1", 3, NewEvents(2, "thing.happened.v1"))
	got, err := s.ReadStream(context.Background(), "s-1", 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 5 {
		t.Fatalf("read %d events, want 5", len(got))
	}
	for i, e := range got {
		if e.Version != int64(i+1) || e.StreamID != "s-1" {
			t.Fatalf("event %d: stream %s version %d", i, e.StreamID, e.Version)
		}
	}
	for i, e := range first {
		if got[i].ID != e.ID || got[i].Type != e.Type || !sameJSON(got[i].Data, e.Data) {
			t.Fatalf("event %d read back as %+v, appended %+v", i, got[i], e)
		}
		if i > 0 && !got[i-1].Position.Less(got[i].Position) {
			t.Fatalf("positions not increasing: %v then %v", got[i-1].Position, got[i].Position)
		}
	}
	after, err := s.ReadStream(context.Background(), "s-1", 3, 1)
	if err != nil || len(after) != 1 || after[0].Version != 4 {
		t.Fatalf("read after version 3, limit 1 = %+v, %v", after, err)
	}
	err = inTx(context.Background(), s, func(tx eventstore.Tx) error {
		for stream, want := range map[string]int64{"s-1": 5, "missing": 0} {
			if v, err := tx.Version(context.Background(), stream); err != nil || v != want {
				return fmt.Errorf("version of %s = %d, %v; want %d", stream, v, err, want)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// sameJSON compares JSON texts by value: a store may normalise spacing and key order.
func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

func optimisticConcurrency(t *testing.T, s eventstore.Store) {
	ctx := context.Background()
	mustAppend(t, s, "s", eventstore.NoStream, NewEvents(2, "a.v1"))
	cases := []struct {
		name     string
		stream   string
		expected int64
	}{
		{"stream exists but expected none", "s", eventstore.NoStream},
		{"stale version", "s", 1},
		{"version from the future", "s", 7},
		{"missing stream with a version", "other", 3},
	}
	for _, c := range cases {
		if _, err := appendCommitted(ctx, s, c.stream, c.expected, NewEvents(1, "a.v1")); !errors.Is(err, eventstore.ErrVersionConflict) {
			t.Errorf("%s: err = %v, want ErrVersionConflict", c.name, err)
		}
	}
	if got, err := s.ReadStream(ctx, "s", 0, 100); err != nil || len(got) != 2 {
		t.Fatalf("stream changed by failed appends: %d events, %v", len(got), err)
	}
	if got, err := s.ReadStream(ctx, "other", 0, 100); err != nil || len(got) != 0 {
		t.Fatalf("a failed append created stream other: %d events, %v", len(got), err)
	}
}

func idempotentAppend(t *testing.T, s eventstore.Store) {
	ctx := context.Background()
	batch := NewEvents(2, "a.v1")
	first := mustAppend(t, s, "s", eventstore.NoStream, batch)
	// A retry of the same batch, even with a stale expected version, is a no-op.
	again := mustAppend(t, s, "s", eventstore.NoStream, batch)
	if !again.Duplicate || len(again.Events) != 2 || again.Events[1].Position != first.Events[1].Position {
		t.Fatalf("retry result = %+v, first = %+v", again, first)
	}
	mixed := append([]eventstore.Event{batch[0]}, NewEvents(1, "a.v1")...)
	if _, err := appendCommitted(ctx, s, "s", 2, mixed); !errors.Is(err, eventstore.ErrPartialDuplicate) {
		t.Fatalf("partial duplicate err = %v", err)
	}
	if got, _ := s.ReadStream(ctx, "s", 0, 100); len(got) != 2 {
		t.Fatalf("stream has %d events after retries, want 2", len(got))
	}
	// Event ids are unique per stream: the same id may start another stream.
	mustAppend(t, s, "t", eventstore.NoStream, batch[:1])
}

// Writers race for one stream, each reading its head and appending there, retrying on
// a conflict: every append lands once, at consecutive versions.
func gapFreeVersions(t *testing.T, s eventstore.Store) {
	ctx := context.Background()
	const writers, each = 8, 15
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for range writers {
		wg.Go(func() {
			for i := 0; i < each; {
				err := inTx(ctx, s, func(tx eventstore.Tx) error {
					v, err := tx.Version(ctx, "busy")
					if err != nil {
						return err
					}
					_, err = tx.Append(ctx, "busy", v, NewEvents(1+i%2, "a.v1"))
					return err
				})
				switch {
				case errors.Is(err, eventstore.ErrVersionConflict):
				case err != nil:
					errs <- err
					return
				default:
					i++
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	got, err := s.ReadStream(ctx, "busy", 0, 10_000)
	if err != nil {
		t.Fatal(err)
	}
	if want := writers * (each + each/2); len(got) != want {
		t.Fatalf("stream has %d events, want %d", len(got), want)
	}
	for i, e := range got {
		if e.Version != int64(i+1) {
			t.Fatalf("gap: event %d has version %d", i, e.Version)
		}
	}
}

func inTx(ctx context.Context, s eventstore.Store, f func(eventstore.Tx) error) error {
	tx, err := s.Begin(ctx)
	if err != nil {
		return err
	}
	if err := f(tx); err != nil {
		_ = tx.Rollback(ctx)
		return err
	}
	return tx.Commit(ctx)
}

// A transaction that appended first but commits last must not be passed by a reader:
// the global read holds back everything from the still-open transaction on.
func lateCommitIsNotSkipped(t *testing.T, s eventstore.Store) {
	ctx := context.Background()
	slow, err := s.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Rollback(ctx)
	if _, err := slow.Append(ctx, "slow", eventstore.NoStream, NewEvents(1, "a.v1")); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, "fast", eventstore.NoStream, NewEvents(1, "a.v1"))
	visible, err := s.ReadAll(ctx, eventstore.Position{}, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(visible) != 0 {
		t.Fatalf("ReadAll returned %d events while an older transaction is open", len(visible))
	}
	if err := slow.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	all := readWholeLog(t, s)
	if len(all) != 2 || all[0].StreamID != "slow" || all[1].StreamID != "fast" {
		t.Fatalf("after the commit the log reads %+v", all)
	}
}

// An older transaction (it wrote elsewhere first) appends to a stream after a younger
// one appended to it and committed, then starts another stream: the log must still give
// the stream in version order and the older transaction's events in the order it
// appended them, skipping none.
func streamOrderWhenOlderAppendsLast(t *testing.T, s eventstore.Store) {
	ctx := context.Background()
	older, err := s.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer older.Rollback(ctx)
	if _, err := older.Append(ctx, "elsewhere", eventstore.NoStream, NewEvents(1, "a.v1")); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, "hot", eventstore.NoStream, NewEvents(1, "a.v1"))
	if _, err := older.Append(ctx, "hot", 1, NewEvents(1, "a.v1")); err != nil {
		t.Fatal(err)
	}
	if _, err := older.Append(ctx, "fresh", eventstore.NoStream, NewEvents(1, "a.v1")); err != nil {
		t.Fatal(err)
	}
	if err := older.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	var log []string
	for _, e := range readWholeLog(t, s) {
		log = append(log, fmt.Sprintf("%s@%d", e.StreamID, e.Version))
	}
	if want := []string{"elsewhere@1", "hot@1", "hot@2", "fresh@1"}; !slices.Equal(log, want) {
		t.Fatalf("the log reads %v, want %v", log, want)
	}
}

// Writers append to a shared stream and to streams of their own, many after taking a
// transaction id early, some aborting, while a reader tails the global log: the reader
// sees every committed event exactly once, no aborted one, and every stream at
// consecutive versions from 1.
func tailUnderConcurrentWriters(t *testing.T, s eventstore.Store) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const writers, each = 10, 30
	var mu sync.Mutex
	committed := map[uuid.UUID]bool{}
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			own := fmt.Sprintf("own-%d", w)
			ownVersion := int64(0)
			for i := 0; i < each; {
				var batch []eventstore.Event
				wroteOwn := false
				abort := rand.IntN(8) == 0
				err := inTx(ctx, s, func(tx eventstore.Tx) error {
					batch = nil
					if wroteOwn = rand.IntN(2) == 0; wroteOwn {
						ownEvents := NewEvents(1, "own.v1")
						if _, err := tx.Append(ctx, own, ownVersion, ownEvents); err != nil {
							return err
						}
						batch = append(batch, ownEvents...)
						time.Sleep(time.Duration(rand.IntN(2000)) * time.Microsecond)
					}
					v, err := tx.Version(ctx, "shared")
					if err != nil {
						return err
					}
					shared := NewEvents(1+rand.IntN(2), "shared.v1")
					if _, err := tx.Append(ctx, "shared", v, shared); err != nil {
						return err
					}
					batch = append(batch, shared...)
					time.Sleep(time.Duration(rand.IntN(1000)) * time.Microsecond)
					if abort {
						return errAbort
					}
					return nil
				})
				switch {
				case errors.Is(err, errAbort):
					i++
				case errors.Is(err, eventstore.ErrVersionConflict):
				case err != nil:
					if ctx.Err() == nil { // not the reader giving up
						t.Error(err)
					}
					return
				default:
					i++
					if wroteOwn {
						ownVersion++
					}
					mu.Lock()
					for _, e := range batch {
						committed[e.ID] = true
					}
					mu.Unlock()
				}
			}
		})
	}
	writersDone := make(chan struct{})
	go func() { wg.Wait(); close(writersDone) }()

	seen := map[uuid.UUID]int{}
	versions := map[string]int64{}
	var from eventstore.Position
	read := func() int {
		events, err := s.ReadAll(ctx, from, 7)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range events {
			if !from.Less(e.Position) {
				t.Fatalf("position went back: %v after %v", e.Position, from)
			}
			from = e.Position
			seen[e.ID]++
			if e.Version != versions[e.StreamID]+1 {
				t.Fatalf("stream %s: version %d read after %d", e.StreamID, e.Version, versions[e.StreamID])
			}
			versions[e.StreamID] = e.Version
		}
		return len(events)
	}
	for done := false; !done; {
		select {
		case <-writersDone:
			done = true
		default:
			if read() == 0 {
				time.Sleep(2 * time.Millisecond)
			}
		}
	}
	// Transactions elsewhere on the server can hold the horizon back for a moment.
	for deadline := time.Now().Add(30 * time.Second); len(seen) < len(committed) && time.Now().Before(deadline); {
		if read() == 0 {
			time.Sleep(5 * time.Millisecond)
		}
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("event %s read %d times", id, n)
		}
		if !committed[id] {
			t.Errorf("event %s read but never committed", id)
		}
	}
	if len(seen) != len(committed) {
		t.Fatalf("read %d events, %d were committed", len(seen), len(committed))
	}
}

var errAbort = errors.New("storetest: abort")
