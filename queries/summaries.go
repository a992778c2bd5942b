package queries

import (
	"context"
	"fmt"
	"slices"
	"sort"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/internal/fx"
)

// Total is a sum of one type, currency and category over a range of days.
type Total struct {
	Type       domain.TransactionType
	Currency   string
	CategoryID uuid.UUID // uuid.Nil for uncategorized
	Amount     decimal.Decimal
}

// Totals sums the totals of a workspace over [from, to], optionally for one category,
// by type, currency and category: the monthly totals of the months wholly within the
// range and the daily totals of the days outside them.
func Totals(ctx context.Context, db DB, workspaceID uuid.UUID, from, to domain.Date, category *uuid.UUID) ([]Total, error) {
	s := splitByMonths(from, to)
	rows, err := db.Query(ctx, `SELECT type, currency, category_id, sum(amount) FROM (
			SELECT type, currency, category_id, amount, count FROM monthly_totals
			WHERE workspace_id = $1 AND month BETWEEN $2 AND $3 AND ($8::uuid IS NULL OR category_id = $8)
			UNION ALL
			SELECT type, currency, category_id, amount, count FROM daily_totals
			WHERE workspace_id = $1 AND (day BETWEEN $4 AND $5 OR day BETWEEN $6 AND $7) AND ($8::uuid IS NULL OR category_id = $8)
		) AS t
		GROUP BY type, currency, category_id
		HAVING sum(count) > 0
		ORDER BY type, currency, category_id`, ownPlan, workspaceID, s.firstMonth, s.lastMonth, s.headFrom, s.headTo, s.tailFrom,
		s.tailTo, category)
	if err != nil {
		return nil, fmt.Errorf("queries: totals: %w", err)
	}
	return all(rows, func(row pgx.CollectableRow) (Total, error) {
		var t Total
		err := row.Scan(&t.Type, &t.Currency, &t.CategoryID, &t.Amount)
		return t, err
	}, "totals")
}

// monthSplit is a range of days as the whole months within it (named by their first
// days, firstMonth to lastMonth) and the days before and after them ([headFrom,
// headTo] and [tailFrom, tailTo]). A part that is empty has its start after its end.
type monthSplit struct {
	firstMonth, lastMonth domain.Date
	headFrom, headTo      domain.Date
	tailFrom, tailTo      domain.Date
}

// splitByMonths splits [from, to] into the whole months within it and the days outside
// them.
func splitByMonths(from, to domain.Date) monthSplit {
	first := from.MonthStart()
	if first != from {
		first = first.AddDate(0, 1, 0)
	}
	end := to.MonthStart().AddDate(0, 1, 0) // the day after to's month
	if end.AddDays(-1) != to {
		end = end.AddDate(0, -1, 0)
	}
	if !first.Before(end) { // no month lies wholly within: the days are all the head
		after := to.AddDays(1)
		return monthSplit{firstMonth: after, lastMonth: from, headFrom: from, headTo: to, tailFrom: after, tailTo: to}
	}
	return monthSplit{firstMonth: first, lastMonth: end.AddDate(0, -1, 0), headFrom: from, headTo: first.AddDays(-1),
		tailFrom: end, tailTo: to}
}

// Converter converts an amount between currencies.
type Converter interface {
	Convert(amount decimal.Decimal, from, to string) (decimal.Decimal, error)
}

// CategoryTotal is what a category's expenses add up to in one currency.
type CategoryTotal struct {
	CategoryID uuid.UUID `json:"categoryId"`
	Name       string    `json:"name"`
	Currency   string    `json:"currency"`
	Total      Amount    `json:"total"`
}

// Comparison sets a month against the one before. Its amounts are null where a
// currency of either month has no rate in force.
type Comparison struct {
	PreviousIncome   *Amount `json:"previousIncome"`
	PreviousExpenses *Amount `json:"previousExpenses"`
	PercentageChange *Amount `json:"percentageChange"`
}

