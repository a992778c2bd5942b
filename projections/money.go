package projections

import (
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/eventstore"
	"github.com/finledger/finledger/internal/fx"
)

// countAddSQL counts a transaction's live row in the transaction counts, of its day and
// of its month.
const countAddSQL = `WITH t AS (
		SELECT workspace_id, date, type, coalesce(category_id, '00000000-0000-0000-0000-000000000000') AS category_id
		FROM transactions WHERE workspace_id = $1 AND id = $2 AND deleted_at IS NULL),
	day AS (INSERT INTO transaction_counts (workspace_id, day, type, category_id, count)
		SELECT workspace_id, date, type, category_id, 1 FROM t
		ON CONFLICT (workspace_id, day, type, category_id) DO UPDATE SET count = transaction_counts.count + 1)
	INSERT INTO transaction_month_counts (workspace_id, month, type, category_id, count)
	SELECT workspace_id, date_trunc('month', date)::date, type, category_id, 1 FROM t
	ON CONFLICT (workspace_id, month, type, category_id) DO UPDATE SET count = transaction_month_counts.count + 1`

// countsRemovedSQL takes the live rows of transactions $2 of workspaces $1 (one element
// per transaction) out of the transaction counts, of their days and months, each row
// moved once, and a group's row with them when they were the group's last: no row
// counts zero, so the rows are the same however the transactions came to be where they
// are (the migrations that made the tables counted them without replaying their
// history).
const countsRemovedSQL = `WITH t AS (
		SELECT t.workspace_id, t.date, date_trunc('month', t.date)::date AS month, t.type,
			coalesce(t.category_id, '00000000-0000-0000-0000-000000000000') AS category_id
		FROM unnest($1::uuid[], $2::uuid[]) AS u(workspace_id, id)
		JOIN transactions t ON t.workspace_id = u.workspace_id AND t.id = u.id AND t.deleted_at IS NULL),
	by_day AS (SELECT workspace_id, date, type, category_id, count(*) AS n FROM t GROUP BY 1, 2, 3, 4),
	by_month AS (SELECT workspace_id, month, type, category_id, count(*) AS n FROM t GROUP BY 1, 2, 3, 4),
	last_of_day AS (DELETE FROM transaction_counts c USING by_day t
		WHERE (c.workspace_id, c.day, c.type, c.category_id) = (t.workspace_id, t.date, t.type, t.category_id) AND c.count = t.n),
	day AS (UPDATE transaction_counts c SET count = c.count - t.n FROM by_day t
		WHERE (c.workspace_id, c.day, c.type, c.category_id) = (t.workspace_id, t.date, t.type, t.category_id) AND c.count > t.n),
	last_of_month AS (DELETE FROM transaction_month_counts c USING by_month t
		WHERE (c.workspace_id, c.month, c.type, c.category_id) = (t.workspace_id, t.month, t.type, t.category_id) AND c.count = t.n)
	UPDATE transaction_month_counts c SET count = c.count - t.n FROM by_month t
	WHERE (c.workspace_id, c.month, c.type, c.category_id) = (t.workspace_id, t.month, t.type, t.category_id) AND c.count > t.n`

// queueTotalsRemoved takes a live transaction, as its row stands, out of the tables of
// totals and the transaction counts, before its row is changed or deleted.
func queueTotalsRemoved(b *pgx.Batch, ws, transactionID uuid.UUID) {
	queueTotalsEffect(b, ws, transactionID, -1)
	b.Queue(countsRemovedSQL, []uuid.UUID{ws}, []uuid.UUID{transactionID})
}

// queueTotalsAdded adds a live transaction, as its row stands, to the tables of totals
// and the transaction counts, after its row changed.
func queueTotalsAdded(b *pgx.Batch, ws, transactionID uuid.UUID) {
	queueTotalsEffect(b, ws, transactionID, 1)
	b.Queue(countAddSQL, ws, transactionID)
}

