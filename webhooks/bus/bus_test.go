package bus_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/google/uuid"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/finledger/finledger/webhooks/bus"
)

// quiet is how long a test waits to be sure no further message arrives.
const quiet = 500 * time.Millisecond

// startServer starts an embedded server storing under dir, shut down after the test.
func startServer(t *testing.T, dir string) *bus.Embedded {
	t.Helper()
	srv, err := bus.StartEmbedded(dir)
	if err != nil {
		t.Fatalf("start embedded: %v", err)
	}
	t.Cleanup(srv.Shutdown)
	return srv
}

// testDeployment is the deployment the tests connect as unless they say otherwise.
var testDeployment = bus.Deployment{Name: "test", Owner: bus.Owner{ID: "owner-test", Database: "database test"}}

// connect opens a Bus of testDeployment, closed after the test.
func connect(t *testing.T, url string) *bus.Bus {
	t.Helper()
	return connectAs(t, url, testDeployment)
}

// connectAs opens a Bus of deployment d, closed after the test.
func connectAs(t *testing.T, url string, d bus.Deployment) *bus.Bus {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	b, err := bus.Connect(ctx, url, d)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(b.Close)
	return b
}

// event is a message as the relay would publish it.
func event(ws uuid.UUID, n int) *message.Message {
	m := message.NewMessage(uuid.NewString(), fmt.Appendf(nil, `{"n":%d}`, n))
	m.Metadata.Set("event_type", "transaction.created.v1")
	m.Metadata.Set("workspace_id", ws.String())
	m.Metadata.Set("Trace-Parent", fmt.Sprintf("00-%032d-%016d-01", n, n))
	return m
}

// publishTo publishes each message to its workspace's subject, read from metadata.
func publishTo(t *testing.T, b *bus.Bus, msgs ...*message.Message) {
	t.Helper()
	pub, err := b.Publisher()
	if err != nil {
		t.Fatalf("publisher: %v", err)
	}
	defer pub.Close()
	for _, m := range msgs {
		ws := uuid.MustParse(m.Metadata.Get("workspace_id"))
		if err := pub.Publish(b.Names().Subject(ws), m); err != nil {
			t.Fatalf("publish %s: %v", m.UUID, err)
		}
	}
}

// subscribe opens a subscriber on durable, closed after the test, and subscribes to
// the whole stream.
func subscribe(t *testing.T, b *bus.Bus, durable string, opts ...bus.SubscriberOption) (message.Subscriber, <-chan *message.Message) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	sub, err := b.Subscriber(ctx, durable, opts...)
	if err != nil {
		t.Fatalf("subscriber: %v", err)
	}
	t.Cleanup(func() { _ = sub.Close() })
	ch, err := sub.Subscribe(context.Background(), b.Names().AllEvents())
	if err != nil {
		t.Fatalf("subscribe: %v", err)
	}
	return sub, ch
}

// next returns the next message or fails the test after timeout.
func next(t *testing.T, ch <-chan *message.Message, timeout time.Duration) *message.Message {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	select {
	case m, ok := <-ch:
		if !ok {
			t.Fatal("subscription closed")
		}
		return m
	case <-ctx.Done():
		t.Fatalf("no message within %s", timeout)
		return nil
	}
}

// receiveAck receives n messages, acking each, and returns their UUIDs in order.
func receiveAck(t *testing.T, ch <-chan *message.Message, n int) []string {
	t.Helper()
	ids := make([]string, 0, n)
	for range n {
		m := next(t, ch, 5*time.Second)
		ids = append(ids, m.UUID)
		m.Ack()
	}
	return ids
}

// expectNothing fails if a message arrives within the quiet period.
func expectNothing(t *testing.T, ch <-chan *message.Message) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), quiet)
	defer cancel()
	select {
	case m, ok := <-ch:
		if !ok {
			t.Fatal("subscription closed")
		}
		t.Fatalf("unexpected message %s (%s)", m.UUID, m.Payload)
	case <-ctx.Done():
	}
}

// streamMessages reads how many messages the events stream stores.
func streamMessages(t *testing.T, b *bus.Bus) uint64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	js, err := jetstream.New(b.Conn)
	if err != nil {
		t.Fatalf("jetstream: %v", err)
	}
	s, err := js.Stream(ctx, b.Names().Stream)
	if err != nil {
		t.Fatalf("stream: %v", err)
	}
	info, err := s.Info(ctx)
	if err != nil {
		t.Fatalf("stream info: %v", err)
	}
	return info.State.Msgs
}

func uuids(msgs []*message.Message) []string {
	ids := make([]string, len(msgs))
	for i, m := range msgs {
		ids[i] = m.UUID
	}
	return ids
}

func equal(a, b []string) bool {
	return strings.Join(a, ",") == strings.Join(b, ",")
}

