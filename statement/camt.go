package statement

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shopspring/decimal"
	"golang.org/x/text/encoding/htmlindex"

	"github.com/finledger/finledger/domain"
)

// NewCAMT reads an ISO 20022 bank-to-customer message: a camt.052 account report, a
// camt.053 statement or a camt.054 debit/credit notification, in any version (the
// namespace's version is not checked, elements are matched by their local names, so
// .001.02 to .001.13 read alike). Each Ntry is decoded on its own as the file streams
// past, so memory stays at one entry's size whatever the file's.
//
// An entry is one row, except a batch: an entry whose NtryDtls list several TxDtls
// becomes one row per TxDtls, with the transaction's own amount (TxDtls/Amt, else
// AmtDtls/TxAmt/Amt); those amounts must sum to the entry's, or the file is refused. A
// batch whose transactions state no amount at all cannot be split and is one row, named
// after its counterparty only when every transaction names the same; one where some do
// and some do not is refused.
//
// The booking date (BookgDt) is the row's Date, the value date (ValDt) its ValueDate
// when it differs; a date-time is read as the calendar date the bank wrote, whatever its
// offset. An entry without a booking date is dated by its value date. Entries not booked
// (status PDNG, INFO or FUTR, which a camt.052 report may list) are passed over: they
// come again, booked, in a later file. CdtDbtInd says which way the money of an entry
// moved, a reversal (RvslInd) included: a reversed debit is booked as a credit.
//
// A statement's balances are its opening, the first of OPBD and PRCD it states, and its
// closing, CLBD; interim, available and forward balances are not read.
//
// After an error, Next returns it again: the rest of the file is not read.
func NewCAMT(r io.Reader) (Reader, error) {
	d := xml.NewDecoder(r)
	d.CharsetReader = func(label string, in io.Reader) (io.Reader, error) {
		enc, err := htmlindex.Get(label)
		if err != nil {
			return nil, fmt.Errorf("unknown encoding %q", label)
		}
		return enc.NewDecoder().Reader(in), nil
	}
	c := &camtReader{d: d}
	if err := c.readRoot(); err != nil {
		return nil, err
	}
	return c, nil
}

// camtNamespace is the namespace of the messages read; the version is not checked.
var camtNamespace = regexp.MustCompile(`^urn:iso:std:iso:20022:tech:xsd:camt\.05[234]\.001\.\d+$`)

// camtReader walks the document's tokens, decoding whole only what it needs: an
// account, a balance, an entry.
type camtReader struct {
	d *xml.Decoder
	// path is the open elements' names, with an index for statements and entries.
	path []string
	// inStatement is the depth of the open Stmt, Rpt or Ntfctn in path, or 0.
	inStatement int
	statements  int
	entries     int
	account     string
	currency    string
	opened      bool // the current statement's opening balance is read
	balances    []Balance
	pending     []Row
	done        bool
	err         error
}

func (c *camtReader) Balances() []Balance { return c.balances }

func (c *camtReader) readRoot() error {
	for {
		tok, err := c.d.Token()
		if err == io.EOF {
			return c.errorf("", "the file is empty: no XML element found")
		}
		if err != nil {
			return c.syntaxError(err)
		}
		start, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		if start.Name.Local != "Document" {
			return c.errorf(start.Name.Local, "the file's root element is <%s>, not the <Document> of a camt message", start.Name.Local)
		}
		if ns := start.Name.Space; ns != "" && !camtNamespace.MatchString(ns) {
			return c.errorf("Document", "the namespace %q is not that of camt.052, camt.053 or camt.054", ns)
		}
		c.path = append(c.path, "Document")
		return nil
	}
}

func (c *camtReader) Next() (Row, error) {
	for {
		if len(c.pending) > 0 {
			row := c.pending[0]
			c.pending = c.pending[1:]
			return row, nil
		}
		if c.err != nil {
			return Row{}, c.err
		}
		if c.done {
			return Row{}, io.EOF
		}
		c.err = c.step()
	}
}

// step reads one token, decoding the element it opens when it is one read whole.
func (c *camtReader) step() error {
	tok, err := c.d.Token()
	if err == io.EOF {
		if len(c.path) > 0 {
			return c.errorf("", "the file ends before <%s> is closed", c.path[len(c.path)-1])
		}
		c.done = true
		return nil
	}
	if err != nil {
		return c.syntaxError(err)
	}
	switch t := tok.(type) {
	case xml.StartElement:
		return c.start(t)
	case xml.EndElement:
		if len(c.path) == c.inStatement {
			c.inStatement = 0
		}
		c.path = c.path[:len(c.path)-1]
		if len(c.path) == 0 {
			c.done = true
		}
	}
	return nil
}

