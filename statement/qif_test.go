package statement

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
)

func readQIF(t *testing.T, in string, opts QIFOptions) ([]Row, error) {
	t.Helper()
	r, err := NewQIF(strings.NewReader(in), opts)
	if err != nil {
		return nil, err
	}
	return readAll(t, r)
}

func TestQIF(t *testing.T) {
	tests := []struct {
		name string
		in   string
		opts QIFOptions
		rows []want
	}{
		{
			name: "bank, Quicken's apostrophe dates",
			in:   "!Type:Bank\nD12/31'24\nT-1,234.56\nPLandlord\nMRent\n^\nD1/ 2'05\nT10.00\nPRefund\n^\n",
			rows: []want{{"2024-12-31", "-1234.56", "Landlord", "Rent", "", 2}, {"2005-01-02", "10.00", "Refund", "", "", 7}},
		},
		{
			name: "cash, day first with dots, decimal comma",
			in:   "!Type:Cash\r\nD31.12.2024\r\nT-1.234,56\r\nPMiete\r\n^\r\nD02.01.2025\r\nT12,90\r\n^\r\n",
			rows: []want{{"2024-12-31", "-1234.56", "Miete", "", "", 2}, {"2025-01-02", "12.90", "", "", "", 6}},
		},
		{
			name: "card, U when there is no T, N with a digit is the id, a word is not",
			in:   "!Type:CCard\nD2024-03-01\nU-5.00\nN1042\n^\nD2024-03-02\nT-6.00\nNATM\n^\n",
			rows: []want{{"2024-03-01", "-5.00", "", "", "1042", 2}, {"2024-03-02", "-6.00", "", "", "", 6}},
		},
		{
			name: "other sections skipped, last record without ^",
			in:   "!Type:Cat\nNFood\nE\n^\n!Type:Class\nNHome\n^\n!Type:Memorized\nKC\nT-1.00\n^\n!Type:Bank\nD2024-01-01\nT1.00\n",
			rows: []want{{"2024-01-01", "1.00", "", "", "", 13}},
		},
		{
			name: "order given",
			in:   "!Type:Bank\nD01/02/2024\nT1.00\n^\n",
			opts: QIFOptions{DateOrder: DateOrderDMY},
			rows: []want{{"2024-02-01", "1.00", "", "", "", 2}},
		},
		{
			name: "asset and liability accounts",
			in:   "!Type:Oth A\nD2024-01-01\nT1.00\n^\n!Type:Oth L\nD2024-01-02\nT-2.00\n^\n",
			rows: []want{{"2024-01-01", "1.00", "", "", "", 2}, {"2024-01-02", "-2.00", "", "", "", 6}},
		},
		{
			name: "investment section skipped",
			in:   "!Type:Invst\nD2024-01-01\nNBuy\nYACME\nI10\nQ2\nT20.00\n^\n!Type:Bank\nD2024-01-02\nT1.00\n^\n",
			rows: []want{{"2024-01-02", "1.00", "", "", "", 10}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows, err := readQIF(t, tt.in, tt.opts)
			if err != nil {
				t.Fatalf("read: %v", err)
			}
			checkRows(t, rows, tt.rows)
		})
	}
}

func TestQIFAccountsAndSplits(t *testing.T) {
	f, err := os.Open("testdata/generated-splits.qif")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := NewQIF(f, QIFOptions{})
	if err != nil {
		t.Fatalf("NewQIF: %v", err)
	}
	rows, err := readAll(t, r)
	if err != nil {
		t.Fatalf("Next: %v", err)
	}
	checkRows(t, rows, []want{
		{"2024-12-31", "-1234.56", "Landlord Property Mgmt", "January rent", "1043", 21},
		{"2025-01-02", "-85.40", "SuperMart #19", "", "", 29},
		{"2025-01-15", "2500.00", "Acme Payroll", "", "", 40},
		{"2025-01-20", "-312.00", "Airline Tickets", "", "", 52},
	})
	accounts := []string{"Everyday Checking", "Everyday Checking", "Everyday Checking", "Travel Card"}
	for i, a := range accounts {
		if rows[i].Account != a {
			t.Errorf("row %d account = %q, want %q", i, rows[i].Account, a)
		}
	}
	if rows[0].Category != "Housing:Rent" || rows[3].Category != "[Everyday Checking]" {
		t.Errorf("categories = %q, %q", rows[0].Category, rows[3].Category)
	}
	splits := rows[1].Splits
	if len(splits) != 2 || splits[0].Category != "Groceries" || splits[0].Memo != "Food" || splits[0].Amount.String() != "-60.4" ||
		splits[1].Category != "Household" || splits[1].Memo != "Cleaning supplies" || splits[1].Amount.String() != "-25" {
		t.Errorf("splits = %+v", splits)
	}
}