func TestNames(t *testing.T) {
	t.Parallel()
	ws := uuid.MustParse("0190d7a0-0000-7000-8000-000000000001")
	n, err := bus.NamesOf("prod-2_b")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, got, want string }{
		{"stream", n.Stream, "FINLEDGER_EVENTS_prod-2_b"},
		{"subject", n.Subject(ws), "finledger.prod-2_b.events.0190d7a0-0000-7000-8000-000000000001"},
		{"all events", n.AllEvents(), "finledger.prod-2_b.events.>"},
		{"durable", n.Durable("dispatcher"), "finledger-prod-2_b-dispatcher"},
	} {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.name, c.got, c.want)
		}
	}
	for _, bad := range []string{"", "a.b", "a b", "a>", "a*", "ä", "x/y", strings.Repeat("a", 33)} {
		if _, err := bus.NamesOf(bad); !errors.Is(err, bus.ErrInvalidDeploymentName) {
			t.Errorf("NamesOf(%q): err = %v, want ErrInvalidDeploymentName", bad, err)
		}
	}
	// The default name is a valid name, stable, and differs between owners.
	one, two := bus.DefaultName("owner-1"), bus.DefaultName("owner-2")
	if _, err := bus.NamesOf(one); err != nil || one != bus.DefaultName("owner-1") || one == two || len(one) != 12 {
		t.Fatalf("default names %q and %q (%v)", one, two, err)
	}
}

func TestEmbeddedListensOnLoopback(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir())
	if !strings.HasPrefix(srv.URL(), "nats://127.0.0.1:") || strings.HasSuffix(srv.URL(), ":0") {
		t.Fatalf("URL = %q, want nats://127.0.0.1:<port>", srv.URL())
	}
}

func TestPublishSameUUIDStoresOnce(t *testing.T) {
	t.Parallel()
	b := connect(t, startServer(t, t.TempDir()).URL())
	ws := uuid.New()
	first := event(ws, 1)
	again := message.NewMessage(first.UUID, first.Payload)
	for k, v := range first.Metadata {
		again.Metadata.Set(k, v)
	}
	publishTo(t, b, first, again)

	if n := streamMessages(t, b); n != 1 {
		t.Fatalf("stream holds %d messages, want 1", n)
	}
	_, ch := subscribe(t, b, "dedup")
	if got := receiveAck(t, ch, 1); got[0] != first.UUID {
		t.Fatalf("received %s, want %s", got[0], first.UUID)
	}
	expectNothing(t, ch)
}

func TestSubscriberReceivesInPublishOrder(t *testing.T) {
	t.Parallel()
	b := connect(t, startServer(t, t.TempDir()).URL())
	workspaces := []uuid.UUID{uuid.New(), uuid.New(), uuid.New()}
	var sent []*message.Message
	for i := range 12 {
		sent = append(sent, event(workspaces[i%len(workspaces)], i))
	}
	publishTo(t, b, sent...)

	_, ch := subscribe(t, b, "order")
	for i, want := range sent {
		got := next(t, ch, 5*time.Second)
		if got.UUID != want.UUID {
			t.Fatalf("message %d: UUID %s, want %s", i, got.UUID, want.UUID)
		}
		if string(got.Payload) != string(want.Payload) {
			t.Fatalf("message %d: payload %s, want %s", i, got.Payload, want.Payload)
		}
		// The subscriber adds the message's position in the stream.
		if got.Metadata.Get(bus.MetaStreamSeq) != strconv.Itoa(i+1) || len(got.Metadata) != len(want.Metadata)+1 {
			t.Fatalf("message %d: metadata %v, want %v and its stream position", i, got.Metadata, want.Metadata)
		}
		for k, v := range want.Metadata {
			if got.Metadata.Get(k) != v {
				t.Fatalf("message %d: metadata %q = %q, want %q", i, k, got.Metadata.Get(k), v)
			}
		}
		got.Ack()
	}
	expectNothing(t, ch)
}

func TestDurableResumesAfterRestart(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir())
	ws := uuid.New()
	var sent []*message.Message
	for i := range 7 {
		sent = append(sent, event(ws, i))
	}

	first := connect(t, srv.URL())
	publishTo(t, first, sent[:5]...)
	// The default ack wait of 30 s is far beyond the receive timeout: a message the
	// closing subscriber had fetched but not handed out must be released at once.
	sub, ch := subscribe(t, first, "resume")
	if got := receiveAck(t, ch, 3); !equal(got, uuids(sent[:3])) {
		t.Fatalf("first run received %v, want %v", got, uuids(sent[:3]))
	}
	if err := sub.Close(); err != nil {
		t.Fatalf("close subscriber: %v", err)
	}
	first.Close()

	second := connect(t, srv.URL())
	publishTo(t, second, sent[5:]...)
	_, ch = subscribe(t, second, "resume")
	if got := receiveAck(t, ch, 4); !equal(got, uuids(sent[3:])) {
		t.Fatalf("second run received %v, want %v", got, uuids(sent[3:]))
	}
	expectNothing(t, ch)
}