func (c *camtReader) start(t xml.StartElement) error {
	name := t.Name.Local
	// A statement's parts sit right under it; anything deeper is read with its parent.
	if c.inStatement > 0 && len(c.path) == c.inStatement {
		switch name {
		case "Acct":
			return c.readAccount(t)
		case "Bal":
			return c.readBalance(t)
		case "Ntry":
			c.entries++
			return c.readEntry(t)
		}
	}
	if c.inStatement == 0 && len(c.path) == 2 && (name == "Stmt" || name == "Rpt" || name == "Ntfctn") {
		c.statements++
		c.path = append(c.path, fmt.Sprintf("%s[%d]", name, c.statements))
		c.inStatement = len(c.path)
		c.entries, c.account, c.currency, c.opened = 0, "", "", false
		return nil
	}
	if len(c.path) > 64 {
		return c.errorf(name, "elements are nested more than 64 deep")
	}
	c.path = append(c.path, name)
	return nil
}

type camtAmount struct {
	Value string `xml:",chardata"`
	Ccy   string `xml:"Ccy,attr"`
}

type camtDate struct {
	Dt   string `xml:"Dt"`
	DtTm string `xml:"DtTm"`
}

type camtAccountID struct {
	IBAN string `xml:"IBAN"`
	Othr struct {
		ID string `xml:"Id"`
	} `xml:"Othr"`
}

func (a camtAccountID) String() string {
	if s := strings.TrimSpace(a.IBAN); s != "" {
		return s
	}
	return strings.TrimSpace(a.Othr.ID)
}

type camtAccount struct {
	ID  camtAccountID `xml:"Id"`
	Ccy string        `xml:"Ccy"`
}

// camtParty is a debtor or creditor: its name sits in Nm up to version 7 and in Pty/Nm
// from version 8.
type camtParty struct {
	Nm  string `xml:"Nm"`
	Pty struct {
		Nm string `xml:"Nm"`
	} `xml:"Pty"`
}

func (p camtParty) name() string {
	if s := strings.TrimSpace(p.Nm); s != "" {
		return s
	}
	return strings.TrimSpace(p.Pty.Nm)
}

type camtBalance struct {
	Tp struct {
		CdOrPrtry struct {
			Cd string `xml:"Cd"`
		} `xml:"CdOrPrtry"`
	} `xml:"Tp"`
	Amt       *camtAmount `xml:"Amt"`
	CdtDbtInd string      `xml:"CdtDbtInd"`
	Dt        camtDate    `xml:"Dt"`
}

type camtTransaction struct {
	Refs struct {
		AcctSvcrRef string `xml:"AcctSvcrRef"`
		EndToEndID  string `xml:"EndToEndId"`
	} `xml:"Refs"`
	Amt       *camtAmount `xml:"Amt"`
	CdtDbtInd string      `xml:"CdtDbtInd"`
	AmtDtls   struct {
		TxAmt struct {
			Amt *camtAmount `xml:"Amt"`
		} `xml:"TxAmt"`
	} `xml:"AmtDtls"`
	RltdPties struct {
		Dbtr     camtParty `xml:"Dbtr"`
		DbtrAcct struct {
			ID camtAccountID `xml:"Id"`
		} `xml:"DbtrAcct"`
		Cdtr     camtParty `xml:"Cdtr"`
		CdtrAcct struct {
			ID camtAccountID `xml:"Id"`
		} `xml:"CdtrAcct"`
	} `xml:"RltdPties"`
	RmtInf struct {
		Ustrd []string `xml:"Ustrd"`
	} `xml:"RmtInf"`
	AddtlTxInf string `xml:"AddtlTxInf"`
}

