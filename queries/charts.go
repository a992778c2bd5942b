package queries

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/internal/fx"
)

// ChartBars is how many bars a chart of categories draws at most: with more
// categories, the smallest share the last bar, "Other", which names what it holds.
const ChartBars = 6

// ChartBar is one bar of a chart of expenses by category, in the chart's currency: a
// category (CategoryID nil for the uncategorized), or "Other" (Holds not empty: the
// smallest categories, each with its amount).
type ChartBar struct {
	CategoryID *uuid.UUID `json:"categoryId"`
	Name       string     `json:"name"`
	Amount     Amount     `json:"amount"`
	Holds      []ChartBar `json:"holds"`
}

// CurrencyAmount is an amount in one currency.
type CurrencyAmount struct {
	Currency string `json:"currency"`
	Amount   Amount `json:"amount"`
}

// ExpenseChart is a chart of expenses by category on one scale: every bar in Currency,
// largest first. What has no rate to Currency is not drawn: it is listed in
// Unconverted, per currency.
type ExpenseChart struct {
	Currency    string           `json:"currency"`
	Bars        []ChartBar       `json:"bars"`
	Unconverted []CurrencyAmount `json:"unconverted"`
}

// ExpensesChart charts the expenses of a report's categories in currency, each
// category's amounts converted where a rate exists (to the cent), at most ChartBars
// bars.
func ExpensesChart(categories []ReportCategory, currency string, rates Converter) ExpenseChart {
	c := ExpenseChart{Currency: currency, Bars: []ChartBar{}, Unconverted: []CurrencyAmount{}}
	type key struct {
		id   uuid.UUID
		name string
	}
	sums := map[key]*ChartBar{}
	left := map[string]decimal.Decimal{}
	for _, rc := range categories {
		e := decimal.Decimal(rc.Expenses)
		if !e.IsPositive() {
			continue
		}
		converted, err := rates.Convert(e, rc.Currency, currency)
		if err != nil { // no rate: listed beside the chart, never drawn on another scale
			left[rc.Currency] = left[rc.Currency].Add(e)
			continue
		}
		k := key{name: rc.Name}
		if rc.CategoryID != nil {
			k.id = *rc.CategoryID
		}
		if sums[k] == nil {
			sums[k] = &ChartBar{CategoryID: rc.CategoryID, Name: rc.Name, Amount: Amount(decimal.Zero), Holds: []ChartBar{}}
		}
		sums[k].Amount = Amount(decimal.Decimal(sums[k].Amount).Add(converted))
	}
	for _, b := range sums {
		b.Amount = Amount(decimal.Decimal(b.Amount).Round(2))
		c.Bars = append(c.Bars, *b)
	}
	sort.Slice(c.Bars, func(i, j int) bool {
		a, b := decimal.Decimal(c.Bars[i].Amount), decimal.Decimal(c.Bars[j].Amount)
		if n := a.Cmp(b); n != 0 {
			return n > 0
		}
		return c.Bars[i].Name < c.Bars[j].Name
	})
	if len(c.Bars) > ChartBars {
		other := ChartBar{Name: "Other", Holds: c.Bars[ChartBars-1:]}
		sum := decimal.Zero
		for _, b := range other.Holds {
			sum = sum.Add(decimal.Decimal(b.Amount))
		}
		other.Amount = Amount(sum)
		c.Bars = append(c.Bars[:ChartBars-1:ChartBars-1], other)
	}
	for cur, a := range left {
		c.Unconverted = append(c.Unconverted, CurrencyAmount{Currency: cur, Amount: Amount(a)})
	}
	sort.Slice(c.Unconverted, func(i, j int) bool { return c.Unconverted[i].Currency < c.Unconverted[j].Currency })
	return c
}

// MonthTotal is a month's income and expenses in one currency.
type MonthTotal struct {
	Month    string `json:"month"` // YYYY-MM
	Income   Amount `json:"income"`
	Expenses Amount `json:"expenses"`
}

// MonthSeries is the income and expenses of consecutive months, oldest first, in
// Currency where a rate exists; what has none is summed per currency in Unconverted
// and not drawn.
type MonthSeries struct {
	Currency    string        `json:"currency"`
	Months      []MonthTotal  `json:"months"`
	Unconverted []ReportTotal `json:"unconverted"`
}

// ReportSummary is GET /api/reports/summary: a range's totals per currency, its
// expenses by category as one chart, and the income and expenses of the twelve months
// ending with the range's last month.
type ReportSummary struct {
	From     domain.Date   `json:"from"`
	To       domain.Date   `json:"to"`
	Currency string        `json:"currency"`
	Totals   []ReportTotal `json:"totals"`
	// Converted and MissingRates are as a Report's; the caller fills both.
	Converted    *ReportTotal `json:"converted"`
	MissingRates []fx.Missing `json:"missingRates"`
	Expenses     ExpenseChart `json:"expenses"`
	Months       MonthSeries  `json:"months"`
}

// SeriesMonths is how many months a summary's series holds.
const SeriesMonths = 12

