package ledger

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/eventstore"
	"github.com/finledger/finledger/internal/testkit/testdb"
)

func TestMain(m *testing.M) { os.Exit(testdb.Main(m)) }

// fixtureID names the n-th record of the snapshot fixture.
func fixtureID(n int) uuid.UUID {
	return uuid.MustParse(fmt.Sprintf("00000000-0000-4000-8000-%012d", n))
}

// snapshotFixture is a workspace's history touching every part of the state: wallets
// (one archived, one updated), categories, a tag, transactions of every type created,
// corrected and deleted, budgets (one alerted), goals with deposits and a split withdrawal, debts
// with payments, recurring payments paid, members invited, added, changed and removed,
// API keys, webhooks, exchange rates. It returns the events of each command, decided
// on the state as it grows, and that state.
func snapshotFixture(t *testing.T) (batches [][]domain.Event, state *domain.Workspace) {
	t.Helper()
	id := fixtureID(1)
	state = domain.NewWorkspace(id)
	record := func(events ...domain.Event) {
		t.Helper()
		for _, e := range events {
			if err := state.Apply(e); err != nil {
				t.Fatalf("fixture: %s: %v", e.EventType(), err)
			}
			state.Version++
		}
		batches = append(batches, events)
	}
	decided := func(events []domain.Event, err error) []domain.Event {
		t.Helper()
		if err != nil {
			t.Fatalf("fixture: %v", err)
		}
		return events
	}
	empty, note := "", "note"
	noDate, due := domain.Date{}, domain.MustParseDate("2027-01-31")
	member, gone := fixtureID(2), fixtureID(3)
	loan, trip, spare, oldDebt, rent, gym := fixtureID(10), fixtureID(11), fixtureID(12), fixtureID(13), fixtureID(14), fixtureID(15)
	archived := fixtureID(16)
	hook, oldHook, key := fixtureID(17), fixtureID(18), fixtureID(19)
	tag, budget, oldBudget := fixtureID(20), fixtureID(21), fixtureID(22)

	created := workspace()
	created[0].(*domain.WorkspaceCreated).WorkspaceID = id
	record(created[0])
	// A description set to "" stays apart from none.
	created[1].(*domain.WalletCreated).Description = &empty
	record(created[1:]...)
	record(
		wallet(archived, "Old", "MXN", "0", false), &domain.WalletArchived{WalletID: archived},
		&domain.WalletUpdated{WalletID: bank, Before: created[2].(*domain.WalletCreated).WalletFields, After: domain.WalletFields{
			Name: "Bank", Type: "bank_account", Currency: "MXN", CardColor: "#000000", InitialBalance: dec("1200.50"), Clabe: &note}},
		&domain.TagCreated{TagID: tag, Name: "Trips", Color: "#ff0000"},
		&domain.CategoryUpdated{CategoryID: travel, After: domain.CategoryFields{Name: "Travel", Icon: "plane", Color: "#00ff00", TagID: &tag}},
		&domain.CategoryCreated{CategoryID: fixtureID(23), CategoryFields: domain.CategoryFields{Name: "Gone", Icon: "x", Color: "#111111"}},
		&domain.CategoryArchived{CategoryID: fixtureID(23)},
	)

	expense := func(n int, amount string, category uuid.UUID) []domain.Event {
		return decided(domain.CreateTransaction{TransactionID: fixtureID(n), Type: domain.TxExpense, Amount: dec(amount), Date: domain.MustParseDate("2026-03-01"),
			CategoryID: &category, Concept: &note}.Decide(state))
	}
	record(expense(100, "12.50", food)...)
	record(decided(domain.CreateTransaction{TransactionID: fixtureID(101), Type: domain.TxIncome, Amount: dec("1000.00"), Date: domain.MustParseDate("2026-03-01"),
		WalletID: idp(bank), CategoryID: idp(food)}.Decide(state))...)
	record(decided(domain.CreateTransaction{TransactionID: fixtureID(102), Type: domain.TxTransfer, Amount: dec("200"), DestinationAmount: decp("10.25"),
		Date: domain.MustParseDate("2026-03-02"), WalletID: idp(bank), ToWalletID: idp(usd)}.Decide(state))...)
	record(decided(domain.UpdateTransaction{TransactionID: fixtureID(100), Amount: domain.Of(dec("13.75")), TagID: domain.Of(tag)}.Decide(state))...)
	record(decided(domain.DeleteTransaction{TransactionID: fixtureID(101)}.Decide(state))...)

	record(
		&domain.BudgetCreated{BudgetID: budget, BudgetFields: domain.BudgetFields{Name: "Food", CategoryID: food, Amount: dec("3000"), Currency: "MXN",
			Period: "monthly", StartDate: domain.MustParseDate("2026-03-01"), EndDate: domain.MustParseDate("2026-03-31"), AlertThreshold: dec("80")}},
		&domain.BudgetCreated{BudgetID: oldBudget, BudgetFields: domain.BudgetFields{Name: "Old", CategoryID: travel, Amount: dec("1"), Currency: "MXN",
			Period: "weekly", StartDate: domain.MustParseDate("2026-03-01"), EndDate: domain.MustParseDate("2026-03-07"), AlertThreshold: dec("100"), TagID: &tag}},
		&domain.BudgetDeleted{BudgetID: oldBudget},
		&domain.GoalCreated{GoalID: trip, GoalFields: domain.GoalFields{Name: "Trip", TargetAmount: dec("100"), Currency: "MXN"}},
		&domain.GoalCreated{GoalID: spare, GoalFields: domain.GoalFields{Name: "Spare", TargetAmount: dec("5"), Currency: "MXN", Deadline: &noDate}},
		&domain.GoalDeleted{GoalID: spare},
		&domain.DebtCreated{DebtID: loan, DebtFields: domain.DebtFields{Name: "Car", Creditor: &note, TotalAmount: dec("50"), PendingBalance: dec("50"), Currency: "MXN"}},
		&domain.DebtCreated{DebtID: oldDebt, DebtFields: domain.DebtFields{Name: "Old", TotalAmount: dec("1"), PendingBalance: dec("1"), Currency: "MXN"}},
		&domain.DebtDeleted{DebtID: oldDebt},
	)
	// A budget that an expense takes to its alert threshold.
	record(&domain.BudgetCreated{BudgetID: fixtureID(25), BudgetFields: domain.BudgetFields{Name: "Trips", CategoryID: travel, Amount: dec("10"),
		Currency: "MXN", Period: "monthly", StartDate: domain.MustParseDate("2026-03-01"), EndDate: domain.MustParseDate("2026-12-31"), AlertThreshold: dec("50")}})
	if alerted := decided(state.WithBudgetAlerts(expense(302, "6", travel))); len(alerted) != 2 {
		t.Fatalf("fixture: the budget did not alert: %v", alerted)
	} else {
		record(alerted...)
	}
	n := 200
	newID := func() uuid.UUID { n++; return fixtureID(n) }
	record(decided(domain.GoalMovement{GoalID: trip, Type: domain.TxGoalDeposit, Amount: dec("10"), WalletID: idp(cash), Date: domain.MustParseDate("2026-03-03"), NewID: newID}.Decide(state))...)
	record(decided(domain.GoalMovement{GoalID: trip, Type: domain.TxGoalDeposit, Amount: dec("20.01"), WalletID: idp(bank), Date: domain.MustParseDate("2026-03-03"), NewID: newID}.Decide(state))...)
	record(decided(domain.GoalMovement{GoalID: trip, Type: domain.TxGoalWithdrawal, Amount: dec("15"), Date: domain.MustParseDate("2026-03-04"), NewID: newID}.Decide(state))...)
	record(decided(domain.PayDebt{DebtID: loan, TransactionID: fixtureID(300), Amount: dec("20"), Date: domain.MustParseDate("2026-03-05")}.Decide(state))...)
	record(decided(domain.UpdateTransaction{TransactionID: fixtureID(300), Amount: domain.Of(dec("25.5"))}.Decide(state))...)
	record(&domain.GoalUpdated{GoalID: trip, After: domain.GoalFields{Name: "Big trip", TargetAmount: dec("150.00"), Currency: "MXN"}},
		&domain.DebtUpdated{DebtID: loan, After: domain.DebtFields{Name: "Car", TotalAmount: dec("60"), PendingBalance: dec("34.5"), Currency: "MXN", DueDate: &due}})

	record(
		&domain.RecurringCreated{RecurringID: rent, RecurringFields: domain.RecurringFields{Name: "Rent", Amount: dec("500"), Kind: domain.RecurringExpense,
			Periodicity: "monthly", NextPayment: domain.MustParseDate("2026-03-31"), Anchor: domain.MustParseDate("2026-03-31"), Active: true, WalletID: idp(bank), CategoryID: idp(food)}},
		&domain.RecurringCreated{RecurringID: gym, RecurringFields: domain.RecurringFields{Name: "Gym", Amount: dec("1"), Kind: "other",
			Periodicity: "weekly", NextPayment: domain.MustParseDate("2026-03-02"), Anchor: domain.MustParseDate("2026-03-02")}},
		&domain.RecurringDeleted{RecurringID: gym},
	)
	paidOn := domain.DateOf(2026, time.March, 31)
	record(decided(domain.PayRecurring{RecurringID: rent, TransactionID: fixtureID(301), PaidOn: paidOn, Today: paidOn}.Decide(state))...)
	record(&domain.RecurringUpdated{RecurringID: rent, After: domain.RecurringFields{Name: "Rent", Amount: dec("550"), Kind: domain.RecurringExpense,
		Periodicity: "monthly", NextPayment: domain.MustParseDate("2026-04-30"), Anchor: domain.MustParseDate("2026-03-31"), Active: false, WalletID: idp(bank)}})

	record(
		&domain.MemberInvited{Email: "someone@example.com", Role: domain.RoleReader, InvitedBy: owner},
		&domain.MemberInvited{Email: "member@example.com", Role: domain.RoleAdmin, InvitedBy: owner},
		&domain.MemberAdded{UserID: member, Role: domain.RoleAdmin, Email: "member@example.com"},
		&domain.MemberAdded{UserID: gone, Role: domain.RoleReader},
		&domain.MemberRoleChanged{UserID: member, Before: domain.RoleAdmin, After: domain.RoleCollaborator},
		&domain.MemberRemoved{UserID: gone, Role: domain.RoleReader},
		&domain.APIKeyCreated{KeyID: key, Name: "CI", Scopes: []string{domain.ScopeAll}, Prefix: "fl_", Hash: []byte{1, 2}, CreatedBy: owner},
		&domain.APIKeyCreated{KeyID: fixtureID(24), Name: "Old", Prefix: "fl_", Hash: []byte{3}, CreatedBy: member},
		&domain.APIKeyRevoked{KeyID: fixtureID(24)},
		&domain.WebhookCreated{WebhookID: hook, SealedSecret: []byte{9}, CreatedBy: owner, WebhookFields: domain.WebhookFields{
			Name: "Hook", URL: "https://example.com/a", Events: []string{domain.HookTransactionCreated}, Active: true}},
		&domain.WebhookUpdated{WebhookID: hook, After: domain.WebhookFields{Name: "Hook", URL: "https://example.com/b", Events: []string{}, Active: false}},
		&domain.WebhookSecretRotated{WebhookID: hook, SealedSecret: []byte{8}},
		&domain.WebhookCreated{WebhookID: oldHook, SealedSecret: []byte{7}, CreatedBy: owner, WebhookFields: domain.WebhookFields{
			Name: "Old", URL: "https://example.com/c", Events: []string{domain.HookAll}, Active: true}},
		&domain.WebhookDeleted{WebhookID: oldHook},
		&domain.ExchangeRatesSet{Date: domain.MustParseDate("2026-03-01"), Rates: []domain.ExchangeRate{{Base: "USD", Quote: "MXN", Rate: dec("17.123456")}}},
		&domain.ImportProfileSaved{ProfileID: fixtureID(26), ImportProfileFields: domain.ImportProfileFields{Name: "Banco", WalletID: idp(bank),
			Mapping: domain.ImportMapping{Date: 1, Amount: 3, Payee: 2, DateOrder: "DMY", DecimalSeparator: ",", Delimiter: "\t"}}},
		&domain.ImportProfileSaved{ProfileID: fixtureID(27), ImportProfileFields: domain.ImportProfileFields{Name: "Any",
			Mapping: domain.ImportMapping{Date: 2, Debit: 3, Credit: 4}}},
		&domain.ImportProfileSaved{ProfileID: fixtureID(28), ImportProfileFields: domain.ImportProfileFields{Name: "Old", Mapping: domain.ImportMapping{Date: 1, Amount: 2}}},
		&domain.ImportProfileDeleted{ProfileID: fixtureID(28)},
	)
	// Rules, and an import committed and one undone.
	transfer := domain.TxTransfer
	record(
		&domain.RuleCreated{RuleID: fixtureID(29), Rule: domain.RuleDefinition{Name: "Coffee", Position: 1,
			Conditions: []domain.RuleCondition{{Field: domain.RuleFieldPayee, Op: domain.RuleOpMatches, Value: "^oxxo"},
				{Field: domain.RuleFieldAmount, Op: domain.RuleOpBetween, Value: "1", ValueTo: "50.00"}},
			Actions: domain.RuleActions{CategoryID: idp(food), Concept: &note}}},
		&domain.RuleCreated{RuleID: fixtureID(30), Rule: domain.RuleDefinition{Name: "Savings", Position: 2,
			Conditions: []domain.RuleCondition{{Field: domain.RuleFieldMemo, Op: domain.RuleOpContains, Value: "ahorro"}},
			Actions:    domain.RuleActions{Type: &transfer, ToWalletID: idp(bank), Skip: true}}},
		&domain.RuleDeleted{RuleID: fixtureID(30)},
	)
	for i, imp := range []uuid.UUID{fixtureID(31), fixtureID(32)} {
		record(decided(domain.CommitImport{ImportID: imp, WalletID: cash, Format: "csv", Skipped: i, Rows: []domain.ImportedRow{
			{Index: 0, TransactionID: fixtureID(500 + i), Decision: domain.ImportDecisionImport, ExternalID: fmt.Sprint("R", i),
				Type: domain.TxExpense, Amount: dec("3.30"), Date: domain.MustParseDate("2026-03-06")}}}.Decide(state))...)
	}
	record(decided(domain.UndoImport{ImportID: fixtureID(32), Created: []uuid.UUID{fixtureID(501)}}.Decide(state))...)
	receipt := strings.Repeat("ab", 32)
	for _, a := range []uuid.UUID{fixtureID(33), fixtureID(34)} {
		record(decided(domain.AttachFile{AttachmentID: a, TransactionID: fixtureID(500), SHA256: receipt, Size: 2048,
			ContentType: "image/jpeg", FileName: "ticket.jpg"}.Decide(state))...)
	}
	record(decided(domain.DetachFile{AttachmentID: fixtureID(34), TransactionID: fixtureID(500)}.Decide(state))...)
	// Enough ordinary traffic for several snapshots to be taken along the way.
	for i := range 40 {
		record(expense(400+i, fmt.Sprintf("%d.%02d", 1+i, i*7%100), food)...)
		if i%5 == 4 {
			record(decided(domain.UpdateTransaction{TransactionID: fixtureID(400 + i - 1), CategoryID: domain.Of(travel)}.Decide(state))...)
			record(decided(domain.DeleteTransaction{TransactionID: fixtureID(400 + i - 2)}.Decide(state))...)
		}
	}
	return batches, state
}

