package domain

import (
	"fmt"
	"slices"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
)

// A budget alert is a decision, made by the command whose transaction takes a budget to
// its alert threshold and appended with that transaction's event, so that it is in the
// history: audited, replayed, and told (webhooks, push, the chat channel) exactly as
// decided. The rules, the same as the budgets listing's spent and alertReached:
//   - A budget's spending in a period is what the live expenses of its category in its
//     currency, dated within the period, add up to (tags play no part); of a split
//     expense, what its parts of that category add up to.
//   - The period is the budget's period holding the transaction's date (not today's),
//     when that date lies within the budget's dates.
//   - A command alerts for a period whose spending its events raise to Percent of the
//     budget's amount at or above the threshold, unless the budget alerted in that
//     period before: once per budget and period. Spending that falls back below the
//     threshold (a correction, a deletion) and rises again does not alert again. A
//     command that lowers a period's spending, or leaves it as it was, alerts for none.
//   - The alert names the transaction whose event took the spending there.

// Percent is part of whole in percent, rounded to two decimals; 0 of 0 is 0, anything
// of 0 is 100.
func Percent(part, whole decimal.Decimal) decimal.Decimal {
	if whole.IsZero() {
		if part.IsZero() {
			return decimal.Zero
		}
		return hundred
	}
	return part.Mul(hundred).Div(whole).Round(2)
}

var hundred = decimal.NewFromInt(100)

// AlertReached reports whether a budget spent to percentage (Percent of its amount)
// has reached its alert threshold.
func AlertReached(percentage, threshold decimal.Decimal) bool { return !percentage.LessThan(threshold) }

// Spending is what live expenses add up to per category, currency and day:
// the write side's own daily totals, kept for budget alerts.
type Spending map[uuid.UUID]map[string]map[Date]decimal.Decimal

// add adds a transaction's amount (sign 1) to its day's spending or takes it away
// (sign -1), each part of a split one under its own category; only live expenses count,
// and only what has a category. A day whose spending comes back to zero is forgotten,
// so that the state holds only days with expenses.
func (s Spending) add(t *Transaction, sign int) {
	for _, line := range t.budgetLines() {
		amount := line.Amount
		if sign < 0 {
			amount = amount.Neg()
		}
		s.addLine(*line.CategoryID, t.Currency, t.Date, amount)
	}
}

func (s Spending) addLine(category uuid.UUID, currency string, day Date, amount decimal.Decimal) {
	byCurrency := s[category]
	if byCurrency == nil {
		byCurrency = map[string]map[Date]decimal.Decimal{}
		s[category] = byCurrency
	}
	days := byCurrency[currency]
	if days == nil {
		days = map[Date]decimal.Decimal{}
		byCurrency[currency] = days
	}
	total := days[day].Add(amount)
	if !total.IsZero() {
		days[day] = total
		return
	}
	delete(days, day)
	if len(days) == 0 {
		delete(byCurrency, currency)
		if len(byCurrency) == 0 {
			delete(s, category)
		}
	}
}

// between returns what a category's expenses in currency add up to from one day to
// another, both included: walking the period's days or the category's, whichever are
// fewer.
func (s Spending) between(category uuid.UUID, currency string, from, to Date) decimal.Decimal {
	days := s[category][currency]
	sum := decimal.Zero
	if span := to.Sub(from) + 1; len(days) < span {
		for day, total := range days {
			if !day.Before(from) && !day.After(to) {
				sum = sum.Add(total)
			}
		}
		return sum
	}
	for d := from; !d.After(to); d = d.AddDays(1) {
		sum = sum.Add(days[d])
	}
	return sum
}

// budgetLines are the shares of t that count towards budgets: those with a category
// of a live expense.
func (t *Transaction) budgetLines() []CategoryShare {
	if t.Deleted || t.Type != TxExpense {
		return nil
	}
	lines := CategoryShares(t.CategoryID, t.Amount, t.Splits)
	out := lines[:0:0]
	for _, line := range lines {
		if line.CategoryID != nil {
			out = append(out, line)
		}
	}
	return out
}

// budgetPeriod names one period of one budget by its first day.
type budgetPeriod struct {
	budget uuid.UUID
	start  Date
}

// alertDecision follows a command's events over the state, which they have not changed.
type alertDecision struct {
	w *Workspace
	// transactions holds those the events touched, as the events leave them.
	transactions map[uuid.UUID]*Transaction
	// spent holds each period the events touched, with its spending as they leave it,
	// and ends its last day.
	spent map[budgetPeriod]decimal.Decimal
	ends  map[budgetPeriod]Date
	// alerted holds the periods the command alerts in, or was decided with alerts for.
	alerted map[budgetPeriod]bool
}

