// Package statement reads the files banks give (CSV, OFX and QFX, QIF, CAMT.052/053/054,
// MT940) into one shape: the rows of money that moved, and the balances the file states.
// It knows formats, not ledgers: which wallet a row belongs to, whether it was seen
// before and what it becomes are decided by the import. A file is read as a stream, one
// row at a time, so memory does not grow with the file; what cannot be read is an
// *Error naming where in the file and what is wrong.
package statement

import (
	"errors"
	"fmt"

	"github.com/shopspring/decimal"

	"github.com/finledger/finledger/domain"
)

// Format is a kind of statement file, as the import's answer names it.
type Format string

// The formats read.
const (
	FormatCSV   Format = "csv"
	FormatOFX   Format = "ofx" // OFX 1.x (SGML) and 2.x (XML), and Quicken's QFX
	FormatQIF   Format = "qif"
	FormatCAMT  Format = "camt" // ISO 20022 camt.052, camt.053 and camt.054
	FormatMT940 Format = "mt940"
)

// Row is one movement of money on a statement.
type Row struct {
	// Account is the statement's account the row belongs to, as the file names it
	// (an OFX ACCTID, a CAMT IBAN or other id, MT940's :25:), for files that hold
	// several; empty when the file does not say.
	Account string
	// Date is the booking date; ValueDate, when the file gives one apart, the day the
	// money counts from.
	Date      domain.Date
	ValueDate domain.Date
	// Amount is signed as on the statement: money out is negative. Its scale is the
	// file's (12.50 stays 12.50).
	Amount decimal.Decimal
	// Currency is the ISO 4217 code the file states for the row or its account; empty
	// when the file states none (CSV, QIF).
	Currency string
	// Payee is who was paid or who paid (OFX NAME, QIF P, CAMT's counterparty name,
	// MT940's :86: name); Memo the rest of the description the file gives.
	Payee string
	Memo  string
	// ExternalID is the bank's own id of the row (OFX FITID, CAMT AcctSvcrRef or
	// EndToEndId, MT940's bank reference), empty when the file gives none: the import
	// then knows a row by its content.
	ExternalID string
	// CounterpartyAccount is the other side's account (an IBAN, a CLABE) when the file
	// gives it, so a transfer between two wallets of a workspace can be told.
	CounterpartyAccount string
	// Category is the category the file itself names (QIF L), as text.
	Category string
	// Splits are the parts of the row the file lists (QIF S/$/E lines); their amounts
	// sum to Amount.
	Splits []Split
	// Position is where the row starts in the file, for messages.
	Position Position
}

// Split is one part of a row split across categories.
type Split struct {
	Category string
	Memo     string
	Amount   decimal.Decimal
}

// BalanceKind says which balance of a statement a Balance is.
type BalanceKind string

// The balances a statement states.
const (
	BalanceOpening BalanceKind = "opening" // CAMT OPBD or PRCD, MT940 :60F:/:60M:
	BalanceClosing BalanceKind = "closing" // OFX LEDGERBAL, CAMT CLBD, MT940 :62F:/:62M:
)

// Balance is a balance the file states for one of its accounts on a date.
type Balance struct {
	Account  string
	Kind     BalanceKind
	Date     domain.Date
	Amount   decimal.Decimal
	Currency string
}

// Position is a place in a file: a line (from 1), or for XML the element's path.
type Position struct {
	Line    int
	Element string // an XML element's path, such as "Document/BkToCstmrStmt/Stmt/Ntry[3]/Amt"
}

func (p Position) String() string {
	switch {
	case p.Element != "" && p.Line > 0:
		return fmt.Sprintf("line %d (%s)", p.Line, p.Element)
	case p.Element != "":
		return p.Element
	default:
		return fmt.Sprintf("line %d", p.Line)
	}
}

// Error is a file that cannot be read: where, and what is wrong there.
type Error struct {
	Format   Format
	Position Position
	Message  string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s statement: %s: %s", e.Format, e.Position, e.Message)
}

// ErrUnknownFormat is a file whose content is none of the formats read.
var ErrUnknownFormat = errors.New("statement: the file is not CSV, OFX, QIF, CAMT or MT940")

// Reader reads a statement's rows one at a time.
type Reader interface {
	// Next returns the next row, or io.EOF after the last; any other error is an
	// *Error, or the underlying reader's failure.
	Next() (Row, error)
	// Balances returns the balances the file stated in what has been read so far;
	// after io.EOF, all of them.
	Balances() []Balance
}
