package statement

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shopspring/decimal"
	"golang.org/x/text/encoding/charmap"

	"github.com/finledger/finledger/domain"
)

// NewMT940 reads a SWIFT MT940 customer statement, line by line: one or several
// statements (:20: to :62F:, each closed by "-" or "-}"), with or without the SWIFT
// blocks {1:}{2:}{4: around them.
//
// A :61: line is one row. Its entry date (MMDD), when given, is the row's Date and the
// value date (YYMMDD) its ValueDate when they differ; without an entry date the value
// date is the Date. The entry date's year is the one that puts it nearest the value date,
// so a booking on 31 December valued on 2 January falls in the earlier year. Two-digit
// years are 2000 to 2079, and 1980 to 1999 for 80 to 99. C is money in and D money out;
// a reversal of a credit (RC) is money out and of a debit (RD) money in. The bank
// reference after "//" is the ExternalID. The balances are :60F:/:60M: (opening) and
// :62F:/:62M: (closing); :64: and :65:, the available funds, are not the statement's
// balances and are not read.
//
// The :86: that follows a :61: describes it (its memo, when it gives one, is preferred to
// the :61: line's supplementary details): German banks' subfields (?20 to ?29 and ?60
// to ?63 the purpose, ?32 and ?33 the name, ?31 the account), or the /CODE/value style
// of others (/NAME/, /REMI/, /IBAN/, /CNTP/), give the Payee, Memo and
// CounterpartyAccount; text in neither style is the Memo as it stands.
//
// A line that is not UTF-8 is read as Windows-1252, the Latin alphabet banks' software
// writes, of which SWIFT's own character set is a part.
//
// After an error, Next returns it again: the rest of the file is not read.
func NewMT940(r io.Reader) (Reader, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), mt940MaxLine)
	m := &mt940Reader{sc: sc}
	f, err := m.field()
	if err == io.EOF {
		return nil, &Error{Format: FormatMT940, Position: Position{Line: m.line}, Message: "the file holds no MT940 field such as :20: or :61:"}
	}
	if err != nil {
		return nil, err
	}
	m.first = f
	return m, nil
}

// mt940MaxLine bounds a line: SWIFT's are at most 65 characters, and a file whose lines
// run on longer is not MT940.
const mt940MaxLine = 64 << 10

type mt940Field struct {
	tag   string   // "20", "61", "62F"; "-" for a statement's end
	lines []string // the text after the tag, and the lines that continue it
	line  int      // where the tag is
}

type mt940Reader struct {
	sc   *bufio.Scanner
	line int
	// next is a field whose tag line was read while reading the one before it.
	next  *mt940Field
	first *mt940Field
	ended bool

	account  string
	currency string
	pending  *Row
	info     []string // the :86: lines of the pending row
	balances []Balance
	ready    []Row
	err      error
}

func (m *mt940Reader) Balances() []Balance { return m.balances }

// mt940Tag is a line that opens a field.
var mt940Tag = regexp.MustCompile(`^:([0-9]{2}[A-Z]?):`)

// field reads the next field with the lines that continue it.
func (m *mt940Reader) field() (*mt940Field, error) {
	if m.first != nil {
		f := m.first
		m.first = nil
		return f, nil
	}
	cur := m.next
	m.next = nil
	for {
		if m.ended {
			if cur != nil {
				return cur, nil
			}
			return nil, io.EOF
		}
		if !m.sc.Scan() {
			m.ended = true
			if err := m.sc.Err(); err != nil {
				if errors.Is(err, bufio.ErrTooLong) {
					return nil, &Error{Format: FormatMT940, Position: Position{Line: m.line + 1}, Message: "the line is far longer than MT940's 65 characters: this is not an MT940 file"}
				}
				return nil, err
			}
			continue
		}
		m.line++
		text := m.sc.Text()
		if m.line == 1 {
			text = strings.TrimPrefix(text, "\uFEFF")
		}
		if !utf8.ValidString(text) {
			text, _ = charmap.Windows1252.NewDecoder().String(text)
		}
		text = strings.TrimRight(text, "\r\n \t")
		// SWIFT's blocks: {1:…}{2:…}{4: opens the text, -} closes it, {5:…} trails.
		if strings.HasPrefix(text, "{") {
			if _, after, ok := strings.Cut(text, "{4:"); ok {
				text = after
			} else {
				continue
			}
		}
		var f *mt940Field
		switch trimmed := strings.TrimSpace(text); {
		case trimmed == "":
			continue
		case trimmed == "-" || strings.HasPrefix(trimmed, "-}"):
			f = &mt940Field{tag: "-", line: m.line}
		default:
			tag := mt940Tag.FindStringSubmatch(text)
			if tag == nil {
				if cur != nil {
					cur.lines = append(cur.lines, text)
				}
				continue // a line outside any field: a bank's own header
			}
			f = &mt940Field{tag: tag[1], lines: []string{text[len(tag[0]):]}, line: m.line}
		}
		if cur == nil {
			cur = f
			continue
		}
		m.next = f
		return cur, nil
	}
}

