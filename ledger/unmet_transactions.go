package ledger

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/eventstore"
)

// maxMetTransactions bounds the transactions a cached state keeps: past it, the state
// forgets them all and loads again those that later commands name.
const maxMetTransactions = 1024

// meetTransactionsSQL reads the events of stream $1 up to version $3 that name the
// transactions $2 (their ids as text): each one's own events (events_by_transaction, by
// the statistics of migration 0042 however many are named), and the imports' parts and
// the reconciliations that list it (events_listed_transactions).
const meetTransactionsSQL = `SELECT version, type, data FROM events
		WHERE stream_id = $1 AND data ? 'transactionId' AND data->>'transactionId' = ANY($2) AND version <= $3
		UNION ALL
		SELECT version, type, data FROM events
		WHERE type IN ('` + domain.TypeWalletReconciled + `', '` + domain.TypeTransactionsImported + `')
			AND data->'transactionIds' ?| $2 AND stream_id = $1 AND version <= $3
		ORDER BY version`

// meetTransactions loads into state the transactions named by ids as the stream stood at
// version asOf, from their own events, and records those that did not exist then as
// known not to. Events up to asOf never change, so the load is exact whatever has been
// appended since.
func meetTransactions(ctx context.Context, db eventstore.Reader, state *domain.Workspace, ids []uuid.UUID, asOf int64) error {
	keys := make([]string, len(ids))
	for i, id := range ids {
		keys[i] = id.String()
	}
	if len(ids) == 0 {
		return nil
	}
	rows, err := db.Query(ctx, meetTransactionsSQL, domain.StreamID(state.ID), keys, asOf)
	if err != nil {
		return fmt.Errorf("ledger: load transactions: %w", err)
	}
	defer rows.Close()
	var history []domain.Event
	for rows.Next() {
		var version int64
		var typ string
		var data []byte
		if err := rows.Scan(&version, &typ, &data); err != nil {
			return fmt.Errorf("ledger: load transactions: %w", err)
		}
		event, err := domain.DecodeEvent(typ, data)
		if err != nil {
			return fmt.Errorf("ledger: load transactions: %s@%d: %w", domain.StreamID(state.ID), version, err)
		}
		history = append(history, event)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("ledger: load transactions: %w", err)
	}
	state.MeetTransactions(ids, history)
	return nil
}

// meetWallet loads into state, as the stream stood at version asOf, every transaction
// that touched the wallet then (as its source or destination, when it was created,
// alone or in an import's part, or corrected) and that state has not met, and records the wallet met. It reads the
// stream's transaction events: a reconciliation of a state that does not hold every
// transaction pays for it.
func meetWallet(ctx context.Context, db eventstore.Reader, state *domain.Workspace, wallet uuid.UUID, asOf int64) error {
	rows, err := db.Query(ctx, `SELECT DISTINCT data->>'transactionId' FROM events
		WHERE stream_id = $1 AND data ? 'transactionId' AND version <= $3 AND (
			type = '`+domain.TypeTransactionCreated+`' AND (data->>'walletId' = $2 OR data->>'toWalletId' = $2)
			OR type = '`+domain.TypeTransactionUpdated+`' AND (data->'changes'->>'walletId' = $2 OR data->'changes'->>'toWalletId' = $2))
		UNION
		SELECT t->>'transactionId' FROM events CROSS JOIN LATERAL jsonb_array_elements(data->'transactions') t
		WHERE stream_id = $1 AND type = '`+domain.TypeTransactionsImported+`' AND version <= $3
			AND (t->>'walletId' = $2 OR t->>'toWalletId' = $2)`,
		domain.StreamID(state.ID), wallet.String(), asOf)
	if err != nil {
		return fmt.Errorf("ledger: load a wallet's transactions: %w", err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return fmt.Errorf("ledger: load a wallet's transactions: %w", err)
	}
	var unmet []uuid.UUID
	for _, s := range ids {
		id, err := uuid.Parse(s)
		if err != nil {
			return fmt.Errorf("ledger: load a wallet's transactions: %w", err)
		}
		if _, ok := state.Transactions[id]; !ok {
			unmet = append(unmet, id)
		}
	}
	if err := meetTransactions(ctx, db, state, unmet, asOf); err != nil {
		return err
	}
	state.MeetWallet(wallet)
	return nil
}

// meetTransactionsOf loads, before a batch of decoded events is folded into state, the
// transactions the batch needs that state has not met (transactionsToMeet).
func meetTransactionsOf(ctx context.Context, db eventstore.Reader, state *domain.Workspace, events []domain.Event) error {
	unmet := transactionsToMeet(state, events)
	if len(unmet) == 0 {
		return nil
	}
	return meetTransactions(ctx, db, state, unmet, state.Version)
}

// transactionsToMeet lists the transactions a batch of events names (namedTransaction)
// that state has not met and the batch does not create first: those its fold needs
// loaded.
func transactionsToMeet(state *domain.Workspace, events []domain.Event) []uuid.UUID {
	if !state.TransactionsPartial {
		return nil
	}
	created, asked := map[uuid.UUID]bool{}, map[uuid.UUID]bool{}
	var unmet []uuid.UUID
	need := func(id uuid.UUID) {
		if _, ok := state.Transactions[id]; !ok && !created[id] && !asked[id] {
			asked[id] = true
			unmet = append(unmet, id)
		}
	}
	for _, stored := range events {
		for e := range domain.Parts(stored) {
			switch id, creates, ok := namedTransaction(e); {
			case creates:
				created[id] = true
			case ok:
				need(id)
			}
		}
	}
	return unmet
}

// namedTransaction returns the transaction an event creates (creates) or corrects,
// deletes, links to a statement's row or unlinks; ok is false for an event that names
// none.
func namedTransaction(event domain.Event) (id uuid.UUID, creates, ok bool) {
	switch e := event.(type) {
	case *domain.TransactionCreated:
		return e.TransactionID, true, true
	case *domain.TransactionUpdated:
		return e.TransactionID, false, true
	case *domain.TransactionDeleted:
		return e.TransactionID, false, true
	case *domain.TransactionMatched:
		return e.TransactionID, false, true
	case *domain.TransactionUnmatched:
		return e.TransactionID, false, true
	}
	return uuid.Nil, false, false
}

// forgetTransactions bounds the transactions a cached state keeps.
func forgetTransactions(w *domain.Workspace) {
	if len(w.Transactions) > maxMetTransactions {
		w.ForgetTransactions()
	}
}
