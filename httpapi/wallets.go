package httpapi

import (
	"net/http"
	"regexp"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/queries"
)

var hexColor = regexp.MustCompile(`^#[0-9a-fA-F]{6}$`)

// Wallet field defaults (spec 2.1).
const (
	defaultWalletType  = "cash"
	defaultCardColor   = "#111827"
	defaultWalletMoney = domain.DefaultCurrency
)

// walletInput reads the fields of a wallet body; on create, absent fields take their
// defaults and name is required.
func walletInput(b *body, create bool) domain.UpdateWallet {
	in := domain.UpdateWallet{
		Name:           b.read(walletName),
		Description:    b.read(walletDescription),
		Type:           b.read(walletType),
		Currency:       currency(b, "currency"),
		CardColor:      b.read(walletCardColor),
		InitialBalance: b.amount("balance", false),
		Clabe:          b.read(walletClabe),
		Provider:       b.read(walletProvider),
		IsDefault:      b.boolean("isDefault"),
	}
	if create {
		b.required("name", in.Name.Valid)
	} else {
		b.notNull("name", "type", "currency", "cardColor", "balance", "isDefault")
	}
	return in
}

// currency reads an ISO 4217 code money may be kept in (domain.IsCurrency), accepting
// lower case. Every currency a request names is read through it.
func currency(b *body, name string) domain.Nullable[string] {
	v := b.str(name, 3, 3)
	if v.Valid && !b.failed(name) {
		v.Value = strings.ToUpper(v.Value)
		if !domain.IsCurrency(v.Value) {
			b.fail(name, "must be an ISO 4217 currency code in use, such as MXN, USD or EUR")
		}
	}
	return v
}

func orDefault[T any](n domain.Nullable[T], fallback T) T {
	if n.Valid {
		return n.Value
	}
	return fallback
}

func createWallet(s *Server, w http.ResponseWriter, r *http.Request) {
	_, b, ok := readRequest(w, r, false)
	if !ok {
		return
	}
	in := walletInput(b, true)
	cmd := domain.CreateWallet{WalletID: newID(), WalletFields: domain.WalletFields{
		Name: in.Name.Value, Description: in.Description.Ptr(), Type: orDefault(in.Type, defaultWalletType),
		Currency: orDefault(in.Currency, defaultWalletMoney), CardColor: orDefault(in.CardColor, defaultCardColor),
		InitialBalance: orDefault(in.InitialBalance, decimal.Zero), Clabe: in.Clabe.Ptr(), Provider: in.Provider.Ptr(),
		IsDefault: orDefault(in.IsDefault, false),
	}}
	s.run(w, r, b, command{Decide: cmd.Decide, Answer: queries.Record("wallet", queries.WalletByID(activeWorkspace(r), cmd.WalletID))})
}

func updateWallet(s *Server, w http.ResponseWriter, r *http.Request) {
	id, b, ok := readRequest(w, r, true)
	if !ok {
		return
	}
	cmd := walletInput(b, false)
	cmd.WalletID = id
	s.run(w, r, b, command{Decide: cmd.Decide, Answer: queries.Record("wallet", queries.WalletByID(activeWorkspace(r), id))})
}

func archiveWallet(s *Server, w http.ResponseWriter, r *http.Request) {
	id, b, ok := readRequest(w, r, true)
	if !ok {
		return
	}
	cmd := domain.ArchiveWallet{WalletID: id}
	s.run(w, r, b, command{Decide: cmd.Decide, Answer: queries.Record("wallet", queries.WalletByID(activeWorkspace(r), id))})
}
