package statement

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
)

// readStatement opens a statement with open and reads every row and the balances, or
// the first error.
func readStatement(t *testing.T, open func(io.Reader) (Reader, error), in string) ([]Row, []Balance, error) {
	t.Helper()
	r, err := open(strings.NewReader(in))
	if err != nil {
		return nil, nil, err
	}
	rows, err := readAll(t, r)
	return rows, r.Balances(), err
}

// rowFields are a row's fields a test states, compared as text.
type rowFields struct {
	account, date, valueDate, amount, currency, payee, memo, id, counterparty string
}

func rowOf(r Row) rowFields {
	return rowFields{r.Account, r.Date.String(), r.ValueDate.String(), r.Amount.String(), r.Currency, r.Payee, r.Memo, r.ExternalID, r.CounterpartyAccount}
}

func balanceOf(b Balance) string {
	return fmt.Sprintf("%s %s %s %s %s", b.Account, b.Kind, b.Date, b.Amount, b.Currency)
}

func camtDocument(ns, body string) string {
	return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="` + ns + `" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
` + body + `
</Document>`
}

const camtStatement = `<BkToCstmrStmt>
  <GrpHdr><MsgId>M1</MsgId><CreDtTm>2024-02-01T06:00:00</CreDtTm></GrpHdr>
  <Stmt>
    <Id>S1</Id>
    <Acct><Id><IBAN>DE89370400440532013000</IBAN></Id><Ccy>EUR</Ccy></Acct>
    <Bal><Tp><CdOrPrtry><Cd>PRCD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">1000.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2024-01-30</Dt></Dt></Bal>
    <Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">50.5</Amt><CdtDbtInd>DBIT</CdtDbtInd><Dt><Dt>2024-01-31</Dt></Dt></Bal>
    <Bal><Tp><CdOrPrtry><Cd>CLAV</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">9.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2024-01-31</Dt></Dt></Bal>
    <Ntry>
      <Amt Ccy="EUR">12.50</Amt><CdtDbtInd>DBIT</CdtDbtInd><Sts>BOOK</Sts>
      <BookgDt><Dt>2024-01-31</Dt></BookgDt><ValDt><Dt>2024-02-01</Dt></ValDt>
      <AcctSvcrRef>REF-1</AcctSvcrRef>
      <NtryDtls><TxDtls>
        <Refs><EndToEndId>E2E-1</EndToEndId></Refs>
        <RltdPties>
          <Dbtr><Nm>Ana Pérez</Nm></Dbtr>
          <Cdtr><Nm>Café Luna</Nm></Cdtr><CdtrAcct><Id><IBAN>DE02120300000000202051</IBAN></Id></CdtrAcct>
        </RltdPties>
        <RmtInf><Ustrd>Invoice 7</Ustrd><Ustrd>January</Ustrd></RmtInf>
      </TxDtls></NtryDtls>
    </Ntry>
    <Ntry>
      <Amt Ccy="EUR">100</Amt><CdtDbtInd>CRDT</CdtDbtInd>
      <BookgDt><DtTm>2024-01-31T23:30:00-06:00</DtTm></BookgDt><ValDt><Dt>2024-01-31</Dt></ValDt>
      <NtryDtls><TxDtls>
        <Refs><EndToEndId>NOTPROVIDED</EndToEndId></Refs>
        <RltdPties><Dbtr><Pty><Nm>Employer GmbH</Nm></Pty></Dbtr><DbtrAcct><Id><Othr><Id>12345</Id></Othr></Id></DbtrAcct></RltdPties>
      </TxDtls></NtryDtls>
      <AddtlNtryInf>Salary</AddtlNtryInf>
    </Ntry>
    <Ntry>
      <Amt Ccy="EUR">1.00</Amt><CdtDbtInd>DBIT</CdtDbtInd><Sts><Cd>PDNG</Cd></Sts>
      <ValDt><Dt>2024-02-02</Dt></ValDt>
    </Ntry>
    <Ntry>
      <Amt Ccy="EUR">2.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><RvslInd>true</RvslInd><Sts>BOOK</Sts>
      <BookgDt><Dt>2024-01-31</Dt></BookgDt><AcctSvcrRef>REV-1</AcctSvcrRef>
    </Ntry>
  </Stmt>
  <Stmt>
    <Acct><Id><Othr><Id>0001-777</Id></Othr></Id><Ccy>USD</Ccy></Acct>
    <Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="USD">5</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><DtTm>2024-01-01T00:00:00Z</DtTm></Dt></Bal>
    <Ntry>
      <Amt>300.00</Amt><CdtDbtInd>DBIT</CdtDbtInd><RvslInd>false</RvslInd>
      <BookgDt><Dt>2024-01-05</Dt></BookgDt>
      <AcctSvcrRef>BATCH-9</AcctSvcrRef>
      <NtryDtls>
        <Btch><NbOfTxs>2</NbOfTxs></Btch>
        <TxDtls>
          <Refs><AcctSvcrRef>B9-A</AcctSvcrRef></Refs>
          <AmtDtls><TxAmt><Amt Ccy="USD">100.00</Amt></TxAmt></AmtDtls>
          <RltdPties><Cdtr><Nm>Landlord</Nm></Cdtr></RltdPties>
        </TxDtls>
        <TxDtls>
          <Amt Ccy="USD">200.00</Amt><CdtDbtInd>DBIT</CdtDbtInd>
          <RltdPties><Cdtr><Pty><Nm>Power Co</Nm></Pty></Cdtr></RltdPties>
          <RmtInf><Ustrd>Bill 3</Ustrd></RmtInf>
        </TxDtls>
      </NtryDtls>
    </Ntry>
  </Stmt>
</BkToCstmrStmt>`

func TestCAMT(t *testing.T) {
	rows, balances, err := readStatement(t, NewCAMT, camtDocument("urn:iso:std:iso:20022:tech:xsd:camt.053.001.02", camtStatement))
	if err != nil {
		t.Fatal(err)
	}
	wantRows := []rowFields{
		{"DE89370400440532013000", "2024-01-31", "2024-02-01", "-12.5", "EUR", "Café Luna", "Invoice 7 January", "REF-1", "DE02120300000000202051"},
		{"DE89370400440532013000", "2024-01-31", "", "100", "EUR", "Employer GmbH", "Salary", "", "12345"},
		// a pending entry is passed over; a reversed debit is money in
		{"DE89370400440532013000", "2024-01-31", "", "2", "EUR", "", "", "REV-1", ""},
		{"0001-777", "2024-01-05", "", "-100", "USD", "Landlord", "", "B9-A", ""},
		{"0001-777", "2024-01-05", "", "-200", "USD", "Power Co", "Bill 3", "BATCH-9/2", ""},
	}
	if len(rows) != len(wantRows) {
		t.Fatalf("got %d rows, want %d: %+v", len(rows), len(wantRows), rows)
	}
	for i, r := range rows {
		if got := rowOf(r); got != wantRows[i] {
			t.Errorf("row %d:\n got %+v\nwant %+v", i, got, wantRows[i])
		}
	}
	if rows[0].Amount.StringFixed(2) != "-12.50" || rows[0].Amount.Exponent() != -2 {
		t.Errorf("the amount's scale is lost: %s", rows[0].Amount)
	}
	if got := rows[4].Position.Element; got != "Document/BkToCstmrStmt/Stmt[2]/Ntry[1]/NtryDtls/TxDtls[2]" {
		t.Errorf("position %q", got)
	}
	wantBalances := []string{
		"DE89370400440532013000 opening 2024-01-30 1000 EUR",
		"DE89370400440532013000 closing 2024-01-31 -50.5 EUR",
		"0001-777 opening 2024-01-01 5 USD",
	}
	if len(balances) != len(wantBalances) {
		t.Fatalf("balances %v", balances)
	}
	for i, b := range balances {
		if balanceOf(b) != wantBalances[i] {
			t.Errorf("balance %d: %s, want %s", i, balanceOf(b), wantBalances[i])
		}
	}
}

// Every version's namespace, and each message kind (report, statement, notification),
// reads alike.
func TestCAMTVersions(t *testing.T) {
	entry := `<Acct><Id><IBAN>CH9300762011623852957</IBAN></Id></Acct>
      <Ntry><Amt Ccy="CHF">7.05</Amt><CdtDbtInd>CRDT</CdtDbtInd><BookgDt><Dt>2024-03-01</Dt></BookgDt><AcctSvcrRef>X</AcctSvcrRef></Ntry>`
	kinds := map[string]string{"052": "BkToCstmrAcctRpt><Rpt", "053": "BkToCstmrStmt><Stmt", "054": "BkToCstmrDbtCdtNtfctn><Ntfctn"}
	for kind, open := range kinds {
		outer, inner, _ := strings.Cut(open, "><")
		for v := 1; v <= 13; v++ {
			ns := fmt.Sprintf("urn:iso:std:iso:20022:tech:xsd:camt.%s.001.%02d", kind, v)
			t.Run(ns, func(t *testing.T) {
				body := "<" + outer + "><" + inner + ">" + entry + "</" + inner + "></" + outer + ">"
				rows, _, err := readStatement(t, NewCAMT, camtDocument(ns, body))
				if err != nil {
					t.Fatal(err)
				}
				if len(rows) != 1 || rowOf(rows[0]) != (rowFields{"CH9300762011623852957", "2024-03-01", "", "7.05", "CHF", "", "", "X", ""}) {
					t.Fatalf("rows %+v", rows)
				}
			})
		}
	}
}

func TestCAMTMalformed(t *testing.T) {
	ns := "urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"
	stmt := func(ntry string) string {
		return camtDocument(ns, "<BkToCstmrStmt><Stmt><Acct><Id><IBAN>X</IBAN></Id></Acct>"+ntry+"</Stmt></BkToCstmrStmt>")
	}
	tests := []struct {
		name, in, where, what string
	}{
		{"not xml", "hello", "", "no XML element"},
		{"other root", `<foo/>`, "foo", "not the <Document>"},
		{"pain namespace", camtDocument("urn:iso:std:iso:20022:tech:xsd:pain.001.001.03", ""), "Document", "not that of camt"},
		{"unclosed", stmt("<Ntry><Amt>1</Amt>"), "line", "malformed"},
		{"no amount", stmt("<Ntry><CdtDbtInd>CRDT</CdtDbtInd><BookgDt><Dt>2024-01-01</Dt></BookgDt></Ntry>"), "Stmt[1]/Ntry[1]", "has no amount"},
		{"bad amount", stmt("<Ntry><Amt>1,50</Amt><CdtDbtInd>CRDT</CdtDbtInd><BookgDt><Dt>2024-01-01</Dt></BookgDt></Ntry>"), "Ntry[1]", `"1,50" is not a number`},
		{"bad mark", stmt("<Ntry><Amt>1</Amt><CdtDbtInd>CR</CdtDbtInd><BookgDt><Dt>2024-01-01</Dt></BookgDt></Ntry>"), "Ntry[1]", "not CRDT or DBIT"},
		{"no mark", stmt("<Ntry><Amt>1</Amt><BookgDt><Dt>2024-01-01</Dt></BookgDt></Ntry>"), "Ntry[1]", "credit or a debit"},
		{"bad date", stmt("<Ntry><Amt>1</Amt><CdtDbtInd>CRDT</CdtDbtInd><BookgDt><Dt>2024-02-30</Dt></BookgDt></Ntry>"), "Ntry[1]", "not a date"},
		{"year 0", stmt("<Ntry><Amt>1</Amt><CdtDbtInd>CRDT</CdtDbtInd><BookgDt><Dt>0000-01-01</Dt></BookgDt></Ntry>"), "Ntry[1]", "not a date of a bank statement"},
		{"no date", stmt("<Ntry><Amt>1</Amt><CdtDbtInd>CRDT</CdtDbtInd></Ntry>"), "Ntry[1]", "neither a booking date"},
		{"batch off", stmt(`<Ntry><Amt>10</Amt><CdtDbtInd>DBIT</CdtDbtInd><BookgDt><Dt>2024-01-01</Dt></BookgDt><NtryDtls>
			<TxDtls><Amt>4</Amt></TxDtls><TxDtls><Amt>5</Amt></TxDtls></NtryDtls></Ntry>`), "Ntry[1]", "sum to -9, not to the entry's amount -10"},
		{"batch without amount", stmt(`<Ntry><Amt>10</Amt><CdtDbtInd>DBIT</CdtDbtInd><BookgDt><Dt>2024-01-01</Dt></BookgDt><NtryDtls>
			<TxDtls><Amt>4</Amt></TxDtls><TxDtls></TxDtls></NtryDtls></Ntry>`), "TxDtls[2]", "states no amount"},
		{"bad balance", stmt(`<Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt>3</Amt><CdtDbtInd>CRDT</CdtDbtInd></Bal>`), "Bal", "has no date"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := readStatement(t, NewCAMT, tt.in)
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("error %v, want an *Error", err)
			}
			if !strings.Contains(se.Position.String(), tt.where) || !strings.Contains(se.Message, tt.what) {
				t.Fatalf("error %q, want it at %q saying %q", err, tt.where, tt.what)
			}
		})
	}
}

// A batch that cannot be split yields none of its rows, and the error stays.
func TestCAMTErrorStays(t *testing.T) {
	in := camtDocument("urn:iso:std:iso:20022:tech:xsd:camt.053.001.02", `<BkToCstmrStmt><Stmt>
		<Ntry><Amt>10</Amt><CdtDbtInd>DBIT</CdtDbtInd><BookgDt><Dt>2024-01-01</Dt></BookgDt><NtryDtls>
		<TxDtls><Amt>4</Amt></TxDtls><TxDtls><Amt>X</Amt></TxDtls></NtryDtls></Ntry>
		<Ntry><Amt>1</Amt><CdtDbtInd>DBIT</CdtDbtInd><BookgDt><Dt>2024-01-01</Dt></BookgDt></Ntry></Stmt></BkToCstmrStmt>`)
	r, err := NewCAMT(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	_, first := r.Next()
	_, again := r.Next()
	var se *Error
	if !errors.As(first, &se) || !strings.Contains(se.Position.Element, "TxDtls[2]") || again != first {
		t.Fatalf("errors %v then %v", first, again)
	}
}

// camtStream writes a camt.053 of n entries on the fly.
func camtStream(n int) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		w := pw
		fmt.Fprint(w, `<?xml version="1.0" encoding="UTF-8"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.04"><BkToCstmrStmt><Stmt><Acct><Id><IBAN>DE89370400440532013000</IBAN></Id><Ccy>EUR</Ccy></Acct>`)
		for i := range n {
			_, err := fmt.Fprintf(w, `<Ntry><Amt Ccy="EUR">%d.%02d</Amt><CdtDbtInd>DBIT</CdtDbtInd><BookgDt><Dt>2024-01-%02d</Dt></BookgDt><AcctSvcrRef>R%d</AcctSvcrRef><NtryDtls><TxDtls><RltdPties><Cdtr><Nm>Shop number %d with a rather long name</Nm></Cdtr></RltdPties><RmtInf><Ustrd>Purchase %d, a remittance text long enough to weigh something in memory</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>`+"\n", i%1000, i%100, i%28+1, i, i, i)
			if err != nil {
				return
			}
		}
		fmt.Fprint(w, `</Stmt></BkToCstmrStmt></Document>`)
		pw.Close()
	}()
	return pr
}

