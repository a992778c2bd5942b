package webhooks

import (
	"fmt"
	"testing"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/finledger/finledger/commands"
)

// storedSample is a stored event as the log holds it.
type storedSample struct {
	name string // the sample's name in testdata/payloads.golden.json
	typ  string
	data []byte
}

// storedSamples are fixed stored events of every type told to subscribers: one with
// every field set (decimals with trailing zeros, as commands store them), and one of
// the type's zero value, whose fields are null, empty or absent.
func storedSamples(t *testing.T) []storedSample {
	t.Helper()
	id := func(n int) uuid.UUID { return uuid.MustParse(fmt.Sprintf("0195f3a2-0000-7000-8000-%012d", n)) }
	idp := func(n int) *uuid.UUID { v := id(n); return &v }
	str := func(s string) *string { return &s }
	dec := func(s string) decimal.Decimal { return decimal.RequireFromString(s) }
	decp := func(s string) *decimal.Decimal { v := dec(s); return &v }
	wallet := commands.WalletFields{Name: "Cash", Description: str("pocket"), Type: "cash", Currency: "MXN", CardColor: "#111827",
		InitialBalance: dec("100.50"), Clabe: str("002010077777777771"), Provider: str("Banamex"), IsDefault: true}
	budget := commands.BudgetFields{Name: "Groceries", CategoryID: id(2), Amount: dec("100.00"), Currency: "MXN", Period: "monthly",
		StartDate: "2026-01-01", EndDate: "2026-12-31", AlertThreshold: dec("80"), TagID: idp(9)}
	postings := []commands.Posting{{WalletID: id(4), Amount: dec("-12.50")}}
	transaction := commands.TransactionCreated{TransactionID: id(3), Type: commands.TxExpense, Amount: dec("12.50"), Currency: "MXN",
		DestinationAmount: decp("0.6250"), Date: "2026-03-14", Concept: str("lunch"), Description: str("with Ana"), WalletID: id(4),
		ToWalletID: idp(5), CategoryID: idp(2), TagID: idp(9), ReferenceNumber: str("REF-1"), AttachmentURL: str("https://example.com/r.pdf"),
		RecurringID: idp(8), Cleared: true, Postings: postings}
	deposit := transaction
	deposit.Type, deposit.GoalID, deposit.Effects = commands.TxGoalDeposit, idp(6),
		&commands.Effects{Goals: []commands.GoalPosting{{GoalID: id(6), WalletID: id(4), Amount: dec("12.50")}}}
	withdrawal := deposit
	withdrawal.Type = commands.TxGoalWithdrawal
	payment := transaction
	payment.DebtID, payment.Effects = idp(7), &commands.Effects{Debts: []commands.DebtPosting{{DebtID: id(7), Amount: dec("-12.50")}}}
	samples := []struct {
		name, typ string
		data      any
	}{
		{"transaction.created", commands.TypeTransactionCreated, transaction},
		{"transaction.created, empty", commands.TypeTransactionCreated, commands.TransactionCreated{}},
		{"transaction.created, a goal deposit", commands.TypeTransactionCreated, deposit},
		{"transaction.created, a goal withdrawal", commands.TypeTransactionCreated, withdrawal},
		{"transaction.created, a debt payment", commands.TypeTransactionCreated, payment},
		{"transaction.updated", commands.TypeTransactionUpdated, commands.TransactionUpdated{TransactionID: id(3),
			Changes: commands.TransactionChanges{Amount: commands.Of(dec("13.00")), Currency: commands.Of("USD"),
				DestinationAmount: commands.Null[decimal.Decimal](), Date: commands.Of("2026-03-15"), Concept: commands.Of("dinner"),
				Description: commands.Null[string](), WalletID: commands.Of(id(4)), ToWalletID: commands.Null[uuid.UUID](),
				CategoryID: commands.Of(id(2)), TagID: commands.Null[uuid.UUID](), ReferenceNumber: commands.Of("REF-2"),
				AttachmentURL: commands.Null[string](), Cleared: commands.Of(false)},
			Postings: postings, Effects: &commands.Effects{Debts: []commands.DebtPosting{{DebtID: id(7), Amount: dec("-0.50")}}}}},
		{"transaction.updated, empty", commands.TypeTransactionUpdated, commands.TransactionUpdated{}},
		{"transaction.deleted", commands.TypeTransactionDeleted, commands.TransactionDeleted{TransactionID: id(3), Postings: postings,
			Effects: &commands.Effects{Goals: []commands.GoalPosting{{GoalID: id(6), WalletID: id(4), Amount: dec("-12.50")}}}}},
		{"transaction.deleted, empty", commands.TypeTransactionDeleted, commands.TransactionDeleted{}},
		{"wallet.created", commands.TypeWalletCreated, commands.WalletCreated{WalletID: id(4), WalletFields: wallet}},
		{"wallet.created, empty", commands.TypeWalletCreated, commands.WalletCreated{}},
		{"wallet.updated", commands.TypeWalletUpdated, commands.WalletUpdated{WalletID: id(4), Before: wallet,
			After: commands.WalletFields{Name: "Card", Type: "debit", Currency: "USD", CardColor: "#000000", InitialBalance: dec("0")}}},
		{"wallet.updated, empty", commands.TypeWalletUpdated, commands.WalletUpdated{}},
		{"wallet.updated, archived", commands.TypeWalletArchived, commands.WalletArchived{WalletID: id(4)}},
		{"category.created", commands.TypeCategoryCreated, commands.CategoryCreated{CategoryID: id(2),
			CategoryFields: commands.CategoryFields{Name: "Food", Icon: "utensils", Description: str("meals"), Color: "#ff0000",
				IsDefault: true, TagID: idp(9)}}},
		{"category.created, empty", commands.TypeCategoryCreated, commands.CategoryCreated{}},
		{"budget.created", commands.TypeBudgetCreated, commands.BudgetCreated{BudgetID: id(1), BudgetFields: budget}},
		{"budget.created, empty", commands.TypeBudgetCreated, commands.BudgetCreated{}},
		{"budget.threshold_reached", commands.TypeBudgetThresholdReached, commands.BudgetThresholdReached{BudgetID: id(1),
			TransactionID: id(3), PeriodStart: "2026-03-01", PeriodEnd: "2026-03-31", Spent: dec("85.50"), Percentage: dec("85.5"),
			Budget: budget}},
		{"recurring.paid", commands.TypeRecurringPaid, commands.RecurringPaid{RecurringID: id(8), DueDate: "2026-03-01",
			PaidOn: "2026-03-02", TransactionID: id(3), NextPayment: "2026-04-01", Automatic: true}},
		{"recurring.paid, empty", commands.TypeRecurringPaid, commands.RecurringPaid{}},
		{"recurring.skipped", commands.TypeRecurringSkipped, commands.RecurringSkipped{RecurringID: id(8), FirstDue: "2024-03-12",
			LastDue: "2025-12-16", Cycles: 93, NextPayment: "2025-12-30"}},
		{"recurring.skipped, empty", commands.TypeRecurringSkipped, commands.RecurringSkipped{}},
	}
	out := make([]storedSample, len(samples))
	for i, s := range samples {
		data, err := commands.EncodePayload(s.data)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		out[i] = storedSample{s.name, s.typ, data}
	}
	return out
}
