package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/eventstore"
	"github.com/finledger/finledger/internal/testkit/apitest"
	"github.com/finledger/finledger/projections"
)

// alertEvent is a budget.threshold_reached.v1 as the log holds it.
type alertEvent struct {
	ID, Version   string
	BudgetID      string `json:"budgetId"`
	TransactionID string `json:"transactionId"`
	PeriodStart   string `json:"periodStart"`
	Spent         string `json:"spent"`
}

// alertEvents reads a workspace's budget alerts from its stream, oldest first, with the
// type of the event before each.
func alertEvents(t *testing.T, env *apitest.Env, workspace string) (alerts []alertEvent, before []string) {
	t.Helper()
	rows, err := env.Pool.Query(context.Background(), `SELECT e.event_id::text, e.version::text, e.data::text, p.type FROM events e
		JOIN events p ON p.stream_id = e.stream_id AND p.version = e.version - 1
		WHERE e.stream_id = $1 AND e.type = 'budget.threshold_reached.v1' ORDER BY e.version`, "workspace-"+workspace)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var a alertEvent
		var data, prev string
		if err := rows.Scan(&a.ID, &a.Version, &data, &prev); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(data), &a); err != nil {
			t.Fatal(err)
		}
		alerts, before = append(alerts, a), append(before, prev)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return alerts, before
}

