package bus

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	wmnats "github.com/ThreeDotsLabs/watermill-nats/v2/pkg/nats"
)

// Defaults and bounds of a subscriber.
const (
	// defaultAckWait is how long a delivered message may stay unacknowledged before
	// JetStream delivers it again (to this or another instance).
	defaultAckWait = 30 * time.Second
	// defaultNakDelay spaces the redeliveries of a nacked message so a handler that
	// keeps failing does not spin; the stream waits behind it either way.
	defaultNakDelay = time.Second
	// ackTimeout bounds the wait for JetStream to confirm an ack.
	ackTimeout = 5 * time.Second
	// pullWait is how long one request for the next message stays open. A message
	// is sent the moment it is available, so this bounds only how long Close waits
	// for the open request to end, and sets the request rate of an idle subscriber.
	pullWait = time.Second
	// retryPause spaces requests after a failed one (JetStream unreachable, consumer
	// missing), so an outage is logged once a second rather than in a loop.
	retryPause = time.Second
	// closeGrace is what Close allows beyond the ack wait and the open request
	// before it closes the connection regardless.
	closeGrace = 5 * time.Second
	// maxBatch bounds WithBatch.
	maxBatch = 1000
)

// ErrInvalidDurable reports a durable name JetStream cannot use as a consumer name.
var ErrInvalidDurable = errors.New("bus: invalid durable name")

// ErrSubscriberClosed reports a Subscribe on a subscriber that was closed.
var ErrSubscriberClosed = errors.New("bus: subscriber closed")

// SubscriberOption changes one setting of a subscriber.
type SubscriberOption func(*subscriberSettings)

// subscriberSettings are the tunable settings of a subscriber.
type subscriberSettings struct {
	ackWait  time.Duration
	nakDelay time.Duration
	batch    int
}

// WithAckWait sets how long a delivered message may stay unacknowledged before it is
// delivered again; 30 seconds unless set. It is stored in the consumer, so the last
// subscriber to start with a durable name sets it for every instance.
func WithAckWait(d time.Duration) SubscriberOption {
	return func(s *subscriberSettings) { s.ackWait = d }
}

// WithBatch lets up to n messages be unacknowledged at once (one unless set): each
// request takes up to n that are ready, in stream order, hands them all out, and
// waits for all their verdicts before the next request, so a handler can settle them
// together (one database commit for all, say). It is stored in the consumer. With
// more than one unacknowledged, a nacked message comes back after later ones: a
// handler that needs stream order restores it with MetaStreamSeq and AckFloor.
func WithBatch(n int) SubscriberOption {
	return func(s *subscriberSettings) { s.batch = n }
}

// WithNakDelay sets how long JetStream waits before delivering a nacked message
// again; one second unless set, zero for at once.
func WithNakDelay(d time.Duration) SubscriberOption {
	return func(s *subscriberSettings) { s.nakDelay = d }
}

// Subscriber returns a Watermill subscriber reading the deployment's whole stream
// through its durable consumer called consumer (named Names().Durable(consumer)),
// created if missing and updated otherwise. Subscribe with the topic
// Names().AllEvents().
//
// Every instance of the deployment that uses the same consumer pulls from that one
// consumer, so each message goes to one of them. Unless WithBatch says otherwise, the consumer lets
// one message at a time be unacknowledged across all instances and hands them out in
// stream order, and a nacked or unacknowledged message is delivered again before any
// later one, so a handler sees each workspace's events in order. Each message carries
// its stream position as MetaStreamSeq. Delivery is at least once: a
// handler must tolerate a message it has seen, recognised by its UUID. A new durable
// starts at the beginning of the stream; an existing one resumes after its last
// acknowledged message. The subscriber has its own connection, closed by its Close.
//
// The subscriber is written on nats.go rather than taken from watermill-nats, whose
// JetStream subscriber loses work when it closes: it stops the goroutine that sends a
// message's ack without waiting for it, so an ack given just before Close is dropped;
// it closes the message channel while a delivery may still be sending on it; and
// with a push consumer (a queue group) a message the server sent just before the
// subscription ended is lost in transit and holds up the whole stream for the ack
// wait. Pulling, and letting the open request end before closing, leaves no message
// in transit. Messages are decoded with watermill-nats's
// NATSMarshaler, the publisher's encoding.
func (b *Bus) Subscriber(ctx context.Context, consumer string, opts ...SubscriberOption) (message.Subscriber, error) {
	if err := checkConsumer(consumer); err != nil {
		return nil, fmt.Errorf("bus subscriber: %w", err)
	}
	durable := b.names.Durable(consumer)
	settings := subscriberSettings{ackWait: defaultAckWait, nakDelay: defaultNakDelay, batch: 1}
	for _, opt := range opts {
		opt(&settings)
	}
	if settings.ackWait <= 0 || settings.nakDelay < 0 || settings.batch < 1 || settings.batch > maxBatch {
		return nil, fmt.Errorf("bus subscriber %s: ack wait %s must be positive, nak delay %s not negative and batch %d from 1 to %d",
			durable, settings.ackWait, settings.nakDelay, settings.batch, maxBatch)
	}
	if err := ensureConsumer(ctx, b.js, b.names, durable, settings.ackWait, settings.batch); err != nil {
		return nil, fmt.Errorf("bus subscriber %s: %w", durable, err)
	}
	// A connection of its own: Close ends it, and the Bus's stays open.
	conn, err := nats.Connect(b.url, connOptions("finledger/"+durable)...)
	if err != nil {
		return nil, fmt.Errorf("bus subscriber %s: connect: %w", durable, err)
	}
	js, err := jetstream.New(conn)
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("bus subscriber %s: jetstream: %w", durable, err)
	}
	return &subscriber{
		conn:     conn,
		js:       js,
		names:    b.names,
		durable:  durable,
		settings: settings,
		log:      slog.Default().With("durable", durable),
		closing:  make(chan struct{}),
	}, nil
}