func TestQIFSamples(t *testing.T) {
	tests := []struct {
		file    string
		account string
		rows    []want
	}{
		{"actual-data-with-categories.qif", "", []want{
			{"2018-12-19", "-100.58", "Outlet", "", "", 2},
			{"2018-12-19", "-20.15", "GroceriesYou", "", "", 7},
			{"2018-12-19", "-40.60", "RestaurantExample", "", "", 12},
		}},
		{"actual-qif-account.qif", "Checking Main", []want{{"2018-12-19", "-25.00", "COUNTY WASTE", "", "", 6}}},
		{"actual-tracking-number.qif", "", []want{
			{"2024-06-24", "-100.58", "City Water", "", "1001", 2},
			{"2024-06-23", "-20.15", "GroceriesYou", "", "", 7},
		}},
		{"actual-data-payee-memo.qif", "", []want{
			{"2019-01-23", "-10.00", "Payee Name", "Note Text", "", 2},
			{"2019-01-23", "-20.00", "Payee Name Only", "", "", 7},
			{"2019-01-23", "-30.00", "", "Note Only Text", "", 11},
			{"2019-01-23", "-40.00", "", "", "", 15},
		}},
		{"actual-test-no-account.qif", "", []want{
			{"2024-07-15", "-12.50", "Corner Cafe 4412", "", "", 2},
			{"2024-07-16", "-40.00", "Grocery Store #21", "", "", 6},
		}},
		{"generated-european.qif", "", []want{
			{"2024-12-31", "-1234.56", "Miete Dezember", "", "", 2},
			{"2025-01-02", "2500.00", "Gehalt", "", "", 6},
			{"2025-01-03", "-12.90", "Bäckerei", "", "", 10},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			f, err := os.Open("testdata/" + tt.file)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			r, err := NewQIF(f, QIFOptions{})
			if err != nil {
				t.Fatalf("NewQIF: %v", err)
			}
			rows, err := readAll(t, r)
			if err != nil {
				t.Fatalf("Next: %v", err)
			}
			checkRows(t, rows, tt.rows)
			for i, row := range rows {
				if row.Account != tt.account {
					t.Errorf("row %d account = %q, want %q", i, row.Account, tt.account)
				}
			}
		})
	}
}

func TestQIFEncodings(t *testing.T) {
	text := "!Type:Bank\nD2024-01-01\nT-3,50\nPCafé “Año” €\n^\n"
	for _, tt := range []struct {
		name string
		in   []byte
	}{
		{"utf-8", []byte(text)},
		{"utf-16le", encode(t, unicode.UTF16(unicode.LittleEndian, unicode.UseBOM), text)},
		{"windows-1252", encode(t, charmap.Windows1252, text)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rows, err := readQIF(t, string(tt.in), QIFOptions{})
			if err != nil {
				t.Fatalf("read: %v", err)
			}
			checkRows(t, rows, []want{{"2024-01-01", "-3.50", "Café “Año” €", "", "", 2}})
		})
	}
}

