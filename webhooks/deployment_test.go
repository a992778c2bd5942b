package webhooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	wmnats "github.com/ThreeDotsLabs/watermill-nats/v2/pkg/nats"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/eventstore"
	"github.com/finledger/finledger/internal/database"
	"github.com/finledger/finledger/internal/testkit/containers"
	"github.com/finledger/finledger/internal/testkit/testdb"
	"github.com/finledger/finledger/webhooks/bus"
)

// open opens a pool on a database, as an instance starting does, closed after the test.
func open(t *testing.T, dbURL string) *pgxpool.Pool {
	t.Helper()
	pool, err := database.Open(context.Background(), dbURL, 4)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// connectBus connects to srv as the deployment of the database behind pool, called
// name or its default name; the Bus is closed after the test.
func connectBus(t *testing.T, srv containers.NATSServer, pool *pgxpool.Pool, name string) (*bus.Bus, error) {
	t.Helper()
	d, err := Deployment(t.Context(), pool, name)
	if err != nil {
		return nil, err
	}
	b, err := bus.Connect(t.Context(), srv.URL(), d)
	if err == nil {
		t.Cleanup(b.Close)
	}
	return b, err
}

// dbName is the name of the database of a URL.
func dbName(t *testing.T, dbURL string) string {
	t.Helper()
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimPrefix(u.Path, "/")
}

// A database's default deployment name stays the same across restarts, and two
// databases never share one, though both are copies of one template database.
func TestDefaultDeploymentIsStableAndPerDatabase(t *testing.T) {
	urlA, urlB := testdb.URL(t), testdb.URL(t)
	first, err := Deployment(t.Context(), open(t, urlA), "")
	if err != nil {
		t.Fatal(err)
	}
	restarted, err := Deployment(t.Context(), open(t, urlA), "")
	if err != nil {
		t.Fatal(err)
	}
	other, err := Deployment(t.Context(), open(t, urlB), "")
	if err != nil {
		t.Fatal(err)
	}
	if first.Name != restarted.Name || first.Owner != restarted.Owner {
		t.Fatalf("after a restart %+v, before %+v", restarted, first)
	}
	if first.Name == other.Name || first.Owner.ID == other.Owner.ID {
		t.Fatalf("two databases share deployment %q (owner %s)", first.Name, first.Owner.ID)
	}
	if _, err := bus.NamesOf(first.Name); err != nil || !strings.Contains(first.Owner.Database, dbName(t, urlA)) {
		t.Fatalf("default deployment %+v: %v", first, err)
	}
	named, err := Deployment(t.Context(), open(t, urlA), "prod")
	if err != nil || named.Name != "prod" || named.Owner != first.Owner {
		t.Fatalf("named deployment %+v (%v), want prod owned by %+v", named, err, first.Owner)
	}
}

// Deployments of three databases on one NATS server: a third database configured with
// a name another database's deployment holds is refused, with an error naming both
// databases; instances of one database start together fine.
func TestDeploymentNamesOnASharedServer(t *testing.T) {
	srv := containers.NATSFor(t)
	prodURL, stagingURL, thirdURL := testdb.URL(t), testdb.URL(t), testdb.URL(t)
	if _, err := connectBus(t, srv, open(t, prodURL), "prod"); err != nil {
		t.Fatal(err)
	}
	if _, err := connectBus(t, srv, open(t, stagingURL), "staging"); err != nil {
		t.Fatal(err)
	}
	_, err := connectBus(t, srv, open(t, thirdURL), "prod")
	if !errors.Is(err, bus.ErrStreamOwned) {
		t.Fatalf("a third database as prod: err = %v, want ErrStreamOwned", err)
	}
	for _, want := range []string{dbName(t, prodURL), dbName(t, thirdURL), "FINLEDGER_EVENTS_prod"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}

	// Instances of a fresh database start at once: each gives the copied database its
	// identity, if no other did first, and creates the stream, if no other did first.
	fresh := testdb.URL(t)
	var wg sync.WaitGroup
	names := make([]string, 4)
	for i := range names {
		pool := open(t, fresh)
		wg.Go(func() {
			b, err := connectBus(t, srv, pool, "")
			if err != nil {
				t.Errorf("instance %d: %v", i, err)
				return
			}
			names[i] = b.Names().Deployment
		})
	}
	wg.Wait()
	for _, n := range names[1:] {
		if n != names[0] {
			t.Fatalf("instances of one database took names %v", names)
		}
	}
}

// An upgrade from the one fixed stream of earlier versions: the relay's checkpoint is
// past every event published there, but the old dispatcher had acknowledged only some.
// The relay moves to the deployment's stream and publishes the others again, then
// carries on; the new stream continues above the positions the deliveries recorded.
func TestRelayTakesOverFromTheFixedStream(t *testing.T) {
	ctx := t.Context()
	srv := containers.NATSFor(t)
	pool := testdb.Pool(t)
	ws := uuid.New()
	appendEvents := func(n int) []eventstore.RecordedEvent {
		t.Helper()
		stream := domain.StreamID(ws)
		version, err := eventstore.Version(ctx, pool, stream, false)
		if err != nil {
			t.Fatal(err)
		}
		var events []eventstore.Event
		for i := range n {
			events = append(events, eventstore.Event{ID: uuid.New(), Type: "test.happened.v1",
				Data: json.RawMessage(fmt.Sprintf(`{"n":%d}`, int(version)+i)), Metadata: json.RawMessage(`{}`)})
		}
		res, err := eventstore.Append(ctx, pool, stream, version, events, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		return res.Events
	}
	old := appendEvents(6)

	// What an earlier version left: every event on FINLEDGER_EVENTS, the dispatcher's
	// consumer past the first two, a delivery at the old stream's position 2, and the
	// checkpoint written without a stream, as that version wrote it.
	conn, err := nats.Connect(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	js, err := jetstream.New(conn)
	if err != nil {
		t.Fatal(err)
	}
	legacy, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "FINLEDGER_EVENTS", Subjects: []string{"finledger.events.>"}, Duplicates: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range old {
		m, err := (&wmnats.NATSMarshaler{}).Marshal("finledger.events."+ws.String(), relayMessage(e, ws))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := js.PublishMsg(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	consumer, err := legacy.CreateConsumer(ctx, jetstream.ConsumerConfig{Durable: "finledger-dispatcher", AckPolicy: jetstream.AckExplicitPolicy})
	if err != nil {
		t.Fatal(err)
	}
	fetched, err := consumer.Fetch(2)
	if err != nil {
		t.Fatal(err)
	}
	for m := range fetched.Messages() {
		if err := m.DoubleAck(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := pool.Exec(ctx, `INSERT INTO webhook_deliveries (workspace_id, id, webhook_id, stream_seq, event_id, event, body, status, created_at)
		VALUES ($1, gen_random_uuid(), gen_random_uuid(), 2, $2, 'test', '{}', 'succeeded', now())`, ws, old[1].ID); err != nil {
		t.Fatal(err)
	}
	last := old[len(old)-1].Position
	if _, err := pool.Exec(ctx, `INSERT INTO relay_checkpoints (name, tx_id, position) VALUES ($1, $2::text::xid8, $3)`,
		relayCheckpoint, strconv.FormatUint(last.TxID, 10), last.Sequence); err != nil {
		t.Fatal(err)
	}

	b, err := connectBus(t, srv, pool, "")
	if err != nil {
		t.Fatal(err)
	}
	publisher, err := b.Publisher()
	if err != nil {
		t.Fatal(err)
	}
	relay := &Relay{Pool: pool, Bus: b, Publisher: publisher, Interval: 10 * time.Millisecond}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- relay.Run(runCtx) }()
	defer func() { stop(); <-done }()
	later := appendEvents(2)
	relay.Wake()

	want := append(append([]eventstore.RecordedEvent{}, old[2:]...), later...)
	var got []*message.Message
	deadline := time.Now().Add(10 * time.Second)
	for len(got) < len(want) && time.Now().Before(deadline) {
		got = nil
		if err := b.Unacknowledged(ctx, b.Names().Stream, func(msgs []*message.Message) error {
			got = append(got, msgs...)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(got) != len(want) {
		t.Fatalf("the deployment's stream holds %d messages, want %d", len(got), len(want))
	}
	for i, m := range got {
		if m.UUID != want[i].ID.String() {
			t.Fatalf("message %d is %s, want %s", i, m.UUID, want[i].ID)
		}
		if seq := m.Metadata.Get(bus.MetaStreamSeq); seq != strconv.Itoa(3+i) {
			t.Fatalf("message %d at position %s, want %d: above the delivery at 2", i, seq, 3+i)
		}
	}
	_, stream, err := relay.checkpoint(ctx)
	if err != nil || stream != b.Names().Stream {
		t.Fatalf("checkpoint of stream %q (%v), want %q", stream, err, b.Names().Stream)
	}
	// The old stream and its consumer are left as they were.
	info, err := consumer.Info(ctx)
	if err != nil || info.AckFloor.Stream != 2 {
		t.Fatalf("old consumer's ack floor %v (%v), want 2", info, err)
	}
}
