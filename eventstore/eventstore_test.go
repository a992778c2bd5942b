package eventstore_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/finledger/finledger/eventstore"
	"github.com/finledger/finledger/internal/testdb"
)

func TestMain(m *testing.M) { os.Exit(testdb.Main(m)) }

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func newEvents(n int, typ string) []eventstore.Event {
	out := make([]eventstore.Event, n)
	for i := range out {
		out[i] = eventstore.Event{
			ID:       uuid.New(),
			Type:     typ,
			Data:     json.RawMessage(fmt.Sprintf(`{"n":%d}`, i)),
			Metadata: json.RawMessage(`{"actor":"test"}`),
		}
	}
	return out
}

func appendTx(ctx context.Context, pool *pgxpool.Pool, stream string, expected int64, events []eventstore.Event) (eventstore.AppendResult, error) {
	var res eventstore.AppendResult
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		var err error
		res, err = eventstore.Append(ctx, tx, stream, expected, events, t0)
		return err
	})
	return res, err
}

func TestAppendAndReadStream(t *testing.T) {
	ctx := context.Background()
	pool := testdb.Pool(t)

	first := newEvents(3, "thing.happened.v1")
	res, err := appendTx(ctx, pool, "s-1", eventstore.NoStream, first)
	if err != nil {
		t.Fatal(err)
	}
	if res.Duplicate || len(res.Events) != 3 {
		t.Fatalf("append result = %+v", res)
	}
	for i, e := range res.Events {
		if e.Version != int64(i+1) || e.StreamID != "s-1" || e.ID != first[i].ID {
			t.Fatalf("event %d recorded as %+v", i, e)
		}
		if i > 0 && !res.Events[i-1].Position.Less(e.Position) {
			t.Fatalf("positions not increasing: %v then %v", res.Events[i-1].Position, e.Position)
		}
	}
	if _, err := appendTx(ctx, pool, "s-1", 3, newEvents(2, "thing.happened.v1")); err != nil {
		t.Fatal(err)
	}
	got, err := eventstore.ReadStream(ctx, pool, "s-1", 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 5 {
		t.Fatalf("read %d events, want 5", len(got))
	}
	for i, e := range got {
		if e.Version != int64(i+1) {
			t.Fatalf("event %d has version %d", i, e.Version)
		}
	}
	if string(got[1].Data) != `{"n": 1}` && string(got[1].Data) != `{"n":1}` {
		t.Fatalf("data round trip: %s", got[1].Data)
	}
	if !got[0].RecordedAt.Equal(t0) {
		t.Fatalf("recorded at %v, want %v", got[0].RecordedAt, t0)
	}
	tail, err := eventstore.ReadStream(ctx, pool, "s-1", 3, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(tail) != 2 || tail[0].Version != 4 {
		t.Fatalf("read after 3: %+v", tail)
	}
	v, err := eventstore.Version(ctx, pool, "s-1", false)
	if err != nil || v != 5 {
		t.Fatalf("version = %d, %v; want 5", v, err)
	}
	v, err = eventstore.Version(ctx, pool, "missing", false)
	if err != nil || v != 0 {
		t.Fatalf("version of a missing stream = %d, %v; want 0", v, err)
	}
}

func TestAppendVersionConflicts(t *testing.T) {
	ctx := context.Background()
	pool := testdb.Pool(t)
	if _, err := appendTx(ctx, pool, "s", eventstore.NoStream, newEvents(2, "a.v1")); err != nil {
		t.Fatal(err)
	}
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
		t.Run(c.name, func(t *testing.T) {
			_, err := appendTx(ctx, pool, c.stream, c.expected, newEvents(1, "a.v1"))
			if !errors.Is(err, eventstore.ErrVersionConflict) {
				t.Fatalf("err = %v, want ErrVersionConflict", err)
			}
		})
	}
	got, err := eventstore.ReadStream(ctx, pool, "s", 0, 100)
	if err != nil || len(got) != 2 {
		t.Fatalf("stream changed by failed appends: %d events, %v", len(got), err)
	}
	if v, _ := eventstore.Version(ctx, pool, "other", false); v != 0 {
		t.Fatalf("failed append created stream other at version %d", v)
	}
}

func TestAppendIsIdempotentByEventID(t *testing.T) {
	ctx := context.Background()
	pool := testdb.Pool(t)
	batch := newEvents(2, "a.v1")
	first, err := appendTx(ctx, pool, "s", eventstore.NoStream, batch)
	if err != nil {
		t.Fatal(err)
	}
	// A retry of the same batch, even with a stale expected version, is a no-op.
	again, err := appendTx(ctx, pool, "s", eventstore.NoStream, batch)
	if err != nil {
		t.Fatal(err)
	}
	if !again.Duplicate || len(again.Events) != 2 || again.Events[1].Position != first.Events[1].Position {
		t.Fatalf("retry result = %+v, first = %+v", again, first)
	}
	mixed := append([]eventstore.Event{batch[0]}, newEvents(1, "a.v1")...)
	if _, err := appendTx(ctx, pool, "s", 2, mixed); !errors.Is(err, eventstore.ErrPartialDuplicate) {
		t.Fatalf("partial duplicate err = %v", err)
	}
	got, _ := eventstore.ReadStream(ctx, pool, "s", 0, 100)
	if len(got) != 2 {
		t.Fatalf("stream has %d events after retries, want 2", len(got))
	}
	// The same event id may appear in another stream: ids are unique per stream.
	if _, err := appendTx(ctx, pool, "t", eventstore.NoStream, batch[:1]); err != nil {
		t.Fatal(err)
	}
}

func TestConcurrentAppendsToOneStreamSerialiseOnTheLock(t *testing.T) {
	ctx := context.Background()
	pool := testdb.Pool(t)
	const writers, each = 16, 20
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
					v, err := eventstore.Version(ctx, tx, "busy", true)
					if err != nil {
						return err
					}
					_, err = eventstore.Append(ctx, tx, "busy", v, newEvents(1, "a.v1"), t0)
					return err
				})
				if err != nil && !errors.Is(err, eventstore.ErrVersionConflict) {
					errs <- err
					return
				}
				if err != nil {
					i-- // only the stream's creation can race; try again
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	got, err := eventstore.ReadStream(ctx, pool, "busy", 0, 10000)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != writers*each {
		t.Fatalf("stream has %d events, want %d", len(got), writers*each)
	}
	for i, e := range got {
		if e.Version != int64(i+1) {
			t.Fatalf("gap: event %d has version %d", i, e.Version)
		}
	}
}

