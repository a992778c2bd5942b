package statement

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"

	"github.com/shopspring/decimal"
)

// QIFOptions are what a person may tell about a QIF file.
type QIFOptions struct {
	// Encoding, when given, is used instead of the one Decode finds.
	Encoding Encoding
	// DateOrder is the order of day and month; empty decides it from the file's first
	// records, as for CSV. Quicken in the United States writes month/day/year, elsewhere
	// day/month/year: the file itself does not say.
	DateOrder DateOrder
	// DecimalSeparator is '.' or ','; 0 decides it from the file's first records.
	DecimalSeparator rune
}

// maxQIFLine bounds one line of a QIF file, and maxQIFSplits one record's splits, so that
// a malformed file cannot make a record hold the rest of it.
const (
	maxQIFLine   = 1 << 20
	maxQIFSplits = 1000
)

// qifRecord is a transaction record as the file writes it, before its date and amounts
// are read (they need the file's date order and decimal separator).
type qifRecord struct {
	line      int // of its first field
	account   string
	date      string
	dateLine  int
	amount    string // T, or U when there is no T
	amountAt  int
	payee     string
	memo      string
	number    string
	category  string
	splits    []qifSplit
	hasFields bool
}

type qifSplit struct {
	category, memo, amount string
	line                   int
	hasAmount              bool
}

// transactional are the !Type sections whose records are money moving in an account.
var transactional = map[string]bool{"bank": true, "cash": true, "ccard": true, "oth a": true, "oth l": true}

type qifReader struct {
	lines    *bufio.Scanner
	line     int
	section  string // the !Type's name, lower case; "" before any
	inList   bool   // inside !Option:AutoSwitch's list of accounts
	account  string // the name of the last !Account record
	accRec   bool   // reading an !Account record
	ahead    []qifRecord
	finished error
	dates    dateReading
	sep      rune
	sepFrom  string
}

// NewQIF reads a QIF statement: the transactions of its !Type:Bank, Cash, CCard, Oth A
// and Oth L sections, each in the account the last !Account record named; other sections
// (categories, classes, memorised transactions, investments) are skipped. Like NewCSV it
// reads up to 500 records ahead to decide the date order and the decimal separator, and
// returns a *DateOrderRequiredError when they do not decide and the order is not given.
//
// Fields read: D date, T (or U) amount, P payee, M memo, L category, N number, and the
// splits S category, E memo, $ amount, which must add up to the amount. N is the
// ExternalID when it holds a digit (a cheque number, the bank's own name for the
// cheque); words such as ATM, DEP or EFT name a kind of movement, not the row, and are
// dropped. A last record the file does not end with ^ is read all the same; a second D
// line in a record (some programs date the splits) is ignored. As with NewCSV, Next goes
// on after an error about one record and stops at one in the file's structure.
func NewQIF(r io.Reader, opts QIFOptions) (Reader, error) {
	text, err := openText(r, opts.Encoding, opts.DecimalSeparator)
	if err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(text)
	sc.Buffer(make([]byte, 0, 64<<10), maxQIFLine)
	q := &qifReader{
		lines: sc,
		dates: dateReading{format: FormatQIF, order: opts.DateOrder},
		sep:   opts.DecimalSeparator,
	}
	if q.sep != 0 {
		q.sepFrom = "as given"
	}
	size := 0
	for len(q.ahead) < prefixRows && size < prefixBytes {
		rec, err := q.record()
		if err != nil {
			q.finished = err
			break
		}
		size += len(rec.payee) + len(rec.memo) + 64*(1+len(rec.splits))
		q.ahead = append(q.ahead, rec)
	}
	if len(q.ahead) == 0 && q.finished == io.EOF && q.line == 0 {
		return nil, &Error{Format: FormatQIF, Position: Position{Line: 1}, Message: "the file is empty"}
	}
	var texts []string
	var lines []int
	for _, rec := range q.ahead {
		texts = append(texts, rec.date)
		lines = append(lines, rec.dateLine)
	}
	if err := q.dates.decide(texts, lines); err != nil {
		return nil, err
	}
	if q.sep == 0 {
	found:
		for _, rec := range q.ahead {
			for _, t := range append([]string{rec.amount}, splitAmounts(rec.splits)...) {
				if a, err := splitAmount(t); err == nil {
					if s := decimalSeparatorOf(a.body); s != 0 {
						q.sep = s
						q.sepFrom = fmt.Sprintf("decided by the amount %q on line %d", t, rec.amountAt)
						break found
					}
				}
			}
		}
	}
	return q, nil
}