// WithBudgetAlerts returns a command's events followed by the BudgetThresholdReached
// they cause (see the rules above), decided on the state before the events.
func (w *Workspace) WithBudgetAlerts(events []Event) ([]Event, error) {
	if len(w.Budgets) == 0 {
		return events, nil
	}
	d := alertDecision{w: w, transactions: map[uuid.UUID]*Transaction{}, spent: map[budgetPeriod]decimal.Decimal{},
		ends: map[budgetPeriod]Date{}, alerted: map[budgetPeriod]bool{}}
	for _, e := range events {
		// Alerts among the events were decided with them: not twice.
		if a, ok := e.(*BudgetThresholdReached); ok {
			d.alerted[budgetPeriod{a.BudgetID, a.PeriodStart}] = true
		}
	}
	var alerts []Event
	for _, stored := range events {
		for e := range Parts(stored) {
			var id uuid.UUID
			var before, after *Transaction
			switch e := e.(type) {
			case *TransactionCreated:
				id, after = e.TransactionID, transactionOf(e)
			case *TransactionUpdated:
				id = e.TransactionID
				if before = d.transaction(id); before == nil {
					return nil, fmt.Errorf("domain: budget alerts: update of unknown transaction %s", id)
				}
				next := *before
				next.applyChanges(e.Changes)
				after = &next
			case *TransactionDeleted:
				id = e.TransactionID
				if before = d.transaction(id); before == nil {
					return nil, fmt.Errorf("domain: budget alerts: deletion of unknown transaction %s", id)
				}
				gone := *before
				gone.Deleted = true
				after = &gone
			default:
				continue
			}
			d.transactions[id] = after
			raised := map[budgetPeriod]decimal.Decimal{}
			if before != nil {
				if err := d.move(before, -1, raised); err != nil {
					return nil, err
				}
			}
			if err := d.move(after, 1, raised); err != nil {
				return nil, err
			}
			alerts = append(alerts, d.reached(id, raised)...)
		}
	}
	if len(alerts) == 0 {
		return events, nil
	}
	// A new slice: the command's own may be given again, on a retry.
	return slices.Concat(events, alerts), nil
}

// transaction returns a transaction as the events so far leave it.
func (d *alertDecision) transaction(id uuid.UUID) *Transaction {
	if t, ok := d.transactions[id]; ok {
		return t
	}
	return d.w.Transactions[id]
}

// move adds a transaction's amount (sign 1) to the spending of each budget period it
// counts in, or takes it away (sign -1), and to what the event changes there (raised).
func (d *alertDecision) move(t *Transaction, sign int, raised map[budgetPeriod]decimal.Decimal) error {
	for _, line := range t.budgetLines() {
		amount := line.Amount
		if sign < 0 {
			amount = amount.Neg()
		}
		for id, b := range d.w.Budgets {
			if b.Deleted || b.CategoryID != *line.CategoryID || b.Currency != t.Currency {
				continue
			}
			from, to, ok, err := b.periodAt(t.Date)
			if err != nil {
				return fmt.Errorf("domain: budget alerts: budget %s: %w", id, err)
			}
			if !ok {
				continue
			}
			key := budgetPeriod{id, from}
			spent, seen := d.spent[key]
			if !seen {
				spent = d.w.Spending.between(b.CategoryID, b.Currency, from, to)
				d.ends[key] = to
			}
			d.spent[key] = spent.Add(amount)
			raised[key] = raised[key].Add(amount)
		}
	}
	return nil
}

// periodAt returns the bounds of the budget's period holding day, the last one cut
// at the budget's end date; ok is false outside the budget's dates.
func (b *Budget) periodAt(day Date) (from, to Date, ok bool, err error) {
	start, end := b.StartDate, b.EndDate
	if day.Before(start) || day.After(end) {
		return from, to, false, nil
	}
	from, to, ok = PeriodAt(b.Period, start, day)
	if to.After(end) {
		to = end
	}
	return from, to, ok, nil
}

// reached returns the alerts of the periods an event of transaction id raised to their
// budget's threshold, in the order of the budgets' ids.
func (d *alertDecision) reached(id uuid.UUID, raised map[budgetPeriod]decimal.Decimal) []Event {
	keys := make([]budgetPeriod, 0, len(raised))
	for key, change := range raised {
		if change.IsPositive() {
			keys = append(keys, key)
		}
	}
	slices.SortFunc(keys, func(a, b budgetPeriod) int { return slices.Compare(a.budget[:], b.budget[:]) })
	var out []Event
	for _, key := range keys {
		b := d.w.Budgets[key.budget]
		if b.Alerted[key.start] || d.alerted[key] {
			continue
		}
		spent := d.spent[key]
		percentage := Percent(spent, b.Amount)
		if !AlertReached(percentage, b.AlertThreshold) {
			continue
		}
		d.alerted[key] = true
		out = append(out, &BudgetThresholdReached{
			BudgetID: key.budget, TransactionID: id, PeriodStart: key.start, PeriodEnd: d.ends[key],
			Spent: spent, Percentage: percentage, Budget: b.BudgetFields,
		})
	}
	return out
}
