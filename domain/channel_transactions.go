package domain

import (
	"github.com/google/uuid"
	"github.com/shopspring/decimal"
)

// CreateTransactionByName records an income or an expense that the chat channel names
// by its wallet and category (spec 4.B).
//
// Defaults: WalletName empty is the oldest live wallet; CategoryName empty is the
// oldest live category, and none when the workspace has none; Date empty is the
// business day of Today; Currency nil is the wallet's.
//
// Lookups: the names are resolved against the workspace's live wallets and categories,
// ignoring accents and case.
//
// Errors: WALLET_NOT_FOUND and CATEGORY_NOT_FOUND (404, with the closest names as
// details.suggestions; "the workspace has no wallet" when it has none),
// VALIDATION_ERROR (among them a currency that is not the wallet's), and those of
// CreateTransaction.
type CreateTransactionByName struct {
	TransactionID uuid.UUID
	Type          TransactionType // TxIncome or TxExpense
	Amount        decimal.Decimal
	// Currency, when given, must be the wallet's: the channel says what it means to
	// record, and a wallet in another currency is refused rather than converted.
	Currency     *string
	Concept      *string
	WalletName   string
	CategoryName string
	Date         Date
	// Today is the business day the command was issued.
	Today Date
}

// Decide resolves the names and records the transaction.
func (c CreateTransactionByName) Decide(w *Workspace) ([]Event, error) {
	walletID, wallet, err := w.walletNamed(c.WalletName)
	if err != nil {
		return nil, err
	}
	categoryID, _, err := w.categoryNamed(c.CategoryName)
	if err != nil {
		return nil, err
	}
	if c.Currency != nil && *c.Currency != wallet.Currency {
		return nil, InvalidField("currency", "wallet %s holds %s, not %s", wallet.Name, wallet.Currency, *c.Currency)
	}
	date, err := dateOrToday(c.Date, c.Today)
	if err != nil {
		return nil, err
	}
	return CreateTransaction{TransactionID: c.TransactionID, Type: c.Type, Amount: c.Amount, WalletID: &walletID, CategoryID: categoryID,
		Date: date, Concept: c.Concept}.Decide(w)
}

// UpdateTransactionByName corrects a transaction that the chat channel names by its
// wallet and category (spec 4.B: the last transaction).
//
// Defaults: a field not set is left as it is.
//
// Lookups: WalletName and CategoryName are resolved like CreateTransactionByName's.
//
// Errors: WALLET_NOT_FOUND and CATEGORY_NOT_FOUND (404, with suggestions);
// VALIDATION_ERROR (among them a currency that is not the wallet's);
// TRANSACTION_NOT_FOUND ("the last transaction was deleted" when a currency is
// checked against it); and those of UpdateTransaction.
type UpdateTransactionByName struct {
	TransactionID uuid.UUID
	Amount        Nullable[decimal.Decimal]
	// Currency goes with Amount: it must be the currency of the wallet the
	// transaction is in after the change.
	Currency     Nullable[string]
	Concept      Nullable[string]
	Date         Nullable[Date]
	WalletName   Nullable[string]
	CategoryName Nullable[string]
}

// Decide resolves the names, checks the currency and corrects the transaction.
func (c UpdateTransactionByName) Decide(w *Workspace) ([]Event, error) {
	update := UpdateTransaction{TransactionID: c.TransactionID, Amount: c.Amount, Concept: c.Concept, Date: c.Date}
	walletCurrency := ""
	if c.WalletName.Valid {
		id, wallet, err := w.walletNamed(c.WalletName.Value)
		if err != nil {
			return nil, err
		}
		update.WalletID, walletCurrency = Of(id), wallet.Currency
	}
	if c.CategoryName.Valid {
		id, _, err := w.categoryNamed(c.CategoryName.Value)
		if err != nil {
			return nil, err
		}
		if t, err := w.liveTransaction(c.TransactionID); Unmet(err) != nil {
			return nil, err
		} else if err == nil && len(t.Splits) > 0 {
			return nil, Conflict("TRANSACTION_SPLIT", "the last transaction is split in %d parts, each with its own category: "+
				"change a part's category in the app", len(t.Splits))
		}
		update.CategoryID = Null[uuid.UUID]()
		if id != nil {
			update.CategoryID = Of(*id)
		}
	}
	if c.Currency.Valid {
		if walletCurrency == "" {
			t, err := w.liveTransaction(c.TransactionID)
			if Unmet(err) != nil {
				return nil, err
			}
			if err != nil {
				return nil, NotFound("TRANSACTION_NOT_FOUND", "the last transaction was deleted")
			}
			walletCurrency = t.Currency
		}
		if c.Currency.Value != walletCurrency {
			return nil, InvalidField("currency", "the wallet holds %s: name a wallet in %s with walletName", walletCurrency, c.Currency.Value)
		}
	}
	return update.Decide(w)
}
