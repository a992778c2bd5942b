// Package imports owns statement imports up to their commit: a bank statement read into
// rows (package statement), each row's proposed transaction and duplicate verdict, and
// the preview kept in the imports and import_rows tables, where a person changes the
// rows' decisions before committing them. The commit and the undo are commands
// (domain.CommitImport, domain.UndoImport); the preview is not history, the commit is.
package imports

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/queries"
	"github.com/finledger/finledger/statement"
)

// MaxFile is the largest statement file accepted, in bytes.
const MaxFile = 64 << 20

// MaxRows bounds the rows of one import.
const MaxRows = 200_000

// Row is a statement row with what the import proposes for it.
type Row struct {
	Index     int            `json:"index"`
	Date      domain.Date    `json:"date"`
	ValueDate domain.Date    `json:"valueDate"`
	Amount    queries.Amount `json:"amount"` // signed as on the statement: money out is negative
	Currency  string         `json:"currency"`
	Payee     string         `json:"payee"`
	Memo      string         `json:"memo"`
	// ExternalID is the bank's id of the row or, when ExternalIDGiven is false, one made
	// from its content (syntheticID).
	ExternalID      string `json:"externalId"`
	ExternalIDGiven bool   `json:"externalIdGiven"`
	Counterparty    string `json:"counterpartyAccount"`
	Proposal
	Match    Match  `json:"match"`
	Decision string `json:"decision"`
	// TransactionID is the transaction the commit created or linked the row to.
	TransactionID *uuid.UUID `json:"transactionId"`
	// category is the category the file names, a QIF file's, and splits the parts it
	// splits the row in; read by propose alone.
	category string
	splits   []statement.Split
}

// amount is the row's amount, signed as on the statement.
func (r Row) amount() decimal.Decimal { return decimal.Decimal(r.Amount) }

// Proposal is the transaction a row would become.
type Proposal struct {
	Type       domain.TransactionType `json:"type"`
	Concept    *string                `json:"concept"`
	CategoryID *uuid.UUID             `json:"categoryId"`
	TagID      *uuid.UUID             `json:"tagId"`
	ToWalletID *uuid.UUID             `json:"toWalletId"`
	RuleID     *uuid.UUID             `json:"ruleId"`
	// Splits are the parts of a split income or expense (domain/splits.go), amounts
	// positive; empty when the row is not split.
	Splits []queries.SplitPart `json:"splits"`
}

// The duplicate verdicts of a row.
const (
	VerdictNew       = "new"
	VerdictDuplicate = "duplicate" // the same row is in the wallet already, or earlier in the file
	VerdictProbable  = "probable"  // a recorded transaction looks like it (Match.TransactionID)
)

// Match is a row's duplicate verdict, why, and the transaction it names.
type Match struct {
	Verdict       string     `json:"verdict"`
	Reason        string     `json:"reason"`
	TransactionID *uuid.UUID `json:"transactionId"`
}

// Statement is what the file says of the account's balance.
type Statement struct {
	OpeningBalance *queries.Amount `json:"openingBalance"`
	ClosingBalance *queries.Amount `json:"closingBalance"`
	Date           domain.Date     `json:"date"`
}

// File is a statement file read: its format, rows and balances.
type File struct {
	Format    statement.Format
	SHA256    string
	Rows      []Row
	Statement *Statement
}

