package webhooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/finledger/finledger/commands"
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
// per live webhook of its workspace that wants it, plus a budget.threshold_reached when
// the event takes a budget's period spending to its alert threshold for the first time.
// Alerts are looked for when a webhook wants them or alertsWanted says someone else
// does; fanOut returns them. It is safe to repeat: deliveries and alerts are keyed by
// what they stand for.
func fanOut(ctx context.Context, pool *pgxpool.Pool, cache *hookCache, e Stored, now time.Time,
	alertsWanted func(uuid.UUID) bool, b *pgx.Batch) (int, []Alert, error) {
	if strings.HasPrefix(e.Type, "webhook.") {
		cache.forget(e.WorkspaceID)
	}
	publics, err := PublicEvents(e.Type, e.Data)
	if err != nil || len(publics) == 0 {
		return 0, nil, err
	}
	hooks, err := cache.live(ctx, pool, e.WorkspaceID, e.Version)
	if err != nil {
		return 0, nil, err
	}
	var alerts []Alert
	if (e.Type == commands.TypeTransactionCreated || e.Type == commands.TypeTransactionUpdated) &&
		(wants(hooks, commands.HookBudgetThresholdReached) || alertsWanted(e.WorkspaceID)) {
		if alerts, err = budgetAlerts(ctx, pool, e, now); err != nil {
			return 0, nil, err
		}
		for _, a := range alerts {
			data, err := json.Marshal(a)
			if err != nil {
				return 0, nil, err
			}
			publics = append(publics, Public{Name: commands.HookBudgetThresholdReached, Data: data})
		}
	}
	n := 0
	for _, p := range publics {
		for _, h := range hooks {
			if !h.Wants(p.Name) {
				continue
			}
			d := delivery{ID: deliveryID(h.ID, e.ID, p.Name), WorkspaceID: e.WorkspaceID, WebhookID: h.ID, EventID: &e.ID,
				StreamSeq: e.StreamSeq, Name: p.Name, OccurredAt: e.RecordedAt, Data: p.Data}
			if err := d.queue(b, now); err != nil {
				return 0, nil, err
			}
			n++
		}
	}
	return n, alerts, nil
}

// Alert is a budget that reached its alert threshold, and the transaction that took it there.
type Alert struct {
	Budget        queries.Budget `json:"budget"`
	TransactionID uuid.UUID      `json:"transactionId"`
}

// hook is a live webhook as the fan-out sees it.
type hook struct {
	ID             uuid.UUID
	CreatedVersion int64
	commands.WebhookFields
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

func wants(hooks []hook, name string) bool {
	for _, h := range hooks {
		if h.Wants(name) {
			return true
		}
	}
	return false
}

// budgetAlerts returns a budget.threshold_reached for each budget of the transaction's
// category whose period, the one holding the transaction's date, has reached its alert
// threshold and has not been reported before. Spending is read as it is now, so an
// event handled late reports what its period holds by then.
func budgetAlerts(ctx context.Context, pool *pgxpool.Pool, e Stored, now time.Time) ([]Alert, error) {
	var ref struct {
		TransactionID uuid.UUID `json:"transactionId"`
	}
	if err := json.Unmarshal(e.Data, &ref); err != nil {
		return nil, fmt.Errorf("webhooks: decode %s: %w", e.Type, err)
	}
	t, err := queries.TransactionByID(e.WorkspaceID, ref.TransactionID).Get(ctx, pool)
	if errors.Is(err, queries.ErrNotFound) {
		return nil, nil // deleted since
	}
	if err != nil {
		return nil, err
	}
	if t.Type != commands.TxExpense || t.CategoryID == nil {
		return nil, nil
	}
	day := time.Time(t.Date)
	budgets, err := queries.Budgets(ctx, pool, e.WorkspaceID, day)
	if err != nil {
		return nil, err
	}
	var out []Alert
	for _, b := range budgets {
		if b.CategoryID != *t.CategoryID || !b.Active || !b.AlertReached {
			continue
		}
		tag, err := pool.Exec(ctx, `INSERT INTO budget_alerts (workspace_id, budget_id, period_start, event_id, reached_at)
			VALUES ($1, $2, $3, $4, $5) ON CONFLICT (workspace_id, budget_id, period_start)
			DO UPDATE SET reached_at = budget_alerts.reached_at WHERE budget_alerts.event_id = excluded.event_id`,
			e.WorkspaceID, b.ID, time.Time(b.PeriodStart), e.ID, now)
		if err != nil {
			return nil, fmt.Errorf("webhooks: record budget alert: %w", err)
		}
		if tag.RowsAffected() == 0 {
			continue // reported already, for another event
		}
		out = append(out, Alert{Budget: b, TransactionID: t.ID})
	}
	return out, nil
}
