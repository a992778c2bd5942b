package domain

import (
	"encoding/json"
	"testing"
	"time"
)

// Dates and transaction types were strings in stored events; as types they must write
// and read the very same JSON, or hashed history and webhook bodies would change.
func TestDateAndTransactionTypeJSON(t *testing.T) {
	type asString struct {
		Date     string  `json:"date"`
		Optional *string `json:"optional"`
		Type     string  `json:"type"`
	}
	type asTypes struct {
		Date     Date            `json:"date"`
		Optional *Date           `json:"optional"`
		Type     TransactionType `json:"type"`
	}
	day := "2026-03-10"
	for _, c := range []asString{
		{Date: "2026-03-10", Optional: &day, Type: "expense"},
		{Date: "", Optional: nil, Type: "goal_withdrawal"}, // no date: "" and null, as before
		{Date: "0001-01-02", Type: "income"},               // items recorded before dates were bounded
		{Date: "2099-12-31", Type: ""},
	} {
		want, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		var typed asTypes
		if err := json.Unmarshal(want, &typed); err != nil {
			t.Fatalf("%s: %v", want, err)
		}
		got, err := json.Marshal(typed)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("%s came back as %s", want, got)
		}
		if typed.Date.IsZero() != (c.Date == "") || typed.Date.String() != c.Date || string(typed.Type) != c.Type {
			t.Errorf("%s read as %+v", want, typed)
		}
	}
	// A missing field and null leave a date as none, as they left a string empty.
	var typed asTypes
	if err := json.Unmarshal([]byte(`{"date":null}`), &typed); err != nil || !typed.Date.IsZero() || typed.Optional != nil {
		t.Errorf("null read as %+v, %v", typed, err)
	}
	for _, bad := range []string{`{"date":"2026-13-01"}`, `{"date":"10/03/2026"}`, `{"date":20260310}`} {
		if err := json.Unmarshal([]byte(bad), &typed); err == nil {
			t.Errorf("%s read as %+v", bad, typed)
		}
	}
}

func TestDateArithmetic(t *testing.T) {
	d := MustParseDate("2024-01-31")
	if got := d.AddDate(0, 1, 0); got != MustParseDate("2024-03-02") {
		t.Errorf("AddDate(0, 1, 0) = %s, want time.Time's normalisation 2024-03-02", got)
	}
	if got := d.AddDays(30); got != MustParseDate("2024-03-01") || got.Sub(d) != 30 {
		t.Errorf("AddDays(30) = %s", got)
	}
	if got := d.MonthStart(); got != MustParseDate("2024-01-01") {
		t.Errorf("MonthStart = %s", got)
	}
	if !d.Before(d.AddDays(1)) || d.After(d) || d.Compare(d.AddDays(-1)) != 1 || (Date{}).Compare(FirstDay) != -1 {
		t.Error("dates do not order as days")
	}
	if got := d.Time(); !got.Equal(time.Date(2024, 1, 31, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("Time = %s", got)
	}
	if !(Date{}).Time().IsZero() || (Date{}).String() != "" {
		t.Error("no date is not the zero time and the empty string")
	}
	if got := DateOf(1, time.January, 1); got.IsZero() || got.String() != "0001-01-01" {
		t.Errorf("year 1 is %q", got)
	}
	// Late on 10 March in Mexico City is already 11 March in UTC.
	if got := BusinessDay(time.Date(2026, 3, 11, 3, 0, 0, 0, time.UTC)); got != MustParseDate("2026-03-10") {
		t.Errorf("BusinessDay = %s", got)
	}
	for _, src := range []any{time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC), "2026-03-10", []byte("2026-03-10")} {
		var got Date
		if err := got.Scan(src); err != nil || got != MustParseDate("2026-03-10") {
			t.Errorf("Scan(%T) = %s, %v", src, got, err)
		}
	}
	var none Date
	if err := none.Scan(nil); err != nil || !none.IsZero() {
		t.Errorf("Scan(nil) = %s, %v", none, err)
	}
	if v, err := none.Value(); v != nil || err != nil {
		t.Errorf("Value of no date = %v, %v", v, err)
	}
}