// Read reads a statement file of one account from r, as it comes: what it holds is the
// rows, never the file. currency is the wallet's: a row in another currency is refused.
// A file of several accounts needs account to say which (ACCOUNT_REQUIRED otherwise).
func Read(r io.Reader, opts statement.Options, account, currency string) (*File, error) {
	hash := sha256.New()
	file := io.TeeReader(r, hash)
	format, reader, err := statement.Open(file, opts)
	if err != nil {
		return nil, fileError(err)
	}
	f := &File{Format: format}
	var accounts []string
	var mismatch error // the first row in another currency, told once the file is read
	seen := map[string]int{}
	for {
		r, err := reader.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fileError(err)
		}
		if !slices.Contains(accounts, r.Account) {
			accounts = append(accounts, r.Account)
		}
		if account != "" && r.Account != account {
			continue
		}
		if len(f.Rows) == MaxRows {
			return nil, domain.Unprocessable("IMPORT_TOO_MANY_ROWS", "the file holds more than %d rows: split it", MaxRows)
		}
		if r.Currency != "" && r.Currency != currency && mismatch == nil {
			mismatch = domain.Unprocessable("IMPORT_CURRENCY_MISMATCH", "%s: the row is in %s and the wallet in %s",
				r.Position, r.Currency, currency)
		}
		row := Row{Index: len(f.Rows), Date: r.Date, ValueDate: r.ValueDate, Amount: queries.Amount(r.Amount), Currency: currency,
			Payee: domain.ConceptText.Clean(r.Payee), Memo: domain.DescriptionText.Clean(r.Memo), ExternalID: r.ExternalID, ExternalIDGiven: r.ExternalID != "",
			Counterparty: r.CounterpartyAccount, category: r.Category, splits: r.Splits}
		if !row.ExternalIDGiven {
			row.ExternalID = syntheticID(r, seen)
		}
		f.Rows = append(f.Rows, row)
	}
	if account == "" && len(accounts) > 1 {
		e := domain.Unprocessable("IMPORT_ACCOUNT_REQUIRED", "the file holds %d accounts: name the one to import with account", len(accounts))
		e.Details = map[string]any{"accounts": accounts}
		return nil, e
	}
	if account != "" && !slices.Contains(accounts, account) {
		e := domain.Unprocessable("IMPORT_ACCOUNT_REQUIRED", "the file holds no account %q", account)
		e.Details = map[string]any{"accounts": accounts}
		return nil, e
	}
	if mismatch != nil {
		return nil, mismatch
	}
	// The file's hash covers every byte, those after the last row the reader needed too.
	if _, err := io.Copy(io.Discard, file); err != nil {
		return nil, fileError(err)
	}
	f.SHA256 = hex.EncodeToString(hash.Sum(nil))
	f.Statement = statementOf(reader.Balances(), account)
	return f, nil
}

// syntheticID is the external id of a row the bank gave none: a hash of its date,
// amount, payee and memo, and of how many rows alike came before it in the file, so
// that two alike purchases of one day are two rows, and the same file read again gives
// the same ids.
func syntheticID(r statement.Row, seen map[string]int) string {
	content := strings.Join([]string{r.Date.String(), r.Amount.String(), r.Payee, r.Memo}, "\x1f")
	n := seen[content]
	seen[content] = n + 1
	sum := sha256.Sum256([]byte(fmt.Sprintf("%s\x1f%d", content, n)))
	return "sha256:" + hex.EncodeToString(sum[:16])
}

// statementOf is the opening and closing balances of the account, when the file states
// them.
func statementOf(balances []statement.Balance, account string) *Statement {
	var s Statement
	found := false
	for _, b := range balances {
		if account != "" && b.Account != account {
			continue
		}
		amount := queries.Amount(b.Amount)
		switch b.Kind {
		case statement.BalanceOpening:
			if s.OpeningBalance == nil {
				s.OpeningBalance, found = &amount, true
			}
		case statement.BalanceClosing:
			s.ClosingBalance, s.Date, found = &amount, b.Date, true
		}
	}
	if !found {
		return nil
	}
	return &s
}

// fileError is the answer to a file that cannot be read.
func fileError(err error) error {
	var malformed *statement.Error
	var mapping *statement.MappingRequiredError
	var order *statement.DateOrderRequiredError
	var encoding *statement.EncodingError
	switch {
	case errors.Is(err, statement.ErrUnknownFormat):
		return domain.Unprocessable("IMPORT_FORMAT_UNKNOWN", "the file is not a CSV, OFX, QFX, QIF, CAMT or MT940 statement")
	case errors.As(err, &mapping):
		e := domain.Unprocessable("IMPORT_MAPPING_REQUIRED", "the file's columns do not say plainly which holds the %s: give a mapping or a profile",
			strings.Join(mapping.Missing, " and "))
		e.Details = map[string]any{"columns": mapping.Columns, "samples": mapping.Samples, "missingColumns": mapping.Missing,
			"delimiter": string(mapping.Delimiter)}
		return e
	case errors.As(err, &order):
		e := domain.Unprocessable("IMPORT_DATE_ORDER_REQUIRED", "line %d: the dates read both as day/month and as month/day: give dateOrder DMY or MDY", order.Line)
		e.Details = map[string]any{"dates": order.Samples}
		return e
	case errors.As(err, &encoding):
		return domain.Unprocessable("IMPORT_ENCODING_INVALID", "the file began as %s text but byte %d is not: name its encoding",
			encoding.Encoding, encoding.Offset)
	case errors.As(err, &malformed):
		e := domain.Unprocessable("IMPORT_FILE_INVALID", "%s: %s", malformed.Position, malformed.Message)
		e.Details = map[string]any{"format": malformed.Format, "line": malformed.Position.Line, "element": malformed.Position.Element}
		return e
	}
	return fmt.Errorf("imports: read statement: %w", err)
}