func TestNackedMessageIsRedeliveredBeforeLaterOnes(t *testing.T) {
	t.Parallel()
	b := connect(t, startServer(t, t.TempDir()).URL())
	ws := uuid.New()
	a, c := event(ws, 1), event(ws, 2)
	publishTo(t, b, a, c)

	_, ch := subscribe(t, b, "nack", bus.WithNakDelay(100*time.Millisecond))
	m := next(t, ch, 5*time.Second)
	if m.UUID != a.UUID {
		t.Fatalf("first delivery %s, want %s", m.UUID, a.UUID)
	}
	m.Nack()
	if got := receiveAck(t, ch, 2); !equal(got, []string{a.UUID, c.UUID}) {
		t.Fatalf("after nack received %v, want %v", got, []string{a.UUID, c.UUID})
	}
	expectNothing(t, ch)
}

func TestInstancesSharingADurableGetEachMessageOnce(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir())
	one, two := connect(t, srv.URL()), connect(t, srv.URL())
	_, ch1 := subscribe(t, one, "group")
	_, ch2 := subscribe(t, two, "group")

	ws := uuid.New()
	var sent []*message.Message
	for i := range 20 {
		sent = append(sent, event(ws, i))
	}
	publishTo(t, one, sent...)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var got []string
	for len(got) < len(sent) {
		var m *message.Message
		ok := true
		select {
		case m, ok = <-ch1:
		case m, ok = <-ch2:
		case <-ctx.Done():
			t.Fatalf("received %d of %d messages", len(got), len(sent))
		}
		if !ok {
			t.Fatal("subscription closed")
		}
		got = append(got, m.UUID)
		m.Ack()
	}
	// One outstanding message for the whole group keeps stream order across instances.
	if !equal(got, uuids(sent)) {
		t.Fatalf("group received %v, want %v", got, uuids(sent))
	}
	ctx, cancel = context.WithTimeout(context.Background(), quiet)
	defer cancel()
	select {
	case m, ok := <-ch1:
		t.Fatalf("duplicate or closed: %v %v", m, ok)
	case m, ok := <-ch2:
		t.Fatalf("duplicate or closed: %v %v", m, ok)
	case <-ctx.Done():
	}
}

func TestStoreSurvivesServerRestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv := startServer(t, dir)
	b := connect(t, srv.URL())
	ws := uuid.New()
	sent := []*message.Message{event(ws, 1), event(ws, 2), event(ws, 3)}
	publishTo(t, b, sent...)
	b.Close()
	srv.Shutdown() // again at cleanup, which is harmless

	b = connect(t, startServer(t, dir).URL())
	if n := streamMessages(t, b); n != 3 {
		t.Fatalf("after restart the stream holds %d messages, want 3", n)
	}
	// The duplicate window is part of the store too.
	publishTo(t, b, sent[0])
	if n := streamMessages(t, b); n != 3 {
		t.Fatalf("re-published message stored again: %d messages, want 3", n)
	}
	_, ch := subscribe(t, b, "restart")
	if got := receiveAck(t, ch, 3); !equal(got, uuids(sent)) {
		t.Fatalf("received %v, want %v", got, uuids(sent))
	}
}

// connectConcurrently connects n times at once, as instances starting together do.
func connectConcurrently(t *testing.T, url string, n int) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			b, err := bus.Connect(ctx, url, testDeployment)
			if err != nil {
				errs <- err
				return
			}
			b.Close()
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("concurrent connect: %v", err)
	}
}

func TestConnectIsIdempotent(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir())
	first := connect(t, srv.URL())
	publishTo(t, first, event(uuid.New(), 1))

	second := connect(t, srv.URL())
	connectConcurrently(t, srv.URL(), 4)
	if n := streamMessages(t, second); n != 1 {
		t.Fatalf("stream holds %d messages after connecting again, want 1", n)
	}
}

func TestConnectCreatesStreamOnceWhenRacing(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir())
	connectConcurrently(t, srv.URL(), 4)
	if n := streamMessages(t, connect(t, srv.URL())); n != 0 {
		t.Fatalf("fresh stream holds %d messages", n)
	}
}

