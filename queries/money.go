package queries

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/finledger/finledger/domain"
)

var hundred = decimal.NewFromInt(100)

// percentOf is part of whole in percent with two decimals (domain.Percent).
func percentOf(part, whole decimal.Decimal) Amount { return Amount(domain.Percent(part, whole)) }

// BudgetRecord is a budget's own fields: what only its own changes change.
type BudgetRecord struct {
	ID             uuid.UUID   `json:"id"`
	Name           string      `json:"name"`
	CategoryID     uuid.UUID   `json:"categoryId"`
	Amount         Amount      `json:"amount"`
	Currency       string      `json:"currency"`
	Period         string      `json:"period"`
	StartDate      domain.Date `json:"startDate"`
	EndDate        domain.Date `json:"endDate"`
	AlertThreshold Amount      `json:"alertThreshold"`
	TagID          *uuid.UUID  `json:"tagId"`
	CreatedAt      time.Time   `json:"createdAt"`
	UpdatedAt      time.Time   `json:"updatedAt"`

	amount, threshold decimal.Decimal
}

// Budget is a budget with its current period's spending.
type Budget struct {
	BudgetRecord
	Active       bool        `json:"active"`
	PeriodStart  domain.Date `json:"periodStart"`
	PeriodEnd    domain.Date `json:"periodEnd"`
	Spent        Amount      `json:"spent"`
	Remaining    Amount      `json:"remaining"`
	Percentage   Amount      `json:"percentage"`
	AlertReached bool        `json:"alertReached"`
}

const budgetColumns = `id, name, category_id, amount, currency, period, start_date, end_date, alert_threshold, tag_id,
	created_at, updated_at`

func scanBudgetRecord(row pgx.CollectableRow) (BudgetRecord, error) {
	var b BudgetRecord
	err := row.Scan(&b.ID, &b.Name, &b.CategoryID, &b.amount, &b.Currency, &b.Period, &b.StartDate, &b.EndDate, &b.threshold, &b.TagID,
		&b.CreatedAt, &b.UpdatedAt)
	b.Amount, b.AlertThreshold = Amount(b.amount), Amount(b.threshold)
	return b, err
}

func scanBudget(row pgx.CollectableRow) (Budget, error) {
	r, err := scanBudgetRecord(row)
	return Budget{BudgetRecord: r}, err
}

// Budgets lists a workspace's budgets with the spending of the period containing today
// (or, outside the budget's dates, of its first or last period).
func Budgets(ctx context.Context, db DB, workspaceID uuid.UUID, today domain.Date) ([]Budget, error) {
	rows, err := db.Query(ctx, `SELECT `+budgetColumns+` FROM budgets WHERE workspace_id = $1 AND NOT deleted
		ORDER BY created_version`, workspaceID)
	if err != nil {
		return nil, fmt.Errorf("queries: budgets: %w", err)
	}
	budgets, err := all(rows, scanBudget, "budgets")
	if err != nil || len(budgets) == 0 {
		return budgets, err
	}
	return withSpending(ctx, db, workspaceID, budgets, today)
}

// BudgetByID returns one budget with its spending.
func BudgetByID(ctx context.Context, db DB, workspaceID, id uuid.UUID, today domain.Date) (Budget, error) {
	rows, err := db.Query(ctx, `SELECT `+budgetColumns+` FROM budgets WHERE workspace_id = $1 AND id = $2 AND NOT deleted`, workspaceID, id)
	if err != nil {
		return Budget{}, fmt.Errorf("queries: budget: %w", err)
	}
	b, err := one(rows, scanBudget, "budget")
	if err != nil {
		return b, err
	}
	list, err := withSpending(ctx, db, workspaceID, []Budget{b}, today)
	if err != nil {
		return Budget{}, err
	}
	return list[0], nil
}