// An event whose transaction took a sequence number first but commits last must not be
// passed by a reader: ReadAll holds back everything from the still-open transaction on.
func TestReadAllWaitsForTransactionsCommittingOutOfOrder(t *testing.T) {
	ctx := context.Background()
	pool := testdb.Pool(t)

	slow, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Rollback(ctx)
	slowRes, err := eventstore.Append(ctx, slow, "slow", eventstore.NoStream, newEvents(1, "a.v1"), t0)
	if err != nil {
		t.Fatal(err)
	}
	fastRes, err := appendTx(ctx, pool, "fast", eventstore.NoStream, newEvents(1, "a.v1"))
	if err != nil {
		t.Fatal(err)
	}
	if !slowRes.Events[0].Position.Less(fastRes.Events[0].Position) {
		t.Fatalf("setup: slow %v should come before fast %v", slowRes.Events[0].Position, fastRes.Events[0].Position)
	}
	visible, err := eventstore.ReadAll(ctx, pool, eventstore.Position{}, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(visible) != 0 {
		t.Fatalf("ReadAll returned %d events while an older transaction is open", len(visible))
	}
	if err := slow.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	visible, err = eventstore.ReadAll(ctx, pool, eventstore.Position{}, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(visible) != 2 || visible[0].StreamID != "slow" || visible[1].StreamID != "fast" {
		t.Fatalf("after commit ReadAll = %+v", visible)
	}
	rest, err := eventstore.ReadAll(ctx, pool, visible[0].Position, 100)
	if err != nil || len(rest) != 1 || rest[0].StreamID != "fast" {
		t.Fatalf("ReadAll after first = %+v, %v", rest, err)
	}
}

// Many writers commit in random order while a subscription tails the log: it must see
// every committed event exactly once and never an aborted one.
func TestSubscriptionSeesEveryEventOnceUnderConcurrentWriters(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pool := testdb.Pool(t)

	const writers, each = 12, 40
	var mu sync.Mutex
	want := map[uuid.UUID]bool{}
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			stream := fmt.Sprintf("w-%d", w)
			version := int64(0)
			for i := 0; i < each; i++ {
				batch := newEvents(1+rand.IntN(3), "a.v1")
				abort := rand.IntN(10) == 0
				err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
					if _, err := eventstore.Append(ctx, tx, stream, version, batch, t0); err != nil {
						return err
					}
					time.Sleep(time.Duration(rand.IntN(3000)) * time.Microsecond)
					if abort {
						return errors.New("abort")
					}
					return nil
				})
				if abort {
					continue
				}
				if err != nil {
					t.Error(err)
					return
				}
				version += int64(len(batch))
				mu.Lock()
				for _, e := range batch {
					want[e.ID] = true
				}
				mu.Unlock()
			}
		}()
	}
	writersDone := make(chan struct{})
	go func() { wg.Wait(); close(writersDone) }()

	seen := map[uuid.UUID]int{}
	var delivered atomic.Int64
	var last eventstore.Position
	sub := &eventstore.Subscription{DB: pool, BatchSize: 7, Interval: 5 * time.Millisecond}
	subCtx, stop := context.WithCancel(ctx)
	subErr := make(chan error, 1)
	go func() {
		subErr <- sub.Run(subCtx, func(_ context.Context, e eventstore.RecordedEvent) error {
			if !last.Less(e.Position) {
				return fmt.Errorf("position went back: %v after %v", e.Position, last)
			}
			last = e.Position
			seen[e.ID]++
			delivered.Add(1)
			return nil
		})
	}()
	<-writersDone
	deadline := time.Now().Add(30 * time.Second)
	for {
		mu.Lock()
		total := len(want)
		mu.Unlock()
		if delivered.Load() >= int64(total) || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	stop()
	if err := <-subErr; !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("event %s delivered %d times", id, n)
		}
		if !want[id] {
			t.Errorf("event %s delivered but never committed", id)
		}
	}
	if len(seen) != len(want) {
		t.Fatalf("delivered %d events, committed %d", len(seen), len(want))
	}
}