// queueEffects applies the goal and debt effects a transaction event carries. An event
// without them was decoded without ledger.Upcaster, which gives old events theirs.
func queueEffects(b *pgx.Batch, ws uuid.UUID, e eventstore.RecordedEvent, effects *domain.Effects) error {
	if effects == nil {
		return fmt.Errorf("projections: %s@%d (%s) carries no goal and debt effects", e.StreamID, e.Version, e.Type)
	}
	for _, p := range effects.Goals {
		b.Queue(`INSERT INTO goal_funding (workspace_id, goal_id, wallet_id, amount) VALUES ($1, $2, $3, $4)
			ON CONFLICT (workspace_id, goal_id, wallet_id) DO UPDATE SET amount = goal_funding.amount + excluded.amount`,
			ws, p.GoalID, p.WalletID, p.Amount)
	}
	goals, debts := effectsByRecord(effects)
	for _, g := range goals {
		b.Queue(`UPDATE goals SET saved_amount = saved_amount + $3, updated_at = $4 WHERE workspace_id = $1 AND id = $2`,
			ws, g.id, g.amount, e.RecordedAt)
		queueVersion(b, "goals", ws, g.id, e.Version)
	}
	for _, d := range debts {
		b.Queue(`UPDATE debts SET pending_balance = pending_balance + $3, updated_at = $4 WHERE workspace_id = $1 AND id = $2`,
			ws, d.id, d.amount, e.RecordedAt)
		queueVersion(b, "debts", ws, d.id, e.Version)
	}
	return nil
}

