package statement

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"
	"time"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"

	"github.com/finledger/finledger/domain"
)

const accented = "Fecha;Concepto;Importe\n31/12/2024;Café Müller – “Año”;-1.234,56\n"

func encode(t *testing.T, e encoding.Encoding, s string) []byte {
	t.Helper()
	b, err := e.NewEncoder().Bytes([]byte(s))
	if err != nil {
		t.Fatalf("encode: %v", err)
	}
	return b
}

func TestDecode(t *testing.T) {
	latin := "Fecha;Concepto;Importe\n31/12/2024;Café Müller Año;-1.234,56\n"
	tests := []struct {
		name string
		in   []byte
		want Encoding
		text string
	}{
		{"utf-8", []byte(accented), EncodingUTF8, accented},
		{"utf-8 with BOM", append([]byte{0xEF, 0xBB, 0xBF}, accented...), EncodingUTF8, accented},
		{"utf-16le with BOM", encode(t, unicode.UTF16(unicode.LittleEndian, unicode.UseBOM), accented), EncodingUTF16LE, accented},
		{"utf-16be with BOM", encode(t, unicode.UTF16(unicode.BigEndian, unicode.UseBOM), accented), EncodingUTF16BE, accented},
		{"utf-16le without BOM", encode(t, unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM), accented), EncodingUTF16LE, accented},
		{"utf-16be without BOM", encode(t, unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM), accented), EncodingUTF16BE, accented},
		{"windows-1252 (curly quotes, dash)", encode(t, charmap.Windows1252, accented), EncodingWindows1252, accented},
		{"iso-8859-1", encode(t, charmap.ISO8859_1, latin), EncodingISO88591, latin},
		{"ascii", []byte("date,amount\n"), EncodingUTF8, "date,amount\n"},
		{"empty", nil, EncodingUTF8, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// One byte a read, so runes and code units are cut between reads.
			r, enc, err := Decode(iotest.OneByteReader(bytes.NewReader(tt.in)))
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if enc != tt.want {
				t.Errorf("encoding = %s, want %s", enc, tt.want)
			}
			got, err := io.ReadAll(r)
			if err != nil {
				t.Fatalf("read: %v", err)
			}
			if string(got) != tt.text {
				t.Errorf("text = %q, want %q", got, tt.text)
			}
		})
	}
}

func TestDecodeUTF8BrokenLater(t *testing.T) {
	// Valid UTF-8 for the first 64 KiB, a Windows-1252 é after.
	in := append(bytes.Repeat([]byte("2024-01-01,1.00,caf\xc3\xa9\n"), 5000), "2024-01-02,2.00,caf\xe9\n"...)
	r, enc, err := Decode(bytes.NewReader(in))
	if err != nil || enc != EncodingUTF8 {
		t.Fatalf("Decode = %s, %v", enc, err)
	}
	_, err = io.ReadAll(r)
	var ee *EncodingError
	if !errors.As(err, &ee) {
		t.Fatalf("err = %v, want *EncodingError", err)
	}
	if want := int64(len(in) - 2); ee.Offset != want {
		t.Errorf("offset = %d, want %d", ee.Offset, want)
	}
}

func TestDecodeLatin1BrokenLater(t *testing.T) {
	// ISO-8859-1 for the first 64 KiB (no byte in 0x80–0x9F), a Windows-1252 € after.
	in := append(bytes.Repeat([]byte("2024-01-01,1.00,caf\xe9\n"), 5000), "2024-01-02,2.00,\x80\n"...)
	r, enc, err := Decode(bytes.NewReader(in))
	if err != nil || enc != EncodingISO88591 {
		t.Fatalf("Decode = %s, %v", enc, err)
	}
	_, err = io.ReadAll(r)
	var ee *EncodingError
	if !errors.As(err, &ee) || ee.Encoding != EncodingISO88591 || ee.Offset != int64(len(in)-2) {
		t.Fatalf("err = %v, want *EncodingError at %d", err, len(in)-2)
	}
	// Named as Windows-1252, the same file reads.
	r, err = DecodeAs(bytes.NewReader(in), EncodingWindows1252)
	if err != nil {
		t.Fatal(err)
	}
	if text, err := io.ReadAll(r); err != nil || !bytes.HasSuffix(text, []byte("2.00,€\n")) {
		t.Fatalf("read %q…, %v", text[len(text)-10:], err)
	}
}

