// Package bus owns the service's connection to NATS JetStream: the names a deployment
// uses there, the stream that holds every domain event, an embedded server for running
// without external infrastructure, and the Watermill publisher and subscriber the
// outbox relay and the webhook dispatcher use.
//
// Every name on NATS belongs to one deployment (Names): its stream stores every
// workspace's events on the subject Subject(ws), and its durable consumers are named
// after it, so deployments sharing a NATS server never consume each other's messages.
// The stream records the database that owns it, and Connect refuses to use a stream
// another database owns.
//
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
	"slices"
	"time"

	"github.com/ThreeDotsLabs/watermill"
	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

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

// ErrStreamOwned reports a deployment's stream that records another database as its
// owner: two databases would consume each other's events through it.
var ErrStreamOwned = errors.New("bus: the deployment's stream belongs to another database")

// ErrNoMetadata reports a NATS server that does not keep stream metadata (before
// 2.10), where a stream cannot record its owner.
var ErrNoMetadata = errors.New("bus: the NATS server keeps no stream metadata (nats-server 2.10 or later is needed)")

// Keys of the stream metadata naming the stream's owner.
const (
	metaOwnerID       = "finledger_owner_id"
	metaOwnerDatabase = "finledger_owner_database"
)

// connectAttempts bounds how often Connect looks the stream up again after another
// instance created or removed it in between.
const connectAttempts = 3

// clusterAnswerWait is how long Connect waits for an answer to one request about the
// stream before asking again (see askCluster).
const clusterAnswerWait = 3 * time.Second

// errCodeClusterNotAvailable is JetStream's error code for a request that reached a
// cluster with no meta leader, as while the cluster elects one.
const errCodeClusterNotAvailable jetstream.ErrorCode = 10008

// Deployment is whose events a Bus carries, and under which names.
type Deployment struct {
	// Name derives every name the Bus uses on NATS (see NamesOf).
	Name string
	// Owner is the database whose events the deployment's stream carries.
	Owner Owner
	// StartAfter, called only when the stream is created, returns the position the new
	// stream's first message must come after, so that positions recorded from an
	// earlier stream of the deployment stay below the new stream's. Nil starts at 1.
	StartAfter func(context.Context) (uint64, error)
	// Replicas is how many servers of a NATS cluster keep the stream, and with it the
	// consumers: 3 on a cluster of three keeps every event and every consumer's progress
	// through the loss of one server. 0 means 1, the only value a single server takes.
	// Every instance of a deployment must ask for the same, since each updates the
	// stream to its own configuration at start.
	Replicas int
}

// Owner identifies a database to the stream it owns.
type Owner struct {
	// ID is the database's identity; two databases never share one.
	ID string
	// Database describes the database for people: what an error about a clash names.
	Database string
}

// Bus is a connection to NATS with the deployment's stream ensured.
type Bus struct {
	// Conn is the connection the Bus owns; Close closes it.
	Conn *nats.Conn

	js    jetstream.JetStream
	url   string
	names Names
}

// Connect connects to the NATS server at url and creates the deployment's stream,
// recording d.Owner as its owner, or checks that the existing stream is d.Owner's and
// updates it to the configuration below. A stream another database owns is refused
// with ErrStreamOwned. Every instance calls it at start, so it is idempotent and safe
// to run concurrently.
func Connect(ctx context.Context, url string, d Deployment) (*Bus, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("bus connect: %w", err)
	}
	names, err := NamesOf(d.Name)
	if err != nil {
		return nil, fmt.Errorf("bus connect: %w", err)
	}
	if d.Owner.ID == "" {
		return nil, errors.New("bus connect: the deployment has no owner")
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
	if err := ensureStream(ctx, js, names, d); err != nil {
		conn.Close()
		return nil, fmt.Errorf("bus connect: %w", err)
	}
	return &Bus{Conn: conn, js: js, url: url, names: names}, nil
}

// Names returns the deployment's names on NATS.
func (b *Bus) Names() Names {
	return b.names
}

// Close closes the Bus's connection. Subscribers have connections of their own and
// are closed separately; publishers stop working once the Bus is closed.
func (b *Bus) Close() {
	b.Conn.Close()
}

// streamConfig is the configuration of a deployment's stream, the same on every
// instance of the deployment.
func streamConfig(names Names, d Deployment) jetstream.StreamConfig {
	return jetstream.StreamConfig{
		Name:        names.Stream,
		Description: "Finledger domain events of deployment " + names.Deployment + ", one subject per workspace",
		Subjects:    []string{names.AllEvents()},
		Retention:   jetstream.LimitsPolicy,
		Storage:     jetstream.FileStorage,
		Discard:     jetstream.DiscardOld,
		MaxAge:      retention,
		Duplicates:  duplicateWindow,
		Replicas:    max(1, d.Replicas),
		Metadata:    map[string]string{metaOwnerID: d.Owner.ID, metaOwnerDatabase: d.Owner.Database},
	}
}

