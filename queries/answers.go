package queries

import (
	"context"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/ledger"
)

// The answers below are what a command's caller answers with (ledger.Answer): reads
// of the read models that ride in the command's own round trip, after its projections,
// so that they see its writes.

// Record answers with the record lookup finds, under name: {name: record}.
func Record[T any](name string, lookup Lookup[T]) ledger.Answer {
	return Then(lookup, func(_ context.Context, _ DB, record T) (any, error) {
		return map[string]any{name: record}, nil
	})
}

// Then answers with what build makes of the record lookup finds, reading more on the
// write's connection if it must.
func Then[T any](lookup Lookup[T], build func(ctx context.Context, db DB, record T) (any, error)) ledger.Answer {
	return ledger.AnswerFunc(func(b *pgx.Batch, _ []ledger.Appended) ledger.Answering {
		found := lookup.Queue(b)
		return func(ctx context.Context, conn ledger.Conn) (any, error) {
			record, err := found()
			if err != nil {
				return nil, err
			}
			return build(ctx, conn, record)
		}
	})
}

// RecordWithTransactions answers with the record lookup finds, under name, and under
// "transactions" the transactions of workspace workspaceID that the command recorded.
func RecordWithTransactions[T any](name string, lookup Lookup[T], workspaceID uuid.UUID) ledger.Answer {
	return ledger.AnswerFunc(func(b *pgx.Batch, appended []ledger.Appended) ledger.Answering {
		record := lookup.Queue(b)
		var transactions []func() (Transaction, error)
		for _, e := range appended {
			if created, ok := e.Data.(*domain.TransactionCreated); ok {
				transactions = append(transactions, TransactionByID(workspaceID, created.TransactionID).Queue(b))
			}
		}
		return func(context.Context, ledger.Conn) (any, error) {
			v, err := record()
			if err != nil {
				return nil, err
			}
			list := make([]Transaction, 0, len(transactions))
			for _, result := range transactions {
				t, err := result()
				if err != nil {
					return nil, err
				}
				list = append(list, t)
			}
			return map[string]any{name: v, "transactions": list}, nil
		}
	})
}

// Value answers with v, which needs no read.
func Value(v any) ledger.Answer {
	return ledger.AnswerFunc(func(*pgx.Batch, []ledger.Appended) ledger.Answering {
		return func(context.Context, ledger.Conn) (any, error) { return v, nil }
	})
}

// OfEvents answers with what summary makes of the events the command appended.
func OfEvents(summary func([]ledger.Appended) any) ledger.Answer {
	return ledger.AnswerFunc(func(_ *pgx.Batch, appended []ledger.Appended) ledger.Answering {
		v := summary(appended)
		return func(context.Context, ledger.Conn) (any, error) { return v, nil }
	})
}

// Read answers with what read finds once the write has run (ledger.Conn says where):
// for answers of several queries, each needing the one before.
func Read(read func(ctx context.Context, db DB) (any, error)) ledger.Answer {
	return ledger.AnswerFunc(func(*pgx.Batch, []ledger.Appended) ledger.Answering {
		return func(ctx context.Context, conn ledger.Conn) (any, error) { return read(ctx, conn) }
	})
}