// sameState reports how got differs from want, looking at every field, exported or
// not, and comparing decimals exactly, scale included (ExactString); but not at the
// transactions each has met (sameTransactions compares those).
func sameState(got, want *domain.Workspace) []string {
	return differences("Workspace", got, want)
}

// differences reports how got differs from want, two pointers to values of one type.
func differences(name string, got, want any) []string {
	var diffs []string
	var walk func(path string, a, b reflect.Value)
	walk = func(path string, a, b reflect.Value) {
		if len(diffs) > 10 {
			return
		}
		if a.Type() == decimalType {
			if got, want := domain.ExactString(a.Interface().(decimal.Decimal)), domain.ExactString(b.Interface().(decimal.Decimal)); a.CanInterface() && got != want {
				diffs = append(diffs, fmt.Sprintf("%s: %s, want %s", path, got, want))
			}
			return
		}
		switch a.Kind() {
		case reflect.Pointer, reflect.Map, reflect.Slice:
			if a.IsNil() != b.IsNil() {
				diffs = append(diffs, fmt.Sprintf("%s: nil %v, want nil %v", path, a.IsNil(), b.IsNil()))
				return
			}
		}
		switch a.Kind() {
		case reflect.Pointer:
			if !a.IsNil() {
				walk(path, a.Elem(), b.Elem())
			}
		case reflect.Struct:
			for i := range a.NumField() {
				if f := a.Type().Field(i); f.Tag.Get("snapshot") != "-" {
					walk(path+"."+f.Name, a.Field(i), b.Field(i))
				}
			}
		case reflect.Map:
			if a.Len() != b.Len() {
				diffs = append(diffs, fmt.Sprintf("%s: %d entries, want %d", path, a.Len(), b.Len()))
				return
			}
			for _, k := range b.MapKeys() {
				if !a.MapIndex(k).IsValid() {
					diffs = append(diffs, fmt.Sprintf("%s: lacks %v", path, k))
					continue
				}
				walk(fmt.Sprintf("%s[%v]", path, k), a.MapIndex(k), b.MapIndex(k))
			}
		case reflect.Slice, reflect.Array:
			if a.Len() != b.Len() {
				diffs = append(diffs, fmt.Sprintf("%s: length %d, want %d", path, a.Len(), b.Len()))
				return
			}
			for i := range a.Len() {
				walk(fmt.Sprintf("%s[%d]", path, i), a.Index(i), b.Index(i))
			}
		case reflect.String:
			if a.String() != b.String() {
				diffs = append(diffs, fmt.Sprintf("%s: %q, want %q", path, a.String(), b.String()))
			}
		case reflect.Bool:
			if a.Bool() != b.Bool() {
				diffs = append(diffs, fmt.Sprintf("%s: %v, want %v", path, a.Bool(), b.Bool()))
			}
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			if a.Int() != b.Int() {
				diffs = append(diffs, fmt.Sprintf("%s: %d, want %d", path, a.Int(), b.Int()))
			}
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			if a.Uint() != b.Uint() {
				diffs = append(diffs, fmt.Sprintf("%s: %d, want %d", path, a.Uint(), b.Uint()))
			}
		default:
			diffs = append(diffs, fmt.Sprintf("%s: cannot compare a %s", path, a.Kind()))
		}
	}
	walk(name, reflect.ValueOf(got).Elem(), reflect.ValueOf(want).Elem())
	return diffs
}