// ensureStream creates the deployment's stream or updates the owner's existing one.
// Creating is atomic: of two databases racing to create one stream, one creates it
// and the other then finds it owned. Instances of one database starting together may
// all find it missing; the losers' creates fail with "name in use" and they go on as
// if they had found it.
func ensureStream(ctx context.Context, js jetstream.JetStream, names Names, d Deployment) error {
	cfg := streamConfig(names, d)
	for range connectAttempts {
		s, err := askCluster(ctx, func(ctx context.Context) (jetstream.Stream, error) {
			return js.Stream(ctx, names.Stream)
		})
		if errors.Is(err, jetstream.ErrStreamNotFound) {
			if d.StartAfter != nil {
				after, err := d.StartAfter(ctx)
				if err != nil {
					return fmt.Errorf("create stream %s: first position: %w", names.Stream, err)
				}
				cfg.FirstSeq = after + 1
			}
			created, err := askCluster(ctx, func(ctx context.Context) (jetstream.Stream, error) {
				return js.CreateStream(ctx, cfg)
			})
			if errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
				continue
			}
			if err != nil {
				return fmt.Errorf("create stream %s: %w", names.Stream, err)
			}
			if created.CachedInfo().Config.Metadata[metaOwnerID] != d.Owner.ID {
				return fmt.Errorf("create stream %s: %w", names.Stream, ErrNoMetadata)
			}
			return nil
		}
		if err != nil {
			return fmt.Errorf("stream %s: %w", names.Stream, err)
		}
		found := s.CachedInfo().Config
		if owner := found.Metadata[metaOwnerID]; owner != d.Owner.ID {
			return fmt.Errorf("%w: stream %s (deployment %s) carries the events of %s; this instance's database is %s (deployment id %s)",
				ErrStreamOwned, names.Stream, names.Deployment, describeOwner(found.Metadata), d.Owner.Database, d.Owner.ID)
		}
		if !differs(found, cfg) {
			// Instances starting together all find the stream one of them just made. On a
			// cluster, updates arriving while it is being created can leave every request
			// about it unanswered; an update that changes nothing is not sent.
			return nil
		}
		// The first position is the stream's from its creation on.
		cfg.FirstSeq = found.FirstSeq
		_, err = askCluster(ctx, func(ctx context.Context) (jetstream.Stream, error) {
			return js.UpdateStream(ctx, cfg)
		})
		if err != nil {
			return fmt.Errorf("update stream %s: %w", names.Stream, err)
		}
		return nil
	}
	return fmt.Errorf("stream %s: created and removed by others %d times in a row", names.Stream, connectAttempts)
}

// askCluster sends a request about the stream, asking again while the answer does not
// come within clusterAnswerWait or says the cluster is not available, until ctx ends.
// A cluster leaves a request unanswered when no server considers itself the one to
// answer: while the stream is being created, or while its group or the cluster elects
// a leader. Asking again is safe, since every request Connect sends asks for a state,
// not a change of it: looking up, creating with a configuration, updating to one.
func askCluster(ctx context.Context, request func(context.Context) (jetstream.Stream, error)) (jetstream.Stream, error) {
	for {
		attempt, cancel := context.WithTimeout(ctx, clusterAnswerWait)
		s, err := request(attempt)
		cancel()
		var apiErr *jetstream.APIError
		unanswered := errors.Is(err, context.DeadlineExceeded) ||
			errors.As(err, &apiErr) && apiErr.ErrorCode == errCodeClusterNotAvailable
		if !unanswered || ctx.Err() != nil {
			return s, err
		}
		slog.Warn("bus: the NATS cluster did not answer about the stream; asking again", "err", err)
	}
}

// differs reports whether the stream's configuration found on the server differs from
// want in a setting streamConfig makes. The server adds metadata of its own, which is
// not compared.
func differs(found, want jetstream.StreamConfig) bool {
	if found.Description != want.Description || !slices.Equal(found.Subjects, want.Subjects) ||
		found.Retention != want.Retention || found.Storage != want.Storage || found.Discard != want.Discard ||
		found.MaxAge != want.MaxAge || found.Duplicates != want.Duplicates || found.Replicas != want.Replicas {
		return true
	}
	for k, v := range want.Metadata {
		if found.Metadata[k] != v {
			return true
		}
	}
	return false
}

