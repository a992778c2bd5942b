package ledger

import (
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/finledger/finledger/domain"
)

// The fixtures of the Ledger's tests: a workspace with three wallets and two
// categories, as the domain's own tests build it.

// given folds events into a fresh workspace state, as a stream would.
func given(t *testing.T, events ...domain.Event) *domain.Workspace {
	t.Helper()
	w := domain.NewWorkspace(uuid.New())
	for _, e := range events {
		if err := w.Apply(e); err != nil {
			t.Fatal(err)
		}
		w.Version++
	}
	return w
}

// then applies decided events, as the ledger does after commit.
func then(t *testing.T, w *domain.Workspace, events []domain.Event) {
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
var issued = domain.BusinessDay(time.Date(2026, 3, 10, 18, 0, 0, 0, time.UTC))

var (
	owner  = uuid.MustParse("00000000-0000-0000-0000-0000000000aa")
	cash   = uuid.MustParse("00000000-0000-0000-0000-000000000001")
	bank   = uuid.MustParse("00000000-0000-0000-0000-000000000002")
	usd    = uuid.MustParse("00000000-0000-0000-0000-000000000003")
	food   = uuid.MustParse("00000000-0000-0000-0000-0000000000f0")
	travel = uuid.MustParse("00000000-0000-0000-0000-0000000000f1")
)

func wallet(id uuid.UUID, name, currency, balance string, isDefault bool) *domain.WalletCreated {
	return &domain.WalletCreated{WalletID: id, WalletFields: domain.WalletFields{
		Name: name, Type: "cash", Currency: currency, CardColor: "#111827", InitialBalance: dec(balance), IsDefault: isDefault,
	}}
}

func workspace() []domain.Event {
	return []domain.Event{
		&domain.WorkspaceCreated{Kind: domain.WorkspacePersonal, Name: "Personal", Currency: "MXN", OwnerID: owner},
		wallet(cash, "Cash", "MXN", "100", true),
		wallet(bank, "Bank", "MXN", "1000", false),
		wallet(usd, "Dollars", "USD", "50", false),
		&domain.CategoryCreated{CategoryID: food, CategoryFields: domain.CategoryFields{Name: "Food", Icon: "tag", Color: "#6366f1"}},
		&domain.CategoryCreated{CategoryID: travel, CategoryFields: domain.CategoryFields{Name: "Travel", Icon: "tag", Color: "#6366f1"}},
	}
}

func balances(w *domain.Workspace) map[string]string {
	out := map[string]string{}
	for _, wl := range w.Wallets {
		out[wl.Name] = wl.Balance.String()
	}
	return out
}

func code(err error) string {
	if e, ok := domain.AsError(err); ok {
		return e.Code
	}
	if err != nil {
		return "unexpected: " + err.Error()
	}
	return ""
}