// queueMoney projects budgets, goals, debts and recurring payments.
func queueMoney(b *pgx.Batch, ws uuid.UUID, e eventstore.RecordedEvent, data any) error {
	at := e.RecordedAt
	switch d := data.(type) {
	case *domain.BudgetCreated:
		f := d.BudgetFields
		b.Queue(`INSERT INTO budgets (workspace_id, id, name, category_id, amount, currency, period, start_date, end_date,
				alert_threshold, tag_id, created_at, updated_at, created_version)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12, $13)`,
			ws, d.BudgetID, f.Name, f.CategoryID, f.Amount, f.Currency, f.Period, f.StartDate, f.EndDate, f.AlertThreshold, f.TagID, at, e.Version)
		queueVersion(b, "budgets", ws, d.BudgetID, e.Version)
	case *domain.BudgetUpdated:
		f := d.After
		b.Queue(`UPDATE budgets SET name = $3, category_id = $4, amount = $5, currency = $6, period = $7, start_date = $8,
				end_date = $9, alert_threshold = $10, tag_id = $11, updated_at = $12
			WHERE workspace_id = $1 AND id = $2`,
			ws, d.BudgetID, f.Name, f.CategoryID, f.Amount, f.Currency, f.Period, f.StartDate, f.EndDate, f.AlertThreshold, f.TagID, at)
		queueVersion(b, "budgets", ws, d.BudgetID, e.Version)
	case *domain.BudgetDeleted:
		b.Queue(`UPDATE budgets SET deleted = true, updated_at = $3 WHERE workspace_id = $1 AND id = $2`, ws, d.BudgetID, at)
		queueVersion(b, "budgets", ws, d.BudgetID, e.Version)
	case *domain.BudgetThresholdReached:
		// The audit log is its only read model: a budget's spending and alertReached are
		// read from the daily totals, and webhooks and notifications read the log.
	case *domain.GoalCreated:
		f := d.GoalFields
		b.Queue(`INSERT INTO goals (workspace_id, id, name, target_amount, currency, deadline, created_at, updated_at, created_version)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $7, $8)`, ws, d.GoalID, f.Name, f.TargetAmount, f.Currency, f.Deadline, at, e.Version)
		queueVersion(b, "goals", ws, d.GoalID, e.Version)
	case *domain.GoalUpdated:
		f := d.After
		b.Queue(`UPDATE goals SET name = $3, target_amount = $4, currency = $5, deadline = $6, updated_at = $7
			WHERE workspace_id = $1 AND id = $2`, ws, d.GoalID, f.Name, f.TargetAmount, f.Currency, f.Deadline, at)
		queueVersion(b, "goals", ws, d.GoalID, e.Version)
	case *domain.GoalDeleted:
		b.Queue(`UPDATE goals SET deleted = true, updated_at = $3 WHERE workspace_id = $1 AND id = $2`, ws, d.GoalID, at)
		queueVersion(b, "goals", ws, d.GoalID, e.Version)
	case *domain.DebtCreated:
		f := d.DebtFields
		b.Queue(`INSERT INTO debts (workspace_id, id, name, creditor, total_amount, pending_balance, currency, due_date,
				created_at, updated_at, created_version)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9, $10)`,
			ws, d.DebtID, f.Name, f.Creditor, f.TotalAmount, f.PendingBalance, f.Currency, f.DueDate, at, e.Version)
		queueVersion(b, "debts", ws, d.DebtID, e.Version)
	case *domain.DebtUpdated:
		f := d.After
		b.Queue(`UPDATE debts SET name = $3, creditor = $4, total_amount = $5, pending_balance = $6, currency = $7,
				due_date = $8, updated_at = $9
			WHERE workspace_id = $1 AND id = $2`,
			ws, d.DebtID, f.Name, f.Creditor, f.TotalAmount, f.PendingBalance, f.Currency, f.DueDate, at)
		queueVersion(b, "debts", ws, d.DebtID, e.Version)
	case *domain.DebtDeleted:
		b.Queue(`UPDATE debts SET deleted = true, updated_at = $3 WHERE workspace_id = $1 AND id = $2`, ws, d.DebtID, at)
		queueVersion(b, "debts", ws, d.DebtID, e.Version)
	case *domain.RecurringCreated:
		f := d.RecurringFields
		b.Queue(`INSERT INTO recurring_payments (workspace_id, id, name, amount, kind, periodicity, next_payment, anchor, active,
				wallet_id, category_id, created_at, updated_at, created_version)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12, $13)`,
			ws, d.RecurringID, f.Name, f.Amount, f.Kind, f.Periodicity, f.NextPayment, f.Anchor, f.Active, f.WalletID, f.CategoryID, at, e.Version)
	case *domain.RecurringUpdated:
		f := d.After
		b.Queue(`UPDATE recurring_payments SET name = $3, amount = $4, kind = $5, periodicity = $6, next_payment = $7,
				anchor = $8, active = $9, wallet_id = $10, category_id = $11, updated_at = $12
			WHERE workspace_id = $1 AND id = $2`,
			ws, d.RecurringID, f.Name, f.Amount, f.Kind, f.Periodicity, f.NextPayment, f.Anchor, f.Active, f.WalletID, f.CategoryID, at)
	case *domain.RecurringDeleted:
		b.Queue(`UPDATE recurring_payments SET deleted = true, updated_at = $3 WHERE workspace_id = $1 AND id = $2`, ws, d.RecurringID, at)
	case *domain.RecurringPaid:
		b.Queue(`UPDATE recurring_payments SET last_payment = greatest($3::date, $4::date), next_payment = $5, updated_at = $6
			WHERE workspace_id = $1 AND id = $2`, ws, d.RecurringID, d.PaidOn, d.DueDate, d.NextPayment, at)
	case *domain.RecurringSkipped:
		b.Queue(`UPDATE recurring_payments SET next_payment = $3, last_skip_cycles = $4, last_skip_first_due = $5,
				last_skip_last_due = $6, updated_at = $7
			WHERE workspace_id = $1 AND id = $2`, ws, d.RecurringID, d.NextPayment, d.Cycles, d.FirstDue, d.LastDue, at)
	case *domain.ExchangeRatesSet:
		for _, r := range d.Rates {
			b.Queue(fx.UpsertSQL, ws, r.Base, r.Quote, d.Date, r.Rate, "manual", at)
		}
	default:
		return fmt.Errorf("projections: no projector for %s: %w", e.Type, domain.ErrUnknownEvent)
	}
	return nil
}