func splitAmounts(splits []qifSplit) []string {
	out := make([]string, 0, len(splits))
	for _, s := range splits {
		out = append(out, s.amount)
	}
	return out
}

func (q *qifReader) fail(line int, format string, args ...any) error {
	return &Error{Format: FormatQIF, Position: Position{Line: line}, Message: fmt.Sprintf(format, args...)}
}

// record returns the next transaction record, or io.EOF.
func (q *qifReader) record() (qifRecord, error) {
	var rec qifRecord
	for {
		if !q.lines.Scan() {
			err := q.lines.Err()
			if errors.Is(err, bufio.ErrTooLong) {
				return qifRecord{}, q.fail(q.line+1, "the line is longer than 1 MiB")
			}
			if err != nil {
				return qifRecord{}, fmt.Errorf("statement: read the QIF file: %w", err)
			}
			if rec.hasFields && transactional[q.section] && !q.inList {
				return q.finish(rec)
			}
			return qifRecord{}, io.EOF
		}
		q.line++
		text := strings.TrimRightFunc(q.lines.Text(), unicode.IsSpace)
		text = strings.TrimLeft(text, " \t")
		if text == "" {
			continue
		}
		if text[0] == '!' {
			if rec.hasFields && transactional[q.section] && !q.inList {
				return qifRecord{}, q.fail(rec.line, "the record starting here has no ^ before the header on line %d", q.line)
			}
			rec = qifRecord{}
			q.header(text)
			continue
		}
		if text[0] == '^' {
			if q.accRec {
				q.accRec = false
				continue
			}
			if !rec.hasFields || !transactional[q.section] || q.inList {
				rec = qifRecord{}
				continue
			}
			return q.finish(rec)
		}
		if q.accRec {
			if text[0] == 'N' {
				q.account = strings.TrimSpace(text[1:])
			}
			continue
		}
		if q.inList {
			continue
		}
		if q.section == "" {
			return qifRecord{}, q.fail(q.line, "the file does not start with a !Type line (such as !Type:Bank): is it QIF?")
		}
		if !transactional[q.section] {
			continue
		}
		if !rec.hasFields {
			rec.hasFields, rec.line, rec.account = true, q.line, q.account
		}
		if err := q.field(&rec, text[0], strings.TrimSpace(text[1:])); err != nil {
			return qifRecord{}, err
		}
	}
}

func (q *qifReader) header(text string) {
	name := strings.ToLower(strings.TrimSpace(text[1:]))
	switch {
	case name == "account":
		// In AutoSwitch's list the records are accounts named, not the account the
		// transactions that follow belong to.
		q.accRec = !q.inList
	case name == "option:autoswitch":
		q.inList = true
	case name == "clear:autoswitch":
		q.inList = false
	case strings.HasPrefix(name, "type:"):
		q.section = strings.TrimSpace(strings.TrimPrefix(name, "type:"))
	}
}