// withSpending fills in each budget's period and what its category's expenses in the
// budget's currency add up to in it, from the daily totals, in one query.
func withSpending(ctx context.Context, db DB, workspaceID uuid.UUID, budgets []Budget, today domain.Date) ([]Budget, error) {
	ids := make([]uuid.UUID, len(budgets))
	categories := make([]uuid.UUID, len(budgets))
	currencies := make([]string, len(budgets))
	froms := make([]time.Time, len(budgets))
	tos := make([]time.Time, len(budgets))
	for i := range budgets {
		b := &budgets[i]
		start, end := b.StartDate, b.EndDate
		day := today
		switch {
		case day.Before(start):
			day = start
		case day.After(end):
			day = end
		}
		from, to, _ := domain.PeriodAt(b.Period, start, day)
		if to.After(end) {
			to = end
		}
		b.Active = !today.Before(start) && !today.After(end)
		b.PeriodStart, b.PeriodEnd = from, to
		ids[i], categories[i], currencies[i], froms[i], tos[i] = b.ID, b.CategoryID, b.Currency, from.Time(), to.Time()
	}
	// Each budget's sum is its own subquery, so that its conditions reach the totals' key
	// even where daily_totals is a view that looks up each total's history (AsOf).
	rows, err := db.Query(ctx, `SELECT b.id, s.spent
		FROM unnest($2::uuid[], $3::uuid[], $4::text[], $5::date[], $6::date[]) AS b(id, category_id, currency, from_day, to_day)
		CROSS JOIN LATERAL (SELECT coalesce(sum(t.amount), 0) AS spent FROM daily_totals t
			WHERE t.workspace_id = $1 AND t.category_id = b.category_id AND t.type = 'expense'
				AND t.currency = b.currency AND t.day BETWEEN b.from_day AND b.to_day) s`,
		ownPlan, workspaceID, ids, categories, currencies, froms, tos)
	if err != nil {
		return nil, fmt.Errorf("queries: budget spending: %w", err)
	}
	spent := map[uuid.UUID]decimal.Decimal{}
	for rows.Next() {
		var id uuid.UUID
		var sum decimal.Decimal
		if err := rows.Scan(&id, &sum); err != nil {
			return nil, fmt.Errorf("queries: budget spending: %w", err)
		}
		spent[id] = sum
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("queries: budget spending: %w", err)
	}
	for i := range budgets {
		b := &budgets[i]
		s := spent[b.ID]
		b.Spent, b.Remaining, b.Percentage = Amount(s), Amount(b.amount.Sub(s)), percentOf(s, b.amount)
		// The rule the write side's budget alerts follow (domain.AlertReached).
		b.AlertReached = domain.AlertReached(decimal.Decimal(b.Percentage), b.threshold)
	}
	return budgets, nil
}

// Goal is a savings goal with its progress.
type Goal struct {
	ID           uuid.UUID    `json:"id"`
	Name         string       `json:"name"`
	TargetAmount Amount       `json:"targetAmount"`
	Currency     string       `json:"currency"`
	Deadline     *domain.Date `json:"deadline"`
	SavedAmount  Amount       `json:"savedAmount"`
	Progress     Amount       `json:"progress"`
	Completed    bool         `json:"completed"`
	CreatedAt    time.Time    `json:"createdAt"`
	UpdatedAt    time.Time    `json:"updatedAt"`
}

const goalSelect = `SELECT id, name, target_amount, currency, deadline, saved_amount, created_at, updated_at FROM goals`

func scanGoal(row pgx.CollectableRow) (Goal, error) {
	var g Goal
	var target, saved decimal.Decimal
	err := row.Scan(&g.ID, &g.Name, &target, &g.Currency, &g.Deadline, &saved, &g.CreatedAt, &g.UpdatedAt)
	g.TargetAmount, g.SavedAmount, g.Progress = Amount(target), Amount(saved), percentOf(saved, target)
	g.Completed = saved.GreaterThanOrEqual(target)
	return g, err
}

// Goals lists a workspace's goals, oldest first.
func Goals(ctx context.Context, db DB, workspaceID uuid.UUID) ([]Goal, error) {
	rows, err := db.Query(ctx, goalSelect+` WHERE workspace_id = $1 AND NOT deleted ORDER BY created_version`, workspaceID)
	if err != nil {
		return nil, fmt.Errorf("queries: goals: %w", err)
	}
	return all(rows, scanGoal, "goals")
}

// GoalByID looks up one goal.
func GoalByID(workspaceID, id uuid.UUID) Lookup[Goal] {
	return Lookup[Goal]{"goal", goalSelect + ` WHERE workspace_id = $1 AND id = $2 AND NOT deleted`, []any{workspaceID, id}, scanGoal}
}

// Debt is a debt with what is left to pay.
type Debt struct {
	ID             uuid.UUID    `json:"id"`
	Name           string       `json:"name"`
	Creditor       *string      `json:"creditor"`
	TotalAmount    Amount       `json:"totalAmount"`
	PendingBalance Amount       `json:"pendingBalance"`
	PaidAmount     Amount       `json:"paidAmount"`
	Currency       string       `json:"currency"`
	DueDate        *domain.Date `json:"dueDate"`
	CreatedAt      time.Time    `json:"createdAt"`
	UpdatedAt      time.Time    `json:"updatedAt"`
}

const debtSelect = `SELECT id, name, creditor, total_amount, pending_balance, currency, due_date, created_at, updated_at FROM debts`

func scanDebt(row pgx.CollectableRow) (Debt, error) {
	var d Debt
	var total, pending decimal.Decimal
	err := row.Scan(&d.ID, &d.Name, &d.Creditor, &total, &pending, &d.Currency, &d.DueDate, &d.CreatedAt, &d.UpdatedAt)
	d.TotalAmount, d.PendingBalance, d.PaidAmount = Amount(total), Amount(pending), Amount(total.Sub(pending))
	return d, err
}

// Debts lists a workspace's debts, oldest first.
func Debts(ctx context.Context, db DB, workspaceID uuid.UUID) ([]Debt, error) {
	rows, err := db.Query(ctx, debtSelect+` WHERE workspace_id = $1 AND NOT deleted ORDER BY created_version`, workspaceID)
	if err != nil {
		return nil, fmt.Errorf("queries: debts: %w", err)
	}
	return all(rows, scanDebt, "debts")
}

