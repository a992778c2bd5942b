package webhooks

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/queries"
)

// Stored is a stored event as the dispatcher receives it.
type Stored struct {
	ID          uuid.UUID
	Type        string
	WorkspaceID uuid.UUID
	Version     int64  // in the workspace's stream
	StreamSeq   uint64 // in the JetStream stream
	RecordedAt  time.Time
	Data        []byte
}

// fanOut adds to b the deliveries of one event: one per public event it stands for and
// per live webhook of its workspace that wants it. A budget.threshold_reached is an
// event of the log like any other, decided by the command that reached the threshold.
// It is safe to repeat: a delivery's id derives from its webhook, the public event's id
// (Public.ID) and its name.
func fanOut(ctx context.Context, pool *pgxpool.Pool, cache *hookCache, e Stored, now time.Time, b *pgx.Batch) (int, error) {
	if strings.HasPrefix(e.Type, "webhook.") {
		cache.forget(e.WorkspaceID)
	}
	publics, err := PublicEvents(e.Type, e.Data)
	if err != nil || len(publics) == 0 {
		return 0, err
	}
	hooks, err := cache.live(ctx, pool, e.WorkspaceID, e.Version)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, p := range publics {
		for _, h := range hooks {
			if !h.Wants(p.Name) {
				continue
			}
			d := delivery{ID: deliveryID(h.ID, p.ID(e.ID), p.Name), WorkspaceID: e.WorkspaceID, WebhookID: h.ID, EventID: &e.ID,
				StreamSeq: e.StreamSeq, OccurredAt: e.RecordedAt, Event: p}
			if err := d.queue(b, now); err != nil {
				return 0, err
			}
			n++
		}
	}
	return n, nil
}

// hook is a live webhook as the fan-out sees it.
type hook struct {
	ID             uuid.UUID
	CreatedVersion int64
	domain.WebhookFields
}

// hookCache holds each workspace's active webhooks as last read. Every webhook event
// passes through the dispatcher, in order, and drops its workspace's entry, so an
// entry is never older than the last change the dispatcher has seen.
type hookCache struct {
	entries map[uuid.UUID][]hook
}

// maxCachedWorkspaces bounds the cache; past it, the cache starts over.
const maxCachedWorkspaces = 100_000

func (c *hookCache) forget(workspaceID uuid.UUID) { delete(c.entries, workspaceID) }

// live returns the active webhooks of a workspace that existed before the event at
// version: a webhook is sent what happens after its creation, even when the dispatcher
// catches up on older events.
func (c *hookCache) live(ctx context.Context, db queries.DB, workspaceID uuid.UUID, version int64) ([]hook, error) {
	all, ok := c.entries[workspaceID]
	if !ok {
		rows, err := db.Query(ctx, `SELECT id, created_version, name, url, events, active FROM webhooks
			WHERE workspace_id = $1 AND deleted_at IS NULL AND active ORDER BY created_version`, workspaceID)
		if err != nil {
			return nil, fmt.Errorf("webhooks: live webhooks: %w", err)
		}
		all, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (hook, error) {
			var h hook
			err := row.Scan(&h.ID, &h.CreatedVersion, &h.Name, &h.URL, &h.Events, &h.Active)
			return h, err
		})
		if err != nil {
			return nil, fmt.Errorf("webhooks: live webhooks: %w", err)
		}
		if c.entries == nil || len(c.entries) >= maxCachedWorkspaces {
			c.entries = map[uuid.UUID][]hook{}
		}
		c.entries[workspaceID] = all
	}
	var out []hook
	for _, h := range all {
		if h.CreatedVersion < version {
			out = append(out, h)
		}
	}
	return out, nil
}