func (m *mt940Reader) Next() (Row, error) {
	for len(m.ready) == 0 {
		if m.err != nil {
			return Row{}, m.err
		}
		f, err := m.field()
		if err == io.EOF {
			m.flush()
			if len(m.ready) == 0 {
				return Row{}, io.EOF
			}
			break
		}
		if err == nil {
			err = m.read(f)
		}
		m.err = err
	}
	row := m.ready[0]
	m.ready = m.ready[1:]
	return row, nil
}

func (m *mt940Reader) read(f *mt940Field) error {
	if f.tag == "86" {
		if m.pending != nil && m.info == nil {
			m.info = f.lines
		}
		return nil // a :86: after the balances speaks of the statement, not a row
	}
	m.flush()
	switch f.tag {
	case "20":
		m.account, m.currency = "", ""
	case "25":
		m.account = strings.TrimSpace(strings.Join(f.lines, ""))
	case "60F", "60M", "62F", "62M":
		b, err := m.balance(f)
		if err != nil {
			return err
		}
		if b.Kind == BalanceOpening {
			m.currency = b.Currency
		}
		m.balances = append(m.balances, b)
	case "61":
		row, err := m.statementLine(f)
		if err != nil {
			return err
		}
		m.pending = &row
	}
	return nil
}

// flush finishes the pending row with its :86:.
func (m *mt940Reader) flush() {
	if m.pending == nil {
		return
	}
	row := *m.pending
	describeMT940(&row, m.info)
	m.ready = append(m.ready, row)
	m.pending, m.info = nil, nil
}

var mt940Balance = regexp.MustCompile(`^([CD])([0-9]{6})([A-Z]{3})([0-9]+(?:[,.][0-9]*)?)$`)

func (m *mt940Reader) balance(f *mt940Field) (Balance, error) {
	text := strings.TrimSpace(strings.Join(f.lines, ""))
	fail := func(what string) (Balance, error) {
		return Balance{}, &Error{Format: FormatMT940, Position: Position{Line: f.line}, Message: fmt.Sprintf(":%s: %q %s", f.tag, clip(text), what)}
	}
	p := mt940Balance.FindStringSubmatch(text)
	if p == nil {
		return fail("is not a balance such as C240131EUR1234,56 (credit or debit, date YYMMDD, currency, amount)")
	}
	date, ok := mt940Date(p[2])
	if !ok {
		return fail("has no valid date YYMMDD")
	}
	amount, ok := mt940Amount(p[4])
	if !ok {
		return fail("has no valid amount")
	}
	if p[1] == "D" {
		amount = amount.Neg()
	}
	kind := BalanceOpening
	if strings.HasPrefix(f.tag, "62") {
		kind = BalanceClosing
	}
	return Balance{Account: m.account, Kind: kind, Date: date, Amount: amount, Currency: p[3]}, nil
}

// mt940Line is a :61: statement line: value date, entry date, mark, funds code, amount,
// transaction type, the customer's reference and the bank's after "//". Some banks put a
// space before the type, or write a two-letter type padded with a space (ING's "NOV ").
var mt940Line = regexp.MustCompile(`^([0-9]{6})([0-9]{4})?(RC|RD|C|D)([A-Z])?([0-9]+(?:[,.][0-9]*)?) ?([NFS][A-Z0-9]{3}|[NFS][A-Z0-9]{2} )(.*)$`)

