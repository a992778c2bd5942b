package queries

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"
)

// formulaStarts are the characters a spreadsheet (Excel, LibreOffice, Google Sheets)
// reads a cell starting with as a formula: OWASP's list for CSV injection.
const formulaStarts = "=+-@\t\r"

// peopleText are the CSV columns, by header, whose cells hold text a person typed
// (names, concepts, descriptions, payees, references, addresses), or a bank's file
// brought in (a statement row's id): the one list of what
// is neutralised in every CSV the service writes. Every other column holds what the
// service itself writes (an amount such as -12.50, a date, an id, a type, a currency),
// which is written as it is, so that a number stays a number. Whether a cell is
// neutralised is decided by its column, never guessed from its value: a concept typed
// as "-12.50" is text, and the balance -12.50 a number. A test holds every text field
// of the export's records to this list or to the service's own.
var peopleText = map[string]bool{
	// The export's fields, as the API names them.
	"name": true, "description": true, "concept": true, "referenceNumber": true, "attachmentUrl": true,
	"icon": true, "clabe": true, "provider": true, "creditor": true, "email": true, "payee": true, "memo": true,
	"externalId": true, "fileName": true,
	// The report's columns that are not the API's names.
	"reference_number": true, "wallet": true, "category": true, "split_concept": true,
}

// csvColumns says, for each column of one CSV, whether its cells are a person's text.
type csvColumns []bool

// csvColumnsOf are the columns of a CSV with this header row (peopleText).
func csvColumnsOf(header []string) csvColumns {
	c := make(csvColumns, len(header))
	for i, name := range header {
		c[i] = peopleText[name]
	}
	return c
}

// write writes one record as an RFC 4180 line (comma-separated, CRLF-ended, a field
// quoted when it holds a comma, a quote or a line break, or starts with a space, its
// quotes doubled) that a spreadsheet opens without running anything: a person's text
// that a spreadsheet would take for a formula (starting with =, +, -, @, a tab or a
// carriage return, spaces before them included) is written quoted with a single quote
// before it, OWASP's guidance, so that the cell shows the text as it was written.
// Every CSV the service writes goes through here; its header row is written with no
// columns (nil), as it is.
func (c csvColumns) write(out *bytes.Buffer, record []string) {
	for i, field := range record {
		if i > 0 {
			out.WriteByte(',')
		}
		switch {
		case i < len(c) && c[i] && formulaLike(field):
			out.WriteString(`"'`)
			out.WriteString(strings.ReplaceAll(field, `"`, `""`))
			out.WriteByte('"')
		case csvNeedsQuotes(field):
			out.WriteByte('"')
			out.WriteString(strings.ReplaceAll(field, `"`, `""`))
			out.WriteByte('"')
		default:
			out.WriteString(field)
		}
	}
	out.WriteString("\r\n")
}

// formulaLike reports text a spreadsheet could run as a formula. Spreadsheets that trim
// cells on import see what follows leading spaces.
func formulaLike(field string) bool {
	trimmed := strings.TrimLeftFunc(field, unicode.IsSpace)
	return field != "" && (strings.IndexByte(formulaStarts, field[0]) >= 0 ||
		trimmed != "" && strings.IndexByte(formulaStarts, trimmed[0]) >= 0)
}

// csvNeedsQuotes reports a field that RFC 4180 (and encoding/csv, which wrote the
// reports before) quotes: one holding a comma, a quote or a line break, or starting
// with a space a reader could trim.
func csvNeedsQuotes(field string) bool {
	if strings.ContainsAny(field, ",\"\r\n") {
		return true
	}
	r, _ := utf8.DecodeRuneInString(field)
	return field != "" && unicode.IsSpace(r)
}