// sameTransactions checks that got, a state that has met few transactions or none, meets
// every transaction of want, a fold from the stream's start, as want holds it.
func sameTransactions(t *testing.T, pool *pgxpool.Pool, got, want *domain.Workspace) {
	t.Helper()
	if want.TransactionsPartial || len(want.Transactions) == 0 {
		t.Fatal("want is no fold that has met every transaction")
	}
	ids := slices.Collect(maps.Keys(want.Transactions))
	if err := meetTransactions(context.Background(), pool, got, ids, got.Version); err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if got.Transactions[id] == nil {
			t.Fatalf("transaction %s not met", id)
		}
		if diffs := differences("Transaction", got.Transactions[id], want.Transactions[id]); len(diffs) > 0 {
			t.Fatalf("transaction %s met otherwise than the fold holds it: %v", id, diffs)
		}
	}
}

// A field the snapshot form cannot hold fails here, not in production: an unexported
// field of the state, or one of a kind it does not know.
func TestSnapshotFormHoldsTheWholeState(t *testing.T) {
	if _, err := workspaceCodec(); err != nil {
		t.Fatal(err)
	}
	type hidden struct {
		Name  string
		saved decimal.Decimal
	}
	type floating struct{ Rate float64 }
	for _, typ := range []reflect.Type{reflect.TypeFor[hidden](), reflect.TypeFor[map[uuid.UUID]*floating]()} {
		if _, err := (codecBuilder{}).of(typ, "T"); err == nil {
			t.Errorf("%s: the form accepted it", typ)
		}
	}
}

