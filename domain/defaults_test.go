package domain

import (
	"testing"

	"github.com/google/uuid"
)

// only returns the one event decide gives in w, of type E.
func only[E Event](t *testing.T, w *Workspace, decide func(*Workspace) ([]Event, error)) E {
	t.Helper()
	events, err := decide(w)
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 1 {
		t.Fatalf("events = %d, want 1: %#v", len(events), events)
	}
	e, ok := events[0].(E)
	if !ok {
		t.Fatalf("event = %T", events[0])
	}
	return e
}

func TestCreateWalletDefaults(t *testing.T) {
	w := given(t, workspace()...)
	left := only[*WalletCreated](t, w, CreateWallet{WalletID: uuid.New(), WalletFields: WalletFields{Name: "Pocket"}}.Decide)
	want := WalletFields{Name: "Pocket", Type: DefaultWalletType, Currency: DefaultCurrency, CardColor: DefaultCardColor}
	if !walletFieldsEqual(left.WalletFields, want) || !left.InitialBalance.IsZero() {
		t.Errorf("left out: %+v, want %+v", left.WalletFields, want)
	}
	if DefaultWalletType != "cash" || DefaultCurrency != "MXN" || DefaultCardColor != "#111827" {
		t.Errorf("defaults %q %q %q differ from spec 2.1", DefaultWalletType, DefaultCurrency, DefaultCardColor)
	}
	sent := WalletFields{Name: "Card", Type: "card", Currency: "USD", CardColor: "#ff0000", InitialBalance: dec("5")}
	kept := only[*WalletCreated](t, w, CreateWallet{WalletID: uuid.New(), WalletFields: sent}.Decide)
	if !walletFieldsEqual(kept.WalletFields, sent) {
		t.Errorf("given: %+v, want %+v", kept.WalletFields, sent)
	}
}

func TestCreateCategoryDefaults(t *testing.T) {
	w := given(t, workspace()...)
	left := only[*CategoryCreated](t, w, CreateCategory{CategoryID: uuid.New(), CategoryFields: CategoryFields{Name: "Rent"}}.Decide)
	if left.Icon != "tag" || left.Color != "#6366f1" || left.IsDefault {
		t.Errorf("left out: %+v, want icon tag, color #6366f1, not default", left.CategoryFields)
	}
	kept := only[*CategoryCreated](t, w, CreateCategory{CategoryID: uuid.New(),
		CategoryFields: CategoryFields{Name: "Fun", Icon: "star", Color: "#00ff00", IsDefault: true}}.Decide)
	if kept.Icon != "star" || kept.Color != "#00ff00" || !kept.IsDefault {
		t.Errorf("given: %+v", kept.CategoryFields)
	}
}

func TestCreateTagDefaults(t *testing.T) {
	w := given(t, workspace()...)
	if left := only[*TagCreated](t, w, CreateTag{TagID: uuid.New(), Name: "Work"}.Decide); left.Color != "#6b7280" {
		t.Errorf("left out: color %q, want #6b7280", left.Color)
	}
	if kept := only[*TagCreated](t, w, CreateTag{TagID: uuid.New(), Name: "Home", Color: "#123456"}.Decide); kept.Color != "#123456" {
		t.Errorf("given: color %q, want #123456", kept.Color)
	}
}

func TestCreateWorkspaceDefaults(t *testing.T) {
	id := uuid.New()
	left := CreateWorkspace{WorkspaceID: id, Name: "Team", OwnerID: owner}.Opened()
	want := WorkspaceCreated{WorkspaceID: id, Kind: WorkspaceTeam, Name: "Team", Currency: "MXN", OwnerID: owner}
	if *left != want {
		t.Errorf("left out: %+v, want %+v", *left, want)
	}
	kept := CreateWorkspace{WorkspaceID: id, Name: "Team", Currency: "EUR", OwnerID: owner, Language: "es"}.Opened()
	if kept.Currency != "EUR" || kept.Language != "es" {
		t.Errorf("given: %+v", *kept)
	}
}

func TestCreateTransactionDefaults(t *testing.T) {
	w := given(t, workspace()...)
	left := only[*TransactionCreated](t, w, CreateTransaction{TransactionID: uuid.New(), Amount: dec("10"), Today: issued}.Decide)
	if left.Type != TxExpense || left.WalletID != cash || left.Date != issued {
		t.Errorf("left out: type %q wallet %s date %s, want expense from the default wallet today", left.Type, left.WalletID, left.Date)
	}
	kept := only[*TransactionCreated](t, w, CreateTransaction{TransactionID: uuid.New(), Type: TxIncome, Amount: dec("10"),
		WalletID: idp(bank), Today: issued}.Decide)
	if kept.Type != TxIncome || kept.WalletID != bank {
		t.Errorf("given: type %q wallet %s", kept.Type, kept.WalletID)
	}
}
