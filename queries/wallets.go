package queries

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/finledger/finledger/domain"
)

// Wallet is a wallet record.
type Wallet struct {
	ID             uuid.UUID `json:"id"`
	Name           string    `json:"name"`
	Description    *string   `json:"description"`
	Type           string    `json:"type"`
	Currency       string    `json:"currency"`
	CardColor      string    `json:"cardColor"`
	Balance        Amount    `json:"balance"`
	InitialBalance Amount    `json:"initialBalance"`
	Clabe          *string   `json:"clabe"`
	Provider       *string   `json:"provider"`
	IsDefault      bool      `json:"isDefault"`
	Archived       bool      `json:"archived"`
	// ReconciledThrough is the date of the last statement the wallet was reconciled
	// with, and ReconciledBalance that statement's balance; null before any.
	ReconciledThrough *domain.Date `json:"reconciledThrough"`
	ReconciledBalance *Amount      `json:"reconciledBalance"`
	CreatedAt         time.Time    `json:"createdAt"`
	UpdatedAt         time.Time    `json:"updatedAt"`
}

const walletColumns = `id, name, description, type, currency, card_color, balance, initial_balance, clabe, provider,
	is_default, archived, reconciled_through, reconciled_balance, created_at, updated_at`

func scanWallet(row pgx.CollectableRow) (Wallet, error) {
	var w Wallet
	var balance, initial decimal.Decimal
	var reconciled *decimal.Decimal
	err := row.Scan(&w.ID, &w.Name, &w.Description, &w.Type, &w.Currency, &w.CardColor, &balance, &initial,
		&w.Clabe, &w.Provider, &w.IsDefault, &w.Archived, &w.ReconciledThrough, &reconciled, &w.CreatedAt, &w.UpdatedAt)
	w.Balance, w.InitialBalance, w.ReconciledBalance = Amount(balance), Amount(initial), AmountPtr(reconciled)
	return w, err
}

// Wallets lists the active wallets of a workspace, oldest first.
func Wallets(ctx context.Context, db DB, workspaceID uuid.UUID) ([]Wallet, error) {
	rows, err := db.Query(ctx, `SELECT `+walletColumns+` FROM wallets
		WHERE workspace_id = $1 AND NOT archived ORDER BY created_version`, workspaceID)
	if err != nil {
		return nil, err
	}
	return all(rows, scanWallet, "wallets")
}

// WalletByID looks up one wallet, archived or not.
func WalletByID(workspaceID, id uuid.UUID) Lookup[Wallet] {
	return Lookup[Wallet]{"wallet", `SELECT ` + walletColumns + ` FROM wallets WHERE workspace_id = $1 AND id = $2`,
		[]any{workspaceID, id}, scanWallet}
}
