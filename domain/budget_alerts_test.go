package domain

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/uuid"
)

// A budget alert is decided with the events of the command that takes a budget to its
// threshold: given these events, when these commands run one after another (each
// through the Ledger's decision, WithBudgetAlerts included), then these alerts.
func TestBudgetAlerts(t *testing.T) {
	groceries, trips := uuid.MustParse("00000000-0000-0000-0000-0000000000b1"), uuid.MustParse("00000000-0000-0000-0000-0000000000b2")
	tx := func(n int) uuid.UUID { return uuid.MustParse(fmt.Sprintf("00000000-0000-0000-00aa-%012d", n)) }
	budget := func(id uuid.UUID, name string, category uuid.UUID, amount, threshold, start, end string) *BudgetCreated {
		return &BudgetCreated{BudgetID: id, BudgetFields: BudgetFields{Name: name, CategoryID: category, Amount: dec(amount), Currency: "MXN",
			Period: PeriodMonthly, StartDate: MustParseDate(start), EndDate: MustParseDate(end), AlertThreshold: dec(threshold)}}
	}
	food100 := budget(groceries, "Groceries", food, "100", "80", "2026-01-01", "2026-12-31")
	spend := func(n int, amount, date string, category uuid.UUID) func(*Workspace) ([]Event, error) {
		return CreateTransaction{TransactionID: tx(n), Type: TxExpense, Amount: dec(amount), Date: MustParseDate(date), CategoryID: &category}.Decide
	}
	type step struct {
		decide func(*Workspace) ([]Event, error)
		want   string // the alerts, "budget start..end spent (percentage%) by transaction"; "" for none
	}
	cases := []struct {
		name  string
		given []Event
		steps []step
	}{
		{"the threshold is reached once in a period", []Event{food100}, []step{
			{spend(1, "50", "2026-03-02", food), ""},
			{spend(2, "35", "2026-03-09", food), "Groceries 2026-03-01..2026-03-31 spent 85 (85%) by tx2"},
			{spend(3, "10", "2026-03-10", food), ""},
			{spend(4, "100", "2026-03-31", food), ""},
		}},
		{"exactly the threshold alerts", []Event{food100}, []step{
			{spend(1, "80", "2026-03-02", food), "Groceries 2026-03-01..2026-03-31 spent 80 (80%) by tx1"},
		}},
		{"the next period alerts again", []Event{food100}, []step{
			{spend(1, "90", "2026-03-02", food), "Groceries 2026-03-01..2026-03-31 spent 90 (90%) by tx1"},
			{spend(2, "90", "2026-04-02", food), "Groceries 2026-04-01..2026-04-30 spent 90 (90%) by tx2"},
			// An earlier period that never alerted alerts when an expense dated in it reaches the threshold.
			{spend(3, "81", "2026-02-27", food), "Groceries 2026-02-01..2026-02-28 spent 81 (81%) by tx3"},
		}},
		{"a correction of the amount that takes spending over alerts", []Event{food100}, []step{
			{spend(1, "50", "2026-03-02", food), ""},
			{UpdateTransaction{TransactionID: tx(1), Amount: Of(dec("79.99"))}.Decide, ""},
			{UpdateTransaction{TransactionID: tx(1), Amount: Of(dec("85"))}.Decide, "Groceries 2026-03-01..2026-03-31 spent 85 (85%) by tx1"},
		}},
		{"a correction of the date into a period alerts there", []Event{food100}, []step{
			{spend(1, "50", "2026-03-02", food), ""},
			{spend(2, "40", "2026-02-10", food), ""},
			{UpdateTransaction{TransactionID: tx(2), Date: Of(MustParseDate("2026-03-05"))}.Decide, "Groceries 2026-03-01..2026-03-31 spent 90 (90%) by tx2"},
		}},
		{"a correction of the category into a budget's alerts", []Event{food100}, []step{
			{spend(1, "90", "2026-03-02", travel), ""},
			{UpdateTransaction{TransactionID: tx(1), CategoryID: Of(food)}.Decide, "Groceries 2026-03-01..2026-03-31 spent 90 (90%) by tx1"},
		}},
		{"a history stored without alerts: a correction that lowers spending alerts for none, the next expense does", []Event{food100,
			&TransactionCreated{TransactionID: tx(1), Type: TxExpense, Amount: dec("90"), Currency: "MXN", Date: MustParseDate("2026-03-02"), WalletID: cash, CategoryID: idp(food)},
		}, []step{
			{UpdateTransaction{TransactionID: tx(1), Amount: Of(dec("85"))}.Decide, ""},
			{UpdateTransaction{TransactionID: tx(1), Concept: Of("groceries")}.Decide, ""},
			{spend(2, "1", "2026-03-03", food), "Groceries 2026-03-01..2026-03-31 spent 86 (86%) by tx2"},
		}},
		{"after a deletion below the threshold, a new expense does not alert again", []Event{food100}, []step{
			{spend(1, "85", "2026-03-02", food), "Groceries 2026-03-01..2026-03-31 spent 85 (85%) by tx1"},
			{DeleteTransaction{TransactionID: tx(1)}.Decide, ""},
			{spend(2, "85", "2026-03-03", food), ""},
			{UpdateTransaction{TransactionID: tx(2), Amount: Of(dec("10"))}.Decide, ""},
			{UpdateTransaction{TransactionID: tx(2), Amount: Of(dec("95"))}.Decide, ""},
		}},
		{"a bulk recategorization alerts once, naming the transaction that reached the threshold", []Event{food100}, []step{
			{spend(1, "50", "2026-03-02", travel), ""},
			{spend(2, "40", "2026-03-03", travel), ""},
			{spend(3, "40", "2026-03-04", travel), ""},
			{BulkTransactions{IDs: []uuid.UUID{tx(1), tx(2), tx(3)}, Operation: BulkRecategorize, CategoryID: idp(food)}.Decide,
				"Groceries 2026-03-01..2026-03-31 spent 90 (90%) by tx2"},
		}},
		{"one expense alerts every budget of its category it takes to the threshold", []Event{food100,
			// Its last period is cut at its end date.
			budget(trips, "Short", food, "50", "100", "2026-03-02", "2026-03-20"),
		}, []step{
			{spend(1, "80", "2026-03-18", food), "Groceries 2026-03-01..2026-03-31 spent 80 (80%) by tx1; Short 2026-03-02..2026-03-20 spent 80 (160%) by tx1"},
		}},
		{"what does not count alerts for nothing", []Event{food100,
			budget(trips, "Gone", travel, "1", "1", "2026-01-01", "2026-12-31"), &BudgetDeleted{BudgetID: trips},
		}, []step{
			{CreateTransaction{TransactionID: tx(1), Type: TxIncome, Amount: dec("500"), Date: MustParseDate("2026-03-02"), CategoryID: idp(food)}.Decide, ""},
			{CreateTransaction{TransactionID: tx(2), Type: TxExpense, Amount: dec("500"), Date: MustParseDate("2026-03-02"), WalletID: idp(usd), CategoryID: idp(food)}.Decide, ""},
			{CreateTransaction{TransactionID: tx(3), Type: TxExpense, Amount: dec("500"), Date: MustParseDate("2026-03-02")}.Decide, ""},
			{CreateTransaction{TransactionID: tx(4), Type: TxTransfer, Amount: dec("500"), Date: MustParseDate("2026-03-02"), ToWalletID: idp(bank), CategoryID: idp(food)}.Decide, ""},
			{spend(5, "500", "2025-12-31", food), ""},
			{spend(6, "500", "2027-01-01", food), ""},
			{spend(7, "500", "2026-03-02", travel), ""},
		}},
		{"a payment of a debt is an expense like any other", []Event{food100,
			&DebtCreated{DebtID: trips, DebtFields: DebtFields{Name: "Car", TotalAmount: dec("1000"), PendingBalance: dec("1000"), Currency: "MXN"}},
		}, []step{
			{PayDebt{DebtID: trips, TransactionID: tx(1), Amount: dec("90"), Date: MustParseDate("2026-03-02")}.Decide, ""},
			{UpdateTransaction{TransactionID: tx(1), CategoryID: Of(food)}.Decide, "Groceries 2026-03-01..2026-03-31 spent 90 (90%) by tx1"},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := given(t, append(workspace(), c.given...)...)
			for i, s := range c.steps {
				events, err := s.decide(w)
				if err == nil {
					events, err = w.WithBudgetAlerts(events)
				}
				if err != nil {
					t.Fatalf("step %d: %v", i+1, err)
				}
				var got []string
				for _, e := range events {
					a, ok := e.(*BudgetThresholdReached)
					if !ok {
						continue
					}
					got = append(got, fmt.Sprintf("%s %s..%s spent %s (%s%%) by tx%s", a.Budget.Name, a.PeriodStart, a.PeriodEnd,
						a.Spent, a.Percentage, strings.TrimLeft(a.TransactionID.String()[24:], "0")))
					if a.BudgetID == groceries && (a.Budget.Amount.String() != "100" || a.Budget.AlertThreshold.String() != "80") {
						t.Errorf("step %d: the alert carries the budget %+v", i+1, a.Budget)
					}
				}
				if strings.Join(got, "; ") != s.want {
					t.Fatalf("step %d: alerts %q, want %q", i+1, strings.Join(got, "; "), s.want)
				}
				if len(got) > 0 && events[len(events)-len(got)].EventType() != TypeBudgetThresholdReached {
					t.Fatalf("step %d: the alerts do not follow the command's events", i+1)
				}
				// Events decided with their alerts get none twice.
				if again, err := w.WithBudgetAlerts(events); err != nil || len(again) != len(events) {
					t.Fatalf("step %d: %d events decided again into %d (%v)", i+1, len(events), len(again), err)
				}
				then(t, w, events)
			}
		})
	}
}
