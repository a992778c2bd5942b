package domain

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
)

// given folds events into a fresh workspace state, as a stream would.
func given(t *testing.T, events ...Event) *Workspace {
	t.Helper()
	w := NewWorkspace(uuid.New())
	for _, e := range events {
		if err := w.Apply(e); err != nil {
			t.Fatal(err)
		}
		w.Version++
	}
	return w
}

// then applies decided events, as the ledger does after commit.
func then(t *testing.T, w *Workspace, events []Event) {
	t.Helper()
	for _, e := range events {
		if err := w.Apply(e); err != nil {
			t.Fatal(err)
		}
	}
}

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }
func decp(s string) *decimal.Decimal {
	d := dec(s)
	return &d
}
func idp(id uuid.UUID) *uuid.UUID { return &id }

// issued is the business day the commands of these tests are issued on.
var issued = BusinessDay(time.Date(2026, 3, 10, 18, 0, 0, 0, time.UTC))

var (
	owner  = uuid.MustParse("00000000-0000-0000-0000-0000000000aa")
	cash   = uuid.MustParse("00000000-0000-0000-0000-000000000001")
	bank   = uuid.MustParse("00000000-0000-0000-0000-000000000002")
	usd    = uuid.MustParse("00000000-0000-0000-0000-000000000003")
	food   = uuid.MustParse("00000000-0000-0000-0000-0000000000f0")
	travel = uuid.MustParse("00000000-0000-0000-0000-0000000000f1")
)

func wallet(id uuid.UUID, name, currency, balance string, isDefault bool) *WalletCreated {
	return &WalletCreated{WalletID: id, WalletFields: WalletFields{
		Name: name, Type: "cash", Currency: currency, CardColor: "#111827", InitialBalance: dec(balance), IsDefault: isDefault,
	}}
}

func workspace() []Event {
	return []Event{
		&WorkspaceCreated{Kind: WorkspacePersonal, Name: "Personal", Currency: "MXN", OwnerID: owner},
		wallet(cash, "Cash", "MXN", "100", true),
		wallet(bank, "Bank", "MXN", "1000", false),
		wallet(usd, "Dollars", "USD", "50", false),
		&CategoryCreated{CategoryID: food, CategoryFields: CategoryFields{Name: "Food", Icon: "tag", Color: "#6366f1"}},
		&CategoryCreated{CategoryID: travel, CategoryFields: CategoryFields{Name: "Travel", Icon: "tag", Color: "#6366f1"}},
	}
}

func balances(w *Workspace) map[string]string {
	out := map[string]string{}
	for _, wl := range w.Wallets {
		out[wl.Name] = wl.Balance.String()
	}
	return out
}

func code(err error) string {
	if e, ok := AsError(err); ok {
		return e.Code
	}
	if err != nil {
		return "unexpected: " + err.Error()
	}
	return ""
}