func TestSnapshotEncodingRoundTrip(t *testing.T) {
	_, want := snapshotFixture(t)
	data, err := encodeWorkspace(want)
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeWorkspace(data)
	if err != nil {
		t.Fatal(err)
	}
	if diffs := sameState(got, want); len(diffs) > 0 {
		t.Fatalf("decoded state differs:\n%v", diffs)
	}
	if !reflect.DeepEqual(got.Wallets[cash].Description, want.Wallets[cash].Description) || got.Wallets[bank].Description != nil {
		t.Errorf("pointers to empty strings and nil pointers must stay apart")
	}
	again, err := encodeWorkspace(got)
	if err != nil || !slices.Equal(again, data) {
		t.Fatalf("a decoded state encodes differently (%v)", err)
	}

	// A decimal comes back with its scale; two encode alike when they are written
	// alike (a positive exponent is an integer's).
	encoded := func(s string) []byte {
		w := domain.NewWorkspace(uuid.Nil)
		w.Goals[food] = &domain.Goal{Saved: dec(s)}
		data, _ := encodeWorkspace(w)
		return data
	}
	for _, pair := range [][2]string{{"1.50", "1.5"}, {"100.0", "1e2"}, {"0.000", "0"}, {"-2.500", "-2.5"},
		{"123456789012345678901234567890.100", "123456789012345678901234567890.1"}} {
		if slices.Equal(encoded(pair[0]), encoded(pair[1])) {
			t.Errorf("%s and %s encode alike", pair[0], pair[1])
		}
		for _, s := range pair {
			back, err := decodeWorkspace(encoded(s))
			if err != nil || domain.ExactString(back.Goals[food].Saved) != domain.ExactString(dec(s)) {
				t.Errorf("%s came back as %v (%v)", s, back.Goals[food].Saved, err)
			}
		}
	}
	if !slices.Equal(encoded("1e2"), encoded("100")) || !slices.Equal(encoded("-25e-1"), encoded("-2.5")) {
		t.Errorf("decimals written alike encode differently")
	}

	// Damage is an error, never a panic or an unbounded allocation.
	for cut := range len(data) {
		if _, err := decodeWorkspace(data[:cut]); err == nil {
			t.Fatalf("a snapshot cut at %d of %d bytes decoded", cut, len(data))
		}
	}
}