// MonthlySummary is spec 4.B rule 5's month summary. The totals in the workspace's
// currency are null where a currency has no rate in force; ByCurrency always gives the
// month's amounts per currency, and MissingRates (filled by the caller, which knows
// where rates come from) the conversions that could not be made.
type MonthlySummary struct {
	Month         string          `json:"month"`
	Currency      string          `json:"currency"`
	TotalIncome   *Amount         `json:"totalIncome"`
	TotalExpenses *Amount         `json:"totalExpenses"`
	ByCurrency    []ReportTotal   `json:"byCurrency"`
	TopCategories []CategoryTotal `json:"topCategories"`
	Comparison    Comparison      `json:"comparison"`
	MissingRates  []fx.Missing    `json:"missingRates"`
	// Currencies are those of both months, which the totals convert.
	Currencies []string `json:"-"`
}

// MonthlySummaryOf summarises a month: income and expenses per currency and, where
// every currency converts, in the workspace currency; the three biggest expense
// categories (uncategorized expenses left out, each in its own currency: the
// workspace's first, then the others alphabetically, biggest first within each), and
// the change of expenses against the month before.
func MonthlySummaryOf(ctx context.Context, db DB, workspaceID uuid.UUID, workspaceCurrency string, month domain.Date, rates Converter) (MonthlySummary, error) {
	first := month.MonthStart()
	last := first.AddDate(0, 1, -1)
	s := MonthlySummary{Month: first.Time().Format("2006-01"), Currency: workspaceCurrency, TopCategories: []CategoryTotal{}, MissingRates: []fx.Missing{}}
	current, err := Totals(ctx, db, workspaceID, first, last, nil)
	if err != nil {
		return s, err
	}
	previous, err := Totals(ctx, db, workspaceID, first.AddDate(0, -1, 0), first.AddDays(-1), nil)
	if err != nil {
		return s, err
	}
	s.ByCurrency = perCurrency(current)
	now, ok := ConvertTotals(s.ByCurrency, workspaceCurrency, rates)
	before, okBefore := ConvertTotals(perCurrency(previous), workspaceCurrency, rates)
	if ok {
		s.TotalIncome, s.TotalExpenses = &now.Income, &now.Expenses
	}
	if okBefore {
		s.Comparison = Comparison{PreviousIncome: &before.Income, PreviousExpenses: &before.Expenses}
	}
	if prev := decimal.Decimal(before.Expenses); ok && okBefore && !prev.IsZero() {
		change := Amount(decimal.Decimal(now.Expenses).Sub(prev).Mul(hundred).Div(prev).Round(2))
		s.Comparison.PercentageChange = &change
	}
	for _, t := range append(current, previous...) {
		if !slices.Contains(s.Currencies, t.Currency) {
			s.Currencies = append(s.Currencies, t.Currency)
		}
	}
	sort.Strings(s.Currencies)
	var categories []CategoryTotal
	var ids []uuid.UUID
	for _, t := range current {
		if t.Type == domain.TxExpense && t.CategoryID != uuid.Nil {
			categories = append(categories, CategoryTotal{CategoryID: t.CategoryID, Currency: t.Currency, Total: Amount(t.Amount)})
			ids = append(ids, t.CategoryID)
		}
	}
	sort.SliceStable(categories, func(i, j int) bool {
		a, b := categories[i], categories[j]
		if a.Currency != b.Currency {
			if a.Currency == workspaceCurrency || b.Currency == workspaceCurrency {
				return a.Currency == workspaceCurrency
			}
			return a.Currency < b.Currency
		}
		return decimal.Decimal(a.Total).GreaterThan(decimal.Decimal(b.Total))
	})
	if len(categories) > 3 {
		categories = categories[:3]
	}
	names, err := categoryNames(ctx, db, workspaceID, ids)
	if err != nil {
		return s, err
	}
	for i := range categories {
		categories[i].Name = names[categories[i].CategoryID]
	}
	s.TopCategories = append(s.TopCategories, categories...)
	return s, nil
}

