package httpapi

import (
	"net/http"
	"regexp"
	"strings"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/finledger/finledger/commands"
	"github.com/finledger/finledger/queries"
)

var (
	hexColor     = regexp.MustCompile(`^#[0-9a-fA-F]{6}$`)
	currencyCode = regexp.MustCompile(`^[A-Z]{3}$`)
)

// Wallet field defaults (spec 2.1).
const (
	defaultWalletType  = "cash"
	defaultCardColor   = "#111827"
	defaultWalletMoney = commands.DefaultCurrency
)

// walletInput reads the fields of a wallet body; on create, absent fields take their
// defaults and name is required.
func walletInput(b *body, create bool) commands.UpdateWallet {
	in := commands.UpdateWallet{
		Name:           b.str("name", 1, 50),
		Description:    b.str("description", 0, 255),
		Type:           b.enum("type", commands.WalletTypes),
		Currency:       currency(b, "currency"),
		CardColor:      b.str("cardColor", 0, 7),
		InitialBalance: b.amount("balance", false),
		Clabe:          b.str("clabe", 0, 40),
		Provider:       b.str("provider", 0, 70),
		IsDefault:      b.boolean("isDefault"),
	}
	b.pattern("cardColor", in.CardColor, hexColor, "#RRGGBB")
	if create {
		b.required("name", in.Name.Valid)
	} else {
		b.notNull("name", "type", "currency", "cardColor", "balance", "isDefault")
	}
	return in
}

// currency reads an ISO 4217 code, accepting lower case.
func currency(b *body, name string) commands.Nullable[string] {
	v := b.str(name, 3, 3)
	if v.Valid {
		v.Value = strings.ToUpper(v.Value)
		b.pattern(name, v, currencyCode, "a three-letter ISO 4217 code")
	}
	return v
}

func orDefault[T any](n commands.Nullable[T], fallback T) T {
	if n.Valid {
		return n.Value
	}
	return fallback
}

func listWallets(s *Server, w http.ResponseWriter, r *http.Request) {
	p := principalFrom(r.Context())
	wallets, err := queries.Wallets(r.Context(), s.pool, p.Workspace.ID)
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"wallets": wallets})
}

func createWallet(s *Server, w http.ResponseWriter, r *http.Request) {
	b, err := readBody(w, r)
	if err != nil {
		writeError(w, r, err)
		return
	}
	in := walletInput(b, true)
	if err := b.finish(); err != nil {
		writeError(w, r, err)
		return
	}
	cmd := commands.CreateWallet{WalletID: newID(), WalletFields: commands.WalletFields{
		Name: in.Name.Value, Description: in.Description.Ptr(), Type: orDefault(in.Type, defaultWalletType),
		Currency: orDefault(in.Currency, defaultWalletMoney), CardColor: orDefault(in.CardColor, defaultCardColor),
		InitialBalance: orDefault(in.InitialBalance, decimal.Zero), Clabe: in.Clabe.Ptr(), Provider: in.Provider.Ptr(),
		IsDefault: orDefault(in.IsDefault, false),
	}}
	s.run(w, r, b, command{Decide: cmd.Decide, Status: http.StatusOK, Render: renderWallet(cmd.WalletID)})
}

func getWallet(s *Server, w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "id")
	if err != nil {
		writeError(w, r, err)
		return
	}
	p := principalFrom(r.Context())
	wallet, err := queries.WalletByID(p.Workspace.ID, id).Get(r.Context(), s.pool)
	if err != nil {
		writeError(w, r, notFoundAs(err, "WALLET_NOT_FOUND", "wallet not found"))
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"wallet": wallet})
}

func updateWallet(s *Server, w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "id")
	if err != nil {
		writeError(w, r, err)
		return
	}
	b, err := readBody(w, r)
	if err != nil {
		writeError(w, r, err)
		return
	}
	cmd := walletInput(b, false)
	cmd.WalletID = id
	if err := b.finish(); err != nil {
		writeError(w, r, err)
		return
	}
	s.run(w, r, b, command{Decide: cmd.Decide, Status: http.StatusOK, Render: renderWallet(id)})
}

func archiveWallet(s *Server, w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "id")
	if err != nil {
		writeError(w, r, err)
		return
	}
	b, err := readBody(w, r)
	if err != nil {
		writeError(w, r, err)
		return
	}
	cmd := commands.ArchiveWallet{WalletID: id}
	s.run(w, r, b, command{Decide: cmd.Decide, Status: http.StatusOK, Render: renderWallet(id)})
}

func renderWallet(id uuid.UUID) render {
	return renderOne("wallet", func(ws uuid.UUID) queries.Lookup[queries.Wallet] { return queries.WalletByID(ws, id) })
}