// The fold of a fixed history, as a snapshot encodes it. When this fails, the fold or
// the encoding changed: if Apply now folds some event differently, or the encoding is
// laid out differently, raise snapshotRevision so that no snapshot of the old fold is
// read; then set want to the new sum.
func TestSnapshotOfTheFixture(t *testing.T) {
	_, state := snapshotFixture(t)
	data, err := encodeWorkspace(state)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	const want = "5ad64da749f8fcc47cbf79b819b8438bd636b2483b85d6ea2c626c66b7a2b4d1"
	if got := hex.EncodeToString(sum[:]); got != want {
		t.Fatalf("the fixture's snapshot has sum %s, want %s (see the comment of this test)", got, want)
	}
}

// noProjection stands in for the read models, which these tests do not read.
func noProjection() Projection {
	return ProjectFunc(func(*pgx.Batch, []eventstore.RecordedEvent, []domain.Event) error { return nil })
}

// appendFixture stores the fixture's history through ledger, one command per batch.
func appendFixture(t *testing.T, pool *pgxpool.Pool, ledger *Ledger, batches [][]domain.Event) uuid.UUID {
	t.Helper()
	ctx := context.Background()
	opened := batches[0][0].(*domain.WorkspaceCreated)
	events, err := ledger.encode(batches[0], Metadata{ActorType: ActorSystem})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := eventstore.Append(ctx, pool, domain.StreamID(opened.WorkspaceID), eventstore.NoStream, events, time.Now()); err != nil {
		t.Fatal(err)
	}
	for _, batch := range batches[1:] {
		_, err := ledger.Execute(ctx, Call{WorkspaceID: opened.WorkspaceID, Metadata: Metadata{ActorType: ActorSystem},
			Decide: func(*domain.Workspace) ([]domain.Event, error) { return batch, nil }})
		if err != nil {
			t.Fatal(err)
		}
	}
	return opened.WorkspaceID
}

