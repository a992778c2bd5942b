package ledger

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/eventstore"
)

// BindAgentUndo returns what makes a call undo what the API key c.KeyID did since the
// moment since, with the undo decided put in undo: first, in the call's transaction, it
// takes the stream head's row lock, so that no write comes between the history it reads
// and the decision (two undos of one key run one after the other, the second deciding
// on the first's effects), and reads the history the undo is decided from.
func BindAgentUndo(c *domain.UndoAgentWork, since time.Time, undo *domain.AgentUndo) func(Call) Call {
	return func(call Call) Call {
		call.claim = func(ctx context.Context, tx pgx.Tx) error {
			if _, err := eventstore.Version(ctx, tx, domain.StreamID(call.WorkspaceID), true); err != nil {
				return err
			}
			history, err := agentHistory(ctx, tx, call.WorkspaceID, c.KeyID, since)
			c.History = history
			return err
		}
		call.Metadata.UndoOf = c.KeyID.String()
		call.Decide = func(w *domain.Workspace) ([]domain.Event, error) {
			decided, err := c.Decide(w)
			*undo = decided
			return decided.Events, err
		}
		return call
	}
}

// agentHistory reads what UndoAgentWork is decided from: every event the key recorded
// since the moment, every event of the transactions they name from their creation on
// (by the index events_by_transaction, and an import's part by the index of the
// transactions it lists), and the events since the moment of the budgets
// they name, in stream order.
func agentHistory(ctx context.Context, tx pgx.Tx, workspace, key uuid.UUID, since time.Time) ([]domain.AgentAct, error) {
	stream := domain.StreamID(workspace)
	byKey := `metadata->>'actorType' = '` + ActorAPIKey + `' AND metadata->>'actorId' = $3`
	rows, err := tx.Query(ctx, `SELECT DISTINCT data->>'transactionId', data->>'budgetId' FROM events
		WHERE stream_id = $1 AND recorded_at >= $2 AND `+byKey, stream, since, key.String())
	if err != nil {
		return nil, fmt.Errorf("ledger: read the work of key %s: %w", key, err)
	}
	var transactions, budgets []string
	var transaction, budget *string
	if _, err := pgx.ForEachRow(rows, []any{&transaction, &budget}, func() error {
		if transaction != nil {
			transactions = append(transactions, *transaction)
		}
		if budget != nil {
			budgets = append(budgets, *budget)
		}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("ledger: read the work of key %s: %w", key, err)
	}
	rows, err = tx.Query(ctx, `SELECT version, type, data, metadata, recorded_at FROM events
		WHERE stream_id = $1 AND data ? 'transactionId' AND data->>'transactionId' = ANY($4)
		UNION
		SELECT version, type, data, metadata, recorded_at FROM events
		WHERE stream_id = $1 AND type = '`+domain.TypeTransactionsImported+`' AND data->'transactionIds' ?| $4
		UNION
		SELECT version, type, data, metadata, recorded_at FROM events
		WHERE stream_id = $1 AND recorded_at >= $2 AND (data->>'budgetId' = ANY($5) OR `+byKey+`)
		ORDER BY version`, stream, since, key.String(), transactions, budgets)
	if err != nil {
		return nil, fmt.Errorf("ledger: read the history of key %s's work: %w", key, err)
	}
	var history []domain.AgentAct
	var version int64
	var typ string
	var data, metadata []byte
	var at time.Time
	if _, err := pgx.ForEachRow(rows, []any{&version, &typ, &data, &metadata, &at}, func() error {
		event, err := domain.DecodeEvent(typ, data)
		if err != nil {
			return fmt.Errorf("%s@%d: %w", stream, version, err)
		}
		var meta Metadata
		if err := json.Unmarshal(metadata, &meta); err != nil {
			return fmt.Errorf("%s@%d: metadata: %w", stream, version, err)
		}
		byKey := meta.ActorType == ActorAPIKey && meta.ActorID == key.String() && !at.Before(since)
		history = append(history, domain.AgentAct{Event: event, ByKey: byKey, Undid: meta.UndoOf == key.String()})
		return nil
	}); err != nil {
		return nil, fmt.Errorf("ledger: read the history of key %s's work: %w", key, err)
	}
	return history, nil
}
