package queries

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/finledger/finledger/domain"
	"regexp"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"
)

// Transaction is a transaction record. DestinationWalletID repeats ToWalletID under the
// name the reference page uses, so clients of either body shape read their own name.
type Transaction struct {
	ID                  uuid.UUID              `json:"id"`
	Type                domain.TransactionType `json:"type"`
	Amount              Amount                 `json:"amount"`
	Currency            string                 `json:"currency"`
	DestinationAmount   *Amount                `json:"destinationAmount"`
	Date                domain.Date            `json:"date"`
	Concept             *string                `json:"concept"`
	Description         string                 `json:"description"`
	WalletID            uuid.UUID              `json:"walletId"`
	ToWalletID          *uuid.UUID             `json:"toWalletId"`
	DestinationWalletID *uuid.UUID             `json:"destinationWalletId"`
	CategoryID          *uuid.UUID             `json:"categoryId"`
	GoalID              *uuid.UUID             `json:"goalId"`
	DebtID              *uuid.UUID             `json:"debtId"`
	TagID               *uuid.UUID             `json:"tagId"`
	ReferenceNumber     *string                `json:"referenceNumber"`
	AttachmentURL       *string                `json:"attachmentUrl"`
	Cleared             bool                   `json:"cleared"`
	// ImportID is the statement import that recorded the transaction or linked a row of
	// its statement to it, and ExternalID that row's id at the bank.
	ImportID   *uuid.UUID `json:"importId"`
	ExternalID *string    `json:"externalId"`
	// Reconciled: a reconciliation with the wallet's statement counted it; it refuses
	// changes unless told (allowReconciled).
	Reconciled bool `json:"reconciled"`
	// Splits are the parts of a split transaction (domain/splits.go), empty when it is
	// not split.
	Splits []SplitPart `json:"splits"`
	// MatchingParts are, in a listing filtered by a category, the positions (from 0) of
	// the parts of a split transaction that are of that category; absent elsewhere.
	MatchingParts []int `json:"matchingParts,omitempty"`
	// RunningBalance is, in a listing of one wallet's transactions, the wallet's
	// balance after this transaction (walletBalancesAfter); nil elsewhere.
	RunningBalance *Amount   `json:"runningBalance,omitempty"`
	CreatedAt      time.Time `json:"createdAt"`
	UpdatedAt      time.Time `json:"updatedAt"`
}

// SplitPart is one part of a split transaction.
type SplitPart struct {
	Amount     Amount     `json:"amount"`
	Currency   string     `json:"currency"`
	CategoryID *uuid.UUID `json:"categoryId"`
	TagID      *uuid.UUID `json:"tagId"`
	Concept    *string    `json:"concept"`
}

// Part is the part as a command takes it and an event holds it.
func (p SplitPart) Part() domain.SplitPart {
	return domain.SplitPart{Amount: decimal.Decimal(p.Amount), Currency: p.Currency, CategoryID: p.CategoryID, TagID: p.TagID,
		Concept: p.Concept}
}

// ReadSplitParts reads parts stored as their events state them (JSON, amounts with
// their scale), none for NULL.
func ReadSplitParts(raw []byte) ([]SplitPart, error) {
	parts := []SplitPart{}
	if raw == nil {
		return parts, nil
	}
	var stored []domain.SplitPart
	if err := json.Unmarshal(raw, &stored); err != nil {
		return nil, fmt.Errorf("queries: split parts: %w", err)
	}
	return append(parts, SplitPartsOf(stored)...), nil
}

// SplitPartsOf are parts as a command decides them, as records show them.
func SplitPartsOf(parts []domain.SplitPart) []SplitPart {
	out := make([]SplitPart, len(parts))
	for i, p := range parts {
		out[i] = SplitPart{Amount: Amount(p.Amount), Currency: p.Currency, CategoryID: p.CategoryID, TagID: p.TagID, Concept: p.Concept}
	}
	return out
}

const transactionColumns = `id, type, amount, currency, destination_amount, date, concept, description, wallet_id,
	to_wallet_id, category_id, goal_id, debt_id, tag_id, reference_number, attachment_url, cleared, reconciled, created_at, updated_at,
	import_id, external_id, splits`