// ReportSummaryOf summarises [from, to] from the kept daily and monthly totals,
// without reading a transaction.
func ReportSummaryOf(ctx context.Context, db DB, workspaceID uuid.UUID, currency string, from, to domain.Date, rates Converter) (ReportSummary, error) {
	s := ReportSummary{From: from, To: to, Currency: currency, Totals: []ReportTotal{}}
	totals, err := Totals(ctx, db, workspaceID, from, to, nil)
	if err != nil {
		return s, err
	}
	perCurrency := map[string]*ReportTotal{}
	var categories []ReportCategory
	var ids []uuid.UUID
	for _, t := range totals {
		if t.Type != domain.TxIncome && t.Type != domain.TxExpense {
			continue
		}
		sum := perCurrency[t.Currency]
		if sum == nil {
			sum = &ReportTotal{Currency: t.Currency, Income: Amount(decimal.Zero), Expenses: Amount(decimal.Zero)}
			perCurrency[t.Currency] = sum
		}
		if t.Type == domain.TxIncome {
			sum.Income = Amount(decimal.Decimal(sum.Income).Add(t.Amount))
			continue
		}
		sum.Expenses = Amount(decimal.Decimal(sum.Expenses).Add(t.Amount))
		rc := ReportCategory{Name: "Uncategorized", Currency: t.Currency, Expenses: Amount(t.Amount)}
		if t.CategoryID != uuid.Nil {
			id := t.CategoryID
			rc.CategoryID = &id
			ids = append(ids, id)
		}
		categories = append(categories, rc)
	}
	for _, t := range perCurrency {
		t.Net = Amount(decimal.Decimal(t.Income).Sub(decimal.Decimal(t.Expenses)))
		s.Totals = append(s.Totals, *t)
	}
	sort.Slice(s.Totals, func(i, j int) bool { return s.Totals[i].Currency < s.Totals[j].Currency })
	names, err := categoryNames(ctx, db, workspaceID, ids)
	if err != nil {
		return s, err
	}
	for i, c := range categories {
		if c.CategoryID != nil {
			categories[i].Name = names[*c.CategoryID]
		}
	}
	s.Expenses = ExpensesChart(categories, currency, rates)
	s.Months, err = MonthSeriesOf(ctx, db, workspaceID, currency, to, SeriesMonths, rates)
	return s, err
}

// MonthSeriesOf is the income and expenses of the n months ending with last's, each
// whole, read in one query of the monthly totals.
func MonthSeriesOf(ctx context.Context, db DB, workspaceID uuid.UUID, currency string, last domain.Date, n int, rates Converter) (MonthSeries, error) {
	end := last.MonthStart()
	start := end.AddDate(0, 1-n, 0)
	s := MonthSeries{Currency: currency, Months: make([]MonthTotal, n), Unconverted: []ReportTotal{}}
	sums := make([][2]decimal.Decimal, n)
	for i := range s.Months {
		s.Months[i].Month = start.AddDate(0, i, 0).Time().Format("2006-01")
	}
	rows, err := db.Query(ctx, `SELECT month, type, currency, sum(amount) FROM monthly_totals
		WHERE workspace_id = $1 AND month BETWEEN $2 AND $3 AND type IN ('income', 'expense')
		GROUP BY month, type, currency`, workspaceID, start, end)
	if err != nil {
		return s, fmt.Errorf("queries: month series: %w", err)
	}
	left := map[string]*ReportTotal{}
	var month time.Time
	var kind domain.TransactionType
	var cur string
	var amount decimal.Decimal
	_, err = pgx.ForEachRow(rows, []any{&month, &kind, &cur, &amount}, func() error {
		side := 0
		if kind == domain.TxExpense {
			side = 1
		}
		converted, err := rates.Convert(amount, cur, currency)
		if err != nil { // no rate: summed apart, not drawn
			t := left[cur]
			if t == nil {
				t = &ReportTotal{Currency: cur, Income: Amount(decimal.Zero), Expenses: Amount(decimal.Zero)}
				left[cur] = t
			}
			if side == 0 {
				t.Income = Amount(decimal.Decimal(t.Income).Add(amount))
			} else {
				t.Expenses = Amount(decimal.Decimal(t.Expenses).Add(amount))
			}
			return nil
		}
		i := (month.Year()-start.Year())*12 + int(month.Month()) - int(start.Month())
		sums[i][side] = sums[i][side].Add(converted)
		return nil
	})
	if err != nil {
		return s, fmt.Errorf("queries: month series: %w", err)
	}
	for i := range s.Months {
		s.Months[i].Income, s.Months[i].Expenses = Amount(sums[i][0].Round(2)), Amount(sums[i][1].Round(2))
	}
	for _, t := range left {
		t.Net = Amount(decimal.Decimal(t.Income).Sub(decimal.Decimal(t.Expenses)))
		s.Unconverted = append(s.Unconverted, *t)
	}
	sort.Slice(s.Unconverted, func(i, j int) bool { return s.Unconverted[i].Currency < s.Unconverted[j].Currency })
	return s, nil
}
