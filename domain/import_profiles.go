package domain

import (
	"fmt"
	"slices"

	"github.com/google/uuid"
)

// Event types of CSV import profiles.
const (
	TypeImportProfileSaved   = "import_profile.saved.v1"
	TypeImportProfileDeleted = "import_profile.deleted.v1"
)

// MaxImportColumn is the highest column an import mapping may name: wider than any
// bank's statement, and small enough that a mistyped number is caught.
const MaxImportColumn = 500

// The values an import mapping's options take; "" leaves each to be found from the
// file. They are the words of the statement reader's options (statement.CSVOptions),
// which this package does not import: a test of the HTTP layer, which converts one to
// the other, holds them equal.
var (
	ImportDateOrders        = []string{"", "DMY", "MDY"}
	ImportDecimalSeparators = []string{"", ".", ","}
	ImportDelimiters        = []string{"", ",", ";", "\t", "|"}
	ImportEncodings         = []string{"", "utf-8", "utf-16le", "utf-16be", "windows-1252", "iso-8859-1"}
	ImportHeaders           = []string{"", "present", "absent"}
)

// ImportMapping says which column of a bank's CSV holds what, and how the file is
// written. Columns count from 1, as a spreadsheet shows them; 0 is none. A row's amount
// is Amount, or Credit less Debit (money in less money out).
type ImportMapping struct {
	Date        int `json:"date,omitempty"`
	ValueDate   int `json:"valueDate,omitempty"`
	Amount      int `json:"amount,omitempty"`
	Debit       int `json:"debit,omitempty"`
	Credit      int `json:"credit,omitempty"`
	Payee       int `json:"payee,omitempty"`
	Memo        int `json:"memo,omitempty"`
	ExternalID  int `json:"externalId,omitempty"`
	Currency    int `json:"currency,omitempty"`
	Description int `json:"description,omitempty"`
	// DateOrder is "DMY" or "MDY"; "" decides it from the file.
	DateOrder string `json:"dateOrder,omitempty"`
	// DecimalSeparator is "." or ","; "" decides it from the file.
	DecimalSeparator string `json:"decimalSeparator,omitempty"`
	// Delimiter is ",", ";", a tab or "|"; "" finds it from the file.
	Delimiter string `json:"delimiter,omitempty"`
	// Encoding names the file's character encoding; "" finds it from the file.
	Encoding string `json:"encoding,omitempty"`
	// Header is "present" or "absent"; "" decides whether the first row names the
	// columns from what it holds.
	Header string `json:"header,omitempty"`
}

// importColumn is one column field of a mapping: its name in the API and its value.
type importColumn struct {
	name   string
	column int
}

// columns are the mapping's column fields, in the API's order.
func (m ImportMapping) columns() []importColumn {
	return []importColumn{{"date", m.Date}, {"valueDate", m.ValueDate}, {"amount", m.Amount}, {"debit", m.Debit},
		{"credit", m.Credit}, {"payee", m.Payee}, {"memo", m.Memo}, {"externalId", m.ExternalID},
		{"currency", m.Currency}, {"description", m.Description}}
}

// Check holds the mapping to the rules of a CSV statement's columns (as the statement
// reader does, less the file's width, which only a file tells): a date column; an
// amount column, or debit and credit columns (either or both), not both kinds; every
// column from 0 to MaxImportColumn and none named twice; each option one of its values.
// It returns a VALIDATION_ERROR listing every bad field as "field.name" ("mapping.date"
// for field "mapping").
func (m ImportMapping) Check(field string) error {
	var bad []FieldError
	fail := func(name, format string, args ...any) {
		bad = append(bad, FieldError{Field: field + "." + name, Message: fmt.Sprintf(format, args...)})
	}
	seen := map[int]string{}
	for _, c := range m.columns() {
		switch {
		case c.column < 0 || c.column > MaxImportColumn:
			fail(c.name, "must be from 0 (none) to %d", MaxImportColumn)
		case c.column == 0:
		case seen[c.column] != "":
			fail(c.name, "names column %d, which is the %s column already", c.column, seen[c.column])
		default:
			seen[c.column] = c.name
		}
	}
	switch {
	case m.Date == 0:
		fail("date", "must name the column of the dates")
	case m.Amount == 0 && m.Debit == 0 && m.Credit == 0:
		bad = append(bad, FieldError{Field: field, Message: "must name an amount column, or debit and credit columns"})
	case m.Amount != 0 && m.Debit != 0:
		fail("debit", "cannot be named with amount: name an amount column, or debit and credit columns")
	case m.Amount != 0 && m.Credit != 0:
		fail("credit", "cannot be named with amount: name an amount column, or debit and credit columns")
	}
	for _, o := range []struct {
		name, value string
		values      []string
	}{
		{"dateOrder", m.DateOrder, ImportDateOrders}, {"decimalSeparator", m.DecimalSeparator, ImportDecimalSeparators},
		{"delimiter", m.Delimiter, ImportDelimiters}, {"encoding", m.Encoding, ImportEncodings}, {"header", m.Header, ImportHeaders},
	} {
		if !slices.Contains(o.values, o.value) {
			fail(o.name, "must be one of %q", o.values)
		}
	}
	if len(bad) > 0 {
		return Invalid(bad...)
	}
	return nil
}

