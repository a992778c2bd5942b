package domain

import (
	"testing"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
)

func TestRuleConditions(t *testing.T) {
	wallet := uuid.New()
	subject := RuleSubject{Payee: "CAFÉ Olé 1234", Concept: "coffee", Memo: "card 9876", Amount: decimal.RequireFromString("-45.50"),
		WalletID: wallet, Type: TxExpense}
	for _, c := range []struct {
		cond RuleCondition
		want bool
	}{
		{RuleCondition{Field: RuleFieldPayee, Op: RuleOpContains, Value: "cafe ole"}, true},
		{RuleCondition{Field: RuleFieldPayee, Op: RuleOpStartsWith, Value: "Café"}, true},
		{RuleCondition{Field: RuleFieldPayee, Op: RuleOpEquals, Value: "café olé"}, false},
		{RuleCondition{Field: RuleFieldPayee, Op: RuleOpMatches, Value: `^caf.\s+ol.\s+\d{4}$`}, true},
		{RuleCondition{Field: RuleFieldConcept, Op: RuleOpEquals, Value: "COFFEE"}, true},
		{RuleCondition{Field: RuleFieldMemo, Op: RuleOpContains, Value: "9876"}, true},
		{RuleCondition{Field: RuleFieldAmount, Op: RuleOpEquals, Value: "45.5"}, true},
		{RuleCondition{Field: RuleFieldAmount, Op: RuleOpBetween, Value: "45.51", ValueTo: "50"}, false},
		{RuleCondition{Field: RuleFieldAmount, Op: RuleOpBetween, Value: "40", ValueTo: "45.50"}, true},
		{RuleCondition{Field: RuleFieldWallet, Op: RuleOpEquals, Value: wallet.String()}, true},
		{RuleCondition{Field: RuleFieldType, Op: RuleOpEquals, Value: "income"}, false},
	} {
		if problem := c.cond.check(); problem != "" {
			t.Fatalf("%+v: %s", c.cond, problem)
		}
		if got := (RuleDefinition{Conditions: []RuleCondition{c.cond}}).Matches(subject); got != c.want {
			t.Errorf("%+v matches %v, want %v", c.cond, got, c.want)
		}
	}
	if (RuleDefinition{}).Matches(subject) {
		t.Error("a rule without conditions matches")
	}
}

// A rule placed where another stands moves it, and those after it that would meet it,
// one place down.
func TestRulePositionsStayAnOrder(t *testing.T) {
	w := NewWorkspace(uuid.New())
	rule := func(name string, position int) uuid.UUID {
		id := uuid.New()
		events, err := CreateRule{RuleID: id, Rule: RuleDefinition{Name: name, Position: position,
			Conditions: []RuleCondition{{Field: RuleFieldPayee, Op: RuleOpContains, Value: name}}, Actions: RuleActions{Skip: true}}}.Decide(w)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range events {
			if err := w.Apply(e); err != nil {
				t.Fatal(err)
			}
		}
		return id
	}
	a, b, c := rule("a", 0), rule("b", 0), rule("c", 5)
	d := rule("d", 1)
	want := map[uuid.UUID]int{d: 1, a: 2, b: 3, c: 5}
	for id, p := range want {
		if w.Rules[id].Position != p {
			t.Errorf("%s at %d, want %d", w.Rules[id].Name, w.Rules[id].Position, p)
		}
	}
}
