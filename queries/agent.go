package queries

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/shopspring/decimal"

	"github.com/finledger/finledger/domain"
)

// RecentStats sums the last days of movements per currency.
type RecentStats struct {
	From   domain.Date   `json:"from"`
	To     domain.Date   `json:"to"`
	Days   int           `json:"days"`
	Count  int64         `json:"count"`
	Totals []ReportTotal `json:"totals"`
}

// AgentContext is what a conversational agent reads once at the start of a chat.
type AgentContext struct {
	Workspace   Workspace   `json:"workspace"`
	Currency    Currencies  `json:"currency"`
	Wallets     []Wallet    `json:"wallets"`
	Categories  []Category  `json:"categories"`
	Goals       []Goal      `json:"goals"`
	Budgets     []Budget    `json:"budgets"`
	RecentStats RecentStats `json:"recentStats"`
	GeneratedAt time.Time   `json:"generatedAt"`
}

// Currencies are the currency settings: the workspace's and those its wallets hold.
type Currencies struct {
	Workspace string   `json:"workspace"`
	Wallets   []string `json:"wallets"`
}

// recentDays is the window of the recent statistics.
const recentDays = 30

// BuildAgentContext gathers wallets, categories, active goals, active budgets with
// their spending, the last 30 days' totals and the currency settings.
func BuildAgentContext(ctx context.Context, db DB, ws Workspace, today domain.Date, now time.Time) (AgentContext, error) {
	c := AgentContext{Workspace: ws, GeneratedAt: now, Goals: []Goal{}, Budgets: []Budget{}}
	var err error
	if c.Wallets, err = Wallets(ctx, db, ws.ID); err != nil {
		return c, err
	}
	if c.Categories, err = Categories(ctx, db, ws.ID); err != nil {
		return c, err
	}
	goals, err := Goals(ctx, db, ws.ID)
	if err != nil {
		return c, err
	}
	for _, g := range goals {
		if !g.Completed {
			c.Goals = append(c.Goals, g)
		}
	}
	budgets, err := Budgets(ctx, db, ws.ID, today)
	if err != nil {
		return c, err
	}
	for _, b := range budgets {
		if b.Active {
			c.Budgets = append(c.Budgets, b)
		}
	}
	from := today.AddDays(-(recentDays - 1))
	totals, err := Totals(ctx, db, ws.ID, from, today, nil)
	if err != nil {
		return c, err
	}
	c.RecentStats = RecentStats{From: from, To: today, Days: recentDays, Totals: []ReportTotal{}}
	// Counted apart from the totals, which count a split transaction under each of its
	// parts' categories.
	if err := db.QueryRow(ctx, `SELECT count(*) FROM transactions WHERE workspace_id = $1 AND deleted_at IS NULL
		AND type IN ('income', 'expense') AND date BETWEEN $2 AND $3`, ownPlan, ws.ID, from, today).Scan(&c.RecentStats.Count); err != nil {
		return c, fmt.Errorf("queries: recent transactions: %w", err)
	}
	sums := map[string]*[2]decimal.Decimal{}
	for _, t := range totals {
		if sums[t.Currency] == nil {
			sums[t.Currency] = &[2]decimal.Decimal{}
		}
		if t.Type == domain.TxIncome {
			sums[t.Currency][0] = sums[t.Currency][0].Add(t.Amount)
		} else {
			sums[t.Currency][1] = sums[t.Currency][1].Add(t.Amount)
		}
	}
	for currency, s := range sums {
		c.RecentStats.Totals = append(c.RecentStats.Totals, ReportTotal{Currency: currency, Income: Amount(s[0]), Expenses: Amount(s[1]), Net: Amount(s[0].Sub(s[1]))})
	}
	sort.Slice(c.RecentStats.Totals, func(i, j int) bool { return c.RecentStats.Totals[i].Currency < c.RecentStats.Totals[j].Currency })
	c.Currency = Currencies{Workspace: ws.Currency, Wallets: []string{}}
	seen := map[string]bool{}
	for _, w := range c.Wallets {
		if !seen[w.Currency] {
			seen[w.Currency] = true
			c.Currency.Wallets = append(c.Currency.Wallets, w.Currency)
		}
	}
	sort.Strings(c.Currency.Wallets)
	return c, nil
}