func (m *mt940Reader) statementLine(f *mt940Field) (Row, error) {
	text := strings.TrimSpace(f.lines[0])
	pos := Position{Line: f.line}
	fail := func(what string) (Row, error) {
		return Row{}, &Error{Format: FormatMT940, Position: pos, Message: fmt.Sprintf(":61: %q %s", clip(text), what)}
	}
	p := mt940Line.FindStringSubmatch(text)
	if p == nil {
		if len(text) < 6 || !isDigits(text[:6]) {
			return fail("does not start with a value date YYMMDD")
		}
		return fail("is not a statement line such as 2401310131D12,50NTRFNONREF//B123 (value date, entry date, C or D, amount, type, reference)")
	}
	value, ok := mt940Date(p[1])
	if !ok {
		return fail(fmt.Sprintf("has no valid value date: %s is not YYMMDD", p[1]))
	}
	date := value
	if p[2] != "" {
		if date, ok = nearestDate(value, p[2]); !ok {
			return fail(fmt.Sprintf("has no valid entry date: %s is not MMDD", p[2]))
		}
	}
	amount, ok := mt940Amount(p[5])
	if !ok {
		return fail(fmt.Sprintf("has no valid amount: %s", p[5]))
	}
	if p[3] == "D" || p[3] == "RC" {
		amount = amount.Neg()
	}
	row := Row{Account: m.account, Date: date, Amount: amount, Currency: m.currency, Position: pos}
	if value != date {
		row.ValueDate = value
	}
	if _, bank, ok := strings.Cut(p[7], "//"); ok {
		row.ExternalID = strings.TrimSpace(bank)
	}
	if len(f.lines) > 1 {
		row.Memo = strings.TrimSpace(strings.Join(f.lines[1:], " "))
	}
	return row, nil
}

// mt940Date reads YYMMDD.
func mt940Date(s string) (domain.Date, bool) {
	if len(s) != 6 || !isDigits(s) {
		return domain.Date{}, false
	}
	year := 2000 + int(s[0]-'0')*10 + int(s[1]-'0')
	if year >= 2080 {
		year -= 100
	}
	return calendarDate(year, s[2:])
}

// calendarDate is year's MMDD, if it is a day of that year.
func calendarDate(year int, mmdd string) (domain.Date, bool) {
	t, err := time.Parse("20060102", fmt.Sprintf("%04d%s", year, mmdd))
	if err != nil {
		return domain.Date{}, false
	}
	return domain.DateAt(t), true
}

