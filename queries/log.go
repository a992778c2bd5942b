package queries

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/eventstore"
)

// The realtime feed reads a workspace's stream itself, not a read model: it resumes a
// client at a version of the stream.

// StreamEvent is an event of a workspace's stream as the realtime feed shows it.
type StreamEvent struct {
	ID         uuid.UUID
	Version    int64
	Type       string
	Data       json.RawMessage
	RecordedAt time.Time
}

// StreamHead returns the version of the workspace's stream, 0 before its first event.
func StreamHead(ctx context.Context, db DB, workspaceID uuid.UUID) (int64, error) {
	return eventstore.Version(ctx, db, domain.StreamID(workspaceID), false)
}

// StreamEvents returns up to limit events of the workspace's stream with versions above
// after, in version order.
func StreamEvents(ctx context.Context, db DB, workspaceID uuid.UUID, after int64, limit int) ([]StreamEvent, error) {
	recorded, err := eventstore.ReadStream(ctx, db, domain.StreamID(workspaceID), after, limit)
	if err != nil {
		return nil, fmt.Errorf("queries: %w", err)
	}
	events := make([]StreamEvent, len(recorded))
	for i, e := range recorded {
		events[i] = StreamEvent{ID: e.ID, Version: e.Version, Type: e.Type, Data: e.Data, RecordedAt: e.RecordedAt}
	}
	return events, nil
}