// A file of 200,000 entries (some 80 MB) is read in a heap that does not grow with it.
func TestCAMTStreamsInBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 200,000 entries")
	}
	streamsInBoundedMemory(t, NewCAMT, camtStream(200_000), 200_000, 16<<20)
}

// streamsInBoundedMemory reads the rows of in, checking every 20,000 rows that what is
// live stays under bound: a reader that kept the file, or its rows, would pass it.
func streamsInBoundedMemory(t *testing.T, open func(io.Reader) (Reader, error), in io.Reader, entries int, bound uint64) {
	t.Helper()
	runtime.GC()
	r, err := open(in)
	if err != nil {
		t.Fatal(err)
	}
	var stats runtime.MemStats
	peak := uint64(0)
	n := 0
	sum := decimal.Zero
	for {
		row, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("row %d: %v", n+1, err)
		}
		sum = sum.Add(row.Amount)
		n++
		if n%20_000 == 0 {
			runtime.GC() // what is live, not what awaits collection
			runtime.ReadMemStats(&stats)
			peak = max(peak, stats.HeapAlloc)
		}
	}
	if n != entries {
		t.Fatalf("read %d rows, want %d", n, entries)
	}
	if peak > bound {
		t.Fatalf("the heap reached %d bytes reading %d entries, over %d", peak, entries, bound)
	}
	t.Logf("%d rows, sum %s, live heap at most %d KiB", n, sum, peak>>10)
}

