package statement

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"

	"github.com/finledger/finledger/domain"
)

// want is a row as a test states it: the amount with its scale.
type want struct {
	date   string
	amount string
	payee  string
	memo   string
	id     string
	line   int
}

func readAll(t *testing.T, r Reader) ([]Row, error) {
	t.Helper()
	var rows []Row
	for {
		row, err := r.Next()
		if err == io.EOF {
			return rows, nil
		}
		if err != nil {
			return rows, err
		}
		rows = append(rows, row)
	}
}

func checkRows(t *testing.T, got []Row, wants []want) {
	t.Helper()
	if len(got) != len(wants) {
		t.Fatalf("read %d rows, want %d: %+v", len(got), len(wants), got)
	}
	for i, w := range wants {
		g := got[i]
		amount := g.Amount.StringFixed(-g.Amount.Exponent())
		if g.Date.String() != w.date || amount != w.amount || g.Payee != w.payee || g.Memo != w.memo ||
			g.ExternalID != w.id || (w.line != 0 && g.Position.Line != w.line) {
			t.Errorf("row %d = {%s %s %q %q %q line %d}, want %+v", i, g.Date, amount, g.Payee, g.Memo, g.ExternalID, g.Position.Line, w)
		}
	}
}

func TestCSV(t *testing.T) {
	tests := []struct {
		name string
		in   string
		opts CSVOptions
		rows []want
	}{
		{
			name: "English header, comma, ISO dates",
			in:   "Date,Amount,Payee,Memo,Reference\n2024-12-31,-12.50,Coffee,flat white,A1\n2025-01-02,1000,Acme,,A2\n",
			rows: []want{{"2024-12-31", "-12.50", "Coffee", "flat white", "A1", 2}, {"2025-01-02", "1000", "Acme", "", "A2", 3}},
		},
		{
			name: "Spanish header, semicolon, decimal comma, day first",
			in:   "Fecha;Concepto;Importe\n31/12/2024;Café;-1.234,56\n01/12/2024;Nómina;2.000,00\n",
			rows: []want{{"2024-12-31", "-1234.56", "Café", "", "", 2}, {"2024-12-01", "2000.00", "Nómina", "", "", 3}},
		},
		{
			name: "tab, month first decided by a later row, CRLF",
			in:   "Date\tDescription\tAmount\r\n01/02/2024\tA\t1.00\r\n01/13/2024\tB\t2.00\r\n",
			rows: []want{{"2024-01-02", "1.00", "A", "", "", 2}, {"2024-01-13", "2.00", "B", "", "", 3}},
		},
		{
			name: "pipe, quoted fields holding the delimiter, quotes and a line break",
			in:   "Fecha|Beneficiario|Monto|Notas\n2024-05-01|\"Tacos | El \"\"Güero\"\"\"|-85,00|\"dos\nlíneas\"\n2024-05-02|Luz|-300,00|\n",
			rows: []want{{"2024-05-01", "-85.00", `Tacos | El "Güero"`, "dos\nlíneas", "", 2}, {"2024-05-02", "-300.00", "Luz", "", "", 4}},
		},
		{
			name: "debit and credit columns, Spanish, lines above the table",
			in:   "Banco Ejemplo\nCuenta;1234\nFecha;Descripción;Cargo;Abono\n15/01/2024;Renta;8.000,00;\n16/01/2024;Depósito;;500,00\n17/01/2024;Comisión;0,00;\n",
			rows: []want{{"2024-01-15", "-8000.00", "Renta", "", "", 4}, {"2024-01-16", "500.00", "Depósito", "", "", 5}, {"2024-01-17", "0.00", "Comisión", "", "", 6}},
		},
		{
			name: "negative debits and an amount column beside them",
			in:   "Date,Description,Debit,Credit,Balance\n2024-01-15,Rent,-800.00,,1200.00\n2024-01-16,Pay,,500.00,1700.00\n",
			rows: []want{{"2024-01-15", "-800.00", "Rent", "", "", 2}, {"2024-01-16", "500.00", "Pay", "", "", 3}},
		},
		{
			name: "amount forms: parentheses, trailing minus, currency, apostrophes, spaces",
			in:   "Date;Amount\n2024-01-01;(12,00)\n2024-01-02;12,00-\n2024-01-03;€ 1 234,50\n2024-01-04;1'234,50 EUR\n",
			rows: []want{{"2024-01-01", "-12.00", "", "", "", 2}, {"2024-01-02", "-12.00", "", "", "", 3}, {"2024-01-03", "1234.50", "", "", "", 4}, {"2024-01-04", "1234.50", "", "", "", 5}},
		},
		{
			name: "month names, payee and description",
			in:   "Fecha,Beneficiario,Descripción,Monto\n3 ene 2024,Oxxo,Refresco,-25.00\n\"Dec 31, 2024\",Acme,Pago,10.00\n",
			rows: []want{{"2024-01-03", "-25.00", "Oxxo", "Refresco", "", 2}, {"2024-12-31", "10.00", "Acme", "Pago", "", 3}},
		},
		{
			name: "yyyymmdd, two-digit years, blank lines skipped",
			in:   "date,amount\n20240105,1.5\n\n31/12/24,2.25\n,\n",
			rows: []want{{"2024-01-05", "1.5", "", "", "", 2}, {"2024-12-31", "2.25", "", "", "", 4}},
		},
		{
			name: "CR alone ends a line",
			in:   "date,amount\r2024-01-01,1.00\r2024-01-02,\"2.00\"\r",
			rows: []want{{"2024-01-01", "1.00", "", "", "", 2}, {"2024-01-02", "2.00", "", "", "", 3}},
		},
		{
			name: "no header, mapping given, order given",
			in:   "01/02/2024,x,5.00\n03/04/2024,y,-1.00\n",
			opts: CSVOptions{Mapping: &CSVMapping{Date: 1, Payee: 2, Amount: 3}, DateOrder: DateOrderDMY},
			rows: []want{{"2024-02-01", "5.00", "x", "", "", 1}, {"2024-04-03", "-1.00", "y", "", "", 2}},
		},
		{
			name: "header present but unnamed, mapping given, separator given",
			in:   "F;Q;X\n2024-01-01;1.234;a\n",
			opts: CSVOptions{Mapping: &CSVMapping{Date: 1, Amount: 2, Memo: 3}, DecimalSeparator: ',', Header: CSVHeaderPresent},
			rows: []want{{"2024-01-01", "1234", "", "a", "", 2}},
		},
		{
			name: "dates that read the same either way need no order",
			in:   "date,amount\n05/05/2024,1.00\n2024-06-01,2.00\n",
			rows: []want{{"2024-05-05", "1.00", "", "", "", 2}, {"2024-06-01", "2.00", "", "", "", 3}},
		},
		{
			name: "Retiro and Depósito, Referencia, accents and case in the names",
			in:   "FECHA,Descripción,Referencia,Retiro,Depósito,Saldo\n13/01/2024,Cajero,R1,\"1,500.00\",,100.00\n14/01/2024,Nómina,R2,,\"10,000.00\",10100.00\n",
			rows: []want{{"2024-01-13", "-1500.00", "Cajero", "", "R1", 2}, {"2024-01-14", "10000.00", "Nómina", "", "R2", 3}},
		},
		{
			name: "Fecha valor beside Fecha, Monto",
			in:   "Fecha;Fecha valor;Monto;Notas\n2024-01-13;2024-01-15;-1,00;n\n",
			rows: []want{{"2024-01-13", "-1.00", "", "n", "", 2}},
		},
		{
			name: "currency column",
			in:   "Date,Amount,Currency\n2024-01-01,1.00,usd\n",
			rows: []want{{"2024-01-01", "1.00", "", "", "", 2}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := NewCSV(strings.NewReader(tt.in), tt.opts)
			if err != nil {
				t.Fatalf("NewCSV: %v", err)
			}
			rows, err := readAll(t, r)
			if err != nil {
				t.Fatalf("Next: %v", err)
			}
			checkRows(t, rows, tt.rows)
		})
	}
}

