package httpapi_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"testing"

	"github.com/finledger/finledger/internal/testkit/apitest"
)

// A CSV import profile is saved, listed (for one wallet or all), read, replaced and
// deleted; its mapping comes back in the shape it was sent, every field named.
func TestImportProfiles(t *testing.T) {
	env := apitest.Start(t)
	f := newLedger(t, env, "alice")
	mapping := map[string]any{"date": 1, "amount": 3, "payee": 2, "dateOrder": "DMY", "decimalSeparator": ",", "delimiter": ";",
		"encoding": "windows-1252", "header": "present"}
	res := f.c.Post("/api/import-profiles", map[string]any{"name": "Banco", "walletId": f.bank, "mapping": mapping}).Expect(t, http.StatusCreated)
	profile := res.Object("profile")
	id := profile["id"].(string)
	got := profile["mapping"].(map[string]any)
	want := map[string]any{"date": 1, "valueDate": 0, "amount": 3, "debit": 0, "credit": 0, "payee": 2, "memo": 0, "externalId": 0,
		"currency": 0, "description": 0, "dateOrder": "DMY", "decimalSeparator": ",", "delimiter": ";", "encoding": "windows-1252", "header": "present"}
	if profile["name"] != "Banco" || profile["walletId"] != f.bank || profile["createdAt"] == nil || jsonOf(got) != jsonOf(want) {
		t.Fatalf("created %v", profile)
	}
	other := f.c.Post("/api/import-profiles", map[string]any{"name": "Any wallet", "mapping": map[string]any{"date": 2, "debit": 4, "credit": 5}}).
		Expect(t, http.StatusCreated).Object("profile")
	if other["walletId"] != nil {
		t.Fatalf("a profile for any wallet names one: %v", other)
	}

	names := func(path string) []string {
		var out []string
		for _, p := range f.c.Get(path).Expect(t, http.StatusOK).List("profiles") {
			out = append(out, p["name"].(string))
		}
		return out
	}
	if got := names("/api/import-profiles"); !slices.Equal(got, []string{"Banco", "Any wallet"}) {
		t.Fatalf("listing %v", got)
	}
	if got := names("/api/import-profiles?walletId=" + f.bank); !slices.Equal(got, []string{"Banco"}) {
		t.Fatalf("listing of the bank's %v", got)
	}
	if got := names("/api/import-profiles?walletId=" + f.cash); len(got) != 0 {
		t.Fatalf("listing of the cash's %v", got)
	}
	expectError(t, f.c.Get("/api/import-profiles?walletId=nope"), http.StatusBadRequest, "VALIDATION_ERROR")
	if got := f.c.Get("/api/import-profiles/"+id).Expect(t, http.StatusOK).Object("profile"); jsonOf(got) != jsonOf(profile) {
		t.Fatalf("read %v, want %v", got, profile)
	}

	// A replacement takes every field: what it leaves out is gone.
	replaced := f.c.Put("/api/import-profiles/"+id, map[string]any{"name": "Banco (debit and credit)", "mapping": map[string]any{"date": 1, "debit": 2, "credit": 3}}).
		Expect(t, http.StatusOK).Object("profile")
	m := replaced["mapping"].(map[string]any)
	if replaced["walletId"] != nil || m["amount"] != json.Number("0") || m["debit"] != json.Number("2") || m["dateOrder"] != "" ||
		replaced["createdAt"] != profile["createdAt"] {
		t.Fatalf("replaced %v", replaced)
	}
	expectError(t, f.c.Put("/api/import-profiles/"+f.bank, map[string]any{"name": "New", "mapping": map[string]any{"date": 1, "amount": 2}}),
		http.StatusNotFound, "IMPORT_PROFILE_NOT_FOUND")

	f.c.Delete("/api/import-profiles/"+id).Expect(t, http.StatusOK)
	expectError(t, f.c.Get("/api/import-profiles/"+id), http.StatusNotFound, "IMPORT_PROFILE_NOT_FOUND")
	expectError(t, f.c.Delete("/api/import-profiles/"+id), http.StatusNotFound, "IMPORT_PROFILE_NOT_FOUND")
	if got := names("/api/import-profiles"); !slices.Equal(got, []string{"Any wallet"}) {
		t.Fatalf("listing after the deletion %v", got)
	}

	var actions []string
	for _, e := range f.c.Get("/api/audit?entity=import_profile&pageSize=100").Expect(t, http.StatusOK).List("entries") {
		if e["entityId"] == id {
			actions = append(actions, e["action"].(string))
		}
	}
	if !slices.Equal(actions, []string{"delete", "update", "create"}) {
		t.Errorf("audit of the profile, newest first: %v", actions)
	}
}