type camtEntry struct {
	NtryRef   string      `xml:"NtryRef"`
	Amt       *camtAmount `xml:"Amt"`
	CdtDbtInd string      `xml:"CdtDbtInd"`
	// Sts is text up to version 7 and Sts/Cd from version 8.
	Sts struct {
		Text string `xml:",chardata"`
		Cd   string `xml:"Cd"`
	} `xml:"Sts"`
	BookgDt     camtDate `xml:"BookgDt"`
	ValDt       camtDate `xml:"ValDt"`
	AcctSvcrRef string   `xml:"AcctSvcrRef"`
	NtryDtls    []struct {
		TxDtls []camtTransaction `xml:"TxDtls"`
	} `xml:"NtryDtls"`
	AddtlNtryInf string `xml:"AddtlNtryInf"`
}

func (c *camtReader) readAccount(t xml.StartElement) error {
	var a camtAccount
	if err := c.d.DecodeElement(&a, &t); err != nil {
		return c.syntaxError(err)
	}
	c.account = a.ID.String()
	c.currency = strings.TrimSpace(a.Ccy)
	return nil
}

func (c *camtReader) readBalance(t xml.StartElement) error {
	at := c.here("Bal")
	line, _ := c.d.InputPos()
	var b camtBalance
	if err := c.d.DecodeElement(&b, &t); err != nil {
		return c.syntaxError(err)
	}
	var kind BalanceKind
	switch strings.TrimSpace(b.Tp.CdOrPrtry.Cd) {
	case "OPBD", "PRCD":
		if c.opened {
			return nil // a statement states its opening once, as OPBD or as PRCD
		}
		c.opened = true
		kind = BalanceOpening
	case "CLBD":
		kind = BalanceClosing
	default:
		return nil // interim, available and forward balances are not the statement's
	}
	pos := Position{Line: line, Element: at}
	amount, currency, err := c.signedAmount(b.Amt, b.CdtDbtInd, pos, "balance")
	if err != nil {
		return err
	}
	date, err := camtDateOf(b.Dt)
	if err != nil {
		return &Error{Format: FormatCAMT, Position: pos, Message: "the balance's date: " + err.Error()}
	}
	if date.IsZero() {
		return &Error{Format: FormatCAMT, Position: pos, Message: "the balance has no date (Dt/Dt or Dt/DtTm)"}
	}
	c.balances = append(c.balances, Balance{Account: c.account, Kind: kind, Date: date, Amount: amount, Currency: currency})
	return nil
}