func TestCSVEncodings(t *testing.T) {
	text := "Fecha\tConcepto\tImporte\n31/12/2024\tDepósito “nómina” – €\t1.234,56\n"
	for _, tt := range []struct {
		name string
		in   []byte
	}{
		{"utf-8 with BOM", append([]byte{0xEF, 0xBB, 0xBF}, text...)},
		{"utf-16le", encode(t, unicode.UTF16(unicode.LittleEndian, unicode.UseBOM), text)},
		{"utf-16be without BOM", encode(t, unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM), text)},
		{"windows-1252", encode(t, charmap.Windows1252, text)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, err := NewCSV(strings.NewReader(string(tt.in)), CSVOptions{})
			if err != nil {
				t.Fatalf("NewCSV: %v", err)
			}
			rows, err := readAll(t, r)
			if err != nil {
				t.Fatalf("Next: %v", err)
			}
			checkRows(t, rows, []want{{"2024-12-31", "1234.56", "Depósito “nómina” – €", "", "", 2}})
		})
	}
	t.Run("iso-8859-1 named", func(t *testing.T) {
		in := encode(t, charmap.ISO8859_1, "Fecha;Concepto;Importe\n2024-01-01;Año;1,00\n")
		r, err := NewCSV(strings.NewReader(string(in)), CSVOptions{Encoding: EncodingISO88591})
		if err != nil {
			t.Fatalf("NewCSV: %v", err)
		}
		rows, err := readAll(t, r)
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		checkRows(t, rows, []want{{"2024-01-01", "1.00", "Año", "", "", 2}})
	})
}

