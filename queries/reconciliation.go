package queries

import (
	"context"
	"errors"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/ledger"
)

// Reconciliation is the answer of a wallet's reconciliation with its statement.
// Balances are exact decimals written as text with their scale.
type Reconciliation struct {
	WalletID         uuid.UUID   `json:"walletId"`
	Date             domain.Date `json:"date"`
	StatementBalance string      `json:"statementBalance"`
	LedgerBalance    string      `json:"ledgerBalance"`
	// Difference is the statement's balance less the ledger's: zero once an adjustment
	// is booked.
	Difference string `json:"difference"`
	// Reconciled counts the transactions the reconciliation marked.
	Reconciled int `json:"reconciled"`
	// Adjustment is the transaction booked for the difference, or nil.
	Adjustment *Transaction `json:"adjustment"`
}

// Reconciled answers a reconciliation of workspace workspaceID with what its events
// say, and the adjustment it booked as the transactions read model holds it:
// {"reconciliation": {...}}.
func Reconciled(workspaceID uuid.UUID) ledger.Answer {
	return ledger.AnswerFunc(func(b *pgx.Batch, appended []ledger.Appended) ledger.Answering {
		var reconciled *domain.WalletReconciled
		var adjustment func() (Transaction, error)
		for _, e := range appended {
			switch d := e.Data.(type) {
			case *domain.WalletReconciled:
				reconciled = d
			case *domain.TransactionCreated:
				adjustment = TransactionByID(workspaceID, d.TransactionID).Queue(b)
			}
		}
		return func(context.Context, ledger.Conn) (any, error) {
			if reconciled == nil {
				return nil, errors.New("queries: a reconciliation appended no wallet.reconciled.v1")
			}
			out := Reconciliation{WalletID: reconciled.WalletID, Date: reconciled.Date,
				StatementBalance: domain.ExactString(reconciled.StatementBalance),
				LedgerBalance:    domain.ExactString(reconciled.LedgerBalance),
				Difference:       domain.ExactString(reconciled.StatementBalance.Sub(reconciled.LedgerBalance)),
				Reconciled:       len(reconciled.TransactionIDs)}
			if adjustment != nil {
				t, err := adjustment()
				if err != nil {
					return nil, err
				}
				out.Adjustment = &t
			}
			return map[string]any{"reconciliation": out}, nil
		}
	})
}
