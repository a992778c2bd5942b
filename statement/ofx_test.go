package statement

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

const ofxSGMLHeader = "OFXHEADER:100\r\nDATA:OFXSGML\r\nVERSION:102\r\nSECURITY:NONE\r\nENCODING:USASCII\r\nCHARSET:1252\r\nCOMPRESSION:NONE\r\nOLDFILEUID:NONE\r\nNEWFILEUID:NONE\r\n\r\n"

func TestOFX(t *testing.T) {
	in := ofxSGMLHeader + "<OFX>\r\n<SIGNONMSGSRSV1><SONRS><STATUS><CODE>0<SEVERITY>INFO</STATUS><DTSERVER>20240201<LANGUAGE>ENG</SONRS></SIGNONMSGSRSV1>\r\n" +
		"<BANKMSGSRSV1>\r\n<STMTTRNRS><TRNUID>1<STATUS><CODE>0<SEVERITY>INFO</STATUS>\r\n<STMTRS><CURDEF>USD\r\n" +
		"<BANKACCTFROM><BANKID>121000248<ACCTID>1111<ACCTTYPE>CHECKING</BANKACCTFROM>\r\n" +
		"<BANKTRANLIST><DTSTART>20240101<DTEND>20240131\r\n" +
		"<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>20240131230000.000[-6:CST]<DTUSER>20240129<DTAVAIL>20240202<TRNAMT>-12.50<FITID>F1<NAME>Caf\xe9 Se\xf1or<MEMO>Latte &amp; cake</STMTTRN>\r\n" +
		"<STMTTRN><TRNTYPE>XFER<DTPOSTED>20240115<TRNAMT>+100<FITID>F2<PAYEE><NAME>Mom<ADDR1>Street 1</PAYEE><BANKACCTTO><BANKID>1<ACCTID>2222<ACCTTYPE>SAVINGS</BANKACCTTO><MEMO></STMTTRN>\r\n" +
		"</BANKTRANLIST><LEDGERBAL><BALAMT>1000.01<DTASOF>20240131120000</LEDGERBAL><AVAILBAL><BALAMT>5<DTASOF>20240131</AVAILBAL></STMTRS></STMTTRNRS>\r\n" +
		"<STMTTRNRS><TRNUID>2<STMTRS><CURDEF>EUR<BANKACCTFROM><BANKID>1<ACCTID>3333<ACCTTYPE>SAVINGS</BANKACCTFROM>" +
		"<BANKTRANLIST><STMTTRN><TRNTYPE>INT<DTPOSTED>20240131<TRNAMT>0.07<FITID>F3<NAME>Interest</STMTTRN></BANKTRANLIST></STMTRS></STMTTRNRS>\r\n" +
		"</BANKMSGSRSV1>\r\n<CREDITCARDMSGSRSV1><CCSTMTTRNRS><CCSTMTRS><CURDEF>MXN<CCACCTFROM><ACCTID>4444</CCACCTFROM>" +
		"<BANKTRANLIST><STMTTRN><TRNTYPE>DEBIT<DTPOSTED>20240110<TRNAMT>-1234,5<FITID>F4<CURRENCY><CURRATE>1<CURSYM>USD</CURRENCY></STMTTRN></BANKTRANLIST>" +
		"<LEDGERBAL><BALAMT>-300<DTASOF>20240131</LEDGERBAL></CCSTMTRS></CCSTMTTRNRS></CREDITCARDMSGSRSV1></OFX>\r\n"
	xml := `<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<?OFX OFXHEADER="200" VERSION="211" SECURITY="NONE" OLDFILEUID="NONE" NEWFILEUID="NONE"?>
<OFX>
  <BANKMSGSRSV1><STMTTRNRS><TRNUID>0</TRNUID><STMTRS>
    <CURDEF>EUR</CURDEF>
    <BANKACCTFROM><BANKID>1</BANKID><ACCTID>DE89</ACCTID><ACCTTYPE>CHECKING</ACCTTYPE></BANKACCTFROM>
    <BANKTRANLIST>
      <STMTTRN><TRNTYPE>DEBIT</TRNTYPE><DTPOSTED>20231231</DTPOSTED><TRNAMT>-5.00</TRNAMT><FITID>X1</FITID><NAME>Bäckerei</NAME><MEMO/></STMTTRN>
    </BANKTRANLIST>
    <LEDGERBAL><BALAMT>10.00</BALAMT><DTASOF>20231231</DTASOF></LEDGERBAL>
  </STMTRS></STMTTRNRS></BANKMSGSRSV1>
</OFX>`
	latin1 := strings.Replace(ofxSGMLHeader, "CHARSET:1252", "CHARSET:ISO-8859-1", 1) +
		"<OFX><BANKMSGSRSV1><STMTTRNRS><STMTRS><CURDEF>EUR<BANKACCTFROM><ACCTID>9</BANKACCTFROM><BANKTRANLIST>" +
		"<STMTTRN><DTPOSTED>20240102<TRNAMT>-.5<FITID>L1<NAME>Cr\xe8me br\xfbl\xe9e</STMTTRN></BANKTRANLIST></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>"
	utf8Header := strings.Replace(ofxSGMLHeader, "ENCODING:USASCII", "ENCODING:UTF-8", 1) +
		"<OFX><BANKMSGSRSV1><STMTTRNRS><STMTRS><CURDEF>EUR<BANKACCTFROM><ACCTID>9</BANKACCTFROM><BANKTRANLIST>" +
		"<STMTTRN><DTPOSTED>20240102<TRNAMT>1<FITID>U1<NAME>Niño</STMTTRN></BANKTRANLIST></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>"
	// Some banks write the header on one line, with the first tag on it.
	oneLine := "OFXHEADER:100 DATA:OFXSGML VERSION:102 CHARSET:1252<OFX><CREDITCARDMSGSRSV1><CCSTMTTRNRS><CCSTMTRS><CURDEF>CAD<CCACCTFROM><ACCTID>5</CCACCTFROM><BANKTRANLIST>" +
		"<STMTTRN><DTPOSTED>20240301<TRNAMT>-2</TRNAMT><FITID>C1</FITID><NAME>Shop</NAME></STMTTRN></BANKTRANLIST></CCSTMTRS></CCSTMTTRNRS></CREDITCARDMSGSRSV1></OFX>"

	cases := []struct {
		name     string
		in       string
		rows     []rowFields
		balances []string
	}{
		{"SGML, several accounts and a card, CHARSET 1252", in, []rowFields{
			{"1111", "2024-01-31", "2024-02-02", "-12.5", "USD", "Café Señor", "Latte & cake", "F1", ""},
			{"1111", "2024-01-15", "", "100", "USD", "Mom", "", "F2", "2222"},
			{"3333", "2024-01-31", "", "0.07", "EUR", "Interest", "", "F3", ""},
			{"4444", "2024-01-10", "", "-1234.5", "USD", "", "", "F4", ""},
		}, []string{"1111 closing 2024-01-31 1000.01 USD", "4444 closing 2024-01-31 -300 MXN"}},
		{"XML", xml, []rowFields{{"DE89", "2023-12-31", "", "-5", "EUR", "Bäckerei", "", "X1", ""}}, []string{"DE89 closing 2023-12-31 10 EUR"}},
		{"ISO-8859-1", latin1, []rowFields{{"9", "2024-01-02", "", "-0.5", "EUR", "Crème brûlée", "", "L1", ""}}, nil},
		{"UTF-8 SGML", utf8Header, []rowFields{{"9", "2024-01-02", "", "1", "EUR", "Niño", "", "U1", ""}}, nil},
		{"one-line header, closed leaves", oneLine, []rowFields{{"5", "2024-03-01", "", "-2", "CAD", "Shop", "", "C1", ""}}, nil},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			rows, balances, err := readStatement(t, NewOFX, tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != len(tt.rows) {
				t.Fatalf("got %d rows, want %d: %+v", len(rows), len(tt.rows), rows)
			}
			for i, r := range rows {
				if got := rowOf(r); got != tt.rows[i] {
					t.Errorf("row %d:\n got %+v\nwant %+v", i, got, tt.rows[i])
				}
			}
			if len(balances) != len(tt.balances) {
				t.Fatalf("balances %v", balances)
			}
			for i, b := range balances {
				if balanceOf(b) != tt.balances[i] {
					t.Errorf("balance %d: %s, want %s", i, balanceOf(b), tt.balances[i])
				}
			}
		})
	}
}

