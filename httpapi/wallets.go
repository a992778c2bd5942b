package httpapi

import (
	"net/http"
	"regexp"
	"strings"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/queries"
)

var hexColor = regexp.MustCompile(`^#[0-9a-fA-F]{6}$`)

// walletInput reads the fields of a wallet body (walletRules); the command fills the
// defaults of the fields left out.
func walletInput(b *body) domain.UpdateWallet {
	in := domain.UpdateWallet{
		Name:           walletName.read(b),
		Description:    walletDescription.read(b),
		Type:           walletType.read(b),
		Currency:       walletCurrency.read(b),
		CardColor:      walletCardColor.read(b),
		InitialBalance: walletBalance.read(b),
		Clabe:          walletClabe.read(b),
		Provider:       walletProvider.read(b),
		IsDefault:      walletIsDefault.read(b),
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

func createWallet(s *Server, w http.ResponseWriter, r *http.Request) {
	_, b, ok := readRequest(w, r, false)
	if !ok {
		return
	}
	in := walletInput(b)
	cmd := domain.CreateWallet{WalletID: newID(), WalletFields: domain.WalletFields{
		Name: in.Name.Value, Description: in.Description.Ptr(), Type: in.Type.Value, Currency: in.Currency.Value,
		CardColor: in.CardColor.Value, InitialBalance: in.InitialBalance.Value, Clabe: in.Clabe.Ptr(), Provider: in.Provider.Ptr(),
		IsDefault: in.IsDefault.Value,
	}}
	s.run(w, r, b, command{Decide: cmd.Decide, Answer: queries.Record("wallet", queries.WalletByID(activeWorkspace(r), cmd.WalletID))})
}

func updateWallet(s *Server, w http.ResponseWriter, r *http.Request) {
	id, b, ok := readRequest(w, r, true)
	if !ok {
		return
	}
	cmd := walletInput(b)
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

// reconcileWallet checks a wallet against its bank statement (domain.ReconcileWallet).
func reconcileWallet(s *Server, w http.ResponseWriter, r *http.Request) {
	id, b, ok := readRequest(w, r, true)
	if !ok {
		return
	}
	cmd := domain.ReconcileWallet{WalletID: id, Balance: reconcileBalance.read(b).Value, Date: reconcileDate.read(b).Value,
		Adjust: orDefault(reconcileAdjust.read(b), false), AdjustmentID: newID(), Today: s.today()}
	s.run(w, r, b, command{Decide: cmd.Decide, Answer: queries.Reconciled(activeWorkspace(r))})
}