func TestCreateTransactionPostings(t *testing.T) {
	tx := uuid.New()
	cases := []struct {
		name    string
		cmd     CreateTransaction
		want    map[string]string
		wantErr string
	}{
		{"income adds", CreateTransaction{Today: issued, Type: TxIncome, Amount: dec("20.5"), WalletID: idp(bank)},
			map[string]string{"Cash": "100", "Bank": "1020.5", "Dollars": "50"}, ""},
		{"expense subtracts and may overdraw", CreateTransaction{Today: issued, Type: TxExpense, Amount: dec("150.25"), WalletID: idp(cash)},
			map[string]string{"Cash": "-50.25", "Bank": "1000", "Dollars": "50"}, ""},
		{"missing wallet falls back to the default", CreateTransaction{Today: issued, Type: TxExpense, Amount: dec("1")},
			map[string]string{"Cash": "99", "Bank": "1000", "Dollars": "50"}, ""},
		{"transfer moves", CreateTransaction{Today: issued, Type: TxTransfer, Amount: dec("300"), WalletID: idp(bank), ToWalletID: idp(cash)},
			map[string]string{"Cash": "400", "Bank": "700", "Dollars": "50"}, ""},
		{"transfer across currencies uses the destination amount",
			CreateTransaction{Today: issued, Type: TxTransfer, Amount: dec("200"), DestinationAmount: decp("10.01"), WalletID: idp(bank), ToWalletID: idp(usd)},
			map[string]string{"Cash": "100", "Bank": "800", "Dollars": "60.01"}, ""},
		{"transfer across currencies without destination amount",
			CreateTransaction{Today: issued, Type: TxTransfer, Amount: dec("200"), WalletID: idp(bank), ToWalletID: idp(usd)}, nil, "VALIDATION_ERROR"},
		{"transfer within one currency with another destination amount",
			CreateTransaction{Today: issued, Type: TxTransfer, Amount: dec("200"), DestinationAmount: decp("199"), WalletID: idp(bank), ToWalletID: idp(cash)}, nil, "VALIDATION_ERROR"},
		{"transfer to itself", CreateTransaction{Today: issued, Type: TxTransfer, Amount: dec("1"), WalletID: idp(bank), ToWalletID: idp(bank)}, nil, "VALIDATION_ERROR"},
		{"transfer without destination", CreateTransaction{Today: issued, Type: TxTransfer, Amount: dec("1"), WalletID: idp(bank)}, nil, "VALIDATION_ERROR"},
		{"destination on an expense", CreateTransaction{Today: issued, Type: TxExpense, Amount: dec("1"), ToWalletID: idp(bank)}, nil, "VALIDATION_ERROR"},
		{"zero amount", CreateTransaction{Today: issued, Type: TxExpense, Amount: dec("0")}, nil, "VALIDATION_ERROR"},
		{"five decimal places", CreateTransaction{Today: issued, Type: TxExpense, Amount: dec("0.00001")}, nil, "VALIDATION_ERROR"},
		{"unknown wallet", CreateTransaction{Today: issued, Type: TxExpense, Amount: dec("1"), WalletID: idp(uuid.New())}, nil, "WALLET_NOT_FOUND"},
		{"unknown category", CreateTransaction{Today: issued, Type: TxExpense, Amount: dec("1"), CategoryID: idp(uuid.New())}, nil, "CATEGORY_NOT_FOUND"},
		{"goal movement through transactions", CreateTransaction{Today: issued, Type: TxGoalDeposit, Amount: dec("1")}, nil, "VALIDATION_ERROR"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := given(t, workspace()...)
			c.cmd.TransactionID = tx
			events, err := c.cmd.Decide(w)
			if code(err) != c.wantErr {
				t.Fatalf("error %v, want code %q", err, c.wantErr)
			}
			if err != nil {
				return
			}
			then(t, w, events)
			if got := balances(w); !reflect.DeepEqual(got, c.want) {
				t.Fatalf("balances %v, want %v", got, c.want)
			}
		})
	}
}

func TestCreateTransactionWithoutAnyDefaultWallet(t *testing.T) {
	w := given(t, &WorkspaceCreated{Kind: WorkspacePersonal, Currency: "MXN", OwnerID: owner}, wallet(bank, "Bank", "MXN", "0", false))
	_, err := CreateTransaction{Today: issued, TransactionID: uuid.New(), Type: TxExpense, Amount: dec("1")}.Decide(w)
	e, ok := AsError(err)
	if !ok || e.Kind != KindValidation || e.Fields[0].Field != "walletId" {
		t.Fatalf("err = %v, want a walletId validation error", err)
	}
}

