package queries

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"
)

// Transaction is a transaction record. DestinationWalletID repeats ToWalletID under the
// name the reference page uses, so clients of either body shape read their own name.
type Transaction struct {
	ID                  uuid.UUID  `json:"id"`
	Type                string     `json:"type"`
	Amount              Amount     `json:"amount"`
	Currency            string     `json:"currency"`
	DestinationAmount   *Amount    `json:"destinationAmount"`
	Date                Date       `json:"date"`
	Concept             *string    `json:"concept"`
	Description         string     `json:"description"`
	WalletID            uuid.UUID  `json:"walletId"`
	ToWalletID          *uuid.UUID `json:"toWalletId"`
	DestinationWalletID *uuid.UUID `json:"destinationWalletId"`
	CategoryID          *uuid.UUID `json:"categoryId"`
	GoalID              *uuid.UUID `json:"goalId"`
	DebtID              *uuid.UUID `json:"debtId"`
	TagID               *uuid.UUID `json:"tagId"`
	ReferenceNumber     *string    `json:"referenceNumber"`
	AttachmentURL       *string    `json:"attachmentUrl"`
	CreatedAt           time.Time  `json:"createdAt"`
	UpdatedAt           time.Time  `json:"updatedAt"`
}

const transactionColumns = `id, type, amount, currency, destination_amount, date, concept, description, wallet_id,
	to_wallet_id, category_id, goal_id, debt_id, tag_id, reference_number, attachment_url, created_at, updated_at`

// scanTransaction reads transactionColumns and then, into extra, any further columns.
func scanTransaction(row pgx.CollectableRow, extra ...any) (Transaction, error) {
	var t Transaction
	var amount decimal.Decimal
	var dest *decimal.Decimal
	var date time.Time
	var description *string
	err := row.Scan(append([]any{&t.ID, &t.Type, &amount, &t.Currency, &dest, &date, &t.Concept, &description, &t.WalletID,
		&t.ToWalletID, &t.CategoryID, &t.GoalID, &t.DebtID, &t.TagID, &t.ReferenceNumber, &t.AttachmentURL,
		&t.CreatedAt, &t.UpdatedAt}, extra...)...)
	t.Amount, t.DestinationAmount, t.Date = Amount(amount), amountPtr(dest), Date(date)
	t.DestinationWalletID = t.ToWalletID
	// The reference page's clients read only `description`; a transaction recorded with
	// just a concept shows it there.
	switch {
	case description != nil:
		t.Description = *description
	case t.Concept != nil:
		t.Description = *t.Concept
	}
	return t, err
}

// transactionByIDSQL looks a transaction up by primary key. It leaves deleted ones to
// the caller: with "deleted_at IS NULL" in the condition, a cached generic plan may
// prefer the listing's partial index and scan the whole workspace.
const transactionByIDSQL = `SELECT ` + transactionColumns + `, deleted_at IS NOT NULL FROM transactions
	WHERE workspace_id = $1 AND id = $2`

// TransactionByID looks up a live (not deleted) transaction.
func TransactionByID(workspaceID, id uuid.UUID) Lookup[Transaction] {
	return Lookup[Transaction]{"transaction", transactionByIDSQL, []any{workspaceID, id},
		func(row pgx.CollectableRow) (Transaction, error) {
			var deleted bool
			t, err := scanTransaction(row, &deleted)
			if err == nil && deleted {
				err = fmt.Errorf("transaction is deleted: %w", ErrNotFound)
			}
			return t, err
		}}
}

// TransactionFilter selects live transactions of a workspace.
type TransactionFilter struct {
	Type       string
	WalletID   *uuid.UUID // as source or destination
	CategoryID *uuid.UUID
	GoalID     *uuid.UUID
	From, To   *time.Time // inclusive dates
	Search     string     // in concept or description, ignoring case
	Limit      int
	Offset     int
}

// TransactionPage is one page of a listing and the count of all matches.
type TransactionPage struct {
	Transactions []Transaction
	Total        int
}

// Transactions lists live transactions, newest date first and, within a date, most
// recently recorded first.
func Transactions(ctx context.Context, db DB, workspaceID uuid.UUID, f TransactionFilter) (TransactionPage, error) {
	where := []string{"workspace_id = $1", "deleted_at IS NULL"}
	args := []any{workspaceID}
	add := func(cond string, v any) {
		args = append(args, v)
		where = append(where, strings.ReplaceAll(cond, "?", fmt.Sprintf("$%d", len(args))))
	}
	if f.Type != "" {
		add("type = ?", f.Type)
	}
	if f.WalletID != nil {
		add("(wallet_id = ? OR to_wallet_id = ?)", *f.WalletID)
	}
	if f.CategoryID != nil {
		add("category_id = ?", *f.CategoryID)
	}
	if f.GoalID != nil {
		add("goal_id = ?", *f.GoalID)
	}
	if f.From != nil {
		add("date >= ?", *f.From)
	}
	if f.To != nil {
		add("date <= ?", *f.To)
	}
	if f.Search != "" {
		add(`(concept ILIKE ? ESCAPE '\' OR description ILIKE ? ESCAPE '\')`, "%"+escapeLike(f.Search)+"%")
	}
	cond := strings.Join(where, " AND ")
	var page TransactionPage
	if err := db.QueryRow(ctx, `SELECT count(*) FROM transactions WHERE `+cond, args...).Scan(&page.Total); err != nil {
		return page, fmt.Errorf("queries: count transactions: %w", err)
	}
	args = append(args, f.Limit, f.Offset)
	rows, err := db.Query(ctx, fmt.Sprintf(`SELECT %s FROM transactions WHERE %s
		ORDER BY date DESC, created_version DESC LIMIT $%d OFFSET $%d`, transactionColumns, cond, len(args)-1, len(args)), args...)
	if err != nil {
		return page, fmt.Errorf("queries: list transactions: %w", err)
	}
	page.Transactions, err = all(rows, func(row pgx.CollectableRow) (Transaction, error) { return scanTransaction(row) }, "transactions")
	return page, err
}

func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}