func (c *camtReader) readEntry(t xml.StartElement) error {
	at := c.here(fmt.Sprintf("Ntry[%d]", c.entries))
	line, _ := c.d.InputPos()
	pos := Position{Line: line, Element: at}
	var e camtEntry
	if err := c.d.DecodeElement(&e, &t); err != nil {
		return c.syntaxError(err)
	}
	status := strings.TrimSpace(e.Sts.Cd)
	if status == "" {
		status = strings.TrimSpace(e.Sts.Text)
	}
	if status == "PDNG" || status == "INFO" || status == "FUTR" {
		return nil // not booked: it comes again, booked, in a later statement
	}
	amount, currency, err := c.signedAmount(e.Amt, e.CdtDbtInd, pos, "entry")
	if err != nil {
		return err
	}
	booked, err := camtDateOf(e.BookgDt)
	if err != nil {
		return &Error{Format: FormatCAMT, Position: pos, Message: "the booking date (BookgDt): " + err.Error()}
	}
	value, err := camtDateOf(e.ValDt)
	if err != nil {
		return &Error{Format: FormatCAMT, Position: pos, Message: "the value date (ValDt): " + err.Error()}
	}
	if booked.IsZero() {
		booked = value
	}
	if booked.IsZero() {
		return &Error{Format: FormatCAMT, Position: pos, Message: "the entry has neither a booking date (BookgDt) nor a value date (ValDt)"}
	}
	if value == booked {
		value = domain.Date{}
	}
	var txs []camtTransaction
	for _, d := range e.NtryDtls {
		txs = append(txs, d.TxDtls...)
	}
	base := Row{
		Account:    c.account,
		Date:       booked,
		ValueDate:  value,
		Amount:     amount,
		Currency:   currency,
		ExternalID: strings.TrimSpace(e.AcctSvcrRef),
		Memo:       strings.TrimSpace(e.AddtlNtryInf),
		Position:   pos,
	}
	// A batch whose transactions state no amount is booked, and read, as one row.
	if len(txs) > 1 && !anyAmount(txs) {
		if same := payeesAgree(txs, amount.Sign() < 0); same {
			describe(&base, txs[0], amount.Sign() < 0)
			base.Memo = strings.TrimSpace(e.AddtlNtryInf)
		}
		c.pending = append(c.pending, base)
		return nil
	}
	if len(txs) <= 1 {
		row := base
		if len(txs) == 1 {
			describe(&row, txs[0], amount.Sign() < 0)
			if row.ExternalID == "" {
				row.ExternalID = txs[0].reference()
			}
		}
		c.pending = append(c.pending, row)
		return nil
	}
	// A batch: one row per transaction, each with its own amount, together the entry's.
	// No row of it is read unless all are.
	rows := make([]Row, 0, len(txs))
	sum := decimal.Zero
	for i, tx := range txs {
		txPos := Position{Line: line, Element: fmt.Sprintf("%s/NtryDtls/TxDtls[%d]", at, i+1)}
		amt := tx.Amt
		if amt == nil {
			amt = tx.AmtDtls.TxAmt.Amt
		}
		if amt == nil {
			return &Error{Format: FormatCAMT, Position: txPos, Message: "a transaction of a batched entry states no amount (Amt or AmtDtls/TxAmt/Amt), so the entry cannot be split"}
		}
		mark := tx.CdtDbtInd
		if strings.TrimSpace(mark) == "" {
			mark = e.CdtDbtInd
		}
		txAmount, txCurrency, err := c.signedAmount(amt, mark, txPos, "transaction")
		if err != nil {
			return err
		}
		if txCurrency != currency && currency != "" && txCurrency != "" {
			return &Error{Format: FormatCAMT, Position: txPos, Message: fmt.Sprintf("the transaction is in %s but its entry in %s", txCurrency, currency)}
		}
		row := base
		row.Amount = txAmount
		row.Position = txPos
		row.ExternalID = tx.reference()
		if row.ExternalID == "" && base.ExternalID != "" {
			row.ExternalID = fmt.Sprintf("%s/%d", base.ExternalID, i+1)
		}
		describe(&row, tx, txAmount.Sign() < 0)
		sum = sum.Add(txAmount)
		rows = append(rows, row)
	}
	if !sum.Equal(amount) {
		return &Error{Format: FormatCAMT, Position: pos, Message: fmt.Sprintf("the entry's %d transactions sum to %s, not to the entry's amount %s", len(txs), sum, amount)}
	}
	c.pending = append(c.pending, rows...)
	return nil
}

func anyAmount(txs []camtTransaction) bool {
	for _, tx := range txs {
		if tx.Amt != nil || tx.AmtDtls.TxAmt.Amt != nil {
			return true
		}
	}
	return false
}

// payeesAgree reports whether every transaction names the same counterparty.
func payeesAgree(txs []camtTransaction, out bool) bool {
	var first Row
	describe(&first, txs[0], out)
	for _, tx := range txs[1:] {
		var r Row
		describe(&r, tx, out)
		if r.Payee != first.Payee || r.CounterpartyAccount != first.CounterpartyAccount {
			return false
		}
	}
	return true
}

// reference is the transaction's own id: the bank's reference, else the payer's
// end-to-end id unless it says there is none.
func (tx camtTransaction) reference() string {
	if s := strings.TrimSpace(tx.Refs.AcctSvcrRef); s != "" {
		return s
	}
	if s := strings.TrimSpace(tx.Refs.EndToEndID); s != "" && s != "NOTPROVIDED" {
		return s
	}
	return ""
}

// describe sets the row's counterparty and memo from a transaction: money out went to
// the creditor, money in came from the debtor.
func describe(row *Row, tx camtTransaction, out bool) {
	if out {
		row.Payee = tx.RltdPties.Cdtr.name()
		row.CounterpartyAccount = tx.RltdPties.CdtrAcct.ID.String()
	} else {
		row.Payee = tx.RltdPties.Dbtr.name()
		row.CounterpartyAccount = tx.RltdPties.DbtrAcct.ID.String()
	}
	var memo []string
	for _, u := range tx.RmtInf.Ustrd {
		if s := strings.TrimSpace(u); s != "" {
			memo = append(memo, s)
		}
	}
	switch {
	case len(memo) > 0:
		row.Memo = strings.Join(memo, " ")
	case strings.TrimSpace(tx.AddtlTxInf) != "":
		row.Memo = strings.TrimSpace(tx.AddtlTxInf)
	}
}

// camtDecimal is an ISO 20022 amount: digits with an optional fraction, no sign.
var camtDecimal = regexp.MustCompile(`^[0-9]{1,18}(\.[0-9]{1,8})?$`)

