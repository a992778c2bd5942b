package statement

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"

	"unicode"

	"github.com/shopspring/decimal"
	"golang.org/x/text/runes"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// CSVOptions are what a person may tell about a CSV file; the zero value lets the
// reader find everything it can.
type CSVOptions struct {
	// Encoding, when given, is used instead of the one Decode finds.
	Encoding Encoding
	// Delimiter is ',', ';', '\t' or '|'; 0 finds it from the file's first lines.
	Delimiter rune
	// Header says whether the file's first row (after any lines above the table) names
	// the columns.
	Header CSVHeader
	// Mapping, when given, says which column holds what; without it the header's names
	// must say so plainly.
	Mapping *CSVMapping
	// DateOrder is the order of day and month; empty decides it from the file's first
	// rows (see the package's CSV doc).
	DateOrder DateOrder
	// DecimalSeparator is '.' or ','; 0 decides it from the file's first rows.
	DecimalSeparator rune
}

// CSVHeader says whether a CSV file has a header row.
type CSVHeader string

// The header modes.
const (
	CSVHeaderDetect  CSVHeader = ""        // a first row with no date in it is the header
	CSVHeaderPresent CSVHeader = "present" // the first row names the columns
	CSVHeaderAbsent  CSVHeader = "absent"  // the first row is data
)

// CSVMapping says which column holds what. Columns count from 1, as a spreadsheet
// shows them; 0 is none. A row's amount is Amount, or Credit less Debit.
type CSVMapping struct {
	Date       int
	ValueDate  int
	Amount     int
	Debit      int // money out, whatever its sign in the file
	Credit     int // money in
	Payee      int
	Memo       int
	ExternalID int
	Currency   int
	// Description is the bank's text for the row: it is the Payee when no column is,
	// else part of the Memo.
	Description int
}

func (m CSVMapping) columns() []int {
	return []int{m.Date, m.ValueDate, m.Amount, m.Debit, m.Credit, m.Payee, m.Memo, m.ExternalID, m.Currency, m.Description}
}

func (m CSVMapping) check(width int) error {
	if m.Date == 0 {
		return errors.New("the mapping names no date column")
	}
	if m.Amount == 0 && m.Debit == 0 && m.Credit == 0 {
		return errors.New("the mapping names no amount column, nor debit and credit columns")
	}
	if m.Amount != 0 && (m.Debit != 0 || m.Credit != 0) {
		return errors.New("the mapping names an amount column and debit or credit columns: name one or the other")
	}
	for _, c := range m.columns() {
		if c < 0 || (width > 0 && c > width) {
			return fmt.Errorf("the mapping names column %d but the file has %d", c, width)
		}
	}
	return nil
}

// MappingRequiredError is a CSV file whose header does not say plainly which column
// holds the date and the amount: the caller shows the columns and samples to the person
// and reads the file again with a CSVMapping.
type MappingRequiredError struct {
	// Columns are the header's names, or "column 1", "column 2"… when the file has none.
	Columns []string
	// Samples are up to five of the file's first rows.
	Samples [][]string
	// Missing says what could not be found: "date", "amount".
	Missing []string
	// Delimiter and HasHeader are what the reader found, to show the person.
	Delimiter rune
	HasHeader bool
}

func (e *MappingRequiredError) Error() string {
	return fmt.Sprintf("csv statement: say which columns hold the %s (columns: %s)",
		strings.Join(e.Missing, " and "), strings.Join(e.Columns, ", "))
}

// prefixRows bounds the rows read ahead to decide the file's header, date order and
// decimal separator; prefixBytes bounds their size.
const (
	prefixRows  = 500
	prefixBytes = 1 << 20
)

type csvRecord struct {
	fields []string
	line   int
}

type csvReader struct {
	records  *csvRecords
	ahead    []csvRecord // read to decide, not yet returned
	mapping  CSVMapping
	dates    dateReading
	sep      rune
	sepFrom  string
	width    int
	finished error
}

