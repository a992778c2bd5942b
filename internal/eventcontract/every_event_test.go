package eventcontract

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/eventstore"
	"github.com/finledger/finledger/projections"
	"github.com/finledger/finledger/webhooks"
)

// consumer is one place that reads events from the log: consume runs a recorded event
// (and its decoded payload) through it.
type consumer struct {
	place   string
	consume func(e eventstore.RecordedEvent, data domain.Event) error
}

// userStream tells the events of a user's stream from those of a workspace's.
func userStream(eventType string) bool {
	return strings.HasPrefix(eventType, "user.") || strings.HasPrefix(eventType, "whatsapp.")
}

var consumers = []consumer{
	{"the fold, (*domain.Workspace).Apply or (*domain.User).Apply (domain/state.go, domain/users.go)",
		func(e eventstore.RecordedEvent, data domain.Event) error {
			if userStream(e.Type) {
				return (&domain.User{}).Apply(data)
			}
			return domain.NewWorkspace(uuid.New()).Apply(data)
		}},
	{"the read models and the audit log, projections.Project (projections/projections.go, projections/audit.go)",
		func(e eventstore.RecordedEvent, data domain.Event) error {
			return projections.Project().Queue(&pgx.Batch{}, []eventstore.RecordedEvent{e}, []domain.Event{data})
		}},
	{"the webhooks and the realtime stream, publicOf (webhooks/events.go)",
		func(e eventstore.RecordedEvent, _ domain.Event) error { return webhooks.Classify(e.Type, e.Data) }},
}

// Every stored event type reaches every consumer of the log: a type left out of one
// would break the commands of the stream that holds it, fail every append and replay
// that carries it, leave it out of the audit log, or keep it from subscribers unnoticed.
// An empty payload is enough: the test asks whether a consumer names the type, not what
// it makes of it, so other errors (a record the empty event names but no state holds)
// do not count.
func TestEveryEventTypeReachesEveryConsumer(t *testing.T) {
	for _, name := range domain.EventTypes() {
		stream := domain.StreamID(uuid.New())
		if userStream(name) {
			stream = domain.UserStreamID(uuid.New())
		}
		e := eventstore.RecordedEvent{Event: eventstore.Event{Type: name, Data: []byte(`{}`), Metadata: []byte(`{}`)}, StreamID: stream, Version: 1}
		data, err := domain.DecodeEvent(name, e.Data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, c := range consumers {
			if err := c.consume(e, data); errors.Is(err, domain.ErrUnknownEvent) {
				t.Errorf("%s is ignored by %s: %v", name, c.place, err)
			}
		}
	}
}