// scanTransaction reads transactionColumns and then, into extra, any further columns.
func scanTransaction(row pgx.CollectableRow, extra ...any) (Transaction, error) {
	var t Transaction
	var amount decimal.Decimal
	var dest *decimal.Decimal
	var description *string
	var splits []byte
	err := row.Scan(append([]any{&t.ID, &t.Type, &amount, &t.Currency, &dest, &t.Date, &t.Concept, &description, &t.WalletID,
		&t.ToWalletID, &t.CategoryID, &t.GoalID, &t.DebtID, &t.TagID, &t.ReferenceNumber, &t.AttachmentURL,
		&t.Cleared, &t.Reconciled, &t.CreatedAt, &t.UpdatedAt, &t.ImportID, &t.ExternalID, &splits}, extra...)...)
	if err != nil {
		return t, err
	}
	if t.Splits, err = ReadSplitParts(splits); err != nil {
		return t, err
	}
	t.Amount, t.DestinationAmount = Amount(amount), AmountPtr(dest)
	t.DestinationWalletID = t.ToWalletID
	// The reference page's clients read only `description`; a transaction recorded with
	// just a concept shows it there.
	switch {
	case description != nil:
		t.Description = *description
	case t.Concept != nil:
		t.Description = *t.Concept
	}
	return t, nil
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
	Type       domain.TransactionType
	WalletID   *uuid.UUID // as source or destination
	CategoryID *uuid.UUID
	GoalID     *uuid.UUID
	From, To   *domain.Date // inclusive
	Search     string       // in concept or description, ignoring accents and case; or an amount (searchAmount)
	Limit      int
	Offset     int
	// partsToo has a category find the split transactions with a part of it: set when
	// the workspace holds any (splitsHeld).
	partsToo bool
}

// TransactionPage is one page of a listing and the count of all matches.
type TransactionPage struct {
	Transactions []Transaction
	Total        int
}

// Transactions lists live transactions, newest date first and, within a date, most
// recently recorded first.
//
// A filter of type, category and dates only (the transaction counts hold no wallet, goal
// or text) takes its total from the counts, which also tell how many matches lie on the
// days after the one a deep page starts on: the page's walk then starts on that day
// (listingStart). Other filters count their matches. The page's ids come from the
// listing's indexes alone where the filter lets them, and only the page's rows are read.
func Transactions(ctx context.Context, db DB, workspaceID uuid.UUID, f TransactionFilter) (TransactionPage, error) {
	var page TransactionPage
	if f.CategoryID != nil {
		if err := db.QueryRow(ctx, splitsHeldSQL, workspaceID).Scan(&f.partsToo); err != nil {
			return page, fmt.Errorf("queries: split transactions held: %w", err)
		}
	}
	match := f.conditions(workspaceID, "date")
	match.where = append(match.where, "deleted_at IS NULL") // the counts count live ones only
	offset := f.Offset
	if f.counted() {
		sql, args := f.listingStart(workspaceID, offset)
		var day *time.Time
		var before int
		err := db.QueryRow(ctx, sql, args...).Scan(&page.Total, &day, &before)
		switch {
		case errors.Is(err, pgx.ErrNoRows): // nothing matches
			page.Transactions = []Transaction{}
			return page, nil
		case err != nil:
			return page, fmt.Errorf("queries: count transactions: %w", err)
		}
		match.add("date <= ?", *day)
		offset -= before
	} else if err := db.QueryRow(ctx, `SELECT count(*) FROM transactions WHERE `+match.sql(),
		append([]any{ownPlan}, match.args...)...).Scan(&page.Total); err != nil {
		return page, fmt.Errorf("queries: count transactions: %w", err)
	}
	args := append(match.args, f.Limit, offset)
	if !f.counted() {
		args = append([]any{ownPlan}, args...)
	}
	rows, err := db.Query(ctx, fmt.Sprintf(`SELECT %s FROM transactions WHERE workspace_id = $1 AND id IN (
			SELECT id FROM transactions WHERE %s ORDER BY date DESC, created_version DESC, id DESC LIMIT $%d OFFSET $%d)
		ORDER BY date DESC, created_version DESC, id DESC`, transactionColumns, match.sql(), len(match.args)+1, len(match.args)+2), args...)
	if err != nil {
		return page, fmt.Errorf("queries: list transactions: %w", err)
	}
	page.Transactions, err = all(rows, func(row pgx.CollectableRow) (Transaction, error) { return scanTransaction(row) }, "transactions")
	if err != nil {
		return page, err
	}
	if f.CategoryID != nil {
		for i := range page.Transactions {
			page.Transactions[i].MatchingParts = partsOf(page.Transactions[i].Splits, *f.CategoryID)
		}
	}
	if f.WalletID == nil || len(page.Transactions) == 0 {
		return page, err
	}
	return page, walletBalancesAfter(ctx, db, workspaceID, *f.WalletID, page.Transactions)
}

// splitsHeldSQL tells whether a workspace holds a live split transaction: a filter by
// category then looks into the parts too, and the transaction counts, which count a
// split transaction under no category, cannot answer it.
const splitsHeldSQL = `SELECT EXISTS (SELECT 1 FROM transactions WHERE workspace_id = $1 AND splits IS NOT NULL AND deleted_at IS NULL)`

