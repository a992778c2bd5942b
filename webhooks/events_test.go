package webhooks

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/finledger/finledger/domain"
)

func TestPublicEvents(t *testing.T) {
	for _, c := range []struct {
		typ, data string
		want      string
	}{
		{domain.TypeTransactionCreated, `{"transactionId":"0195f3a2-0000-7000-8000-000000000003","type":"expense","amount":"1","postings":[{"walletId":"0195f3a2-0000-7000-8000-000000000004"}]}`, "[transaction.created]"},
		{domain.TypeTransactionCreated, `{"transactionId":"0195f3a2-0000-7000-8000-000000000003","type":"goal_deposit","goalId":"0195f3a2-0000-7000-8000-000000000002"}`, "[transaction.created goal.deposit]"},
		{domain.TypeTransactionCreated, `{"transactionId":"0195f3a2-0000-7000-8000-000000000003","type":"goal_withdrawal","goalId":"0195f3a2-0000-7000-8000-000000000002"}`, "[transaction.created goal.withdrawal]"},
		{domain.TypeTransactionCreated, `{"transactionId":"0195f3a2-0000-7000-8000-000000000003","type":"expense","debtId":"0195f3a2-0000-7000-8000-000000000001","effects":{"debts":[{"debtId":"0195f3a2-0000-7000-8000-000000000001","amount":"-1"}]}}`, "[transaction.created debt.payment]"},
		{domain.TypeTransactionUpdated, `{"transactionId":"0195f3a2-0000-7000-8000-000000000003","changes":{},"postings":[]}`, "[transaction.updated]"},
		{domain.TypeTransactionDeleted, `{"transactionId":"0195f3a2-0000-7000-8000-000000000003","postings":[]}`, "[transaction.deleted]"},
		{domain.TypeWalletCreated, `{"walletId":"0195f3a2-0000-7000-8000-000000000005"}`, "[wallet.created]"},
		{domain.TypeWalletUpdated, `{"walletId":"0195f3a2-0000-7000-8000-000000000005"}`, "[wallet.updated]"},
		{domain.TypeWalletArchived, `{"walletId":"0195f3a2-0000-7000-8000-000000000005"}`, "[wallet.updated]"},
		{domain.TypeCategoryCreated, `{"categoryId":"0195f3a2-0000-7000-8000-000000000005"}`, "[category.created]"},
		{domain.TypeBudgetCreated, `{"budgetId":"0195f3a2-0000-7000-8000-000000000005"}`, "[budget.created]"},
		{domain.TypeRecurringPaid, `{"recurringId":"0195f3a2-0000-7000-8000-000000000005"}`, "[recurring.paid]"},
		{domain.TypeRecurringSkipped, `{"recurringId":"0195f3a2-0000-7000-8000-000000000005","firstDue":"2024-03-12","lastDue":"2025-12-16","cycles":93}`, "[recurring.skipped]"},
		{domain.TypeCategoryUpdated, `{"categoryId":"0195f3a2-0000-7000-8000-000000000005"}`, "[]"},
		{domain.TypeMemberAdded, `{"userId":"0195f3a2-0000-7000-8000-000000000005"}`, "[]"},
		{domain.TypeAPIKeyCreated, `{"keyId":"0195f3a2-0000-7000-8000-000000000005","hash":"secret"}`, "[]"},
		{domain.TypeWebhookCreated, `{"webhookId":"0195f3a2-0000-7000-8000-000000000005","sealedSecret":"x"}`, "[]"},
	} {
		got, err := PublicEvents(c.typ, []byte(c.data))
		if err != nil {
			t.Fatalf("%s: %v", c.typ, err)
		}
		names := make([]string, len(got))
		for i, p := range got {
			names[i] = p.Name
			if p.Version != 1 {
				t.Errorf("%s: %s has version %d", c.typ, p.Name, p.Version)
			}
			if strings.Contains(string(p.Data), "postings") || strings.Contains(string(p.Data), "effects") {
				t.Errorf("%s: data keeps the postings or effects: %s", c.typ, p.Data)
			}
		}
		if fmt.Sprint(names) != c.want {
			t.Errorf("%s: %v, want %s", c.typ, names, c.want)
		}
	}
	if _, err := PublicEvents(domain.TypeTransactionCreated, []byte(`not json`)); err == nil {
		t.Error("a broken payload was accepted")
	}
}

// A budget alert is told as the budget, shaped as the budgets API shows it, with the
// period that reached its threshold and the transaction that took it there.
func TestPublicBudgetAlert(t *testing.T) {
	stored := `{"budgetId":"0195f3a2-0000-7000-8000-000000000001","transactionId":"0195f3a2-0000-7000-8000-000000000003",
		"periodStart":"2026-03-01","periodEnd":"2026-03-31","spent":"85.5","percentage":"85.5",
		"budget":{"name":"Groceries","categoryId":"0195f3a2-0000-7000-8000-000000000002","amount":"100","currency":"MXN",
			"period":"monthly","startDate":"2026-01-01","endDate":"2026-12-31","alertThreshold":"80","tagId":null}}`
	got, err := PublicEvents(domain.TypeBudgetThresholdReached, []byte(stored))
	if err != nil || len(got) != 1 || got[0].Name != domain.HookBudgetThresholdReached {
		t.Fatalf("%v (%v)", got, err)
	}
	want := `{"budget":{"id":"0195f3a2-0000-7000-8000-000000000001","name":"Groceries","categoryId":"0195f3a2-0000-7000-8000-000000000002",` +
		`"amount":100,"currency":"MXN","period":"monthly","startDate":"2026-01-01","endDate":"2026-12-31","alertThreshold":80,` +
		`"tagId":null,"active":true,"periodStart":"2026-03-01","periodEnd":"2026-03-31","spent":85.5,"remaining":14.5,` +
		`"percentage":85.5,"alertReached":true},"transactionId":"0195f3a2-0000-7000-8000-000000000003"}`
	if string(got[0].Data) != want {
		t.Fatalf("data\n%s\nwant\n%s", got[0].Data, want)
	}
}

// A stored type publicOf names in no case is kept from subscribers until it takes a
// side; Classify tells it apart (internal/eventcontract runs every type through it).
func TestAnUnclassifiedTypeIsKeptFromSubscribers(t *testing.T) {
	if got, err := PublicEvents("nobody.knows.v1", []byte(`{}`)); len(got) != 0 || err != nil {
		t.Errorf("an unknown type: %v, %v", got, err)
	}
	if err := Classify("nobody.knows.v1", []byte(`{}`)); !errors.Is(err, domain.ErrUnknownEvent) {
		t.Errorf("Classify of an unknown type: %v", err)
	}
	if err := Classify(domain.TypeTagCreated, []byte(`{}`)); err != nil {
		t.Errorf("Classify of a type kept from subscribers: %v", err)
	}
}
