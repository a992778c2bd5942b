package statement

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

func TestMT940(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		rows     []rowFields
		balances []string
	}{
		{
			name: "German subfields, SWIFT blocks, two statements",
			in: `{1:F01DEUTDEFFAXXX0000000000}{2:O9401200240101DEUTDEFFAXXX00000000002401011200N}{4:
:20:STARTUMSE
:25:10020030/1234567
:28C:00001/001
:60F:C231229EUR1000,00
:61:2312291229D12,50NDDTNONREF//BANKREF1
:86:105?00LASTSCHRIFT?100599?20EREF+E2E-77?21SVWZ+Strom Dezember 2023 Ve?22rtrag 12345?30DEUTDEFF?31DE02120300000000202051?32Stadtwerke M?33usterstadt GmbH
:61:2312300102C100,NTRFNONREF
:86:166?00GUTSCHRIFT?20Miete?21Januar?32Ana Perez
:62F:C240102EUR1087,50
-}
{1:F01DEUTDEFFAXXX0000000000}{2:O940}{4:
:20:STARTUMSE
:25:DE89370400440532013000
:28C:2/1
:60M:D240102USD5,
:61:240103C5,00FCHGREF1//B2
charges reversed
:86:Plain words about it
that go on
:62M:C240103USD0,00
-}`,
			rows: []rowFields{
				{"10020030/1234567", "2023-12-29", "", "-12.5", "EUR", "Stadtwerke Musterstadt GmbH", "Strom Dezember 2023 Vertrag 12345", "BANKREF1", "DE02120300000000202051"},
				// valued 30 December, booked 2 January of the next year
				{"10020030/1234567", "2024-01-02", "2023-12-30", "100", "EUR", "Ana Perez", "Miete Januar", "", ""},
				{"DE89370400440532013000", "2024-01-03", "", "5", "USD", "", "Plain words about it that go on", "B2", ""},
			},
			balances: []string{
				"10020030/1234567 opening 2023-12-29 1000 EUR",
				"10020030/1234567 closing 2024-01-02 1087.5 EUR",
				"DE89370400440532013000 opening 2024-01-02 -5 USD",
				"DE89370400440532013000 closing 2024-01-03 0 USD",
			},
		},
		{
			name: "slash codes, reversals, funds code, entry date before a new year",
			in: `:20:940S240101
:25:NL69INGB0123456789EUR
:28C:1
:60F:C240101EUR50,00
:61:2401011231RCR20,00NTRFREF//R1
:86:/TRTP/SEPA OVERBOEKING/IBAN/NL91ABNA0417164300/BIC/ABNANL2A/NAME/J. de Vries
/REMI/Terugboeking factuur 7/EREF/NOTPROVIDED
:61:240102RD3,10NCHG//R2
:86:/CNTP/NL20INGB0001234567/INGBNL2A/Shop B.V./Amsterdam/REMI/USTD//Order 55/
:61:240102D0,01NMSCNONREF
:86:/ORDP//NAME/Acme/REMI/
:62F:C240102EUR33,09
-
`,
			rows: []rowFields{
				{"NL69INGB0123456789EUR", "2023-12-31", "2024-01-01", "-20", "EUR", "J. de Vries", "Terugboeking factuur 7", "R1", "NL91ABNA0417164300"},
				{"NL69INGB0123456789EUR", "2024-01-02", "", "3.1", "EUR", "Shop B.V.", "Order 55", "R2", "NL20INGB0001234567"},
				{"NL69INGB0123456789EUR", "2024-01-02", "", "-0.01", "EUR", "Acme", "", "", ""},
			},
			balances: []string{
				"NL69INGB0123456789EUR opening 2024-01-01 50 EUR",
				"NL69INGB0123456789EUR closing 2024-01-02 33.09 EUR",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows, balances, err := readStatement(t, NewMT940, tt.in)
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

func TestMT940Scale(t *testing.T) {
	rows, _, err := readStatement(t, NewMT940, ":20:X\n:61:240101C12,50NTRFNONREF\n")
	if err != nil {
		t.Fatal(err)
	}
	if rows[0].Amount.String() != "12.5" || rows[0].Amount.Exponent() != -2 || rows[0].Position.Line != 2 {
		t.Fatalf("row %+v", rows[0])
	}
}

func TestMT940Malformed(t *testing.T) {
	tests := []struct {
		name, in string
		line     int
		what     string
	}{
		{"empty", "", 0, "no MT940 field"},
		{"not mt940", "date,amount\n2024-01-01,5\n", 2, "no MT940 field"},
		{"bad value date", ":20:X\n:61:241301C1,00NTRF\n", 2, "no valid value date"},
		{"bad entry date", ":20:X\n:61:2401011332C1,00NTRF\n", 2, "no valid entry date"},
		{"no mark", ":20:X\n:61:240101X1,00NTRF\n", 2, "not a statement line"},
		{"no type", ":20:X\n:61:240101C1,00\n", 2, "not a statement line"},
		{"letters", ":20:X\n:61:hello\n", 2, "does not start with a value date"},
		{"bad balance", ":20:X\n:25:A\n:60F:C2401EUR1,00\n", 3, "is not a balance"},
		{"bad balance date", ":20:X\n:60F:C240231EUR1,00\n", 2, "no valid date"},
		{"long line", ":20:" + strings.Repeat("x", 70_000) + "\n", 1, "longer than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := readStatement(t, NewMT940, tt.in)
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

func TestMT940Samples(t *testing.T) {
	rows := readSamples(t, "mt940-*.sta", NewMT940, nil)
	for name, r := range rows {
		if len(r) == 0 {
			t.Errorf("%s: no rows", name)
		}
	}
	// Purpose subfields of 27 characters run on into the next, inside a word.
	triodos := rows["mt940-jejik-triodos.sta"]
	if got := rowOf(triodos[0]); got != (rowFields{"TRIODOSBANK/0390123456", "2011-01-01", "", "-15.7", "EUR", "", "ALGEMENE TUSSENREKENING KOSTEN VAN 01-10-2010 TOT EN MET 31-12-2010", "", "0390123456"}) {
		t.Errorf("triodos %+v", got)
	}
	sparkasse := rows["mt940-jejik-sparkasse.sta"]
	if got := rowOf(sparkasse[1]); got.payee != "Max Mustermann" || got.counterparty != "DE12345678901234567890" || got.date != "2019-02-19" || got.amount != "-20" {
		t.Errorf("sparkasse %+v", got)
	}
}

// FuzzMT940 runs for as long as asked with
//
//	go test ./statement -run '^$' -fuzz FuzzMT940 -fuzztime 5m
func FuzzMT940(f *testing.F) {
	addSeeds(f, "mt940-*.sta", ":20:X\n:25:A\n:60F:C231231EUR1,00\n:61:2312310102RCR12,50NTRFREF//B1\n:86:/NAME/X/REMI/USTD//Y/\n:62F:D240102EUR11,50\n-}")
	f.Fuzz(func(t *testing.T, in []byte) { fuzzReader(t, NewMT940, in) })
}

// A file of 100,000 statement lines, written as it is read, is read in bounded memory.
func TestMT940StreamsInBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 100,000 statement lines")
	}
	const n = 100_000
	pr, pw := io.Pipe()
	go func() {
		fmt.Fprint(pw, ":20:STARTUMSE\r\n:25:10020030/1234567\r\n:60F:C231229EUR1000,00\r\n")
		for i := range n {
			if _, err := fmt.Fprintf(pw, ":61:2401%02d01%02dD%d,%02dNDDTNONREF//B%d\r\n:86:105?00LASTSCHRIFT?20SVWZ+Rechnung %d?32Stadtwerke\r\n", i%28+1, i%28+1, i%1000, i%100, i, i); err != nil {
				return
			}
		}
		fmt.Fprint(pw, ":62F:C240131EUR0,00\r\n-")
		pw.Close()
	}()
	streamsInBoundedMemory(t, NewMT940, pr, n, 16<<20)
}

// A line that is not UTF-8 is read as Windows-1252.
func TestMT940Windows1252(t *testing.T) {
	rows, _, err := readStatement(t, NewMT940, ":20:X\n:61:240101C1,00NTRFNONREF\n:86:166?20Gr\xfc\xdfe ?21aus M\xfcnchen?32Jos\xe9\n")
	if err != nil {
		t.Fatal(err)
	}
	if rows[0].Memo != "Grüße aus München" || rows[0].Payee != "José" {
		t.Fatalf("row %+v", rows[0])
	}
}
