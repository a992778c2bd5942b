package webhooks

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/ledger"
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
	wallet := domain.WalletFields{Name: "Cash", Description: str("pocket"), Type: "cash", Currency: "MXN", CardColor: "#111827",
		InitialBalance: dec("100.50"), Clabe: str("002010077777777771"), Provider: str("Banamex"), IsDefault: true}
	budget := domain.BudgetFields{Name: "Groceries", CategoryID: id(2), Amount: dec("100.00"), Currency: "MXN", Period: "monthly",
		StartDate: domain.MustParseDate("2026-01-01"), EndDate: domain.MustParseDate("2026-12-31"), AlertThreshold: dec("80"), TagID: idp(9)}
	postings := []domain.Posting{{WalletID: id(4), Amount: dec("-12.50")}}
	transaction := domain.TransactionCreated{TransactionID: id(3), Type: domain.TxExpense, Amount: dec("12.50"), Currency: "MXN",
		DestinationAmount: decp("0.6250"), Date: domain.MustParseDate("2026-03-14"), Concept: str("lunch"), Description: str("with Ana"), WalletID: id(4),
		ToWalletID: idp(5), CategoryID: idp(2), TagID: idp(9), ReferenceNumber: str("REF-1"), AttachmentURL: str("https://example.com/r.pdf"),
		RecurringID: idp(8), Cleared: true, Postings: postings}
	deposit := transaction
	deposit.Type, deposit.GoalID, deposit.Effects = domain.TxGoalDeposit, idp(6),
		&domain.Effects{Goals: []domain.GoalPosting{{GoalID: id(6), WalletID: id(4), Amount: dec("12.50")}}}
	withdrawal := deposit
	withdrawal.Type = domain.TxGoalWithdrawal
	payment := transaction
	payment.DebtID, payment.Effects = idp(7), &domain.Effects{Debts: []domain.DebtPosting{{DebtID: id(7), Amount: dec("-12.50")}}}
	samples := []struct {
		name, typ string
		data      any
	}{
		{"transaction.created", domain.TypeTransactionCreated, transaction},
		{"transaction.created, empty", domain.TypeTransactionCreated, domain.TransactionCreated{}},
		{"transaction.created, a goal deposit", domain.TypeTransactionCreated, deposit},
		{"transaction.created, a goal withdrawal", domain.TypeTransactionCreated, withdrawal},
		{"transaction.created, a debt payment", domain.TypeTransactionCreated, payment},
		{"transaction.updated", domain.TypeTransactionUpdated, domain.TransactionUpdated{TransactionID: id(3),
			Changes: domain.TransactionChanges{Amount: domain.Of(dec("13.00")), Currency: domain.Of("USD"),
				DestinationAmount: domain.Null[decimal.Decimal](), Date: domain.Of(domain.MustParseDate("2026-03-15")), Concept: domain.Of("dinner"),
				Description: domain.Null[string](), WalletID: domain.Of(id(4)), ToWalletID: domain.Null[uuid.UUID](),
				CategoryID: domain.Of(id(2)), TagID: domain.Null[uuid.UUID](), ReferenceNumber: domain.Of("REF-2"),
				AttachmentURL: domain.Null[string](), Cleared: domain.Of(false)},
			Postings: postings, Effects: &domain.Effects{Debts: []domain.DebtPosting{{DebtID: id(7), Amount: dec("-0.50")}}}}},
		{"transaction.updated, empty", domain.TypeTransactionUpdated, domain.TransactionUpdated{}},
		{"transaction.deleted", domain.TypeTransactionDeleted, domain.TransactionDeleted{TransactionID: id(3), Postings: postings,
			Effects: &domain.Effects{Goals: []domain.GoalPosting{{GoalID: id(6), WalletID: id(4), Amount: dec("-12.50")}}}}},
		{"transaction.deleted, empty", domain.TypeTransactionDeleted, domain.TransactionDeleted{}},
		{"wallet.created", domain.TypeWalletCreated, domain.WalletCreated{WalletID: id(4), WalletFields: wallet}},
		{"wallet.created, empty", domain.TypeWalletCreated, domain.WalletCreated{}},
		{"wallet.updated", domain.TypeWalletUpdated, domain.WalletUpdated{WalletID: id(4), Before: wallet,
			After: domain.WalletFields{Name: "Card", Type: "debit", Currency: "USD", CardColor: "#000000", InitialBalance: dec("0")}}},
		{"wallet.updated, empty", domain.TypeWalletUpdated, domain.WalletUpdated{}},
		{"wallet.updated, archived", domain.TypeWalletArchived, domain.WalletArchived{WalletID: id(4)}},
		{"category.created", domain.TypeCategoryCreated, domain.CategoryCreated{CategoryID: id(2),
			CategoryFields: domain.CategoryFields{Name: "Food", Icon: "utensils", Description: str("meals"), Color: "#ff0000",
				IsDefault: true, TagID: idp(9)}}},
		{"category.created, empty", domain.TypeCategoryCreated, domain.CategoryCreated{}},
		{"budget.created", domain.TypeBudgetCreated, domain.BudgetCreated{BudgetID: id(1), BudgetFields: budget}},
		{"budget.created, empty", domain.TypeBudgetCreated, domain.BudgetCreated{}},
		{"budget.threshold_reached", domain.TypeBudgetThresholdReached, domain.BudgetThresholdReached{BudgetID: id(1),
			TransactionID: id(3), PeriodStart: domain.MustParseDate("2026-03-01"), PeriodEnd: domain.MustParseDate("2026-03-31"), Spent: dec("85.50"), Percentage: dec("85.5"),
			Budget: budget}},
		{"recurring.paid", domain.TypeRecurringPaid, domain.RecurringPaid{RecurringID: id(8), DueDate: domain.MustParseDate("2026-03-01"),
			PaidOn: domain.MustParseDate("2026-03-02"), TransactionID: id(3), NextPayment: domain.MustParseDate("2026-04-01"), Automatic: true}},
		{"recurring.paid, empty", domain.TypeRecurringPaid, domain.RecurringPaid{}},
		{"recurring.skipped", domain.TypeRecurringSkipped, domain.RecurringSkipped{RecurringID: id(8), FirstDue: domain.MustParseDate("2024-03-12"),
			LastDue: domain.MustParseDate("2025-12-16"), Cycles: 93, NextPayment: domain.MustParseDate("2025-12-30")}},
		{"recurring.skipped, empty", domain.TypeRecurringSkipped, domain.RecurringSkipped{}},
		{"import.committed", domain.TypeImportCommitted, domain.ImportCommitted{ImportID: id(10), WalletID: id(4), Format: "camt",
			Created: 120, Merged: 3, Skipped: 2}},
		{"import.committed, empty", domain.TypeImportCommitted, domain.ImportCommitted{}},
		{"import.undone", domain.TypeImportUndone, domain.ImportUndone{ImportID: id(10), WalletID: id(4), Deleted: 119, Unmerged: 3}},
		{"import.undone, empty", domain.TypeImportUndone, domain.ImportUndone{}},
		{"proposal.created", domain.TypeProposalCreated, domain.ProposalCreated{ProposalID: id(11), KeyID: id(12), Route: "POST /api/transactions",
			Path: "/api/transactions", Body: `{"type":"expense","amount":250}`, Summary: "expense 250 MXN, Food, from Cash, on 2026-03-04",
			ExpiresAt: time.Date(2026, 3, 17, 18, 0, 0, 0, time.UTC)}},
		{"proposal.rejected", domain.TypeProposalRejected, domain.ProposalRejected{ProposalID: id(11), RejectedBy: id(1)}},
		{"proposal.settled", domain.TypeProposalSettled, domain.ProposalSettled{ProposalID: id(11), Status: 201}},
		{"proposal.settled, failed", domain.TypeProposalSettled, domain.ProposalSettled{ProposalID: id(11), Status: 404,
			ErrorCode: "CATEGORY_NOT_FOUND", Message: "category not found"}},
	}
	out := make([]storedSample, len(samples))
	for i, s := range samples {
		data, err := ledger.EncodePayload(s.data)
		if err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		out[i] = storedSample{s.name, s.typ, data}
	}
	return out
}
