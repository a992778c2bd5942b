package domain

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/uuid"
)

var household = uuid.MustParse("00000000-0000-0000-0000-0000000000f2")

func splitWorkspace(t *testing.T, more ...Event) *Workspace {
	t.Helper()
	events := append(workspace(), &CategoryCreated{CategoryID: household, CategoryFields: CategoryFields{Name: "Household", Icon: "tag",
		Color: "#6366f1"}})
	return given(t, append(events, more...)...)
}

func part(amount string, category *uuid.UUID) SplitPart {
	return SplitPart{Amount: dec(amount), CategoryID: category}
}

func TestSplitTransactionsAreChecked(t *testing.T) {
	w := splitWorkspace(t)
	other := uuid.New()
	id := uuid.New()
	cases := []struct {
		name   string
		cmd    CreateTransaction
		code   string
		detail string // in the message
	}{
		{"no parts", CreateTransaction{Amount: dec("10"), Splits: []SplitPart{}}, "VALIDATION_ERROR", "at least two parts"},
		{"one part", CreateTransaction{Amount: dec("10"), Splits: []SplitPart{part("10", &food)}}, "VALIDATION_ERROR", "at least two parts"},
		{"parts short of the amount", CreateTransaction{Amount: dec("100.00"), Splits: []SplitPart{part("60.00", &food), part("39.99", &household)}},
			"VALIDATION_ERROR", "add up to 99.99 MXN, 0.01 less than the amount 100.00"},
		{"parts over the amount", CreateTransaction{Amount: dec("100"), Splits: []SplitPart{part("60", &food), part("41", &household)}},
			"VALIDATION_ERROR", "1 more than"},
		{"a part in another currency", CreateTransaction{Amount: dec("10"), Splits: []SplitPart{
			{Amount: dec("5"), Currency: "USD", CategoryID: &food}, part("5", &household)}}, "VALIDATION_ERROR", "USD"},
		{"a part of a category not in the workspace", CreateTransaction{Amount: dec("10"), Splits: []SplitPart{part("5", &other), part("5", &food)}},
			"CATEGORY_NOT_FOUND", "part 0"},
		{"a part of zero", CreateTransaction{Amount: dec("10"), Splits: []SplitPart{part("0", &food), part("10", &household)}},
			"VALIDATION_ERROR", "greater than 0"},
		{"a transfer", CreateTransaction{Type: TxTransfer, Amount: dec("10"), ToWalletID: &bank, Splits: []SplitPart{part("5", &food), part("5", &household)}},
			"VALIDATION_ERROR", "not a transfer"},
		{"a category of its own beside the parts", CreateTransaction{Amount: dec("10"), CategoryID: &food,
			Splits: []SplitPart{part("5", &food), part("5", &household)}}, "VALIDATION_ERROR", "each part has its own category"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.cmd.TransactionID, c.cmd.Today = id, issued
			_, err := c.cmd.Decide(w)
			if code(err) != c.code || !strings.Contains(err.Error(), c.detail) {
				t.Fatalf("got %v (%s), want %s naming %q", err, code(err), c.code, c.detail)
			}
		})
	}
}

