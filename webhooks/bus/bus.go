// Package bus owns the service's connection to NATS JetStream: the stream that holds
// every domain event, an embedded server for running without external infrastructure,
// and the Watermill publisher and subscriber the outbox relay and the webhook
// dispatcher use.
//
// One stream, StreamName, stores every workspace's events on the subject Subject(ws).
// The relay publishes each message to its workspace's subject with the domain event ID
// as the Watermill message UUID; JetStream drops a re-publish of the same ID within
// the stream's duplicate window, so the relay may safely re-send after a crash.
// Dispatchers consume AllEvents through one durable consumer shared by every instance.
package bus

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	"github.com/google/uuid"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// StreamName is the JetStream stream holding every domain event.
const StreamName = "FINLEDGER_EVENTS"

// subjectPrefix starts every event subject; the workspace ID follows it.
const subjectPrefix = "finledger.events."

// AllEvents is the Watermill topic a dispatcher subscribes to: the subject wildcard
// covering every workspace's events, that is the whole stream. Publishers do not use
// it; they publish to Subject(workspaceID).
const AllEvents = subjectPrefix + ">"

// Stream limits. The duplicate window bounds how late a re-published event is still
// recognised by its ID: a relay that stopped between publishing and recording its
// progress re-sends on restart, well within an hour. Events stay a week so a
// dispatcher that was down over a weekend resumes where it stopped; the event log in
// PostgreSQL remains the record.
const (
	duplicateWindow = time.Hour
	retention       = 7 * 24 * time.Hour
)

// reconnectWait spaces reconnection attempts; the client retries forever because a
// NATS restart must not take the service down with it.
const reconnectWait = time.Second

// ErrInvalidTopic reports a publish to a topic outside the events stream.
var ErrInvalidTopic = errors.New("bus: topic is not a workspace event subject")

// Subject returns the subject of a workspace's events: "finledger.events.<workspace uuid>".
// It is also the Watermill topic to publish that workspace's events to.
func Subject(workspaceID uuid.UUID) string {
	return subjectPrefix + workspaceID.String()
}

// Bus is a connection to NATS with the events stream ensured.
type Bus struct {
	// Conn is the connection the Bus owns; Close closes it.
	Conn *nats.Conn

	js  jetstream.JetStream
	url string
}

// Connect connects to the NATS server at url and creates the events stream, or
// updates it to the configuration below if it exists. Every instance calls it at
// start, so it is idempotent and safe to run concurrently.
func Connect(ctx context.Context, url string) (*Bus, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("bus connect: %w", err)
	}
	conn, err := nats.Connect(url, connOptions("finledger")...)
	if err != nil {
		return nil, fmt.Errorf("bus connect: %w", err)
	}
	js, err := jetstream.New(conn)
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("bus connect: jetstream: %w", err)
	}
	if err := ensureStream(ctx, js); err != nil {
		conn.Close()
		return nil, fmt.Errorf("bus connect: %w", err)
	}
	return &Bus{Conn: conn, js: js, url: url}, nil
}

// Close closes the Bus's connection. Subscribers have connections of their own and
// are closed separately; publishers stop working once the Bus is closed.
func (b *Bus) Close() {
	b.Conn.Close()
}

// streamConfig is the events stream's configuration, the same on every instance.
func streamConfig() jetstream.StreamConfig {
	return jetstream.StreamConfig{
		Name:        StreamName,
		Description: "Finledger domain events, one subject per workspace",
		Subjects:    []string{AllEvents},
		Retention:   jetstream.LimitsPolicy,
		Storage:     jetstream.FileStorage,
		Discard:     jetstream.DiscardOld,
		MaxAge:      retention,
		Duplicates:  duplicateWindow,
		Replicas:    1,
	}
}

// ensureStream creates or updates the events stream. Two instances starting together
// may both find it missing; the loser's create then fails with "name in use" and a
// second update settles it.
func ensureStream(ctx context.Context, js jetstream.JetStream) error {
	cfg := streamConfig()
	_, err := js.CreateOrUpdateStream(ctx, cfg)
	if errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
		_, err = js.UpdateStream(ctx, cfg)
	}
	if err != nil {
		return fmt.Errorf("ensure stream %s: %w", StreamName, err)
	}
	return nil
}

// connOptions are the options of every connection the package opens.
func connOptions(name string) []nats.Option {
	return []nats.Option{
		nats.Name(name),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(reconnectWait),
		nats.DisconnectErrHandler(func(c *nats.Conn, err error) {
			if err != nil {
				slog.Warn("nats disconnected", "name", name, "err", err)
			}
		}),
		nats.ReconnectHandler(func(c *nats.Conn) {
			slog.Info("nats reconnected", "name", name, "url", c.ConnectedUrlRedacted())
		}),
		nats.ErrorHandler(func(c *nats.Conn, s *nats.Subscription, err error) {
			subject := ""
			if s != nil {
				subject = s.Subject
			}
			slog.Error("nats async error", "name", name, "subject", subject, "err", err)
		}),
	}
}

// isEventSubject reports whether topic is a single workspace's subject in the stream.
func isEventSubject(topic string) bool {
	rest, ok := strings.CutPrefix(topic, subjectPrefix)
	return ok && rest != "" && !strings.ContainsAny(rest, "*> \t\r\n.")
}

// watermillLogger routes Watermill's logs to slog, its informational ones at debug:
// they describe routine work, not events an operator acts on.
func watermillLogger() watermill.LoggerAdapter {
	return watermill.NewSlogLoggerWithLevelMapping(slog.Default(), map[slog.Level]slog.Level{
		slog.LevelInfo: slog.LevelDebug,
	})
}

// Pending returns how many messages of the stream a durable consumer has yet to
// acknowledge: those not delivered yet and those delivered but not acknowledged; all
// of them for a consumer not made yet.
func (b *Bus) Pending(ctx context.Context, durable string) (uint64, error) {
	// The JetStream context of nats.go reads the info of push and pull consumers alike.
	js, err := b.Conn.JetStream(nats.Context(ctx))
	if err != nil {
		return 0, fmt.Errorf("bus: jetstream: %w", err)
	}
	info, err := js.ConsumerInfo(StreamName, durable, nats.Context(ctx))
	if errors.Is(err, nats.ErrConsumerNotFound) {
		// Not made yet: when it is, it starts at the beginning of the stream.
		stream, err := js.StreamInfo(StreamName, nats.Context(ctx))
		if err != nil {
			return 0, fmt.Errorf("bus: stream %s: %w", StreamName, err)
		}
		return stream.State.Msgs, nil
	}
	if err != nil {
		return 0, fmt.Errorf("bus: consumer %s: %w", durable, err)
	}
	return info.NumPending + uint64(info.NumAckPending), nil
}

// AckFloor returns the stream position up to which a durable consumer has every
// message acknowledged (or terminated, or gone from the stream): the contiguous part of
// the work done.
func (b *Bus) AckFloor(ctx context.Context, durable string) (uint64, error) {
	js, err := b.Conn.JetStream(nats.Context(ctx))
	if err != nil {
		return 0, fmt.Errorf("bus: jetstream: %w", err)
	}
	info, err := js.ConsumerInfo(StreamName, durable, nats.Context(ctx))
	if err != nil {
		return 0, fmt.Errorf("bus: consumer %s: %w", durable, err)
	}
	return info.AckFloor.Stream, nil
}