// checkConsumer reports whether consumer may be part of a durable consumer's name.
func checkConsumer(consumer string) error {
	if consumer == "" {
		return fmt.Errorf("%w: empty", ErrInvalidDurable)
	}
	for _, r := range consumer {
		// Consumer names become subject tokens and file names.
		if r == '.' || r == '*' || r == '>' || r == '/' || r == '\\' || r <= ' ' || r == 0x7f {
			return fmt.Errorf("%w: %q", ErrInvalidDurable, consumer)
		}
	}
	return nil
}

// ensureConsumer creates the durable pull consumer on the deployment's stream, or
// updates the settings that may change, so every instance, and every restart, finds
// the same consumer.
func ensureConsumer(ctx context.Context, js jetstream.JetStream, names Names, durable string, ackWait time.Duration, batch int) error {
	_, err := js.CreateOrUpdateConsumer(ctx, names.Stream, jetstream.ConsumerConfig{
		Durable:       durable,
		Description:   "Finledger events for " + durable,
		DeliverPolicy: jetstream.DeliverAllPolicy,
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       ackWait,
		// Dropping an event after some attempts would lose it for good; the handler
		// decides when to give up, and acks.
		MaxDeliver: -1,
		// One outstanding message for the whole group keeps stream order across
		// instances, at the cost of one round trip per message.
		MaxAckPending: batch,
		FilterSubject: names.AllEvents(),
		ReplayPolicy:  jetstream.ReplayInstantPolicy,
	})
	if err != nil {
		return fmt.Errorf("ensure consumer: %w", err)
	}
	return nil
}

// subscriber is a Watermill subscriber on the durable pull consumer. Each message is
// handed to the handler, then the subscriber waits for its ack or nack and passes it
// to JetStream before asking for the next, so Close, which waits for that, never
// loses an ack the handler gave.
type subscriber struct {
	conn     *nats.Conn
	js       jetstream.JetStream
	names    Names
	durable  string
	settings subscriberSettings
	log      *slog.Logger

	mu      sync.Mutex
	closed  bool
	closing chan struct{}
	// running counts subscriptions still pulling.
	running sync.WaitGroup
}

// Subscribe returns the messages of topic, which must be Names().AllEvents(). The
// channel is closed once the subscriber closes or ctx ends; a message a handler holds
// then is still acked or nacked before the channel closes.
func (s *subscriber) Subscribe(ctx context.Context, topic string) (<-chan *message.Message, error) {
	if all := s.names.AllEvents(); topic != all {
		return nil, fmt.Errorf("bus subscribe: topic %q: the consumer reads %q", topic, all)
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, ErrSubscriberClosed
	}
	s.running.Add(1)
	s.mu.Unlock()

	consumer, err := s.js.Consumer(ctx, s.names.Stream, s.durable)
	if err != nil {
		s.running.Done()
		return nil, fmt.Errorf("bus subscribe %s: %w", s.durable, err)
	}
	out := make(chan *message.Message)
	go func() {
		defer s.running.Done()
		defer close(out)
		s.pull(ctx, consumer, out)
	}()
	return out, nil
}

// pull asks for messages, one request at a time, and delivers them, until the
// subscriber closes or ctx ends. A request waits for one message, then takes without
// waiting whatever else is ready, up to the batch. An open request is never
// abandoned: the server could still answer it, and the message would wait out the
// ack wait with nobody to handle it.
func (s *subscriber) pull(ctx context.Context, consumer jetstream.Consumer, out chan<- *message.Message) {
	for !s.stopped(ctx) {
		var ready []jetstream.Msg
		batch, err := consumer.Fetch(1, jetstream.FetchMaxWait(pullWait))
		if err == nil {
			for m := range batch.Messages() {
				ready = append(ready, m)
			}
			err = batch.Error()
		}
		if err == nil && len(ready) == 1 && s.settings.batch > 1 {
			more, moreErr := consumer.FetchNoWait(s.settings.batch - 1)
			if moreErr == nil {
				for m := range more.Messages() {
					ready = append(ready, m)
				}
				moreErr = more.Error()
			}
			if moreErr != nil && !errors.Is(moreErr, nats.ErrTimeout) && !s.stopped(ctx) {
				s.log.Error("bus: pull more", "err", moreErr)
			}
		}
		if len(ready) > 0 {
			s.deliver(ctx, ready, out)
		}
		if err != nil && !s.stopped(ctx) { // closing cuts a pull short: not a failure
			s.log.Error("bus: pull", "err", err)
			s.pause(ctx)
		}
	}
}