// A budget alert is an event of the history, appended with the expense that takes the
// budget to its threshold: it is audited, delivered to webhooks from the log like any
// other event, decided by every command that moves spending, and replay and verify
// reproduce what it made.
func TestBudgetAlertIsInTheHistory(t *testing.T) {
	env, ev := apitest.StartEvents(t, nil)
	env.Clock.Set(time.Date(2026, 3, 10, 18, 0, 0, 0, time.UTC))
	ev.Run()
	alice := env.As("alice")
	workspace := alice.Get("/api/me").Expect(t, http.StatusOK).Object("workspace")["id"].(string)
	cashWallet(t, alice)
	food := alice.Post("/api/categories", map[string]any{"name": "Food"}).Expect(t, http.StatusOK).Object("category")["id"].(string)
	other := alice.Post("/api/categories", map[string]any{"name": "Other"}).Expect(t, http.StatusOK).Object("category")["id"].(string)
	budget := alice.Post("/api/budgets", map[string]any{"name": "Groceries", "categoryId": food, "amount": 100, "alertThreshold": 80,
		"startDate": "2026-01-01", "endDate": "2026-12-31"}).Expect(t, http.StatusOK).Object("budget")["id"].(string)
	rc := newReceiver(t)
	hook := rc.subscribe(alice, "budget.threshold_reached", "transaction.created")
	spend := func(amount float64, category string) string {
		t.Helper()
		return alice.Post("/api/transactions", map[string]any{"type": "expense", "amount": amount, "categoryId": category}).
			Expect(t, http.StatusCreated).Object("transaction")["id"].(string)
	}

	spend(50, food)
	reached := spend(35, food)
	alerts, before := alertEvents(t, env, workspace)
	if len(alerts) != 1 || before[0] != "transaction.created.v1" || alerts[0].BudgetID != budget || alerts[0].TransactionID != reached ||
		alerts[0].PeriodStart != "2026-03-01" || alerts[0].Spent != "85" {
		t.Fatalf("alerts %+v after %v", alerts, before)
	}
	alert := alerts[0]

	// The audit log shows it as an update of the budget by whoever recorded the expense.
	entries := alice.Get("/api/audit?entity=budget&action=update").Expect(t, http.StatusOK).List("entries")
	if len(entries) != 1 || entries[0]["entityId"] != budget || entries[0]["actorType"] != "user" {
		t.Fatalf("audit entries %v", entries)
	}
	changes, _ := json.Marshal(entries[0]["changes"])
	want := `{"alertReached":{"after":true,"before":false},"alertThreshold":{"after":"80","before":null},` +
		`"percentage":{"after":"85.00","before":null},"periodEnd":{"after":"2026-03-31","before":null},` +
		`"periodStart":{"after":"2026-03-01","before":null},"spent":{"after":"85","before":null},` +
		`"transactionId":{"after":"` + reached + `","before":null}}`
	if string(changes) != want {
		t.Fatalf("audit changes\n%s\nwant\n%s", changes, want)
	}

	// Webhooks get it from the log: the delivery names the alert's event.
	waitFor(t, "the alert's delivery", 10*time.Second, func() bool { return len(firstOf(t, rc.receipts(), "budget.threshold_reached")) == 1 })
	delivered := firstOf(t, rc.receipts(), "budget.threshold_reached")[0]
	data := delivered.Body["data"].(map[string]any)
	if data["transactionId"] != reached || fmt.Sprint(data["budget"].(map[string]any)["spent"]) != "85" {
		t.Fatalf("delivery %s", delivered.Raw)
	}
	var eventIDs []string
	for _, d := range alice.Get("/api/webhooks/outbound/"+hook+"/deliveries").Expect(t, http.StatusOK).List("deliveries") {
		if d["event"] == "budget.threshold_reached" {
			eventIDs = append(eventIDs, d["eventId"].(string))
		}
	}
	if !slices.Equal(eventIDs, []string{alert.ID}) {
		t.Fatalf("alert deliveries of events %v, want %s", eventIDs, alert.ID)
	}

	// Down below the threshold and up again: the period has alerted already.
	alice.With("Idempotency-Key", "lower").Patch("/api/transactions/"+reached, map[string]any{"amount": 5}).Expect(t, http.StatusOK)
	spend(40, food)
	// A bulk recategorization into the category alerts like an expense, in its period.
	env.Clock.Set(time.Date(2026, 4, 10, 18, 0, 0, 0, time.UTC))
	moved := []string{spend(60, other), spend(30, other)}
	bulk := alice.Post("/api/transactions/bulk", map[string]any{"ids": moved, "operation": "recategorize", "categoryId": food}).
		Expect(t, http.StatusOK)
	if fmt.Sprint(bulk.JSON["affected"]) != "2" {
		t.Fatalf("bulk %s", bulk.Raw)
	}
	// A recurring payment paid now is an expense like the others.
	env.Clock.Set(time.Date(2026, 5, 10, 18, 0, 0, 0, time.UTC))
	rent := alice.Post("/api/recurrent", map[string]any{"name": "Market", "amount": 95, "kind": "expense", "periodicity": "monthly",
		"nextPayment": "2026-05-10", "categoryId": food}).Expect(t, http.StatusOK).Object("recurring")["id"].(string)
	paid := alice.Post("/api/recurrent/"+rent+"/pay", nil).Expect(t, http.StatusOK).List("transactions")[0]["id"].(string)

	alerts, before = alertEvents(t, env, workspace)
	var got []string
	for i, a := range alerts {
		got = append(got, a.PeriodStart+" "+a.TransactionID+" "+a.Spent+" after "+before[i])
	}
	wantAlerts := []string{"2026-03-01 " + reached + " 85 after transaction.created.v1",
		"2026-04-01 " + moved[1] + " 90 after transaction.updated.v1",
		"2026-05-01 " + paid + " 95 after recurring.paid.v1"}
	if !slices.Equal(got, wantAlerts) {
		t.Fatalf("alerts\n%v\nwant\n%v", got, wantAlerts)
	}

	// Replay and verify reproduce the read models, the audit entries of the alerts
	// included, and invent no alert.
	replayReproduces(t, env)
	if again, _ := alertEvents(t, env, workspace); len(again) != 3 {
		t.Fatalf("%d alerts after replay", len(again))
	}
	if n := len(alice.Get("/api/audit?entity=budget&action=update").Expect(t, http.StatusOK).List("entries")); n != 3 {
		t.Fatalf("%d budget alerts audited after replay", n)
	}
}