// DebtByID looks up one debt.
func DebtByID(workspaceID, id uuid.UUID) Lookup[Debt] {
	return Lookup[Debt]{"debt", debtSelect + ` WHERE workspace_id = $1 AND id = $2 AND NOT deleted`, []any{workspaceID, id}, scanDebt}
}

// Recurring is a recurring payment.
type Recurring struct {
	ID          uuid.UUID            `json:"id"`
	Name        string               `json:"name"`
	Amount      Amount               `json:"amount"`
	Kind        domain.RecurringKind `json:"kind"`
	Periodicity string               `json:"periodicity"`
	NextPayment domain.Date          `json:"nextPayment"`
	LastPayment *domain.Date         `json:"lastPayment"`
	Active      bool                 `json:"active"`
	WalletID    *uuid.UUID           `json:"walletId"`
	CategoryID  *uuid.UUID           `json:"categoryId"`
	// LastSkip is the latest skip of cycles owed beyond domain.MaxOwedCycles; nil
	// when the item never skipped any.
	LastSkip  *RecurringSkip `json:"lastSkip"`
	CreatedAt time.Time      `json:"createdAt"`
	UpdatedAt time.Time      `json:"updatedAt"`
}

// RecurringSkip is a run of a recurring payment's cycles left unpaid: Cycles cycles due
// from FirstDue to LastDue.
type RecurringSkip struct {
	Cycles   int         `json:"cycles"`
	FirstDue domain.Date `json:"firstDue"`
	LastDue  domain.Date `json:"lastDue"`
}

const recurringSelect = `SELECT id, name, amount, kind, periodicity, next_payment, last_payment, active, wallet_id, category_id,
	last_skip_cycles, last_skip_first_due, last_skip_last_due, created_at, updated_at FROM recurring_payments`

func scanRecurring(row pgx.CollectableRow) (Recurring, error) {
	var r Recurring
	var amount decimal.Decimal
	var skipFirst, skipLast domain.Date
	var skipped *int
	err := row.Scan(&r.ID, &r.Name, &amount, &r.Kind, &r.Periodicity, &r.NextPayment, &r.LastPayment, &r.Active, &r.WalletID, &r.CategoryID,
		&skipped, &skipFirst, &skipLast, &r.CreatedAt, &r.UpdatedAt)
	r.Amount = Amount(amount)
	if skipped != nil && !skipFirst.IsZero() && !skipLast.IsZero() {
		r.LastSkip = &RecurringSkip{Cycles: *skipped, FirstDue: skipFirst, LastDue: skipLast}
	}
	return r, err
}

// RecurringPayments lists a workspace's recurring payments, soonest due first.
func RecurringPayments(ctx context.Context, db DB, workspaceID uuid.UUID) ([]Recurring, error) {
	rows, err := db.Query(ctx, recurringSelect+` WHERE workspace_id = $1 AND NOT deleted ORDER BY next_payment, created_version`, workspaceID)
	if err != nil {
		return nil, fmt.Errorf("queries: recurring payments: %w", err)
	}
	return all(rows, scanRecurring, "recurring payments")
}

// RecurringByID looks up one recurring payment.
func RecurringByID(workspaceID, id uuid.UUID) Lookup[Recurring] {
	return Lookup[Recurring]{"recurring payment", recurringSelect + ` WHERE workspace_id = $1 AND id = $2 AND NOT deleted`,
		[]any{workspaceID, id}, scanRecurring}
}

// DueRecurring is a recurring payment the scheduler should pay.
type DueRecurring struct {
	WorkspaceID uuid.UUID
	ID          uuid.UUID
	NextPayment domain.Date
}

// DueRecurringPayments lists, across workspaces, the active income and expense items
// due on or before day: at most perWorkspace of each workspace's, its soonest due, in
// turns (every workspace's first item, then every workspace's second, and so on), so
// that a workspace with many items due comes no earlier than another with one. A
// background job's scan, not a request's.
func DueRecurringPayments(ctx context.Context, db DB, day domain.Date, perWorkspace int) ([]DueRecurring, error) {
	rows, err := db.Query(ctx, `SELECT workspace_id, id, next_payment FROM (
			SELECT r.workspace_id, r.id, r.next_payment,
				row_number() OVER (PARTITION BY r.workspace_id ORDER BY r.next_payment, r.id) AS turn
			FROM recurring_payments r JOIN workspaces w ON w.id = r.workspace_id AND w.deleted_at IS NULL
			WHERE r.active AND NOT r.deleted AND r.kind IN ('income', 'expense') AND r.next_payment <= $1) due
		WHERE turn <= $2
		ORDER BY turn, next_payment, workspace_id, id`, day, perWorkspace)
	if err != nil {
		return nil, fmt.Errorf("queries: due recurring payments: %w", err)
	}
	return all(rows, func(row pgx.CollectableRow) (DueRecurring, error) {
		var d DueRecurring
		err := row.Scan(&d.WorkspaceID, &d.ID, &d.NextPayment)
		return d, err
	}, "due recurring payments")
}
