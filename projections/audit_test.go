package projections

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/finledger/finledger/domain"
)

// The audit log's own reading and writing of JSON give what encoding/json gives, but
// for a decimal's scale.
func TestAuditJSONAsEncodingJSON(t *testing.T) {
	concept, category := `say "hi" \ <b> ñ`, uuid.New()
	amount := decimal.RequireFromString("12.50")
	records := []any{
		domain.TransactionCreated{TransactionID: uuid.New(), Type: domain.TxExpense, Amount: amount, Currency: "MXN",
			Date: domain.MustParseDate("2026-01-02"), Concept: &concept, CategoryID: &category, DestinationAmount: &amount,
			Postings: []domain.Posting{{WalletID: uuid.New(), Amount: amount.Neg()}}},
		map[string]any{"nested": map[string]any{"a": []any{1, "}", map[string]any{"b": nil}}, `k"ey`: true}, "n": -1.5e3, "e": []any{}, "o": map[string]any{}},
		struct{}{},
	}
	for _, r := range records {
		data, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		var want map[string]json.RawMessage
		if err := json.Unmarshal(data, &want); err != nil {
			t.Fatal(err)
		}
		got, err := splitObject(data)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("split %s:\ngot  %q\nwant %q", data, got, want)
		}
	}
	changes := map[string]change{"amount": {nil, json.RawMessage(`"12.50"`)}, "role": {"reader", "admin"}, "gone": {json.RawMessage(`{"a":[1]}`), nil},
		`odd "key"`: {1.5, 2}}
	got, err := marshalChanges(changes)
	if err != nil {
		t.Fatal(err)
	}
	want, err := json.Marshal(changes)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("changes:\ngot  %s\nwant %s", got, want)
	}
	// But a decimal keeps its scale, as events keep it, where encoding/json drops it.
	got, err = marshalChanges(map[string]change{"amount": {decimal.RequireFromString("1.0"), decimal.RequireFromString("2.50")}})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"amount":{"before":"1.0","after":"2.50"}}`; string(got) != want {
		t.Errorf("changes of decimals:\ngot  %s\nwant %s", got, want)
	}
}

// The changes of a new record written straight from its JSON are those of the diff
// from nothing, written by marshalChanges.
func TestCreatedChangesAsTheDiffFromNothing(t *testing.T) {
	concept, empty, category, amount := `say "hi" \ <b> ñ`, "", uuid.New(), decimal.RequireFromString("12.50")
	records := []any{
		&domain.TransactionCreated{TransactionID: uuid.New(), Type: domain.TxExpense, Amount: amount, Currency: "MXN",
			Date: domain.MustParseDate("2026-01-02"), Concept: &concept, Description: &empty, CategoryID: &category, DestinationAmount: &amount},
		&domain.TransactionCreated{TransactionID: uuid.New(), Type: domain.TxIncome, Amount: amount, Currency: "USD", Date: domain.MustParseDate("2026-01-02")},
		domain.WalletFields{Name: "Main", Type: "cash", Currency: "MXN", InitialBalance: amount, IsDefault: true},
		map[string]any{"b": 1, "a": []any{nil, "x"}, "a!": map[string]any{"z": nil}, "n": nil, "transactionId": "skipped"},
		map[string]any{`k"ey`: 1, "<b>": 2, "ñ": 3, "plain": nil},
		struct{}{},
	}
	for _, r := range records {
		got, err := createdChanges(r, "transactionId", "postings")
		if err != nil {
			t.Fatal(err)
		}
		changes, err := diff(nil, r)
		if err != nil {
			t.Fatal(err)
		}
		delete(changes, "transactionId")
		delete(changes, "postings")
		want, err := marshalChanges(changes)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("changes of %#v:\ngot  %s\nwant %s", r, got, want)
		}
	}
}
