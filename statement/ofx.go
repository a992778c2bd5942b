package statement

import (
	"bufio"
	"bytes"
	"fmt"
	"html"
	"io"
	"regexp"
	"strings"
	"time"

	"github.com/shopspring/decimal"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/htmlindex"
	"golang.org/x/text/encoding/unicode"

	"github.com/finledger/finledger/domain"
)

// NewOFX reads an OFX file: OFX 1.x, the SGML whose leaf elements are not closed, after
// its OFXHEADER block; OFX 2.x, XML after its <?OFX?> instruction; and Quicken's QFX,
// which is either. Bank statements (STMTRS) and credit-card statements (CCSTMTRS) are
// read, as many as the file holds, each STMTTRN as it closes; of an investment statement
// (INVSTMTRS), the movements of cash (INVBANKTRAN), not the trades of securities. The text is decoded as the header says: CHARSET 1252 or ISO-8859-1, or UTF-8;
// CHARSET NONE with ENCODING USASCII, which in practice is Windows-1252 when a byte is
// not ASCII, is read as Windows-1252.
//
// DTPOSTED is the row's Date, and DTAVAIL, the day the money is available, its ValueDate
// when it differs. DTUSER, the day the person acted (a card's purchase), is neither a
// booking nor a value date and is not read. An OFX date-time is read as the calendar
// date the bank wrote, ignoring the time and its zone: 20240131230000[-6:CST] is 31
// January.
//
// After an error, Next returns it again: the rest of the file is not read.
func NewOFX(r io.Reader) (Reader, error) {
	br := bufio.NewReaderSize(r, 4096)
	line, err := skipSpace(br)
	if err != nil {
		return nil, err
	}
	start, _ := br.Peek(9)
	var body io.Reader = br
	var enc encoding.Encoding = unicode.UTF8
	switch {
	case bytes.EqualFold(start, []byte("OFXHEADER")):
		var rest []byte
		enc, rest, line, err = readOFXHeader(br, line)
		if err != nil {
			return nil, err
		}
		body = io.MultiReader(bytes.NewReader(rest), br)
	case bytes.HasPrefix(start, []byte("<?xml")):
		head, _ := br.Peek(512)
		if m := xmlEncoding.FindSubmatch(head); m != nil {
			if enc, err = htmlindex.Get(string(m[1])); err != nil {
				return nil, &Error{Format: FormatOFX, Position: Position{Line: line}, Message: fmt.Sprintf("the XML declaration's encoding %q is not one known", m[1])}
			}
		}
	case bytes.HasPrefix(start, []byte("<")):
	default:
		return nil, &Error{Format: FormatOFX, Position: Position{Line: line}, Message: "the file starts with neither an OFXHEADER block, nor <?xml, nor an OFX element"}
	}
	o := &ofxReader{lx: &ofxLexer{r: bufio.NewReader(enc.NewDecoder().Reader(body)), line: line}}
	return o, nil
}

var xmlEncoding = regexp.MustCompile(`^<\?xml[^>]*encoding=["']([A-Za-z0-9._-]+)["']`)

// skipSpace skips a byte-order mark and blank lines, and returns the line reached.
func skipSpace(br *bufio.Reader) (int, error) {
	line := 1
	if bom, _ := br.Peek(3); bytes.Equal(bom, []byte{0xEF, 0xBB, 0xBF}) {
		br.Discard(3)
	}
	for {
		b, err := br.ReadByte()
		if err == io.EOF {
			return line, &Error{Format: FormatOFX, Position: Position{Line: line}, Message: "the file is empty"}
		}
		if err != nil {
			return line, err
		}
		switch b {
		case '\n':
			line++
		case ' ', '\t', '\r':
		default:
			return line, br.UnreadByte()
		}
	}
}