// partsOf returns the positions of the parts of category, nil when there are none.
func partsOf(parts []SplitPart, category uuid.UUID) []int {
	var at []int
	for i, p := range parts {
		if p.CategoryID != nil && *p.CategoryID == category {
			at = append(at, i)
		}
	}
	return at
}

// balancesAfterSQL is, for the transactions $4 of wallet $2, the wallet's balance after
// each: its balance now less what the wallet's later transactions moved it by, later
// in the listing's order (date, then recording, then id). It reads the wallet's live
// transactions from the newest down to the page's oldest ($3), as the listing did.
const balancesAfterSQL = `SELECT t.id, w.balance - t.later FROM wallets w, (
		SELECT id, coalesce(sum(CASE
				WHEN wallet_id <> $2 THEN coalesce(destination_amount, amount)
				WHEN type IN ('income', 'goal_withdrawal') THEN amount
				ELSE -amount END)
			OVER (ORDER BY date DESC, created_version DESC, id DESC ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS later
		FROM transactions WHERE workspace_id = $1 AND (wallet_id = $2 OR to_wallet_id = $2) AND deleted_at IS NULL
			AND (date, created_version, id) >= (SELECT date, created_version, id FROM transactions WHERE workspace_id = $1 AND id = $3)) t
	WHERE w.workspace_id = $1 AND w.id = $2 AND t.id = ANY($4)`

// walletBalancesAfter sets the running balance of a page of wallet's transactions,
// given newest first (balancesAfterSQL). A transfer moves the wallet it leaves by its
// amount and the one it reaches by its destination amount.
func walletBalancesAfter(ctx context.Context, db DB, workspaceID, wallet uuid.UUID, page []Transaction) error {
	ids := make([]uuid.UUID, len(page))
	for i, t := range page {
		ids[i] = t.ID
	}
	rows, err := db.Query(ctx, balancesAfterSQL, workspaceID, wallet, ids[len(ids)-1], ids)
	if err != nil {
		return fmt.Errorf("queries: running balances: %w", err)
	}
	after := map[uuid.UUID]decimal.Decimal{}
	var id uuid.UUID
	var balance decimal.Decimal
	if _, err := pgx.ForEachRow(rows, []any{&id, &balance}, func() error { after[id] = balance; return nil }); err != nil {
		return fmt.Errorf("queries: running balances: %w", err)
	}
	for i := range page {
		if b, ok := after[page[i].ID]; ok {
			page[i].RunningBalance = AmountPtr(&b)
		}
	}
	return nil
}

// listingStart is the query of a counted filter's total, of the day a page at offset
// starts on and of the matches on the days after that day. Summing a workspace's counts
// per day costs as many rows as it has days, types and categories (18,261 over five
// years of ten categories), so it sums the counts per month of the months the dates
// cover whole, and those per day of the days at the edges; then it runs through those
// spans, newest first, to the one the page starts in, and through that span's days to
// the page's day: at most a month's rows per day.
func (f TransactionFilter) listingStart(workspaceID uuid.UUID, offset int) (string, []any) {
	c := TransactionFilter{Type: f.Type, CategoryID: f.CategoryID}.conditions(workspaceID, "")
	group := c.sql()
	// The months the dates cover whole are [monthFrom, monthTo); none when they begin
	// and end within one month.
	var monthFrom, monthTo *domain.Date
	if f.From != nil {
		m := f.From.MonthStart()
		if m.Before(*f.From) {
			m = m.AddDate(0, 1, 0)
		}
		monthFrom = &m
	}
	if f.To != nil {
		m := f.To.AddDays(1).MonthStart()
		monthTo = &m
	}
	var spans []string
	days := func(from, to domain.Date) {
		spans = append(spans, fmt.Sprintf(`SELECT day, day, sum(count) FROM transaction_counts
			WHERE %s AND day >= %s AND day <= %s GROUP BY day`, group, c.arg(from), c.arg(to)))
	}
	if monthFrom != nil && monthTo != nil && !monthFrom.Before(*monthTo) {
		days(*f.From, *f.To)
	} else {
		months := group
		if monthFrom != nil {
			months += " AND month >= " + c.arg(*monthFrom)
			if f.From.Before(*monthFrom) {
				days(*f.From, monthFrom.AddDays(-1))
			}
		}
		if monthTo != nil {
			months += " AND month < " + c.arg(*monthTo)
			if !f.To.Before(*monthTo) {
				days(*monthTo, *f.To)
			}
		}
		spans = append(spans, `SELECT month, (month + interval '1 month')::date - 1, sum(count) FROM transaction_month_counts
			WHERE `+months+` GROUP BY month`)
	}
	at := c.arg(offset)
	return fmt.Sprintf(`WITH spans (first, last, n) AS (%s),
		running AS (SELECT first, last, sum(n) OVER (ORDER BY first DESC) - n AS before FROM spans),
		span AS (SELECT first, last, before FROM running WHERE before <= %s ORDER BY first LIMIT 1),
		days AS (SELECT day, sum(count) AS n FROM transaction_counts
			WHERE %s AND day >= (SELECT first FROM span) AND day <= (SELECT last FROM span) GROUP BY day)
		SELECT (SELECT sum(n) FROM spans)::bigint, day, before::bigint FROM (
			SELECT day, (SELECT before FROM span) + sum(n) OVER (ORDER BY day DESC) - n AS before FROM days) d
		WHERE before <= %s ORDER BY day LIMIT 1`, strings.Join(spans, "\n\t\tUNION ALL "), at, group, at), c.args
}