func TestQIFErrors(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		rows    int
		line    int
		message string
	}{
		{"splits do not add up", "!Type:Bank\nD2024-01-01\nT-10.00\nSA\n$-4.00\nSB\n$-5.00\n^\n", 0, 2, "the splits add up to -9 but the amount is -10"},
		{"split without amount", "!Type:Bank\nD2024-01-01\nT-10.00\nSA\n$-10.00\nSB\n^\n", 0, 6, "the split has no amount"},
		{"no date", "!Type:Bank\nT-10.00\n^\n", 0, 2, "no date"},
		{"no amount", "!Type:Bank\nD2024-01-01\nPX\n^\n", 0, 2, "no amount"},
		{"bad date", "!Type:Bank\nD2024-01-01\nT1\n^\nD31/31/2024\nT1\n^\n", 1, 5, `"31/31/2024" is not a date`},
		{"bad amount", "!Type:Bank\nD2024-01-01\nTtwelve\n^\n", 0, 3, `"twelve" is not an amount`},
		{"unknown field", "!Type:Bank\nD2024-01-01\nZzz\nT1\n^\n", 0, 3, `"Z" is not a QIF field`},
		{"not QIF", "Date,Amount\n2024-01-01,1\n", 0, 1, "does not start with a !Type line"},
		{"record cut by a header", "!Type:Bank\nD2024-01-01\nT1\n!Type:Cash\nD2024-01-02\nT1\n^\n", 0, 2, "has no ^ before the header on line 4"},
		{"order contradicted", "!Type:Bank\nD13/01/2024\nT1\n^\nD01/13/2024\nT1\n^\n", 1, 5, "cannot be day/month/year"},
		{"empty", "", 0, 1, "the file is empty"},
		{"too many splits", "!Type:Bank\nD2024-01-01\nT0\n" + strings.Repeat("SA\n$0\n", maxQIFSplits+1) + "^\n", 0, 2, "more than 1000 splits"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows, err := readQIF(t, tt.in, QIFOptions{})
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("err = %v, want *Error", err)
			}
			if len(rows) != tt.rows {
				t.Errorf("read %d rows before the error, want %d", len(rows), tt.rows)
			}
			if se.Position.Line != tt.line || se.Format != FormatQIF || !strings.Contains(se.Message, tt.message) {
				t.Errorf("err = %v, want line %d and %q", se, tt.line, tt.message)
			}
		})
	}
}

func TestQIFDateOrderRequired(t *testing.T) {
	_, err := readQIF(t, "!Type:Bank\nD01/02/2024\nT1.00\n^\nD03/04'24\nT1.00\n^\n", QIFOptions{})
	var oe *DateOrderRequiredError
	if !errors.As(err, &oe) {
		t.Fatalf("err = %v, want *DateOrderRequiredError", err)
	}
	if oe.Line != 2 || oe.Format != FormatQIF || fmt.Sprint(oe.Samples) != "[01/02/2024 03/04'24]" {
		t.Errorf("err = %+v", oe)
	}
	if _, err := readQIF(t, "!Type:Bank\nD01/02/2024\nT1.00\n^\n", QIFOptions{DateOrder: DateOrderMDY}); err != nil {
		t.Errorf("with the order: %v", err)
	}
}

func TestQIFReadsOnAfterARowError(t *testing.T) {
	r, err := NewQIF(strings.NewReader("!Type:Bank\nD2024-01-01\nTbad\n^\nD2024-01-02\nT2.00\n^\n"), QIFOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Next(); err == nil {
		t.Fatal("the bad amount was read")
	}
	row, err := r.Next()
	if err != nil || row.Amount.String() != "2" {
		t.Fatalf("next row = %+v, %v", row, err)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("err = %v, want io.EOF", err)
	}
}

func TestQIFMemoryDoesNotGrow(t *testing.T) {
	const records = 200_000
	file := &generatedFile{n: records, header: "!Account\nNChecking\nTBank\n^\n!Type:Bank\n", line: func(i int) []byte {
		return fmt.Appendf(nil, "D%d/%d'24\nT-%d.%02d\nN%d\nPShop %d\nSFood\n$-%d.%02d\n^\n",
			i%12+1, i%28+1, i%900, i%100, i, i, i%900, i%100)
	}}
	open := func(r io.Reader) (Reader, error) { return NewQIF(r, QIFOptions{DateOrder: DateOrderMDY}) }
	streamsInBoundedMemory(t, open, file, records, 8<<20)
}