// perCurrency sums income and expenses per currency, alphabetically.
func perCurrency(totals []Total) []ReportTotal {
	sums := map[string]*ReportTotal{}
	for _, t := range totals {
		if t.Type != domain.TxIncome && t.Type != domain.TxExpense {
			continue
		}
		c := sums[t.Currency]
		if c == nil {
			c = &ReportTotal{Currency: t.Currency}
			sums[t.Currency] = c
		}
		if t.Type == domain.TxIncome {
			c.Income = Amount(decimal.Decimal(c.Income).Add(t.Amount))
		} else {
			c.Expenses = Amount(decimal.Decimal(c.Expenses).Add(t.Amount))
		}
		c.Net = Amount(decimal.Decimal(c.Income).Sub(decimal.Decimal(c.Expenses)))
	}
	out := []ReportTotal{}
	for _, c := range sums {
		out = append(out, *c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Currency < out[j].Currency })
	return out
}

// ConvertTotals adds totals of several currencies in the target currency, to the
// cent; ok is false when some currency has no rate.
func ConvertTotals(totals []ReportTotal, target string, rates Converter) (sum ReportTotal, ok bool) {
	var income, expenses decimal.Decimal
	for _, t := range totals {
		in, err1 := rates.Convert(decimal.Decimal(t.Income), t.Currency, target)
		out, err2 := rates.Convert(decimal.Decimal(t.Expenses), t.Currency, target)
		if err1 != nil || err2 != nil {
			return ReportTotal{Currency: target}, false
		}
		income, expenses = income.Add(in), expenses.Add(out)
	}
	income, expenses = income.Round(2), expenses.Round(2)
	return ReportTotal{Currency: target, Income: Amount(income), Expenses: Amount(expenses), Net: Amount(income.Sub(expenses))}, true
}

func categoryNames(ctx context.Context, db DB, workspaceID uuid.UUID, ids []uuid.UUID) (map[uuid.UUID]string, error) {
	names := map[uuid.UUID]string{}
	if len(ids) == 0 {
		return names, nil
	}
	rows, err := db.Query(ctx, `SELECT id, name FROM categories WHERE workspace_id = $1 AND id = ANY($2)`, workspaceID, ids)
	if err != nil {
		return nil, fmt.Errorf("queries: category names: %w", err)
	}
	for rows.Next() {
		var id uuid.UUID
		var name string
		if err := rows.Scan(&id, &name); err != nil {
			return nil, fmt.Errorf("queries: category names: %w", err)
		}
		names[id] = name
	}
	return names, rows.Err()
}

// CurrencyTotal is a total in one currency, as text with two decimals.
type CurrencyTotal struct {
	Currency string `json:"currency"`
	Total    string `json:"total"`
}

// SpendingSummary is spec 4.B rule 4's total per currency over a period.
type SpendingSummary struct {
	Period string                 `json:"period"`
	From   domain.Date            `json:"from"`
	To     domain.Date            `json:"to"`
	Type   domain.TransactionType `json:"type"`
	Totals []CurrencyTotal        `json:"totals"`
}

// SpendingSummaryOf sums a type of movement over [from, to] per currency.
func SpendingSummaryOf(ctx context.Context, db DB, workspaceID uuid.UUID, period string, from, to domain.Date, kind domain.TransactionType, category *uuid.UUID) (SpendingSummary, error) {
	s := SpendingSummary{Period: period, From: from, To: to, Type: kind, Totals: []CurrencyTotal{}}
	totals, err := Totals(ctx, db, workspaceID, from, to, category)
	if err != nil {
		return s, err
	}
	sums := map[string]decimal.Decimal{}
	var currencies []string
	for _, t := range totals {
		if t.Type != kind {
			continue
		}
		if _, ok := sums[t.Currency]; !ok {
			currencies = append(currencies, t.Currency)
		}
		sums[t.Currency] = sums[t.Currency].Add(t.Amount)
	}
	sort.Strings(currencies)
	for _, c := range currencies {
		s.Totals = append(s.Totals, CurrencyTotal{Currency: c, Total: sums[c].StringFixed(2)})
	}
	return s, nil
}
