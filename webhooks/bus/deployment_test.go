package bus_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/google/uuid"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/finledger/finledger/webhooks/bus"
)

// deployment is a deployment of its own database, as the tests make them.
func deployment(name, owner string) bus.Deployment {
	return bus.Deployment{Name: name, Owner: bus.Owner{ID: owner, Database: "database " + owner}}
}

// Two deployments on one server: each consumer, though called the same, reads only its
// own deployment's events, and a core subscription to a workspace's subject (what the
// realtime stream uses) hears only its own deployment, even for the same workspace.
func TestDeploymentsOnOneServerKeepApart(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir())
	a := connectAs(t, srv.URL(), deployment("staging", "db-a"))
	b := connectAs(t, srv.URL(), deployment("prod", "db-b"))
	ws := uuid.New() // a database copied from another has the same workspaces

	live := make(chan *nats.Msg, 10)
	sub, err := a.Conn.ChanSubscribe(a.Names().Subject(ws), live)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = sub.Unsubscribe() }()
	if err := a.Conn.Flush(); err != nil {
		t.Fatal(err)
	}

	var fromA, fromB []*message.Message
	for i := range 5 {
		fromA = append(fromA, event(ws, i))
		fromB = append(fromB, event(ws, 100+i))
	}
	publishTo(t, b, fromB...)
	publishTo(t, a, fromA...)

	_, chA := subscribe(t, a, "dispatcher")
	_, chB := subscribe(t, b, "dispatcher")
	if got := receiveAck(t, chA, 5); !equal(got, uuids(fromA)) {
		t.Fatalf("staging received %v, want its own %v", got, uuids(fromA))
	}
	if got := receiveAck(t, chB, 5); !equal(got, uuids(fromB)) {
		t.Fatalf("prod received %v, want its own %v", got, uuids(fromB))
	}
	expectNothing(t, chA)
	expectNothing(t, chB)
	for i := range fromA {
		select {
		case m := <-live:
			if id := m.Header.Get(nats.MsgIdHdr); id != fromA[i].UUID {
				t.Fatalf("realtime subscription got %s, want staging's %s", id, fromA[i].UUID)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("realtime subscription got %d of staging's 5 messages", i)
		}
	}
	select {
	case m := <-live:
		t.Fatalf("realtime subscription of staging got %s", m.Header.Get(nats.MsgIdHdr))
	case <-time.After(quiet):
	}
}

// A stream records its owner: another database connecting under the same name is
// refused with an error naming both, and of two databases racing to create a stream
// exactly one gets it.
func TestConnectRefusesAnotherDatabasesStream(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir())
	connectAs(t, srv.URL(), deployment("shared", "db-one"))

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := bus.Connect(ctx, srv.URL(), deployment("shared", "db-two"))
	if !errors.Is(err, bus.ErrStreamOwned) {
		t.Fatalf("err = %v, want ErrStreamOwned", err)
	}
	for _, want := range []string{"FINLEDGER_EVENTS_shared", "database db-one", "db-one", "database db-two", "db-two"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
	// The owner still connects.
	connectAs(t, srv.URL(), deployment("shared", "db-one"))

	var wg sync.WaitGroup
	var won, refused atomic.Int32
	for i := range 6 {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			b, err := bus.Connect(ctx, srv.URL(), deployment("raced", "db-"+strconv.Itoa(i)))
			switch {
			case err == nil:
				won.Add(1)
				b.Close()
			case errors.Is(err, bus.ErrStreamOwned):
				refused.Add(1)
			default:
				t.Errorf("connect: %v", err)
			}
		})
	}
	wg.Wait()
	if won.Load() != 1 || refused.Load() != 5 {
		t.Fatalf("%d databases got the stream and %d were refused, want 1 and 5", won.Load(), refused.Load())
	}
}

// A new stream starts after StartAfter's position, asked only when the stream is made:
// positions recorded from an earlier stream stay below the new ones.
func TestNewStreamStartsAfterRecordedPositions(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir())
	var asked atomic.Int32
	d := deployment("moved", "db-moved")
	d.StartAfter = func(context.Context) (uint64, error) {
		asked.Add(1)
		return 41, nil
	}
	b := connectAs(t, srv.URL(), d)
	connectAs(t, srv.URL(), d)
	if n := asked.Load(); n != 1 {
		t.Fatalf("StartAfter asked %d times, want once, at creation", n)
	}
	publishTo(t, b, event(uuid.New(), 1))
	_, ch := subscribe(t, b, "dispatcher")
	m := next(t, ch, 5*time.Second)
	if m.Metadata.Get(bus.MetaStreamSeq) != "42" {
		t.Fatalf("first message at %s, want 42", m.Metadata.Get(bus.MetaStreamSeq))
	}
	// A new consumer has nothing below the first position to wait for.
	if floor, err := b.AckFloor(t.Context(), "dispatcher"); err != nil || floor != 41 {
		t.Fatalf("ack floor %d (%v) while the first message is out, want 41", floor, err)
	}
	m.Ack()
}

// Unacknowledged reads what lies beyond the lowest ack floor of a stream's consumers,
// in order, without moving them; all of it when there are none.
func TestUnacknowledged(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir())
	b := connectAs(t, srv.URL(), deployment("old", "db-old"))
	ws := uuid.New()
	var sent []*message.Message
	for i := range 7 {
		sent = append(sent, event(ws, i))
	}
	publishTo(t, b, sent...)
	reader := connectAs(t, srv.URL(), deployment("new", "db-old"))
	read := func() []string {
		t.Helper()
		var got []string
		err := reader.Unacknowledged(t.Context(), b.Names().Stream, func(msgs []*message.Message) error {
			got = append(got, uuids(msgs)...)
			return nil
		})
		if err != nil {
			t.Fatalf("unacknowledged: %v", err)
		}
		return got
	}
	if got := read(); !equal(got, uuids(sent)) {
		t.Fatalf("without consumers: %v, want all %v", got, uuids(sent))
	}
	// A reader that acknowledges nothing, having seen everything, holds no progress.
	js, err := jetstream.New(b.Conn)
	if err != nil {
		t.Fatal(err)
	}
	stream, err := js.Stream(t.Context(), b.Names().Stream)
	if err != nil {
		t.Fatal(err)
	}
	peek, err := stream.OrderedConsumer(t.Context(), jetstream.OrderedConsumerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	seen, err := peek.Fetch(len(sent))
	if err != nil {
		t.Fatal(err)
	}
	for range seen.Messages() {
	}
	if got := read(); !equal(got, uuids(sent)) {
		t.Fatalf("after an ephemeral reader: %v, want all %v", got, uuids(sent))
	}
	_, fast := subscribe(t, b, "fast")
	receiveAck(t, fast, 5)
	slow, ch := subscribe(t, b, "slow")
	receiveAck(t, ch, 2)
	if err := slow.Close(); err != nil {
		t.Fatal(err)
	}
	if got := read(); !equal(got, uuids(sent[2:])) {
		t.Fatalf("beyond the slow consumer: %v, want %v", got, uuids(sent[2:]))
	}
	// Reading moved no consumer.
	if floor, err := b.AckFloor(t.Context(), "slow"); err != nil || floor != 2 {
		t.Fatalf("slow consumer's ack floor %d (%v), want 2", floor, err)
	}
	err = reader.Unacknowledged(t.Context(), "FINLEDGER_EVENTS_missing", func([]*message.Message) error { return nil })
	if !errors.Is(err, jetstream.ErrStreamNotFound) {
		t.Fatalf("missing stream: err = %v, want ErrStreamNotFound", err)
	}
}