// nearestDate is the MMDD nearest to near, in its year or the one before or after.
func nearestDate(near domain.Date, mmdd string) (domain.Date, bool) {
	var best domain.Date
	found := false
	for _, year := range []int{near.Year() - 1, near.Year(), near.Year() + 1} {
		d, ok := calendarDate(year, mmdd)
		if !ok {
			continue
		}
		if !found || abs(d.Sub(near)) < abs(best.Sub(near)) {
			best, found = d, true
		}
	}
	return best, found
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// mt940Amount reads an amount with a decimal comma (or, from some banks, a point).
func mt940Amount(s string) (decimal.Decimal, bool) {
	s = strings.Replace(s, ",", ".", 1)
	s = strings.TrimSuffix(s, ".")
	if s == "" || len(s) > 18 {
		return decimal.Decimal{}, false
	}
	d, err := decimal.NewFromString(s)
	return d, err == nil
}

// mt940German is the German banks' :86:: a three-digit transaction code, then
// subfields each opened by a separator (usually "?") and two digits.
var mt940German = regexp.MustCompile(`^[0-9]{3}([^0-9A-Za-z\s])[0-9]{2}`)

// sepaKeys open the parts of a German SEPA purpose.
var sepaKeys = regexp.MustCompile(`(EREF|KREF|MREF|CRED|DEBT|SVWZ|ABWA|ABWE|IBAN|BIC|COAM|OAMT)\+`)

// describeMT940 sets a row's payee, memo and counterparty account from its :86:.
func describeMT940(row *Row, info []string) {
	if len(info) == 0 {
		return
	}
	joined := strings.Join(info, "")
	if p := mt940German.FindStringSubmatch(joined); p != nil {
		describeGerman(row, joined, p[1])
		return
	}
	if codes := slashFields(joined); codes != nil {
		describeSlashed(row, codes)
		return
	}
	var parts []string
	for _, l := range info {
		if s := strings.TrimSpace(l); s != "" {
			parts = append(parts, s)
		}
	}
	if len(parts) > 0 {
		row.Memo = strings.Join(parts, " ")
	}
}

func describeGerman(row *Row, text, sep string) {
	supplementary := row.Memo
	row.Memo = ""
	var purpose []string
	var name, posting strings.Builder
	for _, part := range strings.Split(text, sep)[1:] {
		if len(part) < 2 {
			continue
		}
		code, value := part[:2], part[2:]
		switch {
		case code == "00":
			posting.WriteString(value)
		case code >= "20" && code <= "29", code >= "60" && code <= "63":
			purpose = append(purpose, value)
		case code == "31":
			row.CounterpartyAccount = strings.TrimSpace(value)
		case code == "32" || code == "33":
			name.WriteString(value)
		}
	}
	row.Payee = strings.TrimSpace(name.String())
	whole := joinPurpose(purpose)
	// A SEPA purpose names its parts (EREF+, SVWZ+): the remittance text follows SVWZ+.
	if keys := sepaKeys.FindAllStringSubmatchIndex(whole, -1); keys != nil {
		for i, k := range keys {
			if whole[k[2]:k[3]] != "SVWZ" {
				continue
			}
			end := len(whole)
			if i+1 < len(keys) {
				end = keys[i+1][0]
			}
			row.Memo = strings.TrimSpace(whole[k[1]:end])
		}
	}
	if row.Memo == "" {
		row.Memo = strings.TrimSpace(whole)
	}
	if row.Memo == "" {
		row.Memo = strings.TrimSpace(posting.String())
	}
	if row.Memo == "" {
		row.Memo = supplementary
	}
}

// purposeWidth is the width of a German :86: purpose subfield (?20 to ?29, ?60 to ?63).
const purposeWidth = 27

// joinPurpose joins the purpose's subfields. The bank cuts the text into subfields of
// 27 characters, inside a word as often as not: a full subfield runs on into the next,
// a shorter one ended where its line did, and a space joins it to the next.
func joinPurpose(parts []string) string {
	var b strings.Builder
	for i, p := range parts {
		if i > 0 && utf8.RuneCountInString(parts[i-1]) < purposeWidth {
			trimmed := strings.TrimRight(b.String(), " ")
			b.Reset()
			b.WriteString(trimmed)
			if trimmed != "" {
				b.WriteByte(' ')
			}
			p = strings.TrimLeft(p, " ")
		}
		b.WriteString(p)
	}
	return b.String()
}

// slashCodes are the codes of the /CODE/value style of :86: (Dutch, Belgian and other
// banks, after the SEPA usage rules).
var slashCodes = map[string]bool{
	"TRTP": true, "IBAN": true, "BIC": true, "NAME": true, "REMI": true, "EREF": true,
	"MARF": true, "CSID": true, "CNTP": true, "ORDP": true, "BENM": true, "PURP": true,
	"RTRN": true, "ACCW": true, "ADDR": true, "ULTC": true, "ULTD": true, "ULTB": true,
	"ISDT": true, "CDTRREF": true, "CDTRREFTP": true, "OCMT": true, "CHGS": true,
	"EXCH": true, "SVCL": true, "BUSP": true, "ID": true, "PREF": true, "RTYP": true,
}

// slashFields splits "/CODE/value/CODE/value" into its codes' values, or nil when the
// text is not in that style.
func slashFields(text string) map[string]string {
	text = strings.TrimSpace(text)
	if !strings.HasPrefix(text, "/") {
		return nil
	}
	// starts are where "/CODE/" opens a field.
	type start struct{ at, value int }
	var starts []start
	var codes []string
	for i := 0; i < len(text); i++ {
		if text[i] != '/' {
			continue
		}
		end := strings.IndexByte(text[i+1:], '/')
		if end < 0 {
			break
		}
		if code := text[i+1 : i+1+end]; slashCodes[code] {
			starts = append(starts, start{i, i + end + 2})
			codes = append(codes, code)
			i += end
		}
	}
	if len(starts) == 0 || starts[0].at != 0 {
		return nil
	}
	fields := map[string]string{}
	for i, s := range starts {
		end := len(text)
		if i+1 < len(starts) {
			end = starts[i+1].at
		}
		// "/ORDP//NAME/x": a field may be empty, its closing slash the next one's opening.
		if _, seen := fields[codes[i]]; !seen {
			fields[codes[i]] = text[min(s.value, end):end]
		}
	}
	return fields
}

func describeSlashed(row *Row, f map[string]string) {
	clean := func(s string) string { return strings.TrimSpace(strings.Trim(s, "/ ")) }
	row.Payee = clean(f["NAME"])
	row.CounterpartyAccount = clean(f["IBAN"])
	if cntp, ok := f["CNTP"]; ok {
		// /CNTP/account/BIC/name/city/
		parts := strings.Split(cntp, "/")
		if row.CounterpartyAccount == "" && len(parts) > 0 {
			row.CounterpartyAccount = clean(parts[0])
		}
		if row.Payee == "" && len(parts) > 2 {
			row.Payee = clean(parts[2])
		}
	}
	remi := f["REMI"]
	// /REMI/USTD//text/ and /REMI/STRD/CUR/ref/ carry the text after their kind.
	for _, kind := range []string{"USTD//", "USTD/", "STRD/CUR/", "STRD/ISO/", "STRD/"} {
		if rest, ok := strings.CutPrefix(remi, kind); ok {
			remi = rest
			break
		}
	}
	if remi := clean(remi); remi != "" {
		row.Memo = remi
	}
}