// ImportProfileFields are what a saved CSV import profile holds.
type ImportProfileFields struct {
	Name string `json:"name"`
	// WalletID is the wallet the profile is for; nil for any.
	WalletID *uuid.UUID    `json:"walletId"`
	Mapping  ImportMapping `json:"mapping"`
}

// ImportProfileSaved creates a CSV import profile, or replaces one.
type ImportProfileSaved struct {
	ProfileID uuid.UUID `json:"profileId"`
	// Before is the profile replaced; nil when the profile is new.
	Before *ImportProfileFields `json:"before,omitempty"`
	ImportProfileFields
}

// EventType names ImportProfileSaved in history.
func (ImportProfileSaved) EventType() string { return TypeImportProfileSaved }

func (ImportProfileSaved) sealed() {}

// ImportProfileDeleted removes a CSV import profile.
type ImportProfileDeleted struct {
	ProfileID uuid.UUID `json:"profileId"`
}

// EventType names ImportProfileDeleted in history.
func (ImportProfileDeleted) EventType() string { return TypeImportProfileDeleted }

func (ImportProfileDeleted) sealed() {}

// ImportProfile is a saved CSV import profile as the write side sees it.
type ImportProfile struct {
	ImportProfileFields
}

// applyImportProfile folds the events of import profiles.
func (w *Workspace) applyImportProfile(event Event) (bool, error) {
	switch e := event.(type) {
	case *ImportProfileSaved:
		w.ImportProfiles[e.ProfileID] = &ImportProfile{ImportProfileFields: e.ImportProfileFields}
	case *ImportProfileDeleted:
		if _, err := find(w.ImportProfiles, e.ProfileID, "import profile"); err != nil {
			return true, err
		}
		delete(w.ImportProfiles, e.ProfileID)
	default:
		return false, nil
	}
	return true, nil
}

// SaveImportProfile creates a CSV import profile (a column mapping saved to be used
// again, for a wallet or for any), or replaces every field of one.
//
// Errors: VALIDATION_ERROR (the mapping breaks ImportMapping.Check, fields named
// "mapping.…"); IMPORT_PROFILE_NOT_FOUND (Replace, and no such profile);
// WALLET_NOT_FOUND (no live wallet WalletID); CONFLICT (another profile has the name,
// accents and case aside).
type SaveImportProfile struct {
	ProfileID uuid.UUID
	// Replace says the profile must exist already: a replacement never creates one.
	Replace  bool
	Name     string
	WalletID *uuid.UUID
	Mapping  ImportMapping
}

// Decide checks the mapping, the wallet and the name, and returns the saved profile,
// or nothing when a replacement changes nothing.
func (c SaveImportProfile) Decide(w *Workspace) ([]Event, error) {
	if err := c.Mapping.Check("mapping"); err != nil {
		return nil, err
	}
	before, exists := w.ImportProfiles[c.ProfileID]
	if c.Replace && !exists {
		return nil, NotFound("IMPORT_PROFILE_NOT_FOUND", "import profile %s not found", c.ProfileID)
	}
	if c.WalletID != nil {
		if _, err := w.liveWallet(*c.WalletID); err != nil {
			return nil, err
		}
	}
	folded := FoldName(c.Name)
	for id, other := range w.ImportProfiles {
		if id != c.ProfileID && FoldName(other.Name) == folded {
			return nil, Conflict("CONFLICT", "an import profile named %q already exists", other.Name)
		}
	}
	after := ImportProfileFields{Name: c.Name, WalletID: c.WalletID, Mapping: c.Mapping}
	e := &ImportProfileSaved{ProfileID: c.ProfileID, ImportProfileFields: after}
	if exists {
		if before.Name == after.Name && eqPtr(before.WalletID, after.WalletID) && before.Mapping == after.Mapping {
			return nil, nil
		}
		fields := before.ImportProfileFields
		e.Before = &fields
	}
	return []Event{e}, nil
}

// DeleteImportProfile removes a CSV import profile.
//
// Errors: IMPORT_PROFILE_NOT_FOUND.
type DeleteImportProfile struct {
	ProfileID uuid.UUID
}

// Decide deletes an existing profile.
func (c DeleteImportProfile) Decide(w *Workspace) ([]Event, error) {
	if _, ok := w.ImportProfiles[c.ProfileID]; !ok {
		return nil, NotFound("IMPORT_PROFILE_NOT_FOUND", "import profile %s not found", c.ProfileID)
	}
	return []Event{&ImportProfileDeleted{ProfileID: c.ProfileID}}, nil
}