func TestCSVSamples(t *testing.T) {
	tests := []struct {
		file string
		rows []want
	}{
		{"actual-data-payee-memo.csv", []want{
			{"2019-01-23", "-10.00", "Payee Name", "Note Text", "", 2},
			{"2019-01-23", "-20.00", "Payee Name Only", "", "", 3},
			{"2019-01-23", "-30.00", "", "Note Only Text", "", 4},
			{"2019-01-23", "-40.00", "", "", "", 5},
		}},
		{"actual-windows-1252.csv", []want{
			{"2025-12-04", "100.25", "Café Rémy", "", "", 2},
			{"2025-12-05", "-42.10", "Boulangerie Müller", "", "", 3},
		}},
		{"actual-windows-1252-euro.csv", []want{{"2025-12-04", "100.25", "Café €Rémy", "", "", 2}}},
		{"generated-mx-cargo-abono.csv", []want{
			{"2024-11-01", "25000.00", "SPEI RECIBIDO NOMINA ACME SA DE CV", "", "REF0001", 4},
			{"2024-11-03", "-87.50", "OXXO SUCURSAL 1234", "", "REF0002", 5},
			{"2024-11-05", "-4500.00", `PAGO TARJETA "ORO"`, "", "REF0003", 6},
			{"2024-11-13", "-1234.56", "CFE SUMINISTRADOR", "", "REF0004", 7},
			{"2024-11-20", "500.00", "DEPÓSITO EN EFECTIVO", "", "REF0005", 8},
			{"2024-11-30", "0.00", "COMISIÓN MANEJO DE CUENTA", "", "REF0006", 9},
		}},
		{"generated-us-posting-date.csv", []want{
			{"2024-11-18", "-4.75", "CARD PURCHASE 11/17 COFFEE ROASTERS, INC", "", "", 2},
			{"2024-11-15", "2590.73", "PAYROLL DIRECT DEP PPD ID: 1111111111", "", "", 3},
			{"2024-11-04", "-150.00", "CHECK 1042", "", "1042", 4},
			{"2024-11-01", "-60.00", "ATM WITHDRAWAL 001234 11/01", "", "", 5},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			f, err := os.Open("testdata/" + tt.file)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			r, err := NewCSV(f, CSVOptions{})
			if err != nil {
				t.Fatalf("NewCSV: %v", err)
			}
			rows, err := readAll(t, r)
			if err != nil {
				t.Fatalf("Next: %v", err)
			}
			checkRows(t, rows, tt.rows)
		})
	}
}