// A profile's refusals: a mapping that breaks its rules names the field at fault; an
// unknown wallet, a name taken and a key that may only read are refused.
func TestImportProfileRefusals(t *testing.T) {
	env := apitest.Start(t)
	f := newLedger(t, env, "alice")
	for _, c := range []struct {
		mapping map[string]any
		field   string
	}{
		{map[string]any{"amount": 3}, "mapping.date"},
		{map[string]any{"date": 1, "amount": 2, "debit": 3}, "mapping.debit"},
		{map[string]any{"date": 1, "amount": 2, "payee": 2}, "mapping.payee"},
		{map[string]any{"date": 1, "payee": 2}, "mapping"},
		{map[string]any{"date": 1, "amount": 501}, "mapping.amount"},
		{map[string]any{"date": 1, "amount": 1.5}, "mapping.amount"},
		{map[string]any{"date": 1, "amount": 2, "delimiter": ":"}, "mapping.delimiter"},
		{map[string]any{"date": 1, "amount": 2, "encoding": "koi8-r"}, "mapping.encoding"},
	} {
		res := f.c.Post("/api/import-profiles", map[string]any{"name": "Bad", "mapping": c.mapping})
		if res.Status != http.StatusBadRequest || res.ErrorCode() != "VALIDATION_ERROR" || !hasProblem(res, c.field, "") {
			t.Errorf("%v: %d %s, want VALIDATION_ERROR naming %s", c.mapping, res.Status, res.Raw, c.field)
		}
	}
	good := map[string]any{"date": 1, "amount": 2}
	expectError(t, f.c.Post("/api/import-profiles", map[string]any{"name": "Ghost", "walletId": f.bank[:24] + "000000000000", "mapping": good}),
		http.StatusNotFound, "WALLET_NOT_FOUND")
	f.c.Post("/api/import-profiles", map[string]any{"name": "Banco", "mapping": good}).Expect(t, http.StatusCreated)
	expectError(t, f.c.Post("/api/import-profiles", map[string]any{"name": "BANCO", "mapping": good}), http.StatusConflict, "CONFLICT")
	other := f.c.Post("/api/import-profiles", map[string]any{"name": "Other", "mapping": good}).Expect(t, http.StatusCreated).Object("profile")["id"].(string)
	expectError(t, f.c.Put("/api/import-profiles/"+other, map[string]any{"name": "banco", "mapping": good}), http.StatusConflict, "CONFLICT")

	reader, _ := newKey(t, f.c, "categories:read")
	if got := reader.Get("/api/import-profiles").Expect(t, http.StatusOK).List("profiles"); len(got) != 2 {
		t.Fatalf("a reader's listing %v", got)
	}
	expectError(t, reader.Post("/api/import-profiles", map[string]any{"name": "Mine", "mapping": good}), http.StatusForbidden, "FORBIDDEN")
	expectError(t, reader.Delete("/api/import-profiles/"+other), http.StatusForbidden, "FORBIDDEN")
}

func jsonOf(v any) string {
	data, _ := json.Marshal(v)
	return string(data)
}