// describeOwner names the owner a stream's metadata records.
func describeOwner(metadata map[string]string) string {
	id := metadata[metaOwnerID]
	if id == "" {
		return "no recorded database (it was not made by this service)"
	}
	return fmt.Sprintf("%s (deployment id %s)", metadata[metaOwnerDatabase], id)
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

// watermillLogger routes Watermill's logs to slog, its informational ones at debug:
// they describe routine work, not events an operator acts on.
func watermillLogger() watermill.LoggerAdapter {
	return watermill.NewSlogLoggerWithLevelMapping(slog.Default(), map[slog.Level]slog.Level{
		slog.LevelInfo: slog.LevelDebug,
	})
}

// Pending returns how many messages of the stream the deployment's durable consumer
// called consumer has yet to acknowledge: those not delivered yet and those delivered
// but not acknowledged; all of them for a consumer not made yet.
func (b *Bus) Pending(ctx context.Context, consumer string) (uint64, error) {
	durable := b.names.Durable(consumer)
	// The JetStream context of nats.go reads the info of push and pull consumers alike.
	js, err := b.Conn.JetStream(nats.Context(ctx))
	if err != nil {
		return 0, fmt.Errorf("bus: jetstream: %w", err)
	}
	info, err := js.ConsumerInfo(b.names.Stream, durable, nats.Context(ctx))
	if errors.Is(err, nats.ErrConsumerNotFound) {
		// Not made yet: when it is, it starts at the beginning of the stream.
		stream, err := js.StreamInfo(b.names.Stream, nats.Context(ctx))
		if err != nil {
			return 0, fmt.Errorf("bus: stream %s: %w", b.names.Stream, err)
		}
		return stream.State.Msgs, nil
	}
	if err != nil {
		return 0, fmt.Errorf("bus: consumer %s: %w", durable, err)
	}
	return info.NumPending + uint64(info.NumAckPending), nil
}

// AckFloor returns the stream position up to which the deployment's durable consumer
// called consumer has every message acknowledged (or terminated, or gone from the
// stream): the contiguous part of the work done.
func (b *Bus) AckFloor(ctx context.Context, consumer string) (uint64, error) {
	durable := b.names.Durable(consumer)
	js, err := b.Conn.JetStream(nats.Context(ctx))
	if err != nil {
		return 0, fmt.Errorf("bus: jetstream: %w", err)
	}
	info, err := js.ConsumerInfo(b.names.Stream, durable, nats.Context(ctx))
	if err != nil {
		return 0, fmt.Errorf("bus: consumer %s: %w", durable, err)
	}
	return info.AckFloor.Stream, nil
}

// scanBatch is how many messages Unacknowledged reads, and hands over, at a time.
const scanBatch = 500

// Unacknowledged calls each with the messages of the stream named stream that its
// durable consumers have not all acknowledged: those beyond the lowest ack floor among
// them, or every message when it has none, in stream order, up to scanBatch at a
// time, decoded as a subscriber decodes them. It reads the stream as it is when called,
// without touching its consumers, and need not be the Bus's own: a deployment whose
// names changed finds this way what it left on its previous stream. The error wraps
// jetstream.ErrStreamNotFound when the server has no such stream.
func (b *Bus) Unacknowledged(ctx context.Context, stream string, each func([]*message.Message) error) error {
	s, err := b.js.Stream(ctx, stream)
	if err != nil {
		return fmt.Errorf("bus: stream %s: %w", stream, err)
	}
	state := s.CachedInfo().State
	if state.Msgs == 0 {
		return nil
	}
	floor, consumers := state.FirstSeq-1, s.ListConsumers(ctx)
	lowest, seen := uint64(0), false
	for info := range consumers.Info() {
		// Only a durable consumer that acknowledges keeps a reader's progress: an
		// ephemeral one, such as the reader below, says nothing of what was handled.
		if info.Config.Durable == "" || info.Config.AckPolicy == jetstream.AckNonePolicy {
			continue
		}
		if !seen || info.AckFloor.Stream < lowest {
			lowest, seen = info.AckFloor.Stream, true
		}
	}
	if err := consumers.Err(); err != nil {
		return fmt.Errorf("bus: consumers of %s: %w", stream, err)
	}
	if seen && lowest > floor {
		floor = lowest
	}
	if floor >= state.LastSeq {
		return nil
	}
	reader, err := s.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{
		DeliverPolicy: jetstream.DeliverByStartSequencePolicy, OptStartSeq: floor + 1})
	if err != nil {
		return fmt.Errorf("bus: read %s: %w", stream, err)
	}
	for {
		fetched, err := reader.Fetch(scanBatch, jetstream.FetchMaxWait(pullWait))
		if err != nil {
			return fmt.Errorf("bus: read %s: %w", stream, err)
		}
		var batch []*message.Message
		reached := uint64(0)
		for m := range fetched.Messages() {
			reached = streamSeq(m)
			if reached > state.LastSeq {
				continue // published since the call
			}
			msg, err := decode(m)
			if err != nil {
				slog.Error("bus: undecodable message skipped", "stream", stream, "seq", reached, "err", err)
				continue
			}
			batch = append(batch, msg)
		}
		if err := fetched.Error(); err != nil && !errors.Is(err, nats.ErrTimeout) {
			return fmt.Errorf("bus: read %s: %w", stream, err)
		}
		if len(batch) > 0 {
			if err := each(batch); err != nil {
				return err
			}
		}
		// Nothing more within the wait: the rest was removed (aged out, deleted).
		if reached == 0 || reached >= state.LastSeq {
			return nil
		}
	}
}
