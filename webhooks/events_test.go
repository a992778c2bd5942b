package webhooks

import (
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
		{domain.TypeWalletCreated, `{"walletId":"w"}`, "[wallet.created]"},
		{domain.TypeWalletUpdated, `{"walletId":"w"}`, "[wallet.updated]"},
		{domain.TypeWalletArchived, `{"walletId":"w"}`, "[wallet.updated]"},
		{domain.TypeCategoryCreated, `{"categoryId":"c"}`, "[category.created]"},
		{domain.TypeBudgetCreated, `{"budgetId":"b"}`, "[budget.created]"},
		{domain.TypeRecurringPaid, `{"recurringId":"r"}`, "[recurring.paid]"},
		{domain.TypeRecurringSkipped, `{"recurringId":"r","firstDue":"2024-03-12","lastDue":"2025-12-16","cycles":93}`, "[recurring.skipped]"},
		{domain.TypeCategoryUpdated, `{"categoryId":"c"}`, "[]"},
		{domain.TypeMemberAdded, `{"userId":"u"}`, "[]"},
		{domain.TypeAPIKeyCreated, `{"keyId":"k","hash":"secret"}`, "[]"},
		{domain.TypeWebhookCreated, `{"webhookId":"h","sealedSecret":"x"}`, "[]"},
	} {
		got, err := PublicEvents(c.typ, []byte(c.data))
		if err != nil {
			t.Fatalf("%s: %v", c.typ, err)
		}
		names := make([]string, len(got))
		for i, p := range got {
			names[i] = p.Name
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

// Every event type is either told to subscribers, or kept from them as listed here
// (access, keys, the chat channel's links, webhooks themselves, and changes of records
// no public event describes): a new type must take a side.
func TestEveryEventTypeIsPublicOrKept(t *testing.T) {
	kept := map[string]bool{}
	for _, name := range strings.Fields(`api_key.created.v1 api_key.revoked.v1 budget.deleted.v1 budget.updated.v1
		category.archived.v1 category.updated.v1 debt.created.v1 debt.deleted.v1 debt.updated.v1 exchange_rates.set.v1
		goal.created.v1 goal.deleted.v1 goal.updated.v1 member.added.v1 member.invitation_cancelled.v1 member.invited.v1 member.removed.v1
		member.role_changed.v1 recurring.created.v1 recurring.deleted.v1 recurring.updated.v1 tag.archived.v1 tag.created.v1 tag.updated.v1 user.deleted.v1
		user.identity_changed.v1 user.profile_updated.v1 user.registered.v1 webhook.created.v1 webhook.deleted.v1
		webhook.secret_rotated.v1 webhook.updated.v1 whatsapp.fingerprint_recorded.v1 whatsapp.link_suspended.v1
		whatsapp.linked.v1 whatsapp.unlinked.v1 whatsapp.workspace_changed.v1 workspace.created.v1 workspace.deleted.v1
		workspace.language_changed.v1`) {
		kept[name] = true
	}
	for _, name := range domain.EventTypes() {
		got, err := PublicEvents(name, []byte(`{}`))
		if err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if public := len(got) > 0; public == kept[name] {
			t.Errorf("%s: public %v, but kept from subscribers %v", name, public, kept[name])
		}
	}
}
