package domain

import (
	"slices"
	"testing"

	"github.com/google/uuid"
)

// A mapping's rules, each refusal naming the field at fault.
func TestImportMappingCheck(t *testing.T) {
	for _, c := range []struct {
		name    string
		mapping ImportMapping
		fields  []string // the fields refused; none for a good mapping
	}{
		{"amount column", ImportMapping{Date: 1, Amount: 3, Payee: 2, DateOrder: "DMY", DecimalSeparator: ",", Delimiter: ";",
			Encoding: "windows-1252", Header: "present"}, nil},
		{"debit and credit", ImportMapping{Date: 1, Debit: 4, Credit: 5, Delimiter: "\t"}, nil},
		{"debit alone", ImportMapping{Date: 2, Debit: 1}, nil},
		{"the widest column", ImportMapping{Date: MaxImportColumn, Amount: 1}, nil},
		{"no date", ImportMapping{Amount: 3}, []string{"mapping.date"}},
		{"no amount", ImportMapping{Date: 1, Payee: 2}, []string{"mapping"}},
		{"amount and debit", ImportMapping{Date: 1, Amount: 2, Debit: 3}, []string{"mapping.debit"}},
		{"amount and credit", ImportMapping{Date: 1, Amount: 2, Credit: 3}, []string{"mapping.credit"}},
		{"a column twice", ImportMapping{Date: 1, Amount: 2, Payee: 2}, []string{"mapping.payee"}},
		{"a negative column", ImportMapping{Date: 1, Amount: 2, Memo: -1}, []string{"mapping.memo"}},
		{"beyond the widest", ImportMapping{Date: 1, Amount: MaxImportColumn + 1}, []string{"mapping.amount"}},
		{"options", ImportMapping{Date: 1, Amount: 2, DateOrder: "YMD", DecimalSeparator: "'", Delimiter: ":", Encoding: "koi8-r",
			Header: "yes"}, []string{"mapping.dateOrder", "mapping.decimalSeparator", "mapping.delimiter", "mapping.encoding", "mapping.header"}},
	} {
		err := c.mapping.Check("mapping")
		var got []string
		if e, ok := AsError(err); ok {
			for _, f := range e.Fields {
				got = append(got, f.Field)
			}
		} else if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		slices.Sort(got)
		want := slices.Sorted(slices.Values(c.fields))
		if !slices.Equal(got, want) {
			t.Errorf("%s: refused %v, want %v (%v)", c.name, got, want, err)
		}
	}
}

func TestSaveImportProfile(t *testing.T) {
	w := given(t, wallet(cash, "Cash", "MXN", "0", true), wallet(bank, "Bank", "MXN", "0", false), &WalletArchived{WalletID: bank})
	mapping := ImportMapping{Date: 1, Amount: 2}
	first := uuid.New()
	events, err := SaveImportProfile{ProfileID: first, Name: "Banco", WalletID: idp(cash), Mapping: mapping}.Decide(w)
	if err != nil || len(events) != 1 || events[0].(*ImportProfileSaved).Before != nil {
		t.Fatalf("create: %v %#v", err, events)
	}
	then(t, w, events)

	for _, c := range []struct {
		name string
		cmd  SaveImportProfile
		code string
	}{
		{"a name taken, case and accents aside", SaveImportProfile{ProfileID: uuid.New(), Name: "BANCÓ", Mapping: mapping}, "CONFLICT"},
		{"an unknown wallet", SaveImportProfile{ProfileID: uuid.New(), Name: "Other", WalletID: idp(uuid.New()), Mapping: mapping}, "WALLET_NOT_FOUND"},
		{"an archived wallet", SaveImportProfile{ProfileID: uuid.New(), Name: "Other", WalletID: idp(bank), Mapping: mapping}, "WALLET_NOT_FOUND"},
		{"a bad mapping", SaveImportProfile{ProfileID: uuid.New(), Name: "Other", Mapping: ImportMapping{Amount: 1}}, "VALIDATION_ERROR"},
		{"replacing what is not there", SaveImportProfile{ProfileID: uuid.New(), Replace: true, Name: "Other", Mapping: mapping}, "IMPORT_PROFILE_NOT_FOUND"},
	} {
		if _, err := c.cmd.Decide(w); code(err) != c.code {
			t.Errorf("%s: %v, want %s", c.name, err, c.code)
		}
	}

	// Saving the same again changes nothing; a new mapping replaces the old one.
	if events, err := (SaveImportProfile{ProfileID: first, Replace: true, Name: "Banco", WalletID: idp(cash), Mapping: mapping}).Decide(w); err != nil || len(events) != 0 {
		t.Fatalf("the same profile again: %v %v", err, events)
	}
	events, err = SaveImportProfile{ProfileID: first, Replace: true, Name: "banco", Mapping: ImportMapping{Date: 1, Debit: 2, Credit: 3}}.Decide(w)
	if err != nil || len(events) != 1 {
		t.Fatalf("replace: %v %v", err, events)
	}
	if saved := events[0].(*ImportProfileSaved); saved.Before == nil || saved.Before.Name != "Banco" || saved.WalletID != nil {
		t.Fatalf("replace: %#v", saved)
	}
	then(t, w, events)
	if p := w.ImportProfiles[first]; p.Name != "banco" || p.Mapping.Debit != 2 {
		t.Fatalf("state after replace: %#v", p)
	}

	if _, err := (DeleteImportProfile{ProfileID: uuid.New()}).Decide(w); code(err) != "IMPORT_PROFILE_NOT_FOUND" {
		t.Errorf("delete unknown: %v", err)
	}
	events, err = DeleteImportProfile{ProfileID: first}.Decide(w)
	if err != nil {
		t.Fatal(err)
	}
	then(t, w, events)
	if len(w.ImportProfiles) != 0 {
		t.Fatalf("deleted profile kept: %v", w.ImportProfiles)
	}
	// The name is free again.
	if _, err := (SaveImportProfile{ProfileID: uuid.New(), Name: "Banco", Mapping: mapping}).Decide(w); err != nil {
		t.Fatal(err)
	}
}
