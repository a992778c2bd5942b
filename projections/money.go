package projections

import (
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/finledger/finledger/commands"
	"github.com/finledger/finledger/eventstore"
	"github.com/finledger/finledger/internal/fx"
)

// effects names the read models a transaction feeds besides its own row and wallets.
type effects struct{ totals, debt, goal bool }

var allEffects = effects{true, true, true}

// effectsOf says which read models a new transaction feeds.
func effectsOf(t *commands.TransactionCreated) effects {
	return effects{
		totals: t.Type == commands.TxIncome || t.Type == commands.TxExpense,
		debt:   t.DebtID != nil,
		goal:   t.GoalID != nil,
	}
}

// The effects of a transaction are read from its live row, so that the same statements
// add a transaction (after its insert or update) and take it away (before its update or
// deletion) whatever changed: replay runs them in the same order and gets the same sums.
const (
	totalsEffectSQL = `INSERT INTO daily_totals (workspace_id, day, type, currency, category_id, amount, count)
		SELECT t.workspace_id, t.date, t.type, t.currency, coalesce(t.category_id, '00000000-0000-0000-0000-000000000000'),
			$3::int * t.amount, $3::int
		FROM transactions t
		WHERE t.workspace_id = $1 AND t.id = $2 AND t.deleted_at IS NULL AND t.type IN ('income', 'expense')
		ON CONFLICT (workspace_id, category_id, type, currency, day) DO UPDATE
			SET amount = daily_totals.amount + excluded.amount, count = daily_totals.count + excluded.count`
	debtEffectSQL = `UPDATE debts d SET pending_balance = d.pending_balance - $3::int * t.amount, updated_at = $4
		FROM transactions t
		WHERE t.workspace_id = $1 AND t.id = $2 AND t.deleted_at IS NULL AND t.type = 'expense'
			AND d.workspace_id = $1 AND d.id = t.debt_id`
	goalEffectSQL = `UPDATE goals g SET saved_amount = g.saved_amount + $3::int * t.amount * CASE t.type WHEN 'goal_deposit' THEN 1 ELSE -1 END,
			updated_at = $4
		FROM transactions t
		WHERE t.workspace_id = $1 AND t.id = $2 AND t.deleted_at IS NULL AND t.type IN ('goal_deposit', 'goal_withdrawal')
			AND g.workspace_id = $1 AND g.id = t.goal_id`
	fundingEffectSQL = `INSERT INTO goal_funding (workspace_id, goal_id, wallet_id, amount)
		SELECT t.workspace_id, t.goal_id, t.wallet_id, $3::int * t.amount * CASE t.type WHEN 'goal_deposit' THEN 1 ELSE -1 END
		FROM transactions t
		WHERE t.workspace_id = $1 AND t.id = $2 AND t.deleted_at IS NULL AND t.type IN ('goal_deposit', 'goal_withdrawal')
		ON CONFLICT (workspace_id, goal_id, wallet_id) DO UPDATE SET amount = goal_funding.amount + excluded.amount`
)

// totalsCreateSQL adds a new transaction to the daily totals from its event's values,
// sparing the read of its row.
const totalsCreateSQL = `INSERT INTO daily_totals (workspace_id, day, type, currency, category_id, amount, count)
	VALUES ($1, $2::date, $3, $4, coalesce($5, '00000000-0000-0000-0000-000000000000'::uuid), $6, 1)
	ON CONFLICT (workspace_id, category_id, type, currency, day) DO UPDATE
		SET amount = daily_totals.amount + excluded.amount, count = daily_totals.count + 1`

// queueCreatedEffects feeds a new transaction to the read models it touches.
func queueCreatedEffects(b *pgx.Batch, ws uuid.UUID, t *commands.TransactionCreated, at time.Time) {
	which := effectsOf(t)
	if which.totals {
		b.Queue(totalsCreateSQL, ws, t.Date, t.Type, t.Currency, t.CategoryID, t.Amount)
		which.totals = false
	}
	queueRowEffects(b, ws, t.TransactionID, 1, at, which)
}

// queueRowEffects adds (sign 1) or takes away (sign -1) a transaction's contribution to
// the daily totals, its debt's pending balance and its goal's saved amount.
func queueRowEffects(b *pgx.Batch, ws, id uuid.UUID, sign int, at time.Time, which effects) {
	if which.totals {
		b.Queue(totalsEffectSQL, ws, id, sign)
	}
	if which.debt {
		b.Queue(debtEffectSQL, ws, id, sign, at)
	}
	if which.goal {
		b.Queue(goalEffectSQL, ws, id, sign, at)
		b.Queue(fundingEffectSQL, ws, id, sign)
	}
}