// load runs what a command does first on ledger: it loads the workspace's state.
func load(t *testing.T, pool *pgxpool.Pool, ledger *Ledger, id uuid.UUID, head int64) (state *domain.Workspace, snapshotAt int64) {
	t.Helper()
	ctx := context.Background()
	entry, err := ledger.states.acquire(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	defer ledger.states.release(entry)
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		state, err = ledger.stateAt(ctx, tx, entry, head)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return state, entry.snapshotAt
}

func snapshotVersions(t *testing.T, pool *pgxpool.Pool, id uuid.UUID) []int64 {
	t.Helper()
	rows, err := pool.Query(context.Background(), `SELECT version FROM workspace_snapshots WHERE workspace_id = $1 ORDER BY version`, id)
	if err != nil {
		t.Fatal(err)
	}
	versions, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		t.Fatal(err)
	}
	return versions
}

// A state loaded from a snapshot and the events after it is the fold of the whole
// stream, field for field; the Ledger takes snapshots as the stream grows and keeps
// the latest two.
func TestSnapshotPlusTailIsTheFold(t *testing.T) {
	pool := testdb.Pool(t)
	ctx := context.Background()
	batches, want := snapshotFixture(t)
	writer := NewLedger(pool, noProjection, time.Now, 10)
	writer.SnapshotEvery(7)
	id := appendFixture(t, pool, writer, batches)

	versions := snapshotVersions(t, pool, id)
	if len(versions) != 2 || versions[1] <= versions[0] {
		t.Fatalf("snapshots at %v, want the latest two", versions)
	}
	full := domain.NewWorkspace(id)
	if err := foldStream(ctx, pool, full, -1); err != nil {
		t.Fatal(err)
	}
	if diffs := sameState(full, want); len(diffs) > 0 {
		t.Fatalf("the stream's fold is not the fixture's state:\n%v", diffs)
	}

	// Events after the latest snapshot, by an instance that takes none so soon, and a
	// new instance.
	late := NewLedger(pool, noProjection, time.Now, 10)
	for i := range 3 {
		batch := []domain.Event{&domain.TagCreated{TagID: fixtureID(900 + i), Name: "late", Color: "#123456"}}
		if _, err := late.Execute(ctx, Call{WorkspaceID: id, Metadata: Metadata{ActorType: ActorSystem},
			Decide: func(*domain.Workspace) ([]domain.Event, error) { return batch, nil }}); err != nil {
			t.Fatal(err)
		}
	}
	if err := foldStream(ctx, pool, full, -1); err != nil {
		t.Fatal(err)
	}
	latest := snapshotVersions(t, pool, id)[1]
	if latest >= full.Version {
		t.Fatalf("no events after the latest snapshot (%d of %d)", latest, full.Version)
	}
	reader := NewLedger(pool, noProjection, time.Now, 10)
	got, from := load(t, pool, reader, id, -1)
	if from != latest {
		t.Fatalf("loaded from the snapshot at %d, want %d", from, latest)
	}
	if diffs := sameState(got, full); len(diffs) > 0 || got.Version != full.Version {
		t.Fatalf("snapshot and tail differ from the fold at %d (got %d):\n%v", full.Version, got.Version, diffs)
	}
	sameTransactions(t, pool, got, full)

	// Under the stream's lock the head is known: a snapshot above it is never used.
	older := NewLedger(pool, noProjection, time.Now, 10)
	got, from = load(t, pool, older, id, latest-1)
	if from >= latest || got.Version != latest-1 {
		t.Fatalf("with head %d: loaded from %d to %d", latest-1, from, got.Version)
	}

	// Loading with snapshots off folds everything, to the same state.
	off := NewLedger(pool, noProjection, time.Now, 10)
	off.SnapshotEvery(0)
	got, from = load(t, pool, off, id, -1)
	if diffs := sameState(got, full); from != 0 || len(diffs) > 0 {
		t.Fatalf("without snapshots: from %d, %v", from, diffs)
	}
}