func (q *qifReader) field(rec *qifRecord, code byte, v string) error {
	last := func() *qifSplit {
		return &rec.splits[len(rec.splits)-1]
	}
	// A split starts at S, or at an E or $ when the split before has one already.
	starts := code == 'S' ||
		(code == 'E' && (len(rec.splits) == 0 || last().memo != "" || last().hasAmount)) ||
		(code == '$' && (len(rec.splits) == 0 || last().hasAmount))
	if starts {
		if len(rec.splits) >= maxQIFSplits {
			return q.fail(rec.line, "the record starting here has more than %d splits", maxQIFSplits)
		}
		rec.splits = append(rec.splits, qifSplit{line: q.line})
	}
	switch code {
	case 'D':
		// Some programs write a date on a split too; the record's is its first.
		if rec.date == "" {
			rec.date, rec.dateLine = v, q.line
		}
	case 'T':
		rec.amount, rec.amountAt = v, q.line
	case 'U':
		if rec.amount == "" {
			rec.amount, rec.amountAt = v, q.line
		}
	case 'P':
		rec.payee = v
	case 'M':
		rec.memo = v
	case 'N':
		rec.number = v
	case 'L':
		rec.category = v
	case 'S':
		last().category = v
	case 'E':
		last().memo = v
	case '$':
		last().amount, last().hasAmount = v, true
	case 'C', 'A', '%', 'F', 'X', 'K', 'I', 'Q', 'Y', 'O', 'B', 'R', 'G', '1', '2', '3', '4', '5', '6', '7', '8':
		// Cleared status, address lines, split percentages, reimbursable flags and
		// investment fields say nothing a row holds.
	default:
		return q.fail(q.line, "%q is not a QIF field (a line starts with D, T, P, M, N, L, S, E, $ or ^)", string(code))
	}
	return nil
}

func (q *qifReader) finish(rec qifRecord) (qifRecord, error) {
	if rec.date == "" {
		return qifRecord{}, q.fail(rec.line, "the record starting here has no date (a D line)")
	}
	if rec.amount == "" {
		return qifRecord{}, q.fail(rec.line, "the record starting here has no amount (a T line)")
	}
	for _, s := range rec.splits {
		if !s.hasAmount {
			return qifRecord{}, q.fail(s.line, "the split has no amount (a $ line)")
		}
	}
	return rec, nil
}

// Next returns the next transaction.
func (q *qifReader) Next() (Row, error) {
	var rec qifRecord
	if len(q.ahead) > 0 {
		rec = q.ahead[0]
		q.ahead[0] = qifRecord{}
		q.ahead = q.ahead[1:]
	} else if q.finished != nil {
		return Row{}, q.finished
	} else {
		var err error
		if rec, err = q.record(); err != nil {
			q.finished = err
			return Row{}, err
		}
	}
	return q.row(rec)
}

// Balances returns none: QIF states none.
func (q *qifReader) Balances() []Balance { return nil }

func (q *qifReader) amount(t string, line int) (decimal.Decimal, error) {
	d, err := parseAmount(t, q.sep)
	switch {
	case errors.Is(err, errAmbiguousSeparator):
		return decimal.Decimal{}, q.fail(line, "the amount %q could be read with its separator as a decimal point or as thousands: give the decimal separator", t)
	case err != nil && q.sepFrom != "":
		return decimal.Decimal{}, q.fail(line, "%q is not an amount with the file's decimal separator %q (%s)", t, q.sep, q.sepFrom)
	case err != nil:
		return decimal.Decimal{}, q.fail(line, "%q is not an amount", t)
	}
	return d, nil
}

func (q *qifReader) row(rec qifRecord) (Row, error) {
	row := Row{
		Account:  rec.account,
		Payee:    rec.payee,
		Memo:     rec.memo,
		Category: rec.category,
		Position: Position{Line: rec.line},
	}
	var err error
	if row.Date, err = q.dates.read(rec.date, rec.dateLine); err != nil {
		return Row{}, err
	}
	if row.Amount, err = q.amount(rec.amount, rec.amountAt); err != nil {
		return Row{}, err
	}
	if strings.ContainsFunc(rec.number, unicode.IsDigit) {
		row.ExternalID = rec.number
	}
	if len(rec.splits) == 0 {
		return row, nil
	}
	sum := decimal.Zero
	for _, s := range rec.splits {
		d, err := q.amount(s.amount, s.line)
		if err != nil {
			return Row{}, err
		}
		sum = sum.Add(d)
		row.Splits = append(row.Splits, Split{Category: s.category, Memo: s.memo, Amount: d})
	}
	if !sum.Equal(row.Amount) {
		return Row{}, q.fail(rec.line, "the splits add up to %s but the amount is %s", sum, row.Amount)
	}
	return row, nil
}