// queueMoney projects budgets, goals, debts and recurring payments.
func queueMoney(b *pgx.Batch, ws uuid.UUID, e eventstore.RecordedEvent, data any) error {
	at := e.RecordedAt
	switch d := data.(type) {
	case *commands.BudgetCreated:
		f := d.BudgetFields
		b.Queue(`INSERT INTO budgets (workspace_id, id, name, category_id, amount, currency, period, start_date, end_date,
				alert_threshold, tag_id, created_at, updated_at, created_version)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12, $13)`,
			ws, d.BudgetID, f.Name, f.CategoryID, f.Amount, f.Currency, f.Period, f.StartDate, f.EndDate, f.AlertThreshold, f.TagID, at, e.Version)
	case *commands.BudgetUpdated:
		f := d.After
		b.Queue(`UPDATE budgets SET name = $3, category_id = $4, amount = $5, currency = $6, period = $7, start_date = $8,
				end_date = $9, alert_threshold = $10, tag_id = $11, updated_at = $12
			WHERE workspace_id = $1 AND id = $2`,
			ws, d.BudgetID, f.Name, f.CategoryID, f.Amount, f.Currency, f.Period, f.StartDate, f.EndDate, f.AlertThreshold, f.TagID, at)
	case *commands.BudgetDeleted:
		b.Queue(`UPDATE budgets SET deleted = true, updated_at = $3 WHERE workspace_id = $1 AND id = $2`, ws, d.BudgetID, at)
	case *commands.GoalCreated:
		f := d.GoalFields
		b.Queue(`INSERT INTO goals (workspace_id, id, name, target_amount, currency, deadline, created_at, updated_at, created_version)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $7, $8)`, ws, d.GoalID, f.Name, f.TargetAmount, f.Currency, f.Deadline, at, e.Version)
	case *commands.GoalUpdated:
		f := d.After
		b.Queue(`UPDATE goals SET name = $3, target_amount = $4, currency = $5, deadline = $6, updated_at = $7
			WHERE workspace_id = $1 AND id = $2`, ws, d.GoalID, f.Name, f.TargetAmount, f.Currency, f.Deadline, at)
	case *commands.GoalDeleted:
		b.Queue(`UPDATE goals SET deleted = true, updated_at = $3 WHERE workspace_id = $1 AND id = $2`, ws, d.GoalID, at)
	case *commands.DebtCreated:
		f := d.DebtFields
		b.Queue(`INSERT INTO debts (workspace_id, id, name, creditor, total_amount, pending_balance, currency, due_date,
				created_at, updated_at, created_version)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9, $10)`,
			ws, d.DebtID, f.Name, f.Creditor, f.TotalAmount, f.PendingBalance, f.Currency, f.DueDate, at, e.Version)
	case *commands.DebtUpdated:
		f := d.After
		b.Queue(`UPDATE debts SET name = $3, creditor = $4, total_amount = $5, pending_balance = $6, currency = $7,
				due_date = $8, updated_at = $9
			WHERE workspace_id = $1 AND id = $2`,
			ws, d.DebtID, f.Name, f.Creditor, f.TotalAmount, f.PendingBalance, f.Currency, f.DueDate, at)
	case *commands.DebtDeleted:
		b.Queue(`UPDATE debts SET deleted = true, updated_at = $3 WHERE workspace_id = $1 AND id = $2`, ws, d.DebtID, at)
	case *commands.RecurringCreated:
		f := d.RecurringFields
		b.Queue(`INSERT INTO recurring_payments (workspace_id, id, name, amount, kind, periodicity, next_payment, anchor, active,
				wallet_id, category_id, created_at, updated_at, created_version)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12, $13)`,
			ws, d.RecurringID, f.Name, f.Amount, f.Kind, f.Periodicity, f.NextPayment, f.Anchor, f.Active, f.WalletID, f.CategoryID, at, e.Version)
	case *commands.RecurringUpdated:
		f := d.After
		b.Queue(`UPDATE recurring_payments SET name = $3, amount = $4, kind = $5, periodicity = $6, next_payment = $7,
				anchor = $8, active = $9, wallet_id = $10, category_id = $11, updated_at = $12
			WHERE workspace_id = $1 AND id = $2`,
			ws, d.RecurringID, f.Name, f.Amount, f.Kind, f.Periodicity, f.NextPayment, f.Anchor, f.Active, f.WalletID, f.CategoryID, at)
	case *commands.RecurringDeleted:
		b.Queue(`UPDATE recurring_payments SET deleted = true, updated_at = $3 WHERE workspace_id = $1 AND id = $2`, ws, d.RecurringID, at)
	case *commands.RecurringPaid:
		b.Queue(`UPDATE recurring_payments SET last_payment = greatest($3::date, $4::date), next_payment = $5, updated_at = $6
			WHERE workspace_id = $1 AND id = $2`, ws, d.RecurringID, d.PaidOn, d.DueDate, d.NextPayment, at)
	case *commands.ExchangeRatesSet:
		for _, r := range d.Rates {
			b.Queue(fx.UpsertSQL, ws, r.Base, r.Quote, d.Date, r.Rate, "manual", at)
		}
	default:
		return fmt.Errorf("projections: no projector for %s", e.Type)
	}
	return nil
}