func TestCSVErrors(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		opts    CSVOptions
		rows    int    // read before the error
		line    int    // of the *Error
		message string // part of it
	}{
		{"bad date", "date,amount\n2024-01-01,1.00\n2024-02-30,1.00\n", CSVOptions{}, 1, 3, `"2024-02-30" is not a date`},
		{"line counted across quoted line breaks", "date,memo,amount\n2024-01-01,\"a\nb\nc\",1.00\n2024-01-02,x,oops\n", CSVOptions{}, 1, 5, `"oops" is not an amount`},
		{"bad amount", "date,amount\n2024-01-01,1.00\n2024-01-02,ten\n", CSVOptions{}, 1, 3, `"ten" is not an amount`},
		{"no amount", "date,amount\n2024-01-01,\n", CSVOptions{}, 0, 2, "no amount"},
		{"no date", "date,amount\n,1.00\n", CSVOptions{}, 0, 2, "no date"},
		{"short row", "date,payee,amount\n2024-01-01,a,1.00\n2024-01-02\n", CSVOptions{}, 1, 3, "the row has 1 columns, and the amount is in column 3"},
		{"both debit and credit", "Fecha;Cargo;Abono\n2024-01-01;1,00;2,00\n", CSVOptions{}, 0, 2, "both a debit"},
		{"neither debit nor credit", "Fecha;Cargo;Abono\n2024-01-01;;\n", CSVOptions{}, 0, 2, "neither a debit"},
		{"order contradicted later", "date,amount\n13/01/2024,1.00\n01/13/2024,1.00\n", CSVOptions{}, 1, 3, "cannot be day/month/year, the order of the file's dates (decided by the date \"13/01/2024\" on line 2)"},
		{"order given contradicted", "date,amount\n13/01/2024,1.00\n", CSVOptions{DateOrder: DateOrderMDY}, 0, 2, "cannot be month/day/year"},
		{"decimal comma contradicted later", "date;amount\n2024-01-01;1.234,56\n2024-01-02;1,234.56\n", CSVOptions{}, 1, 3, `"1,234.56" is not an amount with the file's decimal separator ','`},
		{"ambiguous separator", "date;amount\n2024-01-01;1.234\n", CSVOptions{}, 0, 2, "give the decimal separator"},
		{"quote never closed", "date,amount,memo\n2024-01-01,1.00,\"open\n2024-01-02,2.00,x\n", CSVOptions{}, 0, 2, "a quote opened here is never closed"},
		{"bad currency", "date,amount,currency\n2024-01-01,1.00,dollars\n", CSVOptions{}, 0, 2, "not a currency code"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := NewCSV(strings.NewReader(tt.in), tt.opts)
			var rows []Row
			if err == nil {
				rows, err = readAll(t, r)
			}
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("err = %v, want *Error", err)
			}
			if len(rows) != tt.rows {
				t.Errorf("read %d rows before the error, want %d", len(rows), tt.rows)
			}
			if se.Position.Line != tt.line || se.Format != FormatCSV || !strings.Contains(se.Message, tt.message) {
				t.Errorf("err = %v, want line %d and %q", se, tt.line, tt.message)
			}
			// After a row that cannot be read the reader goes on with the next; after
			// a file that cannot be split into rows it does not.
			if r != nil {
				_, again := r.Next()
				if sticky := strings.Contains(tt.message, "quote"); sticky && again != err {
					t.Errorf("Next after the error = %v, want the error again", again)
				} else if !sticky && again != io.EOF {
					t.Errorf("Next after the error = %v, want io.EOF", again)
				}
			}
		})
	}
}

func TestCSVOptionsRefused(t *testing.T) {
	for name, opts := range map[string]CSVOptions{
		"amount and debit":  {Mapping: &CSVMapping{Date: 1, Amount: 2, Debit: 3}},
		"no date":           {Mapping: &CSVMapping{Amount: 2}},
		"no amount":         {Mapping: &CSVMapping{Date: 1}},
		"delimiter":         {Delimiter: ':'},
		"decimal separator": {DecimalSeparator: '_'},
		"encoding":          {Encoding: "ebcdic"},
		"header mode":       {Header: "maybe"},
	} {
		if _, err := NewCSV(strings.NewReader("2024-01-01,1.00,2.00\n"), opts); err == nil {
			t.Errorf("%s: options accepted", name)
		}
	}
}

func TestCSVMappingRequired(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		columns []string
		missing []string
		samples int
	}{
		{"unknown names", "Fecha;Movimiento;Valorado\n2024-01-01;x;1,00\n2024-01-02;y;2,00\n", []string{"Fecha", "Movimiento", "Valorado"}, []string{"amount"}, 2},
		{"no header", "2024-01-01,x,1.00\n2024-01-02,y,2.00\n", []string{"column 1", "column 2", "column 3"}, []string{"date", "amount"}, 2},
		{"debit without credit", "Date,Debit\n2024-01-01,1.00\n", []string{"Date", "Debit"}, []string{"amount"}, 1},
		{"many rows, five samples", "a,b\n" + strings.Repeat("x,y\n", 9), []string{"a", "b"}, []string{"date", "amount"}, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewCSV(strings.NewReader(tt.in), CSVOptions{})
			var me *MappingRequiredError
			if !errors.As(err, &me) {
				t.Fatalf("err = %v, want *MappingRequiredError", err)
			}
			if fmt.Sprint(me.Columns) != fmt.Sprint(tt.columns) || fmt.Sprint(me.Missing) != fmt.Sprint(tt.missing) || len(me.Samples) != tt.samples {
				t.Errorf("got columns %q missing %q %d samples, want %q %q %d", me.Columns, me.Missing, len(me.Samples), tt.columns, tt.missing, tt.samples)
			}
		})
	}
}