func TestParseDate(t *testing.T) {
	d := func(y, m, day int) domain.Date { return domain.DateOf(y, time.Month(m), day) }
	tests := []struct {
		in    string
		order DateOrder
		want  domain.Date
		fails bool
	}{
		{"2024-12-31", "", d(2024, 12, 31), false},
		{"2024-12-31T10:11:12Z", "", d(2024, 12, 31), false},
		{"2024/01/05", "", d(2024, 1, 5), false},
		{"2025.12.04", "", d(2025, 12, 4), false},
		{"20241231", "", d(2024, 12, 31), false},
		{"31/12/2024", "", d(2024, 12, 31), false},
		{"12/31/2024", "", d(2024, 12, 31), false},
		{"31.12.2024", "", d(2024, 12, 31), false},
		{"31-12-24", "", d(2024, 12, 31), false},
		{"31/12/99", "", d(1999, 12, 31), false},
		{"12/31'24", "", d(2024, 12, 31), false},
		{"1/ 2'05", DateOrderMDY, d(2005, 1, 2), false},
		{"1/ 2'05", DateOrderDMY, d(2005, 2, 1), false},
		{"2/10'2020", DateOrderMDY, d(2020, 2, 10), false},
		{"03/04/2024", DateOrderDMY, d(2024, 4, 3), false},
		{"03/04/2024", DateOrderMDY, d(2024, 3, 4), false},
		{"05/05/2024", "", d(2024, 5, 5), false},
		{"31/12/2024 10:32", "", d(2024, 12, 31), false},
		{"31 Dec 2024", "", d(2024, 12, 31), false},
		{"Dec 31, 2024", "", d(2024, 12, 31), false},
		{"December 31 2024", "", d(2024, 12, 31), false},
		{"31-ene-2024", "", d(2024, 1, 31), false},
		{"15 de septiembre de 2024", "", d(2024, 9, 15), false},
		{"2024 Dec 31", "", d(2024, 12, 31), false},
		{"1 Dic 24", "", d(2024, 12, 1), false},
		{"29/02/2024", "", d(2024, 2, 29), false},
		{"29/02/2023", "", domain.Date{}, true},
		{"31/04/2024", DateOrderDMY, domain.Date{}, true},
		{"13/13/2024", "", domain.Date{}, true},
		{"2024-13-01", "", domain.Date{}, true},
		{"yesterday", "", domain.Date{}, true},
		{"12", "", domain.Date{}, true},
		{"1/2/3/4", "", domain.Date{}, true},
		{"Foo 12 2024", "", domain.Date{}, true},
		{"", "", domain.Date{}, true},
		{"13/05/2024", DateOrderMDY, domain.Date{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			f, err := parseDateForm(tt.in)
			if err != nil {
				if !tt.fails {
					t.Fatalf("parseDateForm(%q): %v", tt.in, err)
				}
				return
			}
			got, ok := f.in(tt.order)
			if tt.fails {
				if ok {
					t.Fatalf("read %q as %s, want a failure", tt.in, got)
				}
				return
			}
			if !ok || got != tt.want {
				t.Errorf("%q in %q = %s %v, want %s", tt.in, tt.order, got, ok, tt.want)
			}
		})
	}
}

func TestParseAmount(t *testing.T) {
	tests := []struct {
		in    string
		sep   rune
		want  string // with its scale
		fails bool
	}{
		{"12.50", 0, "12.50", false},
		{"-12.50", 0, "-12.50", false},
		{"12,50", 0, "12.50", false},
		{"1.234,56", 0, "1234.56", false},
		{"1,234.56", 0, "1234.56", false},
		{"1 234,56", 0, "1234.56", false},
		{"1\u00a0234,56", 0, "1234.56", false},
		{"1'234.56", 0, "1234.56", false},
		{"1’234.56", 0, "1234.56", false},
		{"1,234,567", 0, "1234567", false},
		{"1.234.567,8", 0, "1234567.8", false},
		{"(12.00)", 0, "-12.00", false},
		{"12.00-", 0, "-12.00", false},
		{"+5", 0, "5", false},
		{"$1,234.56", 0, "1234.56", false},
		{"-$12.00", 0, "-12.00", false},
		{"$-12.00", 0, "-12.00", false},
		{"€ 12,00", 0, "12.00", false},
		{"12,00 €", 0, "12.00", false},
		{"£51.00", 0, "51.00", false},
		{"MXN 1,500.00", 0, "1500.00", false},
		{"1,500.00 MXN", 0, "1500.00", false},
		{"(1.234,56 €)", 0, "-1234.56", false},
		{".50", 0, "0.50", false},
		{"0", 0, "0", false},
		{"1,234", '.', "1234", false},
		{"1,234", ',', "1.234", false},
		{"1.234", ',', "1234", false},
		{"1,234", 0, "", true}, // which separator?
		{"1.234", 0, "", true},
		{"12.5", ',', "", true}, // a point where a comma is the decimal separator
		{"1.234,56", '.', "", true},
		{"1,23,456.00", 0, "", true},
		{"--12", 0, "", true},
		{"-12-", 0, "", true},
		{"12a", 0, "", true},
		{"", 0, "", true},
		{"-", 0, "", true},
		{"$", 0, "", true},
		{"1e5", 0, "", true},
		{"12.", 0, "", true},
		{"1.2.3,4.5", 0, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := parseAmount(tt.in, tt.sep)
			if tt.fails {
				if err == nil {
					t.Fatalf("parseAmount(%q, %q) = %s, want an error", tt.in, tt.sep, got)
				}
				return
			}
			if err != nil {
				t.Fatalf("parseAmount(%q, %q): %v", tt.in, tt.sep, err)
			}
			if s := got.StringFixed(-got.Exponent()); s != tt.want {
				t.Errorf("parseAmount(%q, %q) = %s, want %s", tt.in, tt.sep, s, tt.want)
			}
		})
	}
}

func TestParseAmountAmbiguousIsTyped(t *testing.T) {
	if _, err := parseAmount("1,234", 0); !errors.Is(err, errAmbiguousSeparator) {
		t.Fatalf("err = %v, want errAmbiguousSeparator", err)
	}
}
