package eventstore_test

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/finledger/finledger/eventstore"
	"github.com/finledger/finledger/eventstore/storetest"
	"github.com/finledger/finledger/internal/testkit/testdb"
)

func TestMain(m *testing.M) { os.Exit(testdb.Main(m)) }

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func appendTx(ctx context.Context, pool *pgxpool.Pool, stream string, expected int64, events []eventstore.Event) (eventstore.AppendResult, error) {
	var res eventstore.AppendResult
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		var err error
		res, err = eventstore.Append(ctx, tx, stream, expected, events, t0)
		return err
	})
	return res, err
}

// The PostgreSQL store passes the conformance suite.
func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) eventstore.Store { return eventstore.NewPostgres(testdb.Pool(t)) })
}

func TestAppendRecordsTheTimeGiven(t *testing.T) {
	ctx := context.Background()
	pool := testdb.Pool(t)
	if _, err := appendTx(ctx, pool, "s", eventstore.NoStream, storetest.NewEvents(2, "a.v1")); err != nil {
		t.Fatal(err)
	}
	got, err := eventstore.ReadStream(ctx, pool, "s", 0, 10)
	if err != nil || len(got) != 2 || !got[0].RecordedAt.Equal(t0) {
		t.Fatalf("read %+v, %v; want two events recorded at %v", got, err, t0)
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
					_, err = eventstore.Append(ctx, tx, "busy", v, storetest.NewEvents(1, "a.v1"), t0)
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

// Replay and verify read the whole log at once under LockAppends: they too get each
// stream in version order when an older transaction appended to it last.
func TestReadAllLockedKeepsStreamOrder(t *testing.T) {
	ctx := context.Background()
	pool := testdb.Pool(t)
	older, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer older.Rollback(ctx)
	if _, err := eventstore.Append(ctx, older, "elsewhere", eventstore.NoStream, storetest.NewEvents(1, "a.v1"), t0); err != nil {
		t.Fatal(err)
	}
	if _, err := appendTx(ctx, pool, "hot", eventstore.NoStream, storetest.NewEvents(1, "a.v1")); err != nil {
		t.Fatal(err)
	}
	if _, err := eventstore.Append(ctx, older, "hot", 1, storetest.NewEvents(1, "a.v1"), t0); err != nil {
		t.Fatal(err)
	}
	if err := older.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	var hot []int64
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if err := eventstore.LockAppends(ctx, tx); err != nil {
			return err
		}
		events, err := eventstore.ReadAllLocked(ctx, tx, eventstore.Position{}, 100)
		for _, e := range events {
			if e.StreamID == "hot" {
				hot = append(hot, e.Version)
			}
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(hot) != 2 || hot[0] != 1 || hot[1] != 2 {
		t.Fatalf("the locked read gives stream hot at versions %v, want [1 2]", hot)
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
	events := storetest.NewEvents(3, "a.v1")
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

// A read of the global log, or of a stream, stops before the event that would take its
// data past 4 MB as stored, and gives one event at least; the next read goes on from
// there, so a reader gets every event, in order, in reads of bounded size.
func TestReadAllBoundsTheDataOfARead(t *testing.T) {
	ctx := context.Background()
	pool := testdb.Pool(t)
	large := make([]eventstore.Event, 4)
	for i := range large {
		noise := make([]byte, 1200<<10) // 1.6 MB in base64, stored at about its size
		if _, err := rand.Read(noise); err != nil {
			t.Fatal(err)
		}
		data, err := json.Marshal(map[string]string{"noise": base64.StdEncoding.EncodeToString(noise)})
		if err != nil {
			t.Fatal(err)
		}
		large[i] = eventstore.Event{ID: uuid.New(), Type: "large.v1", Data: data, Metadata: []byte(`{}`)}
	}
	if _, err := appendTx(ctx, pool, "large", eventstore.NoStream, large); err != nil {
		t.Fatal(err)
	}
	from := eventstore.Position{}
	if reads := readsOf(t, func() ([]eventstore.RecordedEvent, error) { return eventstore.ReadAll(ctx, pool, from, 100) },
		func(e eventstore.RecordedEvent) { from = e.Position }); reads != "[[1 2 3] [4]]" {
		t.Fatalf("the reads of the log gave versions %s, want [[1 2 3] [4]]", reads)
	}
	after := int64(0)
	if reads := readsOf(t, func() ([]eventstore.RecordedEvent, error) {
		return eventstore.ReadStream(ctx, pool, "large", after, 100)
	},
		func(e eventstore.RecordedEvent) { after = e.Version }); reads != "[[1 2 3] [4]]" {
		t.Fatalf("the reads of the stream gave versions %s, want [[1 2 3] [4]]", reads)
	}
}

// readsOf reads until a read comes back empty, handing went each event read, and
// returns the versions each read gave.
func readsOf(t *testing.T, read func() ([]eventstore.RecordedEvent, error), went func(eventstore.RecordedEvent)) string {
	t.Helper()
	var reads [][]int64
	for {
		events, err := read()
		if err != nil {
			t.Fatal(err)
		}
		if len(events) == 0 {
			return fmt.Sprint(reads)
		}
		var versions []int64
		for _, e := range events {
			versions = append(versions, e.Version)
			went(e)
		}
		reads = append(reads, versions)
	}
}