// NewCSV reads a CSV statement. It decodes the text (Decode), finds the delimiter, and
// reads up to the first 500 rows (at most 1 MiB) ahead to find the header and the
// mapping, the order of day and month and the decimal separator. It returns a
// *MappingRequiredError when the columns are not plain, a *DateOrderRequiredError when
// those rows' dates could be read in either order and the order was not given, and an
// *Error when the file's start cannot be read.
//
// Deciding from the first rows, not the whole file, keeps memory bounded. A later row
// that contradicts what they decided (13/05/2024 in a file decided month/day/year, an
// amount 1.234,56 in a file decided to use a decimal point) is an *Error naming its
// line, never read another way; a later row whose date needs an order the first rows did
// not need (they were all ISO dates) is a *DateOrderRequiredError naming its line.
//
// After an error about one row, Next goes on with the next row, so that a preview can
// list every row that cannot be read; after an error in the file itself (a quote never
// closed, bytes not in its encoding, a failed read) Next returns that error again.
func NewCSV(r io.Reader, opts CSVOptions) (Reader, error) {
	text, err := openText(r, opts.Encoding, opts.DecimalSeparator)
	if err != nil {
		return nil, err
	}
	br := bufio.NewReaderSize(text, sniffSize)
	delim := byte(opts.Delimiter)
	switch opts.Delimiter {
	case 0:
		prefix, err := br.Peek(sniffSize)
		if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
			return nil, fmt.Errorf("statement: read the CSV file's start: %w", err)
		}
		delim = sniffDelimiter(prefix)
	case ',', ';', '\t', '|':
	default:
		return nil, fmt.Errorf("statement: a CSV delimiter is ',', ';', tab or '|', not %q", opts.Delimiter)
	}
	c := &csvReader{
		records: &csvRecords{r: br, delim: delim},
		dates:   dateReading{format: FormatCSV, order: opts.DateOrder},
		sep:     opts.DecimalSeparator,
	}
	if err := c.readAhead(); err != nil {
		return nil, err
	}
	if err := c.findTable(opts, rune(delim)); err != nil {
		return nil, err
	}
	if err := c.decide(); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *csvReader) readAhead() error {
	size := 0
	for len(c.ahead) < prefixRows && size < prefixBytes {
		rec, line, err := c.records.next()
		if err == io.EOF {
			c.finished = io.EOF
			break
		}
		if err != nil {
			// Rows before the error are still returned; the error comes in its turn.
			c.finished = err
			break
		}
		if blankRecord(rec) {
			continue
		}
		for _, f := range rec {
			size += len(f)
		}
		c.ahead = append(c.ahead, csvRecord{fields: rec, line: line})
	}
	if len(c.ahead) == 0 {
		if c.finished != nil && c.finished != io.EOF {
			return c.finished
		}
		return &Error{Format: FormatCSV, Position: Position{Line: 1}, Message: "the file has no rows"}
	}
	return nil
}

// findTable skips the lines above the table (an account's name, a period), finds the
// header and the mapping.
func (c *csvReader) findTable(opts CSVOptions, delim rune) error {
	widths := map[int]int{}
	for _, r := range c.ahead {
		widths[len(r.fields)]++
	}
	width, seen := 0, 0
	for w, n := range widths {
		if n > seen || (n == seen && w > width) {
			width, seen = w, n
		}
	}
	// The table starts at the first row as wide as most rows: a bank's lines above it are
	// narrower. A single-row file is its own table.
	start := 0
	for start < len(c.ahead) && len(c.ahead[start].fields) < width {
		start++
	}
	if start == len(c.ahead) {
		start = 0
	}
	c.width = width
	var header []string
	switch opts.Header {
	case CSVHeaderPresent:
		header = c.ahead[start].fields
	case CSVHeaderAbsent:
	case CSVHeaderDetect:
		if looksLikeHeader(c.ahead[start].fields) {
			header = c.ahead[start].fields
		}
	default:
		return fmt.Errorf("statement: unknown CSV header mode %q", opts.Header)
	}
	if header != nil {
		start++
	}
	c.ahead = c.ahead[start:]

	if opts.Mapping != nil {
		if err := opts.Mapping.check(0); err != nil {
			return fmt.Errorf("statement: %w", err)
		}
		c.mapping = *opts.Mapping
		return nil
	}
	m, missing := mappingFromHeader(header)
	if len(missing) == 0 {
		c.mapping = m
		return nil
	}
	e := &MappingRequiredError{Missing: missing, Delimiter: delim, HasHeader: header != nil}
	if header != nil {
		e.Columns = append([]string(nil), header...)
	} else {
		for i := range width {
			e.Columns = append(e.Columns, fmt.Sprintf("column %d", i+1))
		}
	}
	for _, r := range c.ahead[:min(5, len(c.ahead))] {
		e.Samples = append(e.Samples, r.fields)
	}
	return e
}