// A wake cuts the wait between polls short, and the checkpoint hears of each batch's
// last position.
func TestSubscriptionWakeAndCheckpoint(t *testing.T) {
	ctx := context.Background()
	pool := testdb.Pool(t)
	wake := make(chan struct{}, 1)
	checkpoints := make(chan eventstore.Position, 10)
	got := make(chan uuid.UUID, 10)
	sub := &eventstore.Subscription{DB: pool, BatchSize: 2, Interval: time.Hour, Wake: wake,
		Checkpoint: func(_ context.Context, p eventstore.Position) error { checkpoints <- p; return nil }}
	subCtx, stop := context.WithCancel(ctx)
	defer stop()
	go func() {
		_ = sub.Run(subCtx, func(_ context.Context, e eventstore.RecordedEvent) error { got <- e.ID; return nil })
	}()
	time.Sleep(50 * time.Millisecond) // the subscription has read the empty log and waits an hour
	events := newEvents(3, "a.v1")
	res, err := appendTx(ctx, pool, "s", eventstore.NoStream, events)
	if err != nil {
		t.Fatal(err)
	}
	wake <- struct{}{}
	for i, want := range events {
		select {
		case id := <-got:
			if id != want.ID {
				t.Fatalf("event %d: %s, want %s", i, id, want.ID)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("event %d not delivered after a wake", i)
		}
	}
	// Two batches (of two, then one), a checkpoint after each, the last at the last event.
	var last eventstore.Position
	for range 2 {
		select {
		case last = <-checkpoints:
		case <-time.After(10 * time.Second):
			t.Fatal("no checkpoint")
		}
	}
	if last != res.Events[2].Position {
		t.Fatalf("checkpoint %v, want %v", last, res.Events[2].Position)
	}
}
