package domain

import (
	"reflect"
	"testing"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
)

func strp(s string) *string { return &s }

// A field a command is not given takes its default from the command's rules and the
// workspace, not from the caller.
func TestCreateDefaults(t *testing.T) {
	w := given(t, workspace()...)
	events, err := CreateBudget{BudgetID: uuid.New(), Name: "Food", CategoryID: food, Amount: dec("100"),
		StartDate: MustParseDate("2026-03-01"), EndDate: MustParseDate("2026-12-31")}.Decide(w)
	if err != nil {
		t.Fatal(err)
	}
	budget := events[0].(*BudgetCreated)
	if budget.Currency != "MXN" || budget.Period != PeriodMonthly || !budget.AlertThreshold.Equal(decimal.NewFromInt(80)) {
		t.Errorf("budget defaults %+v", budget.BudgetFields)
	}
	// Given, a value is kept, and checked: 0 is not "not given".
	zero := decimal.Zero
	if _, err := (CreateBudget{BudgetID: uuid.New(), Name: "Food", CategoryID: food, Amount: dec("100"), StartDate: MustParseDate("2026-03-01"),
		EndDate: MustParseDate("2026-12-31"), AlertThreshold: &zero}).Decide(w); code(err) != "VALIDATION_ERROR" {
		t.Errorf("a zero threshold: %v", err)
	}

	events, err = CreateGoal{GoalID: uuid.New(), Name: "Trip", TargetAmount: dec("10")}.Decide(w)
	if err != nil {
		t.Fatal(err)
	}
	if goal := events[0].(*GoalCreated); goal.Currency != "MXN" {
		t.Errorf("goal currency %q", goal.Currency)
	}

	events, err = CreateDebt{DebtID: uuid.New(), Name: "Car", TotalAmount: dec("300")}.Decide(w)
	if err != nil {
		t.Fatal(err)
	}
	if debt := events[0].(*DebtCreated); debt.Currency != "MXN" || !debt.PendingBalance.Equal(dec("300")) {
		t.Errorf("debt defaults %+v", debt.DebtFields)
	}
	events, err = CreateDebt{DebtID: uuid.New(), Name: "Car", TotalAmount: dec("300"), PendingBalance: decp("0"), Currency: strp("USD")}.Decide(w)
	if err != nil {
		t.Fatal(err)
	}
	if debt := events[0].(*DebtCreated); debt.Currency != "USD" || !debt.PendingBalance.IsZero() {
		t.Errorf("debt as given %+v", debt.DebtFields)
	}

	events, err = CreateRecurring{RecurringID: uuid.New(), Name: "Rent", Amount: dec("10"), Kind: RecurringExpense, Periodicity: PeriodMonthly,
		NextPayment: MustParseDate("2026-04-01"), Today: issued}.Decide(w)
	if err != nil {
		t.Fatal(err)
	}
	if r := events[0].(*RecurringCreated); !r.Active || r.Anchor != MustParseDate("2026-04-01") {
		t.Errorf("recurring defaults %+v", r.RecurringFields)
	}
}

// A movement given no date is dated the business day it was issued.
func TestMovementDatesDefaultToTheDayIssued(t *testing.T) {
	w := given(t, workspace()...)
	debt := uuid.New()
	goal := uuid.New()
	then(t, w, mustDecide(t, w, CreateDebt{DebtID: debt, Name: "Car", TotalAmount: dec("300")}.Decide))
	then(t, w, mustDecide(t, w, CreateGoal{GoalID: goal, Name: "Trip", TargetAmount: dec("300")}.Decide))
	rent := uuid.New()
	then(t, w, mustDecide(t, w, CreateRecurring{RecurringID: rent, Name: "Rent", Amount: dec("10"), Kind: RecurringExpense,
		Periodicity: PeriodMonthly, NextPayment: MustParseDate("2026-03-01"), Today: issued}.Decide))
	cases := map[string]func(*Workspace) ([]Event, error){
		"transaction": CreateTransaction{TransactionID: uuid.New(), Type: TxExpense, Amount: dec("1"), Today: issued}.Decide,
		"goal movement": GoalMovement{GoalID: goal, Type: TxGoalDeposit, Amount: dec("1"), WalletID: idp(cash), Today: issued,
			NewID: uuid.New}.Decide,
		"debt payment":      PayDebt{DebtID: debt, TransactionID: uuid.New(), Amount: dec("1"), Today: issued}.Decide,
		"recurring payment": PayRecurring{RecurringID: rent, TransactionID: uuid.New(), Today: issued}.Decide,
		"chat transaction":  CreateTransactionByName{TransactionID: uuid.New(), Type: TxExpense, Amount: dec("1"), Today: issued}.Decide,
	}
	for name, decide := range cases {
		created := mustDecide(t, w, decide)[0].(*TransactionCreated)
		if created.Date != MustParseDate("2026-03-10") {
			t.Errorf("%s: date %q, want the day issued", name, created.Date)
		}
	}
	given := CreateTransaction{TransactionID: uuid.New(), Type: TxExpense, Amount: dec("1"), Date: MustParseDate("2026-01-02"), Today: issued}
	if created := mustDecide(t, w, given.Decide)[0].(*TransactionCreated); created.Date != MustParseDate("2026-01-02") {
		t.Errorf("a given date became %q", created.Date)
	}
	// A command that may default its date must say when it was issued.
	if _, err := (CreateTransaction{TransactionID: uuid.New(), Type: TxExpense, Amount: dec("1")}).Decide(w); err == nil {
		t.Error("a transaction with neither a date nor the day issued was decided")
	}
}

