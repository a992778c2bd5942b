package queries

import (
	"bytes"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// formulaStarts are the characters a spreadsheet (Excel, LibreOffice, Google Sheets)
// reads a cell starting with as a formula: OWASP's list for CSV injection.
const formulaStarts = "=+-@\t\r"

// plainNumber is a number written with digits, at most a sign and a decimal point: a
// spreadsheet reads it as that number and nothing else, so it is never neutralised.
var plainNumber = regexp.MustCompile(`^[+-]?[0-9]+(\.[0-9]+)?$`)

// writeCSVRecord writes one record as an RFC 4180 line (comma-separated, CRLF-ended,
// a field quoted when it holds a comma, a quote or a line break, or starts with a
// space, its quotes doubled) that a spreadsheet opens without running anything:
// a field a spreadsheet would take for a formula (one starting with =, +, -, @, a tab
// or a carriage return, spaces before them included) is written quoted with a single
// quote before it, OWASP's guidance, so that the cell shows the text as it was
// written. A plain number (an amount, -12.50) is written as it is and stays a number.
// Every CSV the service writes goes through here.
func writeCSVRecord(out *bytes.Buffer, record []string) {
	for i, field := range record {
		if i > 0 {
			out.WriteByte(',')
		}
		switch {
		case formulaLike(field):
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

// formulaLike reports a field a spreadsheet could run as a formula. Spreadsheets that
// trim cells on import see what follows leading spaces.
func formulaLike(field string) bool {
	if field == "" {
		return false
	}
	trimmed := strings.TrimLeftFunc(field, unicode.IsSpace)
	if strings.IndexByte(formulaStarts, field[0]) < 0 && (trimmed == "" || strings.IndexByte(formulaStarts, trimmed[0]) < 0) {
		return false
	}
	return !plainNumber.MatchString(field)
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