// Instances share the snapshots, not their bookkeeping: a snapshot another instance
// took counts as one's own, so an instance that cached the workspace before it neither
// takes one again soon after nor leaves more than the latest two.
func TestSnapshotsOfAnotherInstanceCount(t *testing.T) {
	pool := testdb.Pool(t)
	ctx := context.Background()
	batches, _ := snapshotFixture(t)
	a, b := NewLedger(pool, noProjection, time.Now, 10), NewLedger(pool, noProjection, time.Now, 10)
	a.SnapshotEvery(7)
	b.SnapshotEvery(7)
	id := appendFixture(t, pool, a, batches)
	tag := func(l *Ledger, n int) {
		t.Helper()
		batch := []domain.Event{&domain.TagCreated{TagID: fixtureID(900 + n), Name: "tag", Color: "#123456"}}
		if _, err := l.Execute(ctx, Call{WorkspaceID: id, Metadata: Metadata{ActorType: ActorSystem},
			Decide: func(*domain.Workspace) ([]domain.Event, error) { return batch, nil }}); err != nil {
			t.Fatal(err)
		}
	}

	_, known := load(t, pool, b, id, -1)
	n := 0
	taken := snapshotVersions(t, pool, id)
	for slices.Max(taken) == known {
		tag(a, n)
		n++
		taken = snapshotVersions(t, pool, id)
	}
	// b folds a's events after the snapshot it knows of, well past it, and appends one.
	tag(b, n)
	n++
	if got := snapshotVersions(t, pool, id); !slices.Equal(got, taken) {
		t.Fatalf("snapshots at %v after the other instance's command, want %v: the one taken by the first was not counted", got, taken)
	}
	for slices.Equal(snapshotVersions(t, pool, id), taken) {
		tag(b, n)
		n++
	}
	if got := snapshotVersions(t, pool, id); len(got) != 2 || got[0] != taken[len(taken)-1] {
		t.Fatalf("snapshots at %v once the other instance took one, want the latest two after %v", got, taken)
	}
}

