package domain

import (
	"testing"

	"github.com/google/uuid"
)

// An alert threshold has at most two decimal places, as the percentage of spending it
// is compared with; a threshold stored before that bound stands until it is changed.
func TestAlertThresholdScale(t *testing.T) {
	legacy := uuid.New()
	w := given(t, append(workspace(), &BudgetCreated{BudgetID: legacy, BudgetFields: BudgetFields{Name: "Food", CategoryID: food,
		Amount: dec("100"), Currency: "MXN", Period: PeriodMonthly, StartDate: MustParseDate("2026-03-01"), EndDate: MustParseDate("2026-12-31"),
		AlertThreshold: dec("80.125")}})...)
	create := func(threshold string) error {
		_, err := CreateBudget{BudgetID: uuid.New(), Name: "Trips", CategoryID: travel, Amount: dec("100"), StartDate: MustParseDate("2026-03-01"),
			EndDate: MustParseDate("2026-12-31"), AlertThreshold: decp(threshold)}.Decide(w)
		return err
	}
	for _, ok := range []string{"1", "87.5", "33.33", "99.990", "100"} {
		if err := create(ok); err != nil {
			t.Errorf("threshold %s: %v", ok, err)
		}
	}
	for _, bad := range []string{"33.333", "80.001", "50.0000000001", "0.99", "100.01"} {
		if err := create(bad); code(err) != "VALIDATION_ERROR" {
			t.Errorf("threshold %s: %v", bad, err)
		}
	}
	if _, err := (UpdateBudget{BudgetID: legacy, Name: Of("Groceries")}).Decide(w); err != nil {
		t.Errorf("renaming a budget whose stored threshold has three decimals: %v", err)
	}
	if _, err := (UpdateBudget{BudgetID: legacy, AlertThreshold: Of(dec("75.555"))}).Decide(w); code(err) != "VALIDATION_ERROR" {
		t.Errorf("a new threshold of three decimals: %v", err)
	}
}
