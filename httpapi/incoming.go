package httpapi

import (
	"encoding/json"
	"net/http"
	"regexp"

	"github.com/shopspring/decimal"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/queries"
)

// incomingPath is the one path that also takes an API key as the query parameter key
// (spec 5.1), for systems that can set a URL but no header.
const incomingPath = "/api/webhooks/incoming"

// decimalText is an amount written as a JSON string.
var decimalText = regexp.MustCompile(`^[0-9]{1,15}(\.[0-9]{1,8})?$`)

// amountOrText reads an amount given as a JSON number or as a string holding one
// ("12.50"), exactly either way.
func (b *body) amountOrText(name string) domain.Nullable[decimal.Decimal] {
	raw, ok := b.fields[name]
	if !ok || len(raw) == 0 || raw[0] != '"' {
		return b.amount(name, true)
	}
	b.known[name] = true
	var s string
	if err := json.Unmarshal(raw, &s); err != nil || !decimalText.MatchString(s) {
		b.fail(name, "must be a number, or a string holding one such as \"12.50\"")
		return domain.Nullable[decimal.Decimal]{}
	}
	d := decimal.RequireFromString(s)
	if problem := domain.CheckAmount(d, true); problem != "" {
		b.fail(name, "%s", problem)
	}
	return domain.Of(d)
}

// incomingTransaction records a transaction sent by an external system (spec 4.A): the
// wallet and category by id or by name; the command fills the defaults (an expense, the
// default wallet when neither is given).
func incomingTransaction(s *Server, w http.ResponseWriter, r *http.Request) {
	_, b, ok := readRequest(w, r, false)
	if !ok {
		return
	}
	amount := incomingAmount.read(b)
	concept := incomingConcept.read(b)
	typ := incomingType.read(b)
	description := incomingDescription.read(b)
	date := incomingDate.read(b)
	walletID, walletName := incomingWallet.read(b), channelWalletName.read(b)
	categoryID, categoryName := incomingCategory.read(b), channelCategoryName.read(b)
	toWalletID := incomingToWallet.read(b)
	if walletID.Valid && walletName.Valid {
		b.fail("walletName", "give walletId or walletName, not both")
	}
	if categoryID.Valid && categoryName.Valid {
		b.fail("categoryName", "give categoryId or categoryName, not both")
	}
	if err := b.finish(); err != nil {
		writeError(w, r, err)
		return
	}
	cmd := domain.CreateTransaction{TransactionID: newID(), Type: domain.TransactionType(typ.Value), Amount: amount.Value, WalletID: walletID.Ptr(),
		WalletName: walletName.Ptr(), ToWalletID: toWalletID.Ptr(), CategoryID: categoryID.Ptr(), CategoryName: categoryName.Ptr(),
		Concept: concept.Ptr(), Description: description.Ptr(), Date: date.Value, Today: s.today()}
	s.run(w, r, b, command{Decide: cmd.Decide,
		Answer: queries.Record("transaction", queries.TransactionByID(activeWorkspace(r), cmd.TransactionID))})
}