func TestUnackedMessageIsRedeliveredAfterAckWait(t *testing.T) {
	t.Parallel()
	b := connect(t, startServer(t, t.TempDir()).URL())
	sent := event(uuid.New(), 1)
	publishTo(t, b, sent)

	_, ch := subscribe(t, b, "ackwait", bus.WithAckWait(time.Second))
	if m := next(t, ch, 5*time.Second); m.UUID != sent.UUID {
		t.Fatalf("received %s, want %s", m.UUID, sent.UUID)
	}
	// Neither acked nor nacked.
	if got := receiveAck(t, ch, 1); got[0] != sent.UUID {
		t.Fatalf("redelivered %s, want %s", got[0], sent.UUID)
	}
	expectNothing(t, ch)
}

func TestCloseWaitsForTheHandlersAck(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir())
	b := connect(t, srv.URL())
	ws := uuid.New()
	sent := []*message.Message{event(ws, 1), event(ws, 2)}
	publishTo(t, b, sent...)

	sub, ch := subscribe(t, b, "graceful")
	held := next(t, ch, 5*time.Second)
	closed := make(chan error, 1)
	go func() { closed <- sub.Close() }()
	// The handler finishes its work after shutdown began.
	held.Ack()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	select {
	case err := <-closed:
		if err != nil {
			t.Fatalf("close: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("close did not return")
	}

	_, ch = subscribe(t, connect(t, srv.URL()), "graceful")
	if got := receiveAck(t, ch, 1); got[0] != sent[1].UUID {
		t.Fatalf("after restart received %s, want %s (the first was acked)", got[0], sent[1].UUID)
	}
	expectNothing(t, ch)
}

func TestSubscriberRejectsInvalidDurable(t *testing.T) {
	t.Parallel()
	b := connect(t, startServer(t, t.TempDir()).URL())
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, durable := range []string{"", "webhooks.dispatch", "a b", "a>"} {
		if _, err := b.Subscriber(ctx, durable); !errors.Is(err, bus.ErrInvalidDurable) {
			t.Errorf("durable %q: err = %v, want ErrInvalidDurable", durable, err)
		}
	}
}

func TestPublishRejectsTopicOutsideStream(t *testing.T) {
	t.Parallel()
	b := connect(t, startServer(t, t.TempDir()).URL())
	pub, err := b.Publisher()
	if err != nil {
		t.Fatalf("publisher: %v", err)
	}
	defer pub.Close()
	other, err := bus.NamesOf("other")
	if err != nil {
		t.Fatal(err)
	}
	ws := uuid.New()
	for _, topic := range []string{b.Names().AllEvents(), "finledger.test.events.", "finledger.events." + ws.String(), other.Subject(ws), "other.subject"} {
		if err := pub.Publish(topic, event(uuid.New(), 1)); !errors.Is(err, bus.ErrInvalidTopic) {
			t.Errorf("publish to %q: err = %v, want ErrInvalidTopic", topic, err)
		}
	}
	if err := pub.Publish(b.Names().Subject(uuid.New()), message.NewMessage("", []byte("{}"))); !errors.Is(err, bus.ErrMissingMessageID) {
		t.Errorf("publish without UUID: err = %v, want ErrMissingMessageID", err)
	}
	if n := streamMessages(t, b); n != 0 {
		t.Fatalf("rejected publishes stored %d messages", n)
	}
}

// With a batch, the messages ready are handed out together, in order, before any is
// acknowledged; the ack floor stays below a nacked one, which comes back after the
// later ones.
func TestBatchHandsOutReadyMessagesTogether(t *testing.T) {
	t.Parallel()
	b := connect(t, startServer(t, t.TempDir()).URL())
	ws := uuid.New()
	var sent []*message.Message
	for i := range 8 {
		sent = append(sent, event(ws, i))
	}
	publishTo(t, b, sent...)
	_, ch := subscribe(t, b, "batch", bus.WithBatch(5), bus.WithNakDelay(0))
	var held []*message.Message
	for range 5 {
		held = append(held, next(t, ch, 5*time.Second))
	}
	if got, want := uuids(held), uuids(sent[:5]); !equal(got, want) {
		t.Fatalf("first batch %v, want %v", got, want)
	}
	expectNothing(t, ch) // at most five unacknowledged
	held[0].Ack()
	held[1].Nack()
	for _, m := range held[2:] {
		m.Ack()
	}
	var rest []string
	for range 4 {
		m := next(t, ch, 5*time.Second)
		rest = append(rest, m.UUID)
		if m.UUID == sent[1].UUID {
			if floor, err := b.AckFloor(t.Context(), "batch"); err != nil || floor != 1 {
				t.Fatalf("ack floor %d (%v) while message 2 is out, want 1", floor, err)
			}
		}
		m.Ack()
	}
	if !slices.Contains(rest, sent[1].UUID) || len(rest) != 4 {
		t.Fatalf("after the nack %v", rest)
	}
	expectNothing(t, ch)
	if floor, err := b.AckFloor(t.Context(), "batch"); err != nil || floor != 8 {
		t.Fatalf("ack floor %d (%v), want 8", floor, err)
	}
}