// looksLikeHeader reports whether a row names columns: no cell is a date or an amount,
// and some cell has a letter.
func looksLikeHeader(rec []string) bool {
	letters := false
	for _, f := range rec {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if _, err := parseDateForm(f); err == nil {
			return false
		}
		if _, err := splitAmount(f); err == nil {
			return false
		}
		if strings.ContainsFunc(f, unicode.IsLetter) {
			letters = true
		}
	}
	return letters
}

// columnNames are the header names read plainly, after lower-casing and taking accents
// and punctuation off.
var columnNames = map[string]string{
	"date": "date", "fecha": "date", "posting date": "date", "transaction date": "date",
	"booking date": "date", "fecha operacion": "date", "fecha de operacion": "date",
	"fecha movimiento": "date", "fecha del movimiento": "date", "fecha transaccion": "date",
	"trans date": "date", "fecha contable": "date",
	"value date": "value date", "fecha valor": "value date", "fecha de valor": "value date",
	"amount": "amount", "importe": "amount", "monto": "amount", "transaction amount": "amount",
	"cantidad": "amount", "valor": "amount",
	"debit": "debit", "debits": "debit", "debit amount": "debit", "cargo": "debit", "cargos": "debit",
	"retiro": "debit", "retiros": "debit", "withdrawal": "debit", "withdrawals": "debit",
	"money out": "debit", "paid out": "debit", "debe": "debit",
	"credit": "credit", "credits": "credit", "credit amount": "credit", "abono": "credit",
	"abonos": "credit", "deposito": "credit", "depositos": "credit", "deposit": "credit",
	"deposits": "credit", "money in": "credit", "paid in": "credit", "haber": "credit",
	"payee": "payee", "beneficiario": "payee", "name": "payee", "nombre": "payee",
	"merchant": "payee", "comercio": "payee", "counterparty": "payee",
	"description": "description", "descripcion": "description", "concepto": "description",
	"detalle": "description", "detalles": "description",
	"transaction description": "description", "narrative": "description",
	"memo": "memo", "notes": "memo", "note": "memo", "notas": "memo", "nota": "memo",
	"observaciones": "memo", "comments": "memo",
	"reference": "reference", "referencia": "reference", "ref": "reference",
	"transaction id": "reference", "id": "reference", "folio": "reference",
	"numero de referencia": "reference", "check number": "reference", "check or slip": "reference",
	"currency": "currency", "moneda": "currency", "divisa": "currency",
}

var stripAccents = transform.Chain(norm.NFD, runes.Remove(runes.In(unicode.Mn)), norm.NFC)

func normaliseColumnName(s string) string {
	s, _, err := transform.String(stripAccents, strings.ToLower(strings.TrimSpace(s)))
	if err != nil {
		return ""
	}
	s = strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return r
		}
		return ' '
	}, s)
	return strings.Join(strings.Fields(s), " ")
}

