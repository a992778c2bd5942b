package httpapi

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/queries"
	"github.com/finledger/finledger/statement"
)

// A mapping becomes the statement reader's options field for field: its columns, the
// delimiter and decimal separator as runes, the date order, the header and the
// encoding in the reader's words; what the mapping leaves empty the reader finds.
func TestCSVOptionsOfAMapping(t *testing.T) {
	m := domain.ImportMapping{Date: 1, ValueDate: 2, Amount: 3, Payee: 4, Memo: 5, ExternalID: 6, Currency: 7, Description: 8,
		DateOrder: "DMY", DecimalSeparator: ",", Delimiter: ";", Encoding: "windows-1252", Header: "present"}
	want := statement.CSVOptions{Encoding: statement.EncodingWindows1252, Delimiter: ';', Header: statement.CSVHeaderPresent,
		Mapping:   &statement.CSVMapping{Date: 1, ValueDate: 2, Amount: 3, Payee: 4, Memo: 5, ExternalID: 6, Currency: 7, Description: 8},
		DateOrder: statement.DateOrderDMY, DecimalSeparator: ','}
	if got := csvOptions(m); !reflect.DeepEqual(got, want) {
		t.Errorf("csvOptions = %+v (mapping %+v), want %+v (mapping %+v)", got, *got.Mapping, want, *want.Mapping)
	}
	m = domain.ImportMapping{Date: 2, Debit: 3, Credit: 4, DateOrder: "MDY", Delimiter: "\t", Header: "absent"}
	want = statement.CSVOptions{Delimiter: '\t', Header: statement.CSVHeaderAbsent, DateOrder: statement.DateOrderMDY,
		Mapping: &statement.CSVMapping{Date: 2, Debit: 3, Credit: 4}}
	if got := csvOptions(m); !reflect.DeepEqual(got, want) {
		t.Errorf("csvOptions = %+v, want %+v", got, want)
	}
	if got := csvOptions(domain.ImportMapping{Delimiter: "|"}); got.Mapping != nil || got.Delimiter != '|' {
		t.Errorf("options without columns: %+v", got)
	}
	// A saved profile's mapping, as read, converts as it is.
	saved := queries.ImportMapping{Date: 2, Debit: 3, Credit: 4, DateOrder: "MDY", Delimiter: "\t", Header: "absent"}
	if got := csvOptions(domain.ImportMapping(saved)); !reflect.DeepEqual(got, want) {
		t.Errorf("csvOptions of a saved mapping = %+v, want %+v", got, want)
	}
}

// Every option a mapping takes is one the statement reader knows: the domain lists
// them in its own words, which must be the reader's.
func TestImportMappingOptionsAreTheReaders(t *testing.T) {
	for _, enc := range domain.ImportEncodings[1:] {
		if _, err := statement.DecodeAs(strings.NewReader("a"), statement.Encoding(enc)); err != nil {
			t.Errorf("encoding %q: %v", enc, err)
		}
	}
	for _, order := range domain.ImportDateOrders[1:] {
		if csvOptions(domain.ImportMapping{DateOrder: order}).DateOrder == statement.DateOrderUnknown {
			t.Errorf("date order %q reaches the reader as none", order)
		}
	}
	for _, h := range domain.ImportHeaders[1:] {
		if header := statement.CSVHeader(h); header != statement.CSVHeaderPresent && header != statement.CSVHeaderAbsent {
			t.Errorf("header %q is not the reader's", h)
		}
	}
	for _, d := range domain.ImportDelimiters {
		if !importDelimiter.MatchString(d) {
			t.Errorf("the body refuses the delimiter %q the domain takes", d)
		}
	}
	for _, d := range []string{":", " ", ",,", `\t`} {
		if importDelimiter.MatchString(d) {
			t.Errorf("the body takes the delimiter %q the domain refuses", d)
		}
	}
	for _, d := range domain.ImportDecimalSeparators {
		if !importDecimalSeparator.MatchString(d) {
			t.Errorf("the body refuses the decimal separator %q the domain takes", d)
		}
	}
	for _, d := range []string{"'", " ", ".,"} {
		if importDecimalSeparator.MatchString(d) {
			t.Errorf("the body takes the decimal separator %q the domain refuses", d)
		}
	}
	if !slices.Equal(domain.ImportDelimiters[1:], []string{",", ";", "\t", "|"}) || !slices.Equal(domain.ImportDecimalSeparators[1:], []string{".", ","}) {
		t.Errorf("delimiters %q or separators %q are not the reader's", domain.ImportDelimiters, domain.ImportDecimalSeparators)
	}
}

// A mapping given as text (a query parameter or a multipart field of an import) is read
// as an import profile's mapping field is, with the domain's rules.
func TestImportMappingOf(t *testing.T) {
	m, err := importMappingOf("mapping", `{"date":1,"amount":3,"payee":2,"dateOrder":"DMY","decimalSeparator":",","delimiter":";","encoding":"windows-1252","header":"present"}`)
	want := domain.ImportMapping{Date: 1, Amount: 3, Payee: 2, DateOrder: "DMY", DecimalSeparator: ",", Delimiter: ";", Encoding: "windows-1252", Header: "present"}
	if err != nil || m != want {
		t.Fatalf("importMappingOf = %+v, %v", m, err)
	}
	for text, field := range map[string]string{
		`{"amount":3}`:                     "mapping.date",
		`{"date":1,"amount":2,"debit":3}`:  "mapping.debit",
		`{"date":1,"amount":1}`:            "mapping.amount",
		`{"date":1,"amount":2.5}`:          "mapping.amount",
		`{"date":1,"amount":501}`:          "mapping.amount",
		`{"date":1,"amount":2,"sep":";"}`:  "mapping.sep",
		`{"date":1,"amount":2,"header":1}`: "mapping.header",
		`[1,2]`:                            "mapping",
		`{"date":1`:                        "mapping",
	} {
		_, err := importMappingOf("mapping", text)
		e, ok := domain.AsError(err)
		if !ok || !slices.ContainsFunc(e.Fields, func(f domain.FieldError) bool { return f.Field == field }) {
			t.Errorf("%s: %v, want a refusal of %s", text, err, field)
		}
	}
}
