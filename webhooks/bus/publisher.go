package bus

import (
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/nats-io/nats.go"

	wmnats "github.com/ThreeDotsLabs/watermill-nats/v2/pkg/nats"
)

// publishAckTimeout bounds the wait for JetStream to confirm a message is stored.
// The relay retries from the event log on error, so failing is better than hanging.
const publishAckTimeout = 5 * time.Second

// ErrPublisherClosed reports a publish through a publisher that was closed.
var ErrPublisherClosed = errors.New("bus: publisher closed")

// ErrMissingMessageID reports a message without a UUID: de-duplication keys on it.
var ErrMissingMessageID = errors.New("bus: message has no UUID")

// Publisher returns a Watermill publisher to the deployment's stream over the Bus's
// connection. Publish takes Names().Subject(workspaceID) as its topic and returns only once
// JetStream has stored every message, in order. The message UUID becomes the
// Nats-Msg-Id header, so a message re-published with the same UUID within the
// stream's duplicate window is acknowledged but not stored again; metadata travels
// as headers. Closing the publisher leaves the Bus's connection open.
func (b *Bus) Publisher() (message.Publisher, error) {
	inner, err := wmnats.NewPublisherWithNatsConn(b.Conn, wmnats.PublisherPublishConfig{
		Marshaler:         &wmnats.NATSMarshaler{},
		SubjectCalculator: wmnats.DefaultSubjectCalculator,
		JetStream: wmnats.JetStreamConfig{
			// The stream is ensured by Connect with its full configuration; Watermill's
			// provisioning would create a stream named after the topic instead.
			AutoProvision:  false,
			ConnectOptions: []nats.JSOpt{nats.MaxWait(publishAckTimeout)},
			// A message captured by some other stream would be lost to dispatchers.
			PublishOptions: []nats.PubOpt{nats.ExpectStream(b.names.Stream)},
			TrackMsgId:     true,
		},
	}, watermillLogger())
	if err != nil {
		return nil, fmt.Errorf("bus publisher: %w", err)
	}
	return &publisher{inner: inner, names: b.names}, nil
}

// publisher guards Watermill's publisher: the connection belongs to the Bus, so
// Close must not close it, and every message must carry the ID de-duplication uses.
type publisher struct {
	inner  *wmnats.Publisher
	names  Names
	closed atomic.Bool
}

// Publish stores messages on topic, which must be a workspace's subject of the
// deployment, and waits for JetStream to acknowledge each one.
func (p *publisher) Publish(topic string, messages ...*message.Message) error {
	if p.closed.Load() {
		return ErrPublisherClosed
	}
	if !p.names.isEventSubject(topic) {
		return fmt.Errorf("%w: %q", ErrInvalidTopic, topic)
	}
	for _, m := range messages {
		if m.UUID == "" {
			return ErrMissingMessageID
		}
	}
	if err := p.inner.Publish(topic, messages...); err != nil {
		return fmt.Errorf("bus publish to %s: %w", topic, err)
	}
	return nil
}

// Close stops the publisher; the Bus's connection stays open.
func (p *publisher) Close() error {
	p.closed.Store(true)
	return nil
}