func TestSplitExpenseCountsEachPartTowardsItsBudget(t *testing.T) {
	budgetID := uuid.New()
	w := splitWorkspace(t, &BudgetCreated{BudgetID: budgetID, BudgetFields: BudgetFields{Name: "Household", CategoryID: household,
		Amount: dec("100"), Currency: "MXN", Period: PeriodMonthly, StartDate: MustParseDate("2026-01-01"),
		EndDate: MustParseDate("2026-12-31"), AlertThreshold: dec("80")}})
	id := uuid.New()
	cmd := CreateTransaction{TransactionID: id, Amount: dec("130.50"), Date: MustParseDate("2026-03-04"), Today: issued,
		Splits: []SplitPart{part("40.25", &food), part("85.00", &household), part("5.25", nil)}}
	events, err := cmd.Decide(w)
	if err != nil {
		t.Fatal(err)
	}
	created := events[0].(*TransactionCreated)
	if created.CategoryID != nil || len(created.Splits) != 3 || created.Splits[1].Currency != "MXN" {
		t.Fatalf("created %+v", created)
	}
	events, err = w.WithBudgetAlerts(events)
	if err != nil {
		t.Fatal(err)
	}
	if len(events) != 2 {
		t.Fatalf("want the transaction and the household budget's alert, got %d events", len(events))
	}
	if alert := events[1].(*BudgetThresholdReached); !alert.Spent.Equal(dec("85")) || alert.BudgetID != budgetID {
		t.Fatalf("alert %+v: want 85 spent of the household budget, the household part alone", alert)
	}
	then(t, w, events)
	march := func(category uuid.UUID) string {
		return w.Spending.between(category, "MXN", MustParseDate("2026-03-01"), MustParseDate("2026-03-31")).String()
	}
	if march(food) != "40.25" || march(household) != "85" {
		t.Fatalf("spending: food %s, household %s", march(food), march(household))
	}

	// A correction of the amount alone leaves the parts short: refused, naming by how much.
	_, err = UpdateTransaction{TransactionID: id, Amount: Of(dec("140.50"))}.Decide(w)
	if code(err) != "VALIDATION_ERROR" || !strings.Contains(err.Error(), "10.00 less") {
		t.Fatalf("amount alone: %v", err)
	}
	// A category alone is refused: the parts have theirs.
	if _, err = (UpdateTransaction{TransactionID: id, CategoryID: Of(food)}).Decide(w); code(err) != "VALIDATION_ERROR" {
		t.Fatalf("category alone: %v", err)
	}
	// With its parts, the new amount is taken; the parts move the spending.
	events, err = UpdateTransaction{TransactionID: id, Amount: Of(dec("140.50")),
		Splits: Of([]SplitPart{part("50.50", &food), part("90.00", &household)})}.Decide(w)
	if err != nil {
		t.Fatal(err)
	}
	then(t, w, events)
	if march(food) != "50.5" || march(household) != "90" {
		t.Fatalf("after the correction: food %s, household %s", march(food), march(household))
	}
	// Recategorising it with others is refused whole.
	plain := uuid.New()
	more, err := CreateTransaction{TransactionID: plain, Amount: dec("3"), Today: issued}.Decide(w)
	if err != nil {
		t.Fatal(err)
	}
	then(t, w, more)
	_, err = BulkTransactions{IDs: []uuid.UUID{plain, id}, Operation: BulkRecategorize, CategoryID: &travel}.Decide(w)
	if code(err) != "TRANSACTION_SPLIT" {
		t.Fatalf("bulk recategorize: %v", err)
	}
	// null makes it one category again: the whole amount counts there.
	events, err = UpdateTransaction{TransactionID: id, Splits: Null[[]SplitPart](), CategoryID: Of(household)}.Decide(w)
	if err != nil {
		t.Fatal(err)
	}
	then(t, w, events)
	if march(food) != "0" || march(household) != "140.5" || w.Transactions[id].Splits != nil {
		t.Fatalf("unsplit: food %s, household %s, parts %v", march(food), march(household), w.Transactions[id].Splits)
	}
}

func TestSplitMovedToAnotherCurrencyCarriesItsParts(t *testing.T) {
	w := splitWorkspace(t)
	id := uuid.New()
	events, err := CreateTransaction{TransactionID: id, Amount: dec("10"), Today: issued,
		Splits: []SplitPart{part("4", &food), part("6", &household)}}.Decide(w)
	if err != nil {
		t.Fatal(err)
	}
	then(t, w, events)
	events, err = UpdateTransaction{TransactionID: id, WalletID: Of(usd)}.Decide(w)
	if err != nil {
		t.Fatal(err)
	}
	changes := events[0].(*TransactionUpdated).Changes
	if !changes.Splits.Valid || changes.Splits.Value[0].Currency != "USD" || changes.Splits.Value[1].Currency != "USD" {
		t.Fatalf("the parts of a transaction moved to a USD wallet: %+v", changes.Splits)
	}
}

func TestSplitPartKeepsItsScaleInJSON(t *testing.T) {
	b, err := json.Marshal(SplitPart{Amount: dec("12.50"), Currency: "MXN"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"amount":"12.50"`) {
		t.Fatalf("%s", b)
	}
	var back SplitPart
	if err := json.Unmarshal(b, &back); err != nil || back.Amount.String() != "12.5" || back.Amount.Exponent() != -2 {
		t.Fatalf("%+v %v", back, err)
	}
}

func TestSplitByPercentIsExactInEveryCurrency(t *testing.T) {
	thirds := []RuleSplit{{Percent: dec("33.33")}, {Percent: dec("33.33")}, {Percent: dec("33.34")}}
	for _, c := range []struct{ amount, currency, want string }{
		{"100", "MXN", "33.33 33.33 33.34"},
		{"1000", "JPY", "333 333 334"},
		{"10.000", "KWD", "3.333 3.333 3.334"},
		{"10.5", "USD", "3.49 3.49 3.52"},
		{"0.02", "MXN", ""}, // a part would come to nothing
	} {
		parts := SplitByPercent(dec(c.amount), c.currency, thirds)
		var got []string
		sum := dec("0")
		for _, p := range parts {
			got = append(got, ExactString(p.Amount))
			sum = sum.Add(p.Amount)
			if p.Currency != c.currency {
				t.Errorf("%s %s: a part in %s", c.amount, c.currency, p.Currency)
			}
		}
		if strings.Join(got, " ") != c.want || (parts != nil && !sum.Equal(dec(c.amount))) {
			t.Errorf("%s %s in thirds: %v, want %s", c.amount, c.currency, got, c.want)
		}
	}
}