func (c *camtReader) signedAmount(a *camtAmount, mark string, pos Position, what string) (decimal.Decimal, string, error) {
	if a == nil {
		return decimal.Decimal{}, "", &Error{Format: FormatCAMT, Position: pos, Message: "the " + what + " has no amount (Amt)"}
	}
	s := strings.TrimSpace(a.Value)
	if !camtDecimal.MatchString(s) {
		return decimal.Decimal{}, "", &Error{Format: FormatCAMT, Position: pos, Message: fmt.Sprintf("the %s's amount %q is not a number such as 1234.56", what, clip(s))}
	}
	amount, err := decimal.NewFromString(s)
	if err != nil {
		return decimal.Decimal{}, "", &Error{Format: FormatCAMT, Position: pos, Message: fmt.Sprintf("the %s's amount %q: %v", what, clip(s), err)}
	}
	switch strings.TrimSpace(mark) {
	case "CRDT":
	case "DBIT":
		amount = amount.Neg()
	case "":
		return decimal.Decimal{}, "", &Error{Format: FormatCAMT, Position: pos, Message: "the " + what + " does not say whether it is a credit or a debit (CdtDbtInd)"}
	default:
		return decimal.Decimal{}, "", &Error{Format: FormatCAMT, Position: pos, Message: fmt.Sprintf("the %s's CdtDbtInd is %q, not CRDT or DBIT", what, clip(mark))}
	}
	currency := strings.TrimSpace(a.Ccy)
	if currency == "" {
		currency = c.currency
	}
	return amount, currency, nil
}

// camtDateOf reads an ISO date, or the calendar date of an ISO date-time as written
// (2024-01-31T23:30:00-06:00 is 31 January); no date is the zero Date.
func camtDateOf(d camtDate) (domain.Date, error) {
	s := strings.TrimSpace(d.Dt)
	if s == "" {
		s = strings.TrimSpace(d.DtTm)
		if len(s) > 10 && s[10] == 'T' {
			s = s[:10]
		}
	}
	if s == "" {
		return domain.Date{}, nil
	}
	// A date may carry an offset (2024-01-31+01:00), which the calendar date ignores.
	if len(s) > 10 && (s[10] == '+' || s[10] == '-' || s[10] == 'Z') {
		s = s[:10]
	}
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return domain.Date{}, fmt.Errorf("%q is not a date such as 2024-01-31", clip(s))
	}
	if !plausibleYear(t.Year()) {
		return domain.Date{}, fmt.Errorf("%q is not a date of a bank statement", clip(s))
	}
	return domain.DateAt(t), nil
}

// plausibleYear bounds the years a statement's dates are read in: a year 0000 or 9999
// in a file is a placeholder or a corruption, not a day money moved.
func plausibleYear(y int) bool { return y >= 1900 && y < 2200 }

// here is the path of the element name about to be read inside the open ones.
func (c *camtReader) here(name string) string {
	return strings.Join(append(c.path[:len(c.path):len(c.path)], name), "/")
}

func (c *camtReader) errorf(name, format string, args ...any) error {
	line, _ := c.d.InputPos()
	el := strings.Join(c.path, "/")
	if name != "" {
		el = c.here(name)
	}
	return &Error{Format: FormatCAMT, Position: Position{Line: line, Element: el}, Message: fmt.Sprintf(format, args...)}
}

func (c *camtReader) syntaxError(err error) error {
	var se *xml.SyntaxError
	if errors.As(err, &se) {
		return &Error{Format: FormatCAMT, Position: Position{Line: se.Line, Element: strings.Join(c.path, "/")}, Message: "the XML is malformed: " + se.Msg}
	}
	var ue xml.UnmarshalError
	if errors.As(err, &ue) {
		return c.errorf("", "%s", string(ue))
	}
	if strings.HasPrefix(err.Error(), "xml: ") {
		return c.errorf("", "the XML is malformed: %s", strings.TrimPrefix(err.Error(), "xml: "))
	}
	return err
}

// clip shortens what a message quotes from the file.
func clip(s string) string {
	const most = 40
	if len(s) <= most {
		return s
	}
	for i := most; i > 0; i-- {
		if utf8.RuneStart(s[i]) {
			return s[:i] + "…"
		}
	}
	return s[:most]
}