// readOFXHeader reads OFX 1.x's "KEY:VALUE" lines up to the first tag, and returns the
// encoding they state, what of the last line's text follows them, and its line.
func readOFXHeader(br *bufio.Reader, line int) (encoding.Encoding, []byte, int, error) {
	fields := map[string]string{}
	for n := 0; ; n++ {
		if n > 40 {
			return nil, nil, line, &Error{Format: FormatOFX, Position: Position{Line: line}, Message: "the OFXHEADER block runs on for 40 lines without reaching <OFX>"}
		}
		text, err := br.ReadSlice('\n')
		if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
			return nil, nil, line, err
		}
		if i := bytes.IndexByte(text, '<'); i >= 0 {
			rest := append([]byte(nil), text[i:]...)
			addHeaderFields(fields, text[:i])
			enc, herr := ofxEncoding(fields, line)
			return enc, rest, line, herr
		}
		if err == io.EOF || err == bufio.ErrBufferFull {
			return nil, nil, line, &Error{Format: FormatOFX, Position: Position{Line: line}, Message: "the OFXHEADER block is not followed by an <OFX> element"}
		}
		addHeaderFields(fields, text)
		line++
	}
}

// addHeaderFields reads "KEY:VALUE" pairs; some banks write them all on one line.
func addHeaderFields(fields map[string]string, text []byte) {
	for _, f := range strings.Fields(string(text)) {
		if k, v, ok := strings.Cut(f, ":"); ok {
			fields[strings.ToUpper(k)] = strings.ToUpper(v)
		}
	}
}

func ofxEncoding(fields map[string]string, line int) (encoding.Encoding, error) {
	if fields["ENCODING"] == "UTF-8" || fields["ENCODING"] == "UTF8" {
		return unicode.UTF8, nil
	}
	switch cs := fields["CHARSET"]; cs {
	case "", "NONE", "1252", "WINDOWS-1252", "CP1252":
		return charmap.Windows1252, nil
	case "ISO-8859-1", "8859-1", "LATIN1", "ISO8859-1":
		return charmap.ISO8859_1, nil
	case "UTF-8", "UTF8":
		return unicode.UTF8, nil
	default:
		for _, name := range []string{cs, "windows-" + cs, "iso-" + cs} {
			if enc, err := htmlindex.Get(name); err == nil {
				return enc, nil
			}
		}
		return nil, &Error{Format: FormatOFX, Position: Position{Line: line}, Message: fmt.Sprintf("the header's CHARSET %q is not a character set known", clip(cs))}
	}
}

// ofxAggregates are the elements read as containers; every other element is a leaf,
// closed or not, whose text belongs to the innermost open aggregate. Elements neither
// read nor known (SONRS, STATUS, AVAILBAL's parts) are passed through.
var ofxAggregates = map[string]bool{
	"OFX": true, "BANKMSGSRSV1": true, "CREDITCARDMSGSRSV1": true,
	"STMTTRNRS": true, "CCSTMTTRNRS": true, "STMTRS": true, "CCSTMTRS": true,
	"BANKACCTFROM": true, "CCACCTFROM": true, "BANKACCTTO": true, "CCACCTTO": true,
	"BANKTRANLIST": true, "STMTTRN": true, "PAYEE": true, "CURRENCY": true,
	"ORIGCURRENCY": true, "LEDGERBAL": true, "AVAILBAL": true,
	"INVSTMTMSGSRSV1": true, "INVSTMTTRNRS": true, "INVSTMTRS": true, "INVACCTFROM": true,
	"INVTRANLIST": true, "INVBANKTRAN": true,
}

type ofxOpen struct {
	name string
	line int
}

type ofxReader struct {
	lx       *ofxLexer
	open     []ofxOpen
	leaf     string // a leaf whose text is awaited
	sawOFX   bool
	done     bool
	entries  int
	account  string
	currency string
	txn      map[string]string // the open STMTTRN's leaves, by aggregate/name
	balance  map[string]string
	balances []Balance
	ready    []Row
	err      error
}

func (o *ofxReader) Balances() []Balance { return o.balances }

func (o *ofxReader) Next() (Row, error) {
	for len(o.ready) == 0 {
		if o.err != nil {
			return Row{}, o.err
		}
		if o.done {
			return Row{}, io.EOF
		}
		o.err = o.step()
	}
	row := o.ready[0]
	o.ready = o.ready[1:]
	return row, nil
}