func TestUpdateAndDeleteMoveBalancesBack(t *testing.T) {
	w := given(t, workspace()...)
	id := uuid.New()
	events, err := CreateTransaction{Today: issued, TransactionID: id, Type: TxExpense, Amount: dec("40"), WalletID: idp(cash), CategoryID: idp(food)}.Decide(w)
	if err != nil {
		t.Fatal(err)
	}
	then(t, w, events)

	// Move the expense to the bank and raise it: cash gets its 40 back, the bank pays 55.
	events, err = UpdateTransaction{TransactionID: id, Amount: Of(dec("55")), WalletID: Of(bank)}.Decide(w)
	if err != nil {
		t.Fatal(err)
	}
	upd := events[0].(*TransactionUpdated)
	wantPostings := netPostings([]Posting{{cash, dec("40")}, {bank, dec("-55")}})
	if !reflect.DeepEqual(upd.Postings, wantPostings) {
		t.Fatalf("postings %v, want %v", upd.Postings, wantPostings)
	}
	then(t, w, events)
	if got := balances(w); got["Cash"] != "100" || got["Bank"] != "945" {
		t.Fatalf("after update: %v", got)
	}

	// Turning it into a cross-currency wallet's expense changes its currency too.
	events, err = UpdateTransaction{TransactionID: id, WalletID: Of(usd)}.Decide(w)
	if err != nil {
		t.Fatal(err)
	}
	if c := events[0].(*TransactionUpdated).Changes.Currency; !c.Valid || c.Value != "USD" {
		t.Fatalf("currency change %+v", c)
	}
	then(t, w, events)

	// An update that changes nothing decides nothing.
	if events, err := (UpdateTransaction{TransactionID: id}).Decide(w); err != nil || len(events) != 0 {
		t.Fatalf("empty update: %v, %v", events, err)
	}

	events, err = DeleteTransaction{TransactionID: id}.Decide(w)
	if err != nil {
		t.Fatal(err)
	}
	then(t, w, events)
	if got := balances(w); got["Cash"] != "100" || got["Bank"] != "1000" || got["Dollars"] != "50" {
		t.Fatalf("after delete: %v", got)
	}
	if _, err := (DeleteTransaction{TransactionID: id}).Decide(w); code(err) != "TRANSACTION_NOT_FOUND" {
		t.Fatalf("second delete: %v", err)
	}
	if _, err := (UpdateTransaction{TransactionID: id, Amount: Of(dec("1"))}).Decide(w); code(err) != "TRANSACTION_NOT_FOUND" {
		t.Fatalf("update after delete: %v", err)
	}
}

func TestTransferBetweenCurrenciesMovedToOneCurrencyDropsDestinationAmount(t *testing.T) {
	w := given(t, workspace()...)
	id := uuid.New()
	events, err := CreateTransaction{Today: issued, TransactionID: id, Type: TxTransfer, Amount: dec("200"), DestinationAmount: decp("10"),
		WalletID: idp(bank), ToWalletID: idp(usd)}.Decide(w)
	if err != nil {
		t.Fatal(err)
	}
	then(t, w, events)
	events, err = UpdateTransaction{TransactionID: id, ToWalletID: Of(cash)}.Decide(w)
	if err != nil {
		t.Fatal(err)
	}
	then(t, w, events)
	if got := balances(w); got["Bank"] != "800" || got["Cash"] != "300" || got["Dollars"] != "50" {
		t.Fatalf("balances %v", got)
	}
	if w.Transactions[id].DestinationAmount != nil {
		t.Fatalf("destination amount kept: %v", w.Transactions[id].DestinationAmount)
	}
}

func TestBulkIsAllOrNothing(t *testing.T) {
	w := given(t, workspace()...)
	var ids []uuid.UUID
	for i := 0; i < 3; i++ {
		id := uuid.New()
		events, err := CreateTransaction{Today: issued, TransactionID: id, Type: TxExpense, Amount: dec("10"), CategoryID: idp(food)}.Decide(w)
		if err != nil {
			t.Fatal(err)
		}
		then(t, w, events)
		ids = append(ids, id)
	}
	missing := uuid.New()
	_, err := BulkTransactions{IDs: append([]uuid.UUID{missing}, ids...), Operation: BulkDelete}.Decide(w)
	e, ok := AsError(err)
	if !ok || e.Code != "TRANSACTION_NOT_FOUND" || !reflect.DeepEqual(e.Details, map[string]any{"missing": []string{missing.String()}}) {
		t.Fatalf("err = %#v", err)
	}
	events, err := BulkTransactions{IDs: []uuid.UUID{ids[0], ids[1], ids[0]}, Operation: BulkDelete}.Decide(w)
	if err != nil || len(events) != 2 {
		t.Fatalf("bulk delete with a repeated id: %d events, %v", len(events), err)
	}
	then(t, w, events)
	if got := balances(w)["Cash"]; got != "90" {
		t.Fatalf("cash %s after deleting two of three 10s from 100", got)
	}
	events, err = BulkTransactions{IDs: ids[2:], Operation: BulkRecategorize, CategoryID: idp(travel)}.Decide(w)
	if err != nil || len(events) != 1 {
		t.Fatalf("recategorize: %v %v", events, err)
	}
	if _, err := (BulkTransactions{IDs: ids[2:], Operation: BulkRecategorize, CategoryID: idp(uuid.New())}).Decide(w); code(err) != "CATEGORY_NOT_FOUND" {
		t.Fatalf("unknown category: %v", err)
	}
}

