package statement

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"
)

// Every sample is told by its content as the format its name says, and read by Open
// as that format's own reader reads it.
func TestOpenTellsEachSampleByItsContent(t *testing.T) {
	byExt := map[string]Format{".csv": FormatCSV, ".ofx": FormatOFX, ".qfx": FormatOFX, ".qif": FormatQIF,
		".xml": FormatCAMT, ".sta": FormatMT940, ".txt": FormatMT940, ".mt940": FormatMT940}
	paths, err := filepath.Glob("testdata/*")
	if err != nil {
		t.Fatal(err)
	}
	tried := map[Format]int{}
	for _, path := range paths {
		want, ok := byExt[strings.ToLower(filepath.Ext(path))]
		if !ok {
			continue
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		got, r, err := Open(f, Options{CSV: CSVOptions{DateOrder: DateOrderDMY}, QIF: QIFOptions{DateOrder: DateOrderMDY}})
		f.Close()
		if got != want {
			t.Errorf("%s: told as %q, want %q", path, got, want)
			continue
		}
		tried[got]++
		if err == nil && r == nil {
			t.Errorf("%s: no reader and no error", path)
		}
	}
	for _, f := range []Format{FormatCSV, FormatOFX, FormatQIF, FormatCAMT, FormatMT940} {
		if tried[f] == 0 {
			t.Errorf("no sample of %s was told", f)
		}
	}
}

func TestSniff(t *testing.T) {
	utf16le := func(s string) []byte {
		out := []byte{0xFF, 0xFE}
		for _, u := range utf16.Encode([]rune(s)) {
			out = append(out, byte(u), byte(u>>8))
		}
		return out
	}
	for _, tt := range []struct {
		name string
		head []byte
		want Format
	}{
		{"OFX 1 header", []byte("OFXHEADER:100\r\nDATA:OFXSGML\r\n\r\n<OFX><SIGNONMSGSRSV1>"), FormatOFX},
		{"OFX 2", []byte(`<?xml version="1.0"?>` + "\n" + `<?OFX OFXHEADER="200" VERSION="211"?><OFX>`), FormatOFX},
		{"CAMT.053", []byte(`<?xml version="1.0"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt>`), FormatCAMT},
		{"CAMT.054 without namespace", []byte(`<Document><BkToCstmrDbtCdtNtfctn>`), FormatCAMT},
		{"QIF", []byte("!Type:Bank\nD01/02/2024\nT-12.50\n^\n"), FormatQIF},
		{"QIF in UTF-16", utf16le("!Type:CCard\r\nD01/02/2024\r\n"), FormatQIF},
		{"MT940", []byte(":20:STMT1\n:25:DE89370400440532013000\n:28C:1/1\n:60F:C240101EUR100,00\n"), FormatMT940},
		{"MT940 in SWIFT blocks", []byte("{1:F01BANKDEFFXXXX0000000000}{2:I940BANKDEFFXXXXN}{4:\n:20:X\n:25:123\n"), FormatMT940},
		{"CSV", []byte("Date,Amount,Description\n2024-01-02,-12.50,Coffee\n"), FormatCSV},
		{"CSV in UTF-16", utf16le("Fecha;Importe\r\n02/01/2024;-12,50\r\n"), FormatCSV},
		{"CSV that mentions :20:", []byte("Date,Memo\n2024-01-02,ref :20: and more\n"), FormatCSV},
		{"empty", nil, FormatCSV},
	} {
		if got := Sniff(tt.head); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}