func firstOfMonth(d time.Time) time.Time {
	return time.Date(d.Year(), d.Month(), 1, 0, 0, 0, 0, d.Location())
}

// counted tells whether the transaction counts can answer the filter: they count by
// day, type and category, the uncategorized under the nil uuid, which no filter names,
// and a split transaction under no category but its own (none).
func (f TransactionFilter) counted() bool {
	return f.WalletID == nil && f.GoalID == nil && f.Search == "" && (f.CategoryID == nil || *f.CategoryID != uuid.Nil) && !f.partsToo
}

// conditions is the filter as SQL conditions on the transactions or, as far as it goes,
// on the transaction counts, whose date column is named dateColumn.
func (f TransactionFilter) conditions(workspaceID uuid.UUID, dateColumn string) *conditions {
	c := &conditions{where: []string{"workspace_id = $1"}, args: []any{workspaceID}}
	if f.Type != "" {
		c.add("type = ?", f.Type)
	}
	if f.WalletID != nil {
		c.add("(wallet_id = ? OR to_wallet_id = ?)", *f.WalletID)
	}
	if f.CategoryID != nil && f.partsToo {
		c.add(`(category_id = ? OR splits @> jsonb_build_array(jsonb_build_object('categoryId', ?::uuid::text)))`, *f.CategoryID)
	} else if f.CategoryID != nil {
		c.add("category_id = ?", *f.CategoryID)
	}
	if f.GoalID != nil {
		c.add("goal_id = ?", *f.GoalID)
	}
	if f.From != nil {
		c.add(dateColumn+" >= ?", *f.From)
	}
	if f.To != nil {
		c.add(dateColumn+" <= ?", *f.To)
	}
	if f.Search != "" {
		text := c.arg("%" + escapeLike(f.Search) + "%")
		match := fmt.Sprintf(`finledger_fold(concept) LIKE finledger_fold(%s) ESCAPE '\' OR finledger_fold(description) LIKE finledger_fold(%s) ESCAPE '\'`, text, text)
		if amount, ok := searchAmount(f.Search); ok {
			match += " OR amount = " + c.arg(amount)
		}
		c.where = append(c.where, "("+match+")")
	}
	return c
}

// conditions are SQL conditions joined by AND and the arguments they number.
type conditions struct {
	where []string
	args  []any
}

// add appends cond with each ? standing for v, as the next argument.
func (c *conditions) add(cond string, v any) {
	c.where = append(c.where, strings.ReplaceAll(cond, "?", c.arg(v)))
}

// arg numbers v as the next argument.
func (c *conditions) arg(v any) string {
	c.args = append(c.args, v)
	return fmt.Sprintf("$%d", len(c.args))
}

func (c *conditions) sql() string { return strings.Join(c.where, " AND ") }

// amountSearch is a search that reads as an amount, written as the API writes amounts:
// digits, a point before the decimals, and optionally commas between groups of three
// ("120", "12.50", "1,250.50"). A comma before two digits ("12,50") is no grouping, and
// the API reads no locale: that search is text alone (docs/api.md, "API notes").
var amountSearch = regexp.MustCompile(`^(?:[0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)(?:\.[0-9]+)?$`)

// searchAmount is the amount a search names, if it reads as one (amountSearch), a
// currency sign before it allowed: "120" finds 120.00 as well as text holding "120".
func searchAmount(search string) (decimal.Decimal, bool) {
	s := strings.TrimPrefix(strings.TrimSpace(search), "$")
	if !amountSearch.MatchString(s) {
		return decimal.Decimal{}, false
	}
	d, err := decimal.NewFromString(strings.ReplaceAll(s, ",", ""))
	return d, err == nil
}

func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}