func TestWalletRules(t *testing.T) {
	w := given(t, workspace()...)
	if _, err := (CreateWallet{WalletID: uuid.New(), WalletFields: WalletFields{Name: "  cásh ", Currency: "MXN"}}).Decide(w); code(err) != "CONFLICT" {
		t.Fatalf("same name ignoring accents, case and spaces: %v", err)
	}
	// A new default wallet takes the flag from the old one, with an explicit event.
	id := uuid.New()
	events, err := CreateWallet{WalletID: id, WalletFields: WalletFields{Name: "Card", Currency: "MXN", IsDefault: true}}.Decide(w)
	if err != nil || len(events) != 2 || events[0].(*WalletUpdated).WalletID != cash {
		t.Fatalf("events %v, %v", events, err)
	}
	then(t, w, events)
	if w.DefaultWallet != id || w.Wallets[cash].IsDefault {
		t.Fatalf("default is %s", w.DefaultWallet)
	}
	// Changing the initial balance moves the balance by the difference.
	events, err = UpdateWallet{WalletID: bank, InitialBalance: Of(dec("1200.10"))}.Decide(w)
	if err != nil {
		t.Fatal(err)
	}
	then(t, w, events)
	if got := w.Wallets[bank].Balance.String(); got != "1200.1" {
		t.Fatalf("bank balance %s", got)
	}
	// A wallet with movements keeps its currency.
	events, err = CreateTransaction{Today: issued, TransactionID: uuid.New(), Type: TxIncome, Amount: dec("1"), WalletID: idp(usd)}.Decide(w)
	if err != nil {
		t.Fatal(err)
	}
	then(t, w, events)
	if _, err := (UpdateWallet{WalletID: usd, Currency: Of("EUR")}).Decide(w); code(err) != "CONFLICT" {
		t.Fatalf("currency change with movements: %v", err)
	}
	if _, err := (UpdateWallet{WalletID: bank, Currency: Of("EUR")}).Decide(w); err != nil {
		t.Fatalf("currency change without movements: %v", err)
	}
	events, err = ArchiveWallet{WalletID: usd}.Decide(w)
	if err != nil {
		t.Fatal(err)
	}
	then(t, w, events)
	if _, err := (CreateTransaction{Today: issued, TransactionID: uuid.New(), Type: TxIncome, Amount: dec("1"), WalletID: idp(usd)}).Decide(w); code(err) != "WALLET_NOT_FOUND" {
		t.Fatalf("transaction on an archived wallet: %v", err)
	}
	if _, err := (ArchiveWallet{WalletID: usd}).Decide(w); code(err) != "WALLET_NOT_FOUND" {
		t.Fatalf("second archive: %v", err)
	}
}

