package projections

import (
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/eventstore"
)

// Every event type has a projector and an audit entry: a type left out would fail every
// append and replay that carries it, or leave a change out of the audit log.
func TestEveryEventTypeIsProjectedAndAudited(t *testing.T) {
	for _, name := range domain.EventTypes() {
		stream := "workspace-" + uuid.NewString()
		if strings.HasPrefix(name, "user.") || strings.HasPrefix(name, "whatsapp.") {
			stream = "user-" + uuid.NewString()
		}
		e := eventstore.RecordedEvent{Event: eventstore.Event{Type: name, Data: []byte(`{}`), Metadata: []byte(`{}`)}, StreamID: stream, Version: 1}
		data, err := domain.DecodeEvent(name, e.Data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := Queue(&pgx.Batch{}, []eventstore.RecordedEvent{e}, []domain.Event{data}); err != nil && strings.Contains(err.Error(), "no projector") {
			t.Errorf("%s: %v", name, err)
		}
		if _, ok, err := auditOf(e, data); err != nil || !ok {
			t.Errorf("%s: no audit entry (%v)", name, err)
		}
	}
}