// mappingFromHeader maps the columns a header names plainly; the first column of a kind
// wins. It reports what it misses.
func mappingFromHeader(header []string) (CSVMapping, []string) {
	var m CSVMapping
	set := func(p *int, col int) {
		if *p == 0 {
			*p = col
		}
	}
	for i, h := range header {
		col := i + 1
		switch columnNames[normaliseColumnName(h)] {
		case "date":
			set(&m.Date, col)
		case "value date":
			set(&m.ValueDate, col)
		case "amount":
			set(&m.Amount, col)
		case "debit":
			set(&m.Debit, col)
		case "credit":
			set(&m.Credit, col)
		case "payee":
			set(&m.Payee, col)
		case "description":
			set(&m.Description, col)
		case "memo":
			set(&m.Memo, col)
		case "reference":
			set(&m.ExternalID, col)
		case "currency":
			set(&m.Currency, col)
		}
	}
	if m.Date == 0 && m.ValueDate != 0 {
		m.Date, m.ValueDate = m.ValueDate, 0
	}
	if m.Amount != 0 && (m.Debit != 0 || m.Credit != 0) {
		// "Amount" beside debit and credit columns is most often a running total: use the
		// two that say the direction.
		m.Amount = 0
	}
	var missing []string
	if m.Date == 0 {
		missing = append(missing, "date")
	}
	if m.Amount == 0 && (m.Debit == 0 || m.Credit == 0) {
		if m.Debit != 0 || m.Credit != 0 {
			// One of debit and credit alone cannot say the other direction: ask.
			m.Debit, m.Credit = 0, 0
		}
		missing = append(missing, "amount")
	}
	return m, missing
}

// decide sets the date order and the decimal separator from the rows read ahead.
func (c *csvReader) decide() error {
	var texts []string
	var lines []int
	for _, r := range c.ahead {
		if t, ok := cell(r.fields, c.mapping.Date); ok {
			texts = append(texts, t)
			lines = append(lines, r.line)
		}
	}
	if err := c.dates.decide(texts, lines); err != nil {
		return err
	}
	if c.sep != 0 {
		c.sepFrom = "as given"
		return nil
	}
	for _, r := range c.ahead {
		for _, col := range []int{c.mapping.Amount, c.mapping.Debit, c.mapping.Credit} {
			t, ok := cell(r.fields, col)
			if !ok {
				continue
			}
			if a, err := splitAmount(t); err == nil {
				if s := decimalSeparatorOf(a.body); s != 0 {
					c.sep = s
					c.sepFrom = fmt.Sprintf("decided by the amount %q on line %d", t, r.line)
					return nil
				}
			}
		}
	}
	return nil
}

func cell(rec []string, col int) (string, bool) {
	if col < 1 || col > len(rec) {
		return "", false
	}
	return strings.TrimSpace(rec[col-1]), true
}

// Next returns the next row of the table.
func (c *csvReader) Next() (Row, error) {
	for {
		var rec csvRecord
		if len(c.ahead) > 0 {
			rec = c.ahead[0]
			c.ahead[0] = csvRecord{}
			c.ahead = c.ahead[1:]
		} else if c.finished != nil {
			return Row{}, c.finished
		} else {
			fields, line, err := c.records.next()
			if err != nil {
				c.finished = err
				return Row{}, err
			}
			if blankRecord(fields) {
				continue
			}
			rec = csvRecord{fields: fields, line: line}
		}
		return c.row(rec)
	}
}

// Balances returns none: a CSV file states no balances the reader can trust.
func (c *csvReader) Balances() []Balance { return nil }

func (c *csvReader) fail(line int, format string, args ...any) error {
	return &Error{Format: FormatCSV, Position: Position{Line: line}, Message: fmt.Sprintf(format, args...)}
}