// A snapshot of a format this build does not know is never read, nor one that does
// not decode: the stream is folded instead.
func TestSnapshotOfUnknownFormatIsIgnored(t *testing.T) {
	pool := testdb.Pool(t)
	ctx := context.Background()
	batches, want := snapshotFixture(t)
	writer := NewLedger(pool, noProjection, time.Now, 10)
	writer.SnapshotEvery(0)
	id := appendFixture(t, pool, writer, batches)

	format, err := snapshotFormat()
	if err != nil {
		t.Fatal(err)
	}
	valid, err := encodeWorkspace(want)
	if err != nil {
		t.Fatal(err)
	}
	// The state of the head, but in a format from another build (say, before a field
	// was added to the state): decoding it as this build's would be wrong.
	if _, err := pool.Exec(ctx, `INSERT INTO workspace_snapshots (workspace_id, version, format, state) VALUES ($1, $2, $3, $4)`,
		id, want.Version, "0.0123456789abcdef", valid); err != nil {
		t.Fatal(err)
	}
	got, from := load(t, pool, NewLedger(pool, noProjection, time.Now, 10), id, -1)
	if diffs := sameState(got, want); from != 0 || len(diffs) > 0 {
		t.Fatalf("from %d: %v", from, diffs)
	}

	if _, err := pool.Exec(ctx, `UPDATE workspace_snapshots SET format = $2, state = $3 WHERE workspace_id = $1`,
		id, format, valid[:len(valid)/2]); err != nil {
		t.Fatal(err)
	}
	got, from = load(t, pool, NewLedger(pool, noProjection, time.Now, 10), id, -1)
	if diffs := sameState(got, want); from != 0 || len(diffs) > 0 {
		t.Fatalf("a snapshot cut in half: from %d: %v", from, diffs)
	}
}

// CheckSnapshots, which verify runs, finds a snapshot that is not the fold it stands for.
func TestCheckSnapshotsFindsATamperedSnapshot(t *testing.T) {
	pool := testdb.Pool(t)
	ctx := context.Background()
	batches, _ := snapshotFixture(t)
	writer := NewLedger(pool, noProjection, time.Now, 10)
	writer.SnapshotEvery(7)
	id := appendFixture(t, pool, writer, batches)
	if _, err := pool.Exec(ctx, `INSERT INTO workspace_snapshots (workspace_id, version, format, state) VALUES ($1, 1, 'old', '\x00')`, id); err != nil {
		t.Fatal(err)
	}
	check, err := CheckSnapshots(ctx, pool)
	if err != nil {
		t.Fatal(err)
	}
	if check.Checked != 2 || len(check.Differing) != 0 || check.OtherFormats != 1 {
		t.Fatalf("untouched: %+v", check)
	}

	latest := snapshotVersions(t, pool, id)[2]
	var data []byte
	if err := pool.QueryRow(ctx, `SELECT state FROM workspace_snapshots WHERE workspace_id = $1 AND version = $2`, id, latest).Scan(&data); err != nil {
		t.Fatal(err)
	}
	state, err := decodeWorkspace(data)
	if err != nil {
		t.Fatal(err)
	}
	state.Wallets[cash].Balance = state.Wallets[cash].Balance.Add(dec("0.01"))
	if data, err = encodeWorkspace(state); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `UPDATE workspace_snapshots SET state = $3 WHERE workspace_id = $1 AND version = $2`, id, latest, data); err != nil {
		t.Fatal(err)
	}
	check, err = CheckSnapshots(ctx, pool)
	if err != nil {
		t.Fatal(err)
	}
	if want := []SnapshotID{{id, latest}}; !slices.Equal(check.Differing, want) {
		t.Fatalf("tampered balance: %+v, want %v differing", check, want)
	}

	// A snapshot of a version the stream never reached is of a state that never was.
	if _, err := pool.Exec(ctx, `UPDATE workspace_snapshots SET version = version + 1000 WHERE workspace_id = $1 AND version = $2`, id, latest); err != nil {
		t.Fatal(err)
	}
	check, err = CheckSnapshots(ctx, pool)
	if err != nil {
		t.Fatal(err)
	}
	if want := []SnapshotID{{id, latest + 1000}}; !slices.Equal(check.Differing, want) {
		t.Fatalf("beyond the head: %+v, want %v differing", check, want)
	}
	// Nor does a command start from it.
	if _, from := load(t, pool, NewLedger(pool, noProjection, time.Now, 10), id, -1); from >= latest {
		t.Fatalf("loaded from the snapshot at %d, beyond the head", from)
	}
}