func TestFoldName(t *testing.T) {
	for in, want := range map[string]string{"Café  Norte": "cafe norte", " AHORRO ": "ahorro", "Niño": "nino", "": "",
		"Ca\u200Bsh\uFEFF": "cash", "\u2060 Bank": "bank"} {
		if got := FoldName(in); got != want {
			t.Errorf("FoldName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestNullableJSON(t *testing.T) {
	var c TransactionChanges
	if err := jsonRoundTrip(TransactionChanges{Concept: Null[string](), Amount: Of(dec("1.50"))}, &c); err != nil {
		t.Fatal(err)
	}
	if !c.Concept.Set || c.Concept.Valid || !c.Amount.Valid || !c.Amount.Value.Equal(dec("1.5")) || c.Date.Set {
		t.Fatalf("round trip gave %+v", c)
	}
}

func TestCheckAmount(t *testing.T) {
	for in, want := range map[string]string{
		"0.0001": "", "1": "", "999999999999999.9999": "",
		"0": "must be greater than 0", "-1": "must be greater than 0",
		"0.00001": "must have at most 4 decimal places", "1000000000000000": "must be less than 10^15",
	} {
		if got := CheckAmount(dec(in), true); got != want {
			t.Errorf("CheckAmount(%s) = %q, want %q", in, got, want)
		}
	}
	if got := CheckAmount(dec("0"), false); got != "" {
		t.Errorf("zero not allowed where >= 0: %q", got)
	}
}

func jsonRoundTrip(in, out any) error {
	data, err := json.Marshal(in)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, out)
}

func TestGoalMovementsAndDebtPayments(t *testing.T) {
	goal := uuid.MustParse("00000000-0000-0000-0000-0000000000c0")
	debt := uuid.MustParse("00000000-0000-0000-0000-0000000000d0")
	w := given(t, append(workspace(),
		&GoalCreated{GoalID: goal, GoalFields: GoalFields{Name: "Trip", TargetAmount: dec("100"), Currency: "MXN"}},
		&DebtCreated{DebtID: debt, DebtFields: DebtFields{Name: "Car", TotalAmount: dec("50"), PendingBalance: dec("50"), Currency: "MXN"}})...)
	ids := []uuid.UUID{}
	newID := func() uuid.UUID { id := uuid.New(); ids = append(ids, id); return id }
	for _, dep := range []struct {
		wallet uuid.UUID
		amount string
	}{{cash, "10"}, {bank, "20.01"}} {
		events, err := GoalMovement{Today: issued, GoalID: goal, Type: TxGoalDeposit, Amount: dec(dep.amount), WalletID: idp(dep.wallet), Date: MustParseDate("2026-03-01"), NewID: newID}.Decide(w)
		if err != nil {
			t.Fatal(err)
		}
		then(t, w, events)
	}
	// 15 split 10 : 20.01 is 4.998... and 10.001...: cents rounded down, the one left
	// over to the bigger funder.
	events, err := GoalMovement{Today: issued, GoalID: goal, Type: TxGoalWithdrawal, Amount: dec("15"), Date: MustParseDate("2026-03-02"), NewID: newID}.Decide(w)
	if err != nil || len(events) != 2 {
		t.Fatalf("split: %v %v", events, err)
	}
	shares := map[uuid.UUID]string{}
	for _, e := range events {
		c := e.(*TransactionCreated)
		shares[c.WalletID] = c.Amount.String()
	}
	if shares[cash] != "4.99" || shares[bank] != "10.01" {
		t.Fatalf("shares %v", shares)
	}
	then(t, w, events)
	if got := w.Goals[goal].Saved.String(); got != "15.01" {
		t.Fatalf("saved %s", got)
	}
	if _, err := (GoalMovement{Today: issued, GoalID: goal, Type: TxGoalWithdrawal, Amount: dec("15.02"), NewID: newID}).Decide(w); code(err) != "VALIDATION_ERROR" {
		t.Fatalf("withdrawing more than saved: %v", err)
	}
	if _, err := (BulkTransactions{IDs: ids[:1], Operation: BulkDelete}).Decide(w); code(err) != "CONFLICT" {
		t.Fatalf("bulk delete of a goal movement: %v", err)
	}
	if _, err := (UpdateTransaction{TransactionID: ids[0], Amount: Of(dec("1"))}).Decide(w); code(err) != "CONFLICT" {
		t.Fatalf("editing a goal movement: %v", err)
	}

	// Debt payments lower the pending balance; more than owed is refused.
	pay := uuid.New()
	events, err = PayDebt{Today: issued, DebtID: debt, TransactionID: pay, Amount: dec("20"), Date: MustParseDate("2026-03-03")}.Decide(w)
	if err != nil {
		t.Fatal(err)
	}
	then(t, w, events)
	if got := w.Debts[debt].PendingBalance.String(); got != "30" || events[0].(*TransactionCreated).WalletID != cash {
		t.Fatalf("pending %s, paid from %v", got, events[0].(*TransactionCreated).WalletID)
	}
	if _, err := (PayDebt{Today: issued, DebtID: debt, TransactionID: uuid.New(), Amount: dec("30.01")}).Decide(w); code(err) != "VALIDATION_ERROR" {
		t.Fatalf("overpayment: %v", err)
	}
	if _, err := (PayDebt{Today: issued, DebtID: debt, TransactionID: uuid.New(), Amount: dec("1"), WalletID: idp(usd)}).Decide(w); code(err) != "VALIDATION_ERROR" {
		t.Fatalf("payment in another currency: %v", err)
	}
	events, err = UpdateTransaction{TransactionID: pay, Amount: Of(dec("50"))}.Decide(w)
	if err != nil {
		t.Fatalf("raising a payment to what was owed before it: %v", err)
	}
	then(t, w, events)
	if got := w.Debts[debt].PendingBalance.String(); got != "0" {
		t.Fatalf("pending after correction %s", got)
	}
}

func TestSuggest(t *testing.T) {
	names := []string{"Rent", "Café", "Food", "Groceries", "Cafetería", "Fuel"}
	// The best two, in order: the closest name, then the next closest.
	cases := map[string]string{
		"cofee": "Café,Cafetería",
		"CAFE":  "Café,Cafetería",
		"groc":  "Groceries,Food",
		"fod":   "Food,Fuel",
		"rnt":   "Rent,Cafetería",
	}
	for query, want := range cases {
		got := Suggest(names, query, 5)
		if len(got) != 5 || strings.Join(got[:2], ",") != want {
			t.Errorf("Suggest(%q) = %v, want %s first", query, got, want)
		}
	}
	if got := Suggest(nil, "x", 5); len(got) != 0 {
		t.Errorf("no names: %v", got)
	}
}

// decider is any command: it decides events on a workspace state.
type decider interface {
	Decide(*Workspace) ([]Event, error)
}

// carried returns the goal and debt effects a transaction event carries.
func carried(t *testing.T, data any) *Effects {
	t.Helper()
	switch d := data.(type) {
	case *TransactionCreated:
		return d.Effects
	case *TransactionUpdated:
		return d.Effects
	case *TransactionDeleted:
		return d.Effects
	}
	t.Fatalf("%T is not a transaction event", data)
	return nil
}

// asJSON compares effects by what is stored: decimals equal in value and places.
func asJSON(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// storedOldShape is an event as it reads back from a log written before goal and debt
// effects travelled in events: without them.
func storedOldShape(t *testing.T, e Event) []byte {
	t.Helper()
	var fields map[string]json.RawMessage
	if err := jsonRoundTrip(e, &fields); err != nil {
		t.Fatal(err)
	}
	delete(fields, "effects")
	data, err := json.Marshal(fields)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// goalsAndDebts describes what the state holds in goals and debts.
func goalsAndDebts(w *Workspace) string {
	var out []string
	for id, g := range w.Goals {
		out = append(out, fmt.Sprintf("goal %s saved %s", id, g.Saved))
		for wallet, f := range g.Funded {
			out = append(out, fmt.Sprintf("goal %s wallet %s funded %s", id, wallet, f))
		}
	}
	for id, d := range w.Debts {
		out = append(out, fmt.Sprintf("debt %s pending %s", id, d.PendingBalance))
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// Goal and debt effects are decided once and travel in the transaction events: the
// goal's saved amount and each funding wallet's share, the debt's pending balance;
// corrections and deletions revert the old effect and apply the new one. Events stored
// before effects travelled in them get the same effects, folded by the state and read
// by a reader of the log that keeps no state.
func TestGoalAndDebtEffectsTravelInEvents(t *testing.T) {
	goal := uuid.MustParse("00000000-0000-0000-0000-0000000000c0")
	debt := uuid.MustParse("00000000-0000-0000-0000-0000000000d0")
	savings := uuid.MustParse("00000000-0000-0000-0000-000000000004")
	depositID := uuid.MustParse("00000000-0000-0000-0000-0000000000e1")
	paymentID := uuid.MustParse("00000000-0000-0000-0000-0000000000e2")
	base := append(workspace(),
		wallet(savings, "Savings", "MXN", "0", false),
		&GoalCreated{GoalID: goal, GoalFields: GoalFields{Name: "Trip", TargetAmount: dec("1000"), Currency: "MXN"}},
		&DebtCreated{DebtID: debt, DebtFields: DebtFields{Name: "Car", TotalAmount: dec("1000"), PendingBalance: dec("1000"), Currency: "MXN"}})

	deposit := func(from uuid.UUID, amount string) GoalMovement {
		return GoalMovement{Today: issued, GoalID: goal, Type: TxGoalDeposit, Amount: dec(amount), WalletID: idp(from), Date: MustParseDate("2026-03-01"), NewID: uuid.New}
	}
	withdraw := func(amount string) GoalMovement {
		return GoalMovement{Today: issued, GoalID: goal, Type: TxGoalWithdrawal, Amount: dec(amount), Date: MustParseDate("2026-03-02"), NewID: uuid.New}
	}
	firstDeposit := deposit(cash, "100")
	firstDeposit.NewID = func() uuid.UUID { return depositID }
	pay := PayDebt{Today: issued, DebtID: debt, TransactionID: paymentID, Amount: dec("40"), WalletID: idp(cash), Date: MustParseDate("2026-03-03")}
	saved := func(wallet uuid.UUID, amount string) Effects {
		return Effects{Goals: []GoalPosting{{GoalID: goal, WalletID: wallet, Amount: dec(amount)}}}
	}
	owed := func(amount string) Effects { return Effects{Debts: []DebtPosting{{DebtID: debt, Amount: dec(amount)}}} }

	cases := []struct {
		name  string
		given []decider
		when  decider
		then  []Effects // one per event decided
	}{
		{"a deposit adds to the goal and to its wallet's share", nil, deposit(cash, "100"),
			[]Effects{saved(cash, "100")}},
		{"a withdrawal splits in proportion, the cent left over to the bigger funder",
			[]decider{deposit(cash, "100"), deposit(bank, "200.01")}, withdraw("100"),
			[]Effects{saved(cash, "-33.33"), saved(bank, "-66.67")}},
		{"a withdrawal among equal funders gives the cent left over by wallet id",
			[]decider{deposit(cash, "1"), deposit(bank, "1"), deposit(savings, "1")}, withdraw("1"),
			[]Effects{saved(cash, "-0.34"), saved(bank, "-0.33"), saved(savings, "-0.33")}},
		{"a withdrawal into a wallet takes from that wallet's share", []decider{firstDeposit},
			GoalMovement{Today: issued, GoalID: goal, Type: TxGoalWithdrawal, Amount: dec("30"), WalletID: idp(cash), NewID: uuid.New},
			[]Effects{saved(cash, "-30")}},
		{"a payment lowers what is owed", nil, pay, []Effects{owed("-40")}},
		{"an expense without a debt moves nothing", nil,
			CreateTransaction{Today: issued, TransactionID: uuid.New(), Type: TxExpense, Amount: dec("5")}, []Effects{{}}},
		{"a corrected payment reverts the old amount and applies the new", []decider{pay},
			UpdateTransaction{TransactionID: paymentID, Amount: Of(dec("45.5")), WalletID: Of(bank)}, []Effects{owed("-5.5")}},
		{"a correction that leaves the amount still names the debt", []decider{pay},
			UpdateTransaction{TransactionID: paymentID, Concept: Of("fixed")}, []Effects{owed("0")}},
		{"a recategorized payment still names the debt", []decider{pay},
			BulkTransactions{IDs: []uuid.UUID{paymentID}, Operation: BulkRecategorize, CategoryID: idp(food)}, []Effects{owed("0")}},
		{"a deleted payment is owed again", []decider{pay}, DeleteTransaction{TransactionID: paymentID}, []Effects{owed("40")}},
		{"a deleted payment is owed again as it was corrected",
			[]decider{pay, UpdateTransaction{TransactionID: paymentID, Amount: Of(dec("45.5"))}},
			DeleteTransaction{TransactionID: paymentID}, []Effects{owed("45.5")}},
		{"a deleted deposit leaves the goal", []decider{firstDeposit}, DeleteTransaction{TransactionID: depositID},
			[]Effects{saved(cash, "-100")}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w, old := given(t, base...), given(t, base...)
			history := NewUpcaster()
			decide := func(d decider) []Event {
				t.Helper()
				events, err := d.Decide(w)
				if err != nil {
					t.Fatal(err)
				}
				then(t, w, events)
				for _, e := range events {
					stored := storedOldShape(t, e)
					data, err := DecodeEvent(e.EventType(), stored)
					if err != nil {
						t.Fatal(err)
					}
					if err := old.Apply(data); err != nil {
						t.Fatal(err)
					}
					upcast, err := DecodeEvent(e.EventType(), stored)
					if err != nil {
						t.Fatal(err)
					}
					history.Upcast("workspace-test", upcast)
					if got, want := asJSON(t, carried(t, upcast)), asJSON(t, carried(t, e)); got != want {
						t.Errorf("old-shaped %s read back with effects %s, decided %s", e.EventType(), got, want)
					}
				}
				return events
			}
			for _, g := range c.given {
				decide(g)
			}
			events := decide(c.when)
			if len(events) != len(c.then) {
				t.Fatalf("%d events, want %d", len(events), len(c.then))
			}
			for i, e := range events {
				if got, want := asJSON(t, carried(t, e)), asJSON(t, &c.then[i]); got != want {
					t.Errorf("event %d carries %s, want %s", i, got, want)
				}
			}
			if got, want := goalsAndDebts(old), goalsAndDebts(w); got != want {
				t.Errorf("old-shaped events fold into\n%s\nwant\n%s", got, want)
			}
		})
	}
}

// No command moves a transaction to another goal or debt (neither goalId nor debtId
// can be corrected), but the netted effects carry such a move as postings carry a
// change of wallet: the old effect reverted, the new one applied.
func TestNetEffectsOfAMove(t *testing.T) {
	goalA, goalB := uuid.MustParse("00000000-0000-0000-0000-0000000000c1"), uuid.MustParse("00000000-0000-0000-0000-0000000000c2")
	debtA, debtB := uuid.MustParse("00000000-0000-0000-0000-0000000000d1"), uuid.MustParse("00000000-0000-0000-0000-0000000000d2")
	cases := []struct {
		from, to Transaction
		want     Effects
	}{
		{Transaction{Type: TxExpense, Amount: dec("100"), WalletID: cash, DebtID: &debtA},
			Transaction{Type: TxExpense, Amount: dec("80"), WalletID: cash, DebtID: &debtB},
			Effects{Debts: []DebtPosting{{debtA, dec("100")}, {debtB, dec("-80")}}}},
		{Transaction{Type: TxGoalDeposit, Amount: dec("50"), WalletID: cash, GoalID: &goalA},
			Transaction{Type: TxGoalDeposit, Amount: dec("50"), WalletID: bank, GoalID: &goalB},
			Effects{Goals: []GoalPosting{{goalA, cash, dec("-50")}, {goalB, bank, dec("50")}}}},
	}
	for _, c := range cases {
		got := netEffects(c.from.goalAndDebtEffects().negated(), c.to.goalAndDebtEffects())
		if asJSON(t, got) != asJSON(t, &c.want) {
			t.Errorf("move carries %s, want %s", asJSON(t, got), asJSON(t, &c.want))
		}
	}
}