func TestOFXMalformed(t *testing.T) {
	wrap := func(txn string) string {
		return ofxSGMLHeader + "<OFX>\n<BANKMSGSRSV1><STMTTRNRS><STMTRS><CURDEF>EUR\n<BANKTRANLIST>\n" + txn + "\n</BANKTRANLIST></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>"
	}
	tests := []struct {
		name, in string
		line     int
		what     string
	}{
		{"empty", "  \n", 2, "empty"},
		{"csv", "date,amount\n", 1, "starts with neither"},
		{"header without body", "OFXHEADER:100\nDATA:OFXSGML\n", 3, "not followed by an <OFX>"},
		{"unknown charset", strings.Replace(ofxSGMLHeader, "CHARSET:1252", "CHARSET:KLINGON", 1) + "<OFX></OFX>", 11, `CHARSET "KLINGON"`},
		{"no amount", wrap("<STMTTRN><DTPOSTED>20240101<FITID>1</STMTTRN>"), 14, "no amount (TRNAMT)"},
		{"bad amount", wrap("<STMTTRN><DTPOSTED>20240101<TRNAMT>1.2.3</STMTTRN>"), 14, `"1.2.3" is not a number`},
		{"no date", wrap("<STMTTRN><TRNAMT>1</STMTTRN>"), 14, "no date (DTPOSTED)"},
		{"bad date", wrap("<STMTTRN><TRNAMT>1<DTPOSTED>20241301</STMTTRN>"), 14, `"20241301" is not a date`},
		{"unclosed transaction", wrap("<STMTTRN><TRNAMT>1<DTPOSTED>20240101"), 15, "<STMTTRN> of line 14 is not closed before </BANKTRANLIST>"},
		{"stray close", wrap("</STMTTRN>"), 14, "</STMTTRN> closes an element that is not open"},
		{"truncated", ofxSGMLHeader + "<OFX><BANKMSGSRSV1>\n<STMTTRNRS>", 12, "ends before <STMTTRNRS> of line 12 is closed"},
		{"not OFX first", ofxSGMLHeader + "<FOO>bar</FOO>", 11, "first element is <FOO>, not <OFX>"},
		{"no OFX", "<?xml version=\"1.0\"?>\n<?OFX OFXHEADER=\"200\"?>\n", 3, "no <OFX> element"},
		{"year 0", wrap("<STMTTRN><TRNAMT>1<DTPOSTED>00000101</STMTTRN>"), 14, `"00000101" is not a date`},
		{"tag never ends", ofxSGMLHeader + "<OFX><STMTTRN" + strings.Repeat("x", 2000), 11, "without its '>'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := readStatement(t, NewOFX, tt.in)
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("error %v, want an *Error", err)
			}
			if se.Position.Line != tt.line || !strings.Contains(se.Message, tt.what) {
				t.Fatalf("error %q, want it on line %d saying %q", err, tt.line, tt.what)
			}
		})
	}
}

