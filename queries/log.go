package queries

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/finledger/finledger/commands"
)

// The realtime feed reads a workspace's stream itself, not a read model: it resumes a
// client at a version of the stream. These queries read the event store's tables as
// eventstore.Version and eventstore.ReadStream do, taking only what the feed shows.

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
	var v int64
	err := db.QueryRow(ctx, `SELECT version FROM streams WHERE stream_id = $1`, commands.StreamID(workspaceID)).Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("queries: stream head: %w", err)
	}
	return v, nil
}

// StreamEvents returns up to limit events of the workspace's stream with versions above
// after, in version order.
func StreamEvents(ctx context.Context, db DB, workspaceID uuid.UUID, after int64, limit int) ([]StreamEvent, error) {
	rows, err := db.Query(ctx, `SELECT event_id, version, type, data, recorded_at FROM events
		WHERE stream_id = $1 AND version > $2 ORDER BY version LIMIT $3`, commands.StreamID(workspaceID), after, limit)
	if err != nil {
		return nil, fmt.Errorf("queries: stream events: %w", err)
	}
	return all(rows, func(row pgx.CollectableRow) (StreamEvent, error) {
		var e StreamEvent
		err := row.Scan(&e.ID, &e.Version, &e.Type, &e.Data, &e.RecordedAt)
		return e, err
	}, "stream events")
}