func (o *ofxReader) step() error {
	tok, err := o.lx.next()
	if err == io.EOF {
		if n := len(o.open); n > 0 {
			return o.errorf(o.lx.line, "the file ends before <%s> of line %d is closed", o.open[n-1].name, o.open[n-1].line)
		}
		if !o.sawOFX {
			return o.errorf(o.lx.line, "the file holds no <OFX> element")
		}
		o.done = true
		return nil
	}
	if err != nil {
		return err
	}
	switch tok.kind {
	case ofxStart:
		o.leaf = ""
		if !o.sawOFX && tok.name != "OFX" {
			return o.errorf(tok.line, "the file's first element is <%s>, not <OFX>", tok.name)
		}
		if !ofxAggregates[tok.name] {
			o.leaf = tok.name
			return nil
		}
		return o.start(tok)
	case ofxEnd:
		o.leaf = ""
		if !ofxAggregates[tok.name] {
			return nil // a closed leaf, or an element not read
		}
		return o.end(tok)
	case ofxText:
		if o.leaf != "" && len(o.open) > 0 {
			o.value(o.leaf, tok.text)
		}
		o.leaf = ""
	}
	return nil
}

func (o *ofxReader) start(tok ofxToken) error {
	if len(o.open) >= 16 {
		return o.errorf(tok.line, "<%s> is nested more than 16 deep", tok.name)
	}
	switch tok.name {
	case "OFX":
		o.sawOFX = true
	case "STMTRS", "CCSTMTRS", "INVSTMTRS":
		o.account, o.currency = "", ""
	case "STMTTRN":
		if o.txn != nil {
			return o.errorf(tok.line, "<STMTTRN> opens inside another, which is not closed")
		}
		o.txn = map[string]string{}
		o.entries++
	case "LEDGERBAL":
		o.balance = map[string]string{}
	}
	o.open = append(o.open, ofxOpen{tok.name, tok.line})
	return nil
}

func (o *ofxReader) end(tok ofxToken) error {
	i := len(o.open) - 1
	for i >= 0 && o.open[i].name != tok.name {
		i--
	}
	if i < 0 {
		return o.errorf(tok.line, "</%s> closes an element that is not open", tok.name)
	}
	if i < len(o.open)-1 {
		inner := o.open[len(o.open)-1]
		return o.errorf(tok.line, "<%s> of line %d is not closed before </%s>", inner.name, inner.line, tok.name)
	}
	opened := o.open[i]
	path := o.path()
	o.open = o.open[:i]
	switch tok.name {
	case "STMTTRN":
		row, err := o.row(opened.line, path)
		o.txn = nil
		if err != nil {
			return err
		}
		o.ready = append(o.ready, row)
	case "LEDGERBAL":
		stated := o.balance["BALAMT"] != "" || o.balance["DTASOF"] != ""
		b, err := o.ledgerBalance(opened.line, path)
		o.balance = nil
		if !stated {
			return nil // <LEDGERBAL> with empty leaves: the bank states no balance
		}
		if err != nil {
			return err
		}
		o.balances = append(o.balances, b)
	}
	return nil
}

// value files a leaf's text under the aggregate it sits in.
func (o *ofxReader) value(name, text string) {
	in := o.open[len(o.open)-1].name
	switch {
	case o.txn != nil:
		o.txn[in+"/"+name] = text
	case o.balance != nil && in == "LEDGERBAL":
		o.balance[name] = text
	case (in == "BANKACCTFROM" || in == "CCACCTFROM" || in == "INVACCTFROM") && name == "ACCTID":
		o.account = text
	case (in == "STMTRS" || in == "CCSTMTRS" || in == "INVSTMTRS") && name == "CURDEF":
		o.currency = text
	}
}

