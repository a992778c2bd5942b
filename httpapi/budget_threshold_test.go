package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/finledger/finledger/internal/testkit/apitest"
)

// alertThreshold is a percentage with at most two decimal places, on create and update;
// beyond, 400 naming the field, and nothing written.
func TestAlertThresholdHasAtMostTwoDecimals(t *testing.T) {
	env := apitest.Start(t)
	f := newLedger(t, env, "alice")
	body := func(threshold any) map[string]any {
		return map[string]any{"name": "Food", "categoryId": f.food, "amount": 100, "startDate": "2026-03-01", "endDate": "2026-12-31",
			"alertThreshold": threshold}
	}
	refused := func(r *apitest.Response) {
		t.Helper()
		expectFieldError(t, r, "alertThreshold", "2 decimal places")
	}
	before := writes(t, env)
	refused(f.c.Do("POST", "/api/budgets", `{"name":"Food","categoryId":"`+f.food+`","amount":100,"startDate":"2026-03-01","endDate":"2026-12-31","alertThreshold":80.125}`))
	refused(f.c.Do("POST", "/api/budgets", `{"name":"Food","categoryId":"`+f.food+`","amount":100,"startDate":"2026-03-01","endDate":"2026-12-31","alertThreshold":50.0000000000000000001}`))
	if writes(t, env) != before {
		t.Fatal("a refused budget wrote")
	}
	budget := f.c.Post("/api/budgets", body(87.55)).Expect(t, http.StatusOK).Object("budget")
	if num(budget["alertThreshold"]) != "87.55" {
		t.Fatalf("threshold %v", budget["alertThreshold"])
	}
	refused(f.c.Do("PATCH", "/api/budgets/"+budget["id"].(string), `{"alertThreshold":33.333}`))
	f.c.Patch("/api/budgets/"+budget["id"].(string), map[string]any{"alertThreshold": 33.33}).Expect(t, http.StatusOK)
}