// readSamples reads every testdata file matching pattern through open, and returns the
// rows of each by file name; the files named in refused must fail with an *Error saying
// what they map to.
func readSamples(t *testing.T, pattern string, open func(io.Reader) (Reader, error), refused map[string]string) map[string][]Row {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", pattern))
	if err != nil || len(files) == 0 {
		t.Fatalf("no samples %s: %v", pattern, err)
	}
	got := map[string][]Row{}
	for _, name := range files {
		in, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		rows, balances, err := readStatement(t, open, string(in))
		if why, ok := refused[filepath.Base(name)]; ok {
			var se *Error
			if !errors.As(err, &se) || !strings.Contains(se.Message, why) {
				t.Errorf("%s: error %v, want an *Error saying %q", name, err, why)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		for _, r := range rows {
			if r.Date.IsZero() {
				t.Errorf("%s: a row without a date: %+v", name, r)
			}
		}
		t.Logf("%s: %d rows, %d balances", filepath.Base(name), len(rows), len(balances))
		got[filepath.Base(name)] = rows
	}
	return got
}

func TestCAMTSamples(t *testing.T) {
	rows := readSamples(t, "camt-*.xml", NewCAMT, map[string]string{
		// A parser's fixture, not a bank's file: its entry is 200000 SEK debited, its
		// transactions 9.50 CHF credited.
		"camt-genkgo-camt054.v8.xml": "the transaction is in CHF but its entry in SEK",
	})
	for name, r := range rows {
		// camt052.v6's one entry is pending, which is not read.
		if pendingOnly := name == "camt-genkgo-camt052.v6.xml"; (len(r) == 0) != pendingOnly {
			t.Errorf("%s: %d rows", name, len(r))
		}
	}
}

// fuzzReader reads in through open and checks what any reader of a statement promises:
// no panic, an *Error for what it cannot read, and rows with a date and a decimal
// amount.
func fuzzReader(t *testing.T, open func(io.Reader) (Reader, error), in []byte) {
	r, err := open(bytes.NewReader(in))
	if err != nil {
		var se *Error
		if !errors.As(err, &se) {
			t.Fatalf("opening: %v (%T), want an *Error", err, err)
		}
		return
	}
	for range 1 << 20 {
		row, err := r.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("%v (%T), want an *Error", err, err)
			}
			return
		}
		if row.Date.IsZero() || row.Date.Year() < 1 || row.Date.Year() > 9999 {
			t.Fatalf("row %+v: no valid date", row)
		}
		if _, err := decimal.NewFromString(row.Amount.String()); err != nil {
			t.Fatalf("row %+v: amount %q is not a decimal: %v", row, row.Amount, err)
		}
		for _, b := range r.Balances() {
			if b.Date.IsZero() {
				t.Fatalf("balance %+v: no date", b)
			}
		}
	}
	t.Fatalf("more than a million rows from %d bytes", len(in))
}

// addSeeds adds the testdata files matching pattern to f's corpus.
func addSeeds(f *testing.F, pattern string, more ...string) {
	files, err := filepath.Glob(filepath.Join("testdata", pattern))
	if err != nil || len(files) == 0 {
		f.Fatalf("no seeds %s: %v", pattern, err)
	}
	for _, name := range files {
		in, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(in)
	}
	for _, in := range more {
		f.Add([]byte(in))
	}
}

// FuzzCAMT runs for as long as asked with
//
//	go test ./statement -run '^$' -fuzz FuzzCAMT -fuzztime 5m
func FuzzCAMT(f *testing.F) {
	addSeeds(f, "camt-*.xml", camtDocument("urn:iso:std:iso:20022:tech:xsd:camt.053.001.02", camtStatement))
	f.Fuzz(func(t *testing.T, in []byte) { fuzzReader(t, NewCAMT, in) })
}