func TestCSVDateOrderRequired(t *testing.T) {
	in := "date,amount\n01/02/2024,1.00\n03/04/2024,2.00\n"
	_, err := NewCSV(strings.NewReader(in), CSVOptions{})
	var oe *DateOrderRequiredError
	if !errors.As(err, &oe) {
		t.Fatalf("err = %v, want *DateOrderRequiredError", err)
	}
	if oe.Line != 2 || fmt.Sprint(oe.Samples) != "[01/02/2024 03/04/2024]" {
		t.Errorf("err = %+v", oe)
	}

	// The first rows need no order (ISO dates); a later one does: asked there.
	var b strings.Builder
	b.WriteString("date,amount\n")
	for range prefixRows + 10 {
		b.WriteString("2024-01-01,1.00\n")
	}
	b.WriteString("01/02/2024,1.00\n")
	r, err := NewCSV(strings.NewReader(b.String()), CSVOptions{})
	if err != nil {
		t.Fatalf("NewCSV: %v", err)
	}
	rows, err := readAll(t, r)
	if !errors.As(err, &oe) || oe.Line != prefixRows+12 || len(rows) != prefixRows+10 {
		t.Fatalf("after %d rows err = %v, want *DateOrderRequiredError on line %d", len(rows), err, prefixRows+12)
	}

	// Every date of the first rows ambiguous: asked, though a later one would decide.
	b.Reset()
	b.WriteString("date,amount\n")
	for range prefixRows + 10 {
		b.WriteString("01/02/2024,1.00\n")
	}
	b.WriteString("13/02/2024,1.00\n")
	if _, err := NewCSV(strings.NewReader(b.String()), CSVOptions{}); !errors.As(err, &oe) {
		t.Fatalf("err = %v, want *DateOrderRequiredError", err)
	}
	r, err = NewCSV(strings.NewReader(b.String()), CSVOptions{DateOrder: DateOrderDMY})
	if err != nil {
		t.Fatalf("NewCSV with the order: %v", err)
	}
	if rows, err := readAll(t, r); err != nil || len(rows) != prefixRows+11 || rows[0].Date != domain.DateOf(2024, 2, 1) {
		t.Fatalf("read %d rows, %v", len(rows), err)
	}
}

// generatedFile writes a header and then n lines on the fly, never holding the file.
type generatedFile struct {
	header string
	line   func(i int) []byte // the i-th line, from 1
	n, i   int
	buf    []byte
}

func (g *generatedFile) Read(p []byte) (int, error) {
	for len(g.buf) < len(p) && g.i <= g.n {
		if g.i == 0 {
			g.buf = append(g.buf, g.header...)
		} else {
			g.buf = append(g.buf, g.line(g.i)...)
		}
		g.i++
	}
	if len(g.buf) == 0 {
		return 0, io.EOF
	}
	n := copy(p, g.buf)
	g.buf = append(g.buf[:0], g.buf[n:]...)
	return n, nil
}

// A CSV of 200,000 rows (about 14 MB) is read with what is live staying a small, fixed
// amount (the read-ahead and buffers), whatever the file's length.
func TestCSVMemoryDoesNotGrow(t *testing.T) {
	const rows = 200_000
	file := &generatedFile{n: rows, header: "Fecha;Concepto;Referencia;Importe\n", line: func(i int) []byte {
		day := domain.DateOf(2020, time.January, 1).AddDays(i % 1500)
		return fmt.Appendf(nil, "%02d/%02d/%d;Pago número %d en comercio;REF%08d;-%d,%02d\n",
			day.Day(), day.Month(), day.Year(), i, i, i%5000, i%100)
	}}
	open := func(r io.Reader) (Reader, error) { return NewCSV(r, CSVOptions{}) }
	streamsInBoundedMemory(t, open, file, rows, 8<<20)
}