func mustDecide(t *testing.T, w *Workspace, decide func(*Workspace) ([]Event, error)) []Event {
	t.Helper()
	events, err := decide(w)
	if err != nil {
		t.Fatal(err)
	}
	return events
}

// The chat channel names wallets and categories; the names are resolved against the
// workspace's live ones, ignoring accents and case.
func TestNamesResolvedAgainstTheWorkspace(t *testing.T) {
	cafe := uuid.New()
	w := given(t, append(workspace(),
		&CategoryCreated{CategoryID: cafe, CategoryFields: CategoryFields{Name: "Café", Icon: "tag", Color: "#6366f1"}})...)
	events, err := CreateTransactionByName{TransactionID: uuid.New(), Type: TxExpense, Amount: dec("2"), WalletName: "BANK",
		CategoryName: "cafe", Today: issued}.Decide(w)
	if err != nil {
		t.Fatal(err)
	}
	created := events[0].(*TransactionCreated)
	if created.WalletID != bank || created.CategoryID == nil || *created.CategoryID != cafe || created.Date != MustParseDate("2026-03-10") {
		t.Errorf("resolved into %+v", created)
	}

	// No names: the oldest live wallet and category.
	events, err = CreateTransactionByName{TransactionID: uuid.New(), Type: TxExpense, Amount: dec("2"), Today: issued}.Decide(w)
	if err != nil {
		t.Fatal(err)
	}
	if created := events[0].(*TransactionCreated); created.WalletID != cash || *created.CategoryID != food {
		t.Errorf("unnamed: wallet %s, category %v", created.WalletID, created.CategoryID)
	}

	cases := []struct {
		name        string
		cmd         CreateTransactionByName
		code        string
		message     string
		suggestions []string
	}{
		{"unknown wallet", CreateTransactionByName{WalletName: "Banc"}, "WALLET_NOT_FOUND", `no wallet is named "Banc"`,
			[]string{"Bank", "Cash", "Dollars"}},
		{"unknown category", CreateTransactionByName{CategoryName: "Cofee"}, "CATEGORY_NOT_FOUND", `no category is named "Cofee"`,
			[]string{"Café", "Food", "Travel"}},
		{"another currency", CreateTransactionByName{WalletName: "cash", Currency: strp("USD")}, "VALIDATION_ERROR", "", nil},
	}
	for _, c := range cases {
		c.cmd.Type, c.cmd.Amount, c.cmd.Today = TxExpense, dec("1"), issued
		_, err := c.cmd.Decide(w)
		e, ok := AsError(err)
		if !ok || e.Code != c.code {
			t.Errorf("%s: %v, want %s", c.name, err, c.code)
			continue
		}
		if c.suggestions == nil {
			continue
		}
		if e.Kind != KindNotFound || e.Message != c.message ||
			!reflect.DeepEqual(e.Details, map[string]any{"suggestions": c.suggestions}) {
			t.Errorf("%s: %+v", c.name, e)
		}
	}

	// A workspace with no wallet says so.
	empty := given(t, &WorkspaceCreated{Kind: WorkspacePersonal, Currency: "MXN", OwnerID: owner})
	_, err = CreateTransactionByName{Type: TxExpense, Amount: dec("1"), Today: issued}.Decide(empty)
	if e, ok := AsError(err); !ok || e.Code != "WALLET_NOT_FOUND" || e.Message != "the workspace has no wallet" {
		t.Errorf("no wallet: %v", err)
	}
	// ...and with no category, a transaction goes uncategorized.
	then(t, empty, mustDecide(t, empty, CreateWallet{WalletID: cash, WalletFields: WalletFields{Name: "Cash", Currency: "MXN"}}.Decide))
	events, err = CreateTransactionByName{TransactionID: uuid.New(), Type: TxExpense, Amount: dec("1"), Today: issued}.Decide(empty)
	if err != nil || events[0].(*TransactionCreated).CategoryID != nil {
		t.Errorf("no category: %v", err)
	}
}

// Correcting by name: the currency is checked against the wallet named, else the
// transaction's own.
func TestUpdateTransactionByName(t *testing.T) {
	w := given(t, workspace()...)
	id := uuid.New()
	then(t, w, mustDecide(t, w, CreateTransaction{TransactionID: id, Type: TxExpense, Amount: dec("5"), WalletID: idp(cash), Today: issued}.Decide))
	events, err := UpdateTransactionByName{TransactionID: id, Amount: Of(dec("6")), Currency: Of("USD"), WalletName: Of("dollars"),
		CategoryName: Of("TRAVEL")}.Decide(w)
	if err != nil {
		t.Fatal(err)
	}
	changes := events[0].(*TransactionUpdated).Changes
	if changes.WalletID.Value != usd || changes.CategoryID.Value != travel {
		t.Errorf("changes %+v", changes)
	}
	if _, err := (UpdateTransactionByName{TransactionID: id, Amount: Of(dec("6")), Currency: Of("USD")}).Decide(w); code(err) != "VALIDATION_ERROR" {
		t.Errorf("USD into a peso wallet: %v", err)
	}
	if _, err := (UpdateTransactionByName{TransactionID: id, WalletName: Of("Vault")}).Decide(w); code(err) != "WALLET_NOT_FOUND" {
		t.Errorf("unknown wallet: %v", err)
	}
	then(t, w, mustDecide(t, w, DeleteTransaction{TransactionID: id}.Decide))
	_, err = UpdateTransactionByName{TransactionID: id, Amount: Of(dec("6")), Currency: Of("MXN")}.Decide(w)
	if e, ok := AsError(err); !ok || e.Code != "TRANSACTION_NOT_FOUND" || e.Message != "the last transaction was deleted" {
		t.Errorf("deleted: %v", err)
	}
}