func (c *csvReader) row(rec csvRecord) (Row, error) {
	m := c.mapping
	row := Row{Position: Position{Line: rec.line}}
	need := func(col int, what string) (string, error) {
		t, ok := cell(rec.fields, col)
		if !ok {
			return "", c.fail(rec.line, "the row has %d columns, and the %s is in column %d", len(rec.fields), what, col)
		}
		return t, nil
	}
	dateText, err := need(m.Date, "date")
	if err != nil {
		return Row{}, err
	}
	if dateText == "" {
		return Row{}, c.fail(rec.line, "the row has no date (column %d)", m.Date)
	}
	if row.Date, err = c.dates.read(dateText, rec.line); err != nil {
		return Row{}, err
	}
	if t, _ := cell(rec.fields, m.ValueDate); t != "" {
		if row.ValueDate, err = c.dates.read(t, rec.line); err != nil {
			return Row{}, err
		}
	}
	if row.Amount, err = c.amount(rec, need); err != nil {
		return Row{}, err
	}
	row.Payee, _ = cell(rec.fields, m.Payee)
	row.Memo, _ = cell(rec.fields, m.Memo)
	if d, _ := cell(rec.fields, m.Description); d != "" {
		switch {
		case row.Payee == "":
			row.Payee = d
		case row.Memo == "":
			row.Memo = d
		default:
			row.Memo = d + "; " + row.Memo
		}
	}
	row.ExternalID, _ = cell(rec.fields, m.ExternalID)
	if cur, _ := cell(rec.fields, m.Currency); cur != "" {
		row.Currency = strings.ToUpper(cur)
		if len(row.Currency) != 3 || !isCurrencyCode(row.Currency) {
			return Row{}, c.fail(rec.line, "%q is not a currency code such as MXN or USD", cur)
		}
	}
	return row, nil
}

func (c *csvReader) amount(rec csvRecord, need func(int, string) (string, error)) (decimal.Decimal, error) {
	m := c.mapping
	if m.Amount != 0 {
		t, err := need(m.Amount, "amount")
		if err != nil {
			return decimal.Decimal{}, err
		}
		if t == "" {
			return decimal.Decimal{}, c.fail(rec.line, "the row has no amount (column %d)", m.Amount)
		}
		return c.parse(t, rec.line)
	}
	var debit, credit decimal.Decimal
	var has int
	for _, side := range []struct {
		col  int
		what string
		to   *decimal.Decimal
	}{{m.Debit, "debit", &debit}, {m.Credit, "credit", &credit}} {
		if side.col == 0 {
			continue
		}
		t, _ := cell(rec.fields, side.col)
		if t == "" {
			continue
		}
		d, err := c.parse(t, rec.line)
		if err != nil {
			return decimal.Decimal{}, err
		}
		*side.to = d.Abs()
		if !d.IsZero() {
			has++
		}
	}
	switch {
	case has == 2:
		return decimal.Decimal{}, c.fail(rec.line, "the row has both a debit (%s) and a credit (%s)", debit, credit)
	case !debit.IsZero():
		return debit.Neg(), nil
	case !credit.IsZero():
		return credit, nil
	}
	// A row of zero still counts (a fee waived); it has no amount only when both are
	// blank.
	dt, _ := cell(rec.fields, m.Debit)
	ct, _ := cell(rec.fields, m.Credit)
	if dt == "" && ct == "" {
		return decimal.Decimal{}, c.fail(rec.line, "the row has neither a debit (column %d) nor a credit (column %d)", m.Debit, m.Credit)
	}
	if dt != "" {
		return debit, nil
	}
	return credit, nil
}

func (c *csvReader) parse(t string, line int) (decimal.Decimal, error) {
	d, err := parseAmount(t, c.sep)
	switch {
	case errors.Is(err, errAmbiguousSeparator):
		return decimal.Decimal{}, c.fail(line, "the amount %q could be read with its separator as a decimal point or as thousands: give the decimal separator", t)
	case err != nil && c.sepFrom != "":
		return decimal.Decimal{}, c.fail(line, "%q is not an amount with the file's decimal separator %q (%s)", t, c.sep, c.sepFrom)
	case err != nil:
		return decimal.Decimal{}, c.fail(line, "%q is not an amount", t)
	}
	return d, nil
}