// stopped reports whether the subscriber is closing or ctx has ended.
func (s *subscriber) stopped(ctx context.Context) bool {
	select {
	case <-s.closing:
		return true
	case <-ctx.Done():
		return true
	default:
		return false
	}
}

// pause waits retryPause, or less if the subscriber closes or ctx ends.
func (s *subscriber) pause(ctx context.Context) {
	t := time.NewTimer(retryPause)
	defer t.Stop()
	select {
	case <-t.C:
	case <-s.closing:
	case <-ctx.Done():
	}
}

// deliver hands messages to the handler, in order, and then passes each verdict to
// JetStream. Messages not handed out when the subscriber closes are given back.
func (s *subscriber) deliver(ctx context.Context, ready []jetstream.Msg, out chan<- *message.Message) {
	type handed struct {
		m   jetstream.Msg
		msg *message.Message
	}
	var given []handed
	msgCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	for i, m := range ready {
		msg, err := decode(m)
		if err != nil {
			// It would fail the same way on every delivery and hold up the whole
			// stream: take it out, loudly.
			s.log.Error("bus: undecodable message terminated", "subject", m.Subject(), "seq", streamSeq(m), "err", err)
			if err := m.Term(); err != nil {
				s.log.Error("bus: terminate message", "subject", m.Subject(), "seq", streamSeq(m), "err", err)
			}
			continue
		}
		msg.SetContext(msgCtx)
		select {
		case out <- msg:
			given = append(given, handed{m, msg})
			continue
		case <-s.closing:
		case <-ctx.Done():
		}
		for _, rest := range ready[i:] {
			s.release(rest, "")
		}
		break
	}
	timeout := time.NewTimer(s.settings.ackWait)
	defer timeout.Stop()
	for _, h := range given {
		select {
		case <-h.msg.Acked():
			ackCtx, cancelAck := context.WithTimeout(context.Background(), ackTimeout)
			if err := h.m.DoubleAck(ackCtx); err != nil {
				s.log.Error("bus: ack not confirmed; the message will be delivered again", "uuid", h.msg.UUID, "seq", streamSeq(h.m), "err", err)
			}
			cancelAck()
		case <-h.msg.Nacked():
			if err := s.nak(h.m); err != nil {
				s.log.Error("bus: nak", "uuid", h.msg.UUID, "seq", streamSeq(h.m), "err", err)
			}
		case <-timeout.C:
			s.log.Warn("bus: message neither acked nor nacked within the ack wait; it will be delivered again", "uuid", h.msg.UUID, "seq", streamSeq(h.m), "ack_wait", s.settings.ackWait)
			return
		}
	}
}

// release gives back a message no handler took, for immediate delivery elsewhere.
func (s *subscriber) release(m jetstream.Msg, id string) {
	if err := m.Nak(); err != nil {
		s.log.Error("bus: release message", "uuid", id, "seq", streamSeq(m), "err", err)
	}
}

// nak asks for the message again after the configured delay.
func (s *subscriber) nak(m jetstream.Msg) error {
	if s.settings.nakDelay > 0 {
		return m.NakWithDelay(s.settings.nakDelay)
	}
	return m.Nak()
}

// Close stops delivery, waits until the message a handler holds is acked or nacked
// (at most the ack wait) and the open request has ended (at most a second), and
// closes the subscriber's connection.
func (s *subscriber) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	close(s.closing)
	s.mu.Unlock()

	drained := make(chan struct{})
	go func() {
		s.running.Wait()
		close(drained)
	}()
	bound := s.settings.ackWait + pullWait + closeGrace
	limit := time.NewTimer(bound)
	defer limit.Stop()
	var err error
	select {
	case <-drained:
	case <-limit.C:
		err = fmt.Errorf("bus subscriber %s close: still delivering after %s", s.durable, bound)
	}
	// Closing flushes the naks sent and ends a request stuck on a lost connection.
	s.conn.Close()
	<-drained
	return err
}

// decode turns a JetStream message into a Watermill one with the publisher's encoding:
// the UUID and metadata from headers, the payload as is.
func decode(m jetstream.Msg) (*message.Message, error) {
	msg, err := (&wmnats.NATSMarshaler{}).Unmarshal(&nats.Msg{Subject: m.Subject(), Header: m.Headers(), Data: m.Data()})
	if err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	if msg.UUID == "" {
		return nil, errors.New("decode: message has no UUID")
	}
	if seq := streamSeq(m); seq > 0 {
		msg.Metadata.Set(MetaStreamSeq, strconv.FormatUint(seq, 10))
	}
	return msg, nil
}

// MetaStreamSeq is the metadata key of a received message's position in the stream.
const MetaStreamSeq = "_finledger_stream_seq"

// streamSeq is the message's position in the stream; zero if unknown.
func streamSeq(m jetstream.Msg) uint64 {
	md, err := m.Metadata()
	if err != nil {
		return 0
	}
	return md.Sequence.Stream
}