func (o *ofxReader) row(line int, path string) (Row, error) {
	t := o.txn
	pos := Position{Line: line, Element: path}
	fail := func(format string, args ...any) (Row, error) {
		return Row{}, &Error{Format: FormatOFX, Position: pos, Message: fmt.Sprintf(format, args...)}
	}
	amountText, ok := t["STMTTRN/TRNAMT"]
	if !ok {
		return fail("the transaction has no amount (TRNAMT)")
	}
	amount, ok := ofxAmount(amountText)
	if !ok {
		return fail("the transaction's amount (TRNAMT) %q is not a number such as -12.50", clip(amountText))
	}
	posted, ok := t["STMTTRN/DTPOSTED"]
	if !ok {
		return fail("the transaction has no date (DTPOSTED)")
	}
	date, ok := ofxDate(posted)
	if !ok {
		return fail("the transaction's date (DTPOSTED) %q is not a date such as 20240131", clip(posted))
	}
	row := Row{
		Account:             o.account,
		Date:                date,
		Amount:              amount,
		Currency:            o.currency,
		Payee:               t["STMTTRN/NAME"],
		Memo:                t["STMTTRN/MEMO"],
		ExternalID:          t["STMTTRN/FITID"],
		CounterpartyAccount: t["BANKACCTTO/ACCTID"] + t["CCACCTTO/ACCTID"],
		Position:            pos,
	}
	if avail, ok := t["STMTTRN/DTAVAIL"]; ok {
		value, ok := ofxDate(avail)
		if !ok {
			return fail("the transaction's DTAVAIL %q is not a date such as 20240131", clip(avail))
		}
		if value != date {
			row.ValueDate = value
		}
	}
	if row.Payee == "" {
		row.Payee = t["PAYEE/NAME"]
	}
	if c := t["CURRENCY/CURSYM"]; c != "" {
		row.Currency = c
	}
	return row, nil
}

func (o *ofxReader) ledgerBalance(line int, path string) (Balance, error) {
	pos := Position{Line: line, Element: path}
	amount, ok := ofxAmount(o.balance["BALAMT"])
	if !ok {
		return Balance{}, &Error{Format: FormatOFX, Position: pos, Message: fmt.Sprintf("the balance's amount (BALAMT) %q is not a number such as 1234.56", clip(o.balance["BALAMT"]))}
	}
	date, ok := ofxDate(o.balance["DTASOF"])
	if !ok {
		return Balance{}, &Error{Format: FormatOFX, Position: pos, Message: fmt.Sprintf("the balance's date (DTASOF) %q is not a date such as 20240131", clip(o.balance["DTASOF"]))}
	}
	return Balance{Account: o.account, Kind: BalanceClosing, Date: date, Amount: amount, Currency: o.currency}, nil
}

// ofxNumber is an OFX amount: a sign, digits and a decimal point (or, from some banks,
// a comma).
var ofxNumber = regexp.MustCompile(`^[+-]?([0-9]{1,18}([.,][0-9]{0,8})?|[.,][0-9]{1,8})$`)

func ofxAmount(s string) (decimal.Decimal, bool) {
	s = strings.TrimSpace(s)
	if !ofxNumber.MatchString(s) {
		return decimal.Decimal{}, false
	}
	s = strings.TrimPrefix(strings.Replace(s, ",", ".", 1), "+")
	s = strings.TrimSuffix(s, ".")
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "-.") {
		s = strings.Replace(s, ".", "0.", 1)
	}
	d, err := decimal.NewFromString(s)
	return d, err == nil
}

// ofxDate reads the calendar date of an OFX date-time, YYYYMMDD then, optionally, the
// time, its fraction and a zone in brackets, which do not change the day written.
func ofxDate(s string) (domain.Date, bool) {
	s = strings.TrimSpace(s)
	if len(s) < 8 || !isDigits(s[:8]) {
		return domain.Date{}, false
	}
	t, err := time.Parse("20060102", s[:8])
	if err != nil || !plausibleYear(t.Year()) {
		return domain.Date{}, false
	}
	return domain.DateAt(t), true
}

func (o *ofxReader) path() string {
	names := make([]string, len(o.open))
	for i, e := range o.open {
		names[i] = e.name
	}
	if n := len(names); n > 0 && names[n-1] == "STMTTRN" {
		names[n-1] = fmt.Sprintf("STMTTRN[%d]", o.entries)
	}
	return strings.Join(names, "/")
}

func (o *ofxReader) errorf(line int, format string, args ...any) error {
	return &Error{Format: FormatOFX, Position: Position{Line: line, Element: o.path()}, Message: fmt.Sprintf(format, args...)}
}

type ofxKind int

const (
	ofxStart ofxKind = iota
	ofxEnd
	ofxText
)

type ofxToken struct {
	kind ofxKind
	name string // an element's, upper-cased
	text string // a text's, its entities decoded and its spaces trimmed
	line int
}