// History stored before budget alerts were events holds none: replay and verify invent
// none, and a workspace folded from it has alerted in no period, so the next expense
// that raises an over-threshold period's spending alerts there.
func TestHistoryWithoutBudgetAlertsReplays(t *testing.T) {
	ctx := context.Background()
	env := apitest.Start(t)
	env.Clock.Set(time.Date(2026, 3, 10, 18, 0, 0, 0, time.UTC))
	f := newLedger(t, env, "alice")
	workspace := f.c.Get("/api/me").Expect(t, http.StatusOK).Object("workspace")["id"].(string)
	budget := f.c.Post("/api/budgets", map[string]any{"name": "Groceries", "categoryId": f.food, "amount": 100,
		"startDate": "2026-01-01", "endDate": "2026-12-31"}).Expect(t, http.StatusOK).Object("budget")["id"].(string)

	// An expense over the threshold as an older build stored it: without an alert.
	stream := "workspace-" + workspace
	head, err := eventstore.Version(ctx, env.Pool, stream, false)
	if err != nil {
		t.Fatal(err)
	}
	tx := uuid.Must(uuid.NewV7())
	data, err := json.Marshal(domain.TransactionCreated{TransactionID: tx, Type: domain.TxExpense, Amount: decimal.NewFromInt(90),
		Currency: "MXN", Date: domain.MustParseDate("2026-03-09"), WalletID: uuid.MustParse(f.cash), CategoryID: ptr(uuid.MustParse(f.food)),
		Postings: []domain.Posting{{WalletID: uuid.MustParse(f.cash), Amount: decimal.NewFromInt(-90)}}, Effects: &domain.Effects{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := eventstore.Append(ctx, env.Pool, stream, head, []eventstore.Event{{ID: uuid.Must(uuid.NewV7()),
		Type: domain.TypeTransactionCreated, Data: data, Metadata: json.RawMessage(`{"actorType":"user","actorId":"old"}`)}},
		env.Clock.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := projections.Rebuild(ctx, env.Pool); err != nil {
		t.Fatal(err)
	}
	replayAgrees(t, env.Pool)
	if b := f.c.Get("/api/budgets/"+budget).Expect(t, http.StatusOK).Object("budget"); num(b["spent"]) != "90" || b["alertReached"] != true {
		t.Fatalf("budget %v", b)
	}
	if alerts, _ := alertEvents(t, env, workspace); len(alerts) != 0 {
		t.Fatalf("alerts invented: %+v", alerts)
	}
	if n := len(f.c.Get("/api/audit?entity=budget&action=update").Expect(t, http.StatusOK).List("entries")); n != 0 {
		t.Fatalf("%d budget alerts audited", n)
	}

	// A new instance folds the stream: the period never alerted, so the next expense
	// that raises its spending alerts.
	other := f.c.On(env.Instance())
	next := other.Post("/api/transactions", map[string]any{"type": "expense", "amount": 1, "categoryId": f.food}).
		Expect(t, http.StatusCreated).Object("transaction")["id"].(string)
	if alerts, _ := alertEvents(t, env, workspace); len(alerts) != 1 || alerts[0].TransactionID != next || alerts[0].Spent != "91" {
		t.Fatalf("alerts %+v", alerts)
	}
}

func ptr[T any](v T) *T { return &v }

// The chat channel's budget warning is there whenever the expense leaves the category's
// budget exceeded (spec 4.B), in the period holding the expense's date; reaching the
// alert threshold alone is told by the alert event, not by the warning.
func TestChannelBudgetWarningWhenTheExpenseExceedsTheBudget(t *testing.T) {
	env := apitest.Start(t)
	env.Clock.Set(time.Date(2026, 3, 11, 3, 0, 0, 0, time.UTC)) // 10 March in Mexico City
	f := newLedger(t, env, "alice")
	f.c.Post("/api/budgets", map[string]any{"name": "Food", "categoryId": f.food, "amount": 100, "startDate": "2026-01-01", "endDate": "2026-12-31"}).
		Expect(t, http.StatusOK)
	phone := linkPhone(t, env, f.c, alicePhone, nil)
	warning := func(amount float64, date string) any {
		t.Helper()
		body := map[string]any{"type": "expense", "amount": amount, "categoryName": "food"}
		if date != "" {
			body["date"] = date
		}
		return phone.Post("/api/whatsapp/transactions", body).Expect(t, http.StatusCreated).Object("resolved")["budgetWarning"]
	}
	if w := warning(85, ""); w != nil {
		t.Fatalf("a warning below the budget: %v", w)
	}
	if w := warning(30, ""); w != "budget Food exceeded: 115.00 of 100.00 MXN spent from 2026-03-01 to 2026-03-31" {
		t.Fatalf("warning %v", w)
	}
	if w := warning(5, ""); w != "budget Food exceeded: 120.00 of 100.00 MXN spent from 2026-03-01 to 2026-03-31" {
		t.Fatalf("warning of a second expense over the budget %v", w)
	}
	if w := warning(120, "2026-02-20"); w != "budget Food exceeded: 120.00 of 100.00 MXN spent from 2026-02-01 to 2026-02-28" {
		t.Fatalf("warning of February %v", w)
	}
	// The alert events stay once per budget and period: March (at 85) and February.
	var alerts int
	if err := env.Pool.QueryRow(t.Context(), `SELECT count(*) FROM events WHERE type = $1`, domain.TypeBudgetThresholdReached).Scan(&alerts); err != nil || alerts != 2 {
		t.Fatalf("%d alert events, %v; want 2", alerts, err)
	}
}