func TestOFXSamples(t *testing.T) {
	rows := readSamples(t, "ofx-*", NewOFX, nil)
	// An investment statement's cash movements, in the currency each states.
	inv := rows["ofx-ofxparse-investment_medium.ofx"]
	if len(inv) != 3 || rowOf(inv[0]) != (rowFields{"ABC123", "2009-12-15", "", "-3.65", "USD", "", "CASH TRADE: AUD.USD", "20091215.U489357.e.USD.1510480481", ""}) {
		t.Errorf("investment rows %+v", inv)
	}
}

// FuzzOFX runs for as long as asked with
//
//	go test ./statement -run '^$' -fuzz FuzzOFX -fuzztime 5m
func FuzzOFX(f *testing.F) {
	addSeeds(f, "ofx-*", ofxSGMLHeader+"<OFX><BANKMSGSRSV1><STMTTRNRS><STMTRS><CURDEF>EUR<BANKACCTFROM><ACCTID>9</BANKACCTFROM><BANKTRANLIST>"+
		"<STMTTRN><DTPOSTED>20240102<TRNAMT>-.5<FITID>L1<NAME>Cr\xe8me</STMTTRN></BANKTRANLIST><LEDGERBAL><BALAMT>1<DTASOF>20240102</LEDGERBAL></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>")
	f.Fuzz(func(t *testing.T, in []byte) { fuzzReader(t, NewOFX, in) })
}

// An SGML file of 100,000 transactions, written as it is read, is read in bounded memory.
func TestOFXStreamsInBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 100,000 transactions")
	}
	const n = 100_000
	pr, pw := io.Pipe()
	go func() {
		fmt.Fprint(pw, ofxSGMLHeader+"<OFX><BANKMSGSRSV1><STMTTRNRS><STMTRS><CURDEF>USD<BANKACCTFROM><ACCTID>1</BANKACCTFROM><BANKTRANLIST>\n")
		for i := range n {
			if _, err := fmt.Fprintf(pw, "<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>202401%02d120000[-6:CST]<TRNAMT>-%d.%02d<FITID>F%d<NAME>Shop number %d<MEMO>A memo long enough to weigh something, number %d\n</STMTTRN>\n", i%28+1, i%1000, i%100, i, i, i); err != nil {
				return
			}
		}
		fmt.Fprint(pw, "</BANKTRANLIST></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>")
		pw.Close()
	}()
	streamsInBoundedMemory(t, NewOFX, pr, n, 16<<20)
}