// ofxLexer splits SGML or XML into tags and text; it checks no nesting, which the
// reader does for the elements it reads.
type ofxLexer struct {
	r    *bufio.Reader
	line int
	buf  strings.Builder
	// closing is the end of an element written <X/>, due after its start.
	closing *ofxToken
}

const (
	ofxMaxTag  = 1024
	ofxMaxText = 64 << 10
)

func (l *ofxLexer) next() (ofxToken, error) {
	if l.closing != nil {
		t := *l.closing
		l.closing = nil
		return t, nil
	}
	for {
		c, _, err := l.r.ReadRune()
		if err != nil {
			return ofxToken{}, err
		}
		if c == '<' {
			t, ok, err := l.tag()
			if err != nil || ok {
				return t, err
			}
			continue
		}
		l.r.UnreadRune()
		t, err := l.text()
		if err != nil || t.text != "" {
			return t, err
		}
	}
}

// tag reads a tag after its '<'; comments and instructions are skipped (ok false).
func (l *ofxLexer) tag() (ofxToken, bool, error) {
	line := l.line
	l.buf.Reset()
	for {
		c, _, err := l.r.ReadRune()
		if err == io.EOF {
			return ofxToken{}, false, &Error{Format: FormatOFX, Position: Position{Line: line}, Message: "the file ends inside a tag"}
		}
		if err != nil {
			return ofxToken{}, false, err
		}
		if c == '\n' {
			l.line++
		}
		if c == '>' {
			s := l.buf.String()
			if !strings.HasPrefix(s, "!--") || strings.HasSuffix(s, "--") {
				break
			}
		}
		if l.buf.Len() >= ofxMaxTag && !strings.HasPrefix(l.buf.String(), "!--") {
			return ofxToken{}, false, &Error{Format: FormatOFX, Position: Position{Line: line}, Message: fmt.Sprintf("a tag runs on for %d characters without its '>'", ofxMaxTag)}
		}
		if l.buf.Len() < ofxMaxTag {
			l.buf.WriteRune(c)
		}
	}
	s := l.buf.String()
	if strings.HasPrefix(s, "?") || strings.HasPrefix(s, "!") {
		return ofxToken{}, false, nil
	}
	kind := ofxStart
	if rest, ok := strings.CutPrefix(s, "/"); ok {
		kind, s = ofxEnd, rest
	}
	selfClosing := kind == ofxStart && strings.HasSuffix(s, "/")
	s = strings.TrimSuffix(s, "/")
	name := strings.ToUpper(strings.TrimSpace(s))
	if i := strings.IndexAny(name, " \t\r\n"); i >= 0 {
		name = name[:i] // attributes, which OFX has none of
	}
	if name == "" || strings.ContainsAny(name, "<&\"'") {
		return ofxToken{}, false, &Error{Format: FormatOFX, Position: Position{Line: line}, Message: fmt.Sprintf("<%s> is not a tag", clip(s))}
	}
	if selfClosing {
		l.closing = &ofxToken{kind: ofxEnd, name: name, line: line}
	}
	return ofxToken{kind: kind, name: name, line: line}, true, nil
}

// text reads up to the next '<' or the end.
func (l *ofxLexer) text() (ofxToken, error) {
	line := l.line
	l.buf.Reset()
	for {
		c, _, err := l.r.ReadRune()
		if err == io.EOF {
			break
		}
		if err != nil {
			return ofxToken{}, err
		}
		if c == '<' {
			l.r.UnreadRune()
			break
		}
		if c == '\n' {
			l.line++
		}
		if l.buf.Len() >= ofxMaxText {
			return ofxToken{}, &Error{Format: FormatOFX, Position: Position{Line: line}, Message: fmt.Sprintf("a text runs on for %d characters without a tag", ofxMaxText)}
		}
		l.buf.WriteRune(c)
	}
	// HTML's entities are XML's and more (&nbsp;, &#233;); an ampersand that opens none,
	// as SGML files write AT&T, stays as it is.
	return ofxToken{kind: ofxText, text: html.UnescapeString(strings.TrimSpace(l.buf.String())), line: line}, nil
}
