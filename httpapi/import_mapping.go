package httpapi

import (
	"encoding/json"
	"unicode/utf8"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/statement"
)

// A bank CSV's mapping (domain.ImportMapping) reaches the API in one JSON shape,
// {"date": 1, "amount": 3, "payee": 2, "dateOrder": "DMY", ...}: the body field
// "mapping" of an import profile (importMapping, in fields.go), and the same object as
// the text of a query parameter or a multipart field of an import. Both are read by the
// field's rule here, and converted here to the statement reader's options: an import
// given a mapping reads it with importMappingOf("mapping", text), then calls csvOptions;
// given a saved profile, csvOptions(domain.ImportMapping(profile.Mapping)).

// importMappingColumn is one column field of a mapping: its rule, and where it goes.
type importMappingColumn struct {
	rule numberField
	to   func(*domain.ImportMapping) *int
}

// importMappingColumnFields are the mapping's column fields: whole numbers from 0
// (none) to domain.MaxImportColumn, the date's from 1 (a mapping names it always).
var importMappingColumnFields = func() []importMappingColumn {
	column := func(name, doc string, to func(*domain.ImportMapping) *int) importMappingColumn {
		f := numberField{Name: name, Max: domain.MaxImportColumn, Integer: true, Doc: obj{"default": 0}}
		if doc != "" {
			f.Doc["description"] = doc
		}
		return importMappingColumn{f, to}
	}
	date := column("date", "the booking date's column", func(m *domain.ImportMapping) *int { return &m.Date })
	date.rule.Min, date.rule.Doc = 1, obj{"description": "the booking date's column"}
	return []importMappingColumn{
		date,
		column("valueDate", "", func(m *domain.ImportMapping) *int { return &m.ValueDate }),
		column("amount", "a signed amount: money out negative", func(m *domain.ImportMapping) *int { return &m.Amount }),
		column("debit", "money out, whatever its sign in the file", func(m *domain.ImportMapping) *int { return &m.Debit }),
		column("credit", "money in", func(m *domain.ImportMapping) *int { return &m.Credit }),
		column("payee", "", func(m *domain.ImportMapping) *int { return &m.Payee }),
		column("memo", "", func(m *domain.ImportMapping) *int { return &m.Memo }),
		column("externalId", "the bank's id of the row, which tells a row imported twice", func(m *domain.ImportMapping) *int { return &m.ExternalID }),
		column("currency", "", func(m *domain.ImportMapping) *int { return &m.Currency }),
		column("description", "the bank's text for the row: the payee when no column is, else part of the memo",
			func(m *domain.ImportMapping) *int { return &m.Description }),
	}
}()

// importMappingColumns are the rules of the mapping's column fields.
func importMappingColumns() []field {
	out := make([]field, len(importMappingColumnFields))
	for i, c := range importMappingColumnFields {
		out[i] = c.rule
	}
	return out
}

// readImportMapping reads the mapping field f of a body by its rule; a field's errors
// are the body's, named "mapping.date". The rules between the fields are left to
// ImportMapping.Check.
func readImportMapping(b *body, f objectField) domain.ImportMapping {
	var m domain.ImportMapping
	f.read(b, func(o *body) {
		for _, c := range importMappingColumnFields {
			if v := c.rule.read(o); v.Valid && !o.failed(c.rule.Name) {
				*c.to(&m) = int(v.Value.IntPart())
			}
		}
		for i, to := range []*string{&m.DateOrder, &m.DecimalSeparator, &m.Delimiter, &m.Encoding, &m.Header} {
			*to = importMappingOptions[i].(textField).read(o).Value
		}
	})
	return m
}

// importMappingOf reads a mapping sent as JSON text, a query parameter or a multipart
// field named name of an import, in the shape and by the rules of an import profile's
// mapping, ImportMapping.Check included. Its errors are a VALIDATION_ERROR naming each
// bad field ("mapping.amount"), or INVALID_JSON.
func importMappingOf(name, text string) (domain.ImportMapping, error) {
	if !json.Valid([]byte(text)) {
		return domain.ImportMapping{}, domain.InvalidField(name, "must be a JSON object")
	}
	wrapped, err := json.Marshal(map[string]json.RawMessage{name: json.RawMessage(text)})
	if err != nil {
		return domain.ImportMapping{}, domain.InvalidField(name, "must be a JSON object")
	}
	b, err := parseBody(wrapped)
	if err != nil {
		return domain.ImportMapping{}, err
	}
	f := objectField{Name: name, Body: importMapping.Body}
	b.rule = &bodyRule{Fields: []field{f}, Required: []string{name}}
	m := readImportMapping(b, f)
	if err := b.finish(); err != nil {
		return domain.ImportMapping{}, err
	}
	return m, m.Check(name)
}

// csvOptions are the statement reader's options for a mapping: its columns (none when
// it names no date's, leaving the header's names to say), and each of its options,
// an empty one left for the reader to find from the file.
func csvOptions(m domain.ImportMapping) statement.CSVOptions {
	o := statement.CSVOptions{
		Encoding:  statement.Encoding(m.Encoding),
		Header:    statement.CSVHeader(m.Header),
		DateOrder: map[string]statement.DateOrder{"DMY": statement.DateOrderDMY, "MDY": statement.DateOrderMDY}[m.DateOrder],
	}
	if m.Delimiter != "" {
		o.Delimiter, _ = utf8.DecodeRuneInString(m.Delimiter)
	}
	if m.DecimalSeparator != "" {
		o.DecimalSeparator, _ = utf8.DecodeRuneInString(m.DecimalSeparator)
	}
	if m.Date != 0 {
		o.Mapping = &statement.CSVMapping{Date: m.Date, ValueDate: m.ValueDate, Amount: m.Amount, Debit: m.Debit, Credit: m.Credit,
			Payee: m.Payee, Memo: m.Memo, ExternalID: m.ExternalID, Currency: m.Currency, Description: m.Description}
	}
	return o
}

// importMappingSchema is a mapping in an answer: every field, as the body field takes
// it, so that an answer's mapping can be sent back as it is.
func importMappingSchema() obj {
	props := obj{}
	for _, f := range importMapping.Body.Fields {
		props[f.key()] = without(f.schema(), "default")
	}
	return merge(record(props), obj{"description": "0: no such column; \"\": found from the file"})
}
