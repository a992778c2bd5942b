package httpapi_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/finledger/finledger/internal/testkit/apitest"
)

// writes counts what a request may leave behind: events (and with them every read
// model and audit entry), idempotency records and push subscriptions.
func writes(t *testing.T, env *apitest.Env) int64 {
	t.Helper()
	var n int64
	err := env.Pool.QueryRow(context.Background(), `SELECT (SELECT count(*) FROM events) + (SELECT count(*) FROM idempotency_keys) +
		(SELECT count(*) FROM push_subscriptions)`).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// fieldMessage returns the message a validation error gives for a field.
func fieldMessage(r *apitest.Response, field string) string {
	details, _ := r.Object("error")["details"].([]any)
	for _, d := range details {
		if m, _ := d.(map[string]any); m["field"] == field {
			msg, _ := m["message"].(string)
			return msg
		}
	}
	return ""
}

// expectFieldError checks that an answer is a validation error naming field with a
// message that says says.
func expectFieldError(t *testing.T, r *apitest.Response, field, says string) {
	t.Helper()
	if fields := fieldErrors(t, r); !slices.Contains(fields, field) {
		t.Fatalf("fields %q, want %q: %s", fields, field, r.Raw)
	}
	if msg := fieldMessage(r, field); !strings.Contains(msg, says) {
		t.Fatalf("%s: %q, want it to say %q", field, msg, says)
	}
}

// Whatever cannot be stored (U+0000, a date PostgreSQL or Go cannot keep), and whatever
// breaks the contract (a key given twice, a currency that is not one, a name of spaces,
// a rate out of range, a chat token's claims of the wrong type), is refused with the
// error envelope naming the field, and nothing is written: never a 500.
func TestBadInputsAreRefusedAndWriteNothing(t *testing.T) {
	env := apitest.Start(t)
	alice := env.As("alice")
	alice.Post("/api/wallets", map[string]any{"name": "Cash", "isDefault": true}).Expect(t, http.StatusOK)
	goal := alice.Post("/api/goals", map[string]any{"name": "Trip", "targetAmount": 100}).Expect(t, http.StatusOK).Object("goal")["id"].(string)
	category := alice.Post("/api/categories", map[string]any{"name": "Food"}).Expect(t, http.StatusOK).Object("category")["id"].(string)
	key := alice.Post("/api/api-keys", map[string]any{"name": "books", "scopes": []string{"*"}}).Expect(t, http.StatusOK).JSON["plaintext"].(string)
	machine := env.Anonymous().With("x-api-key", key)
	phone := linkPhone(t, env, alice, alicePhone, nil)
	now := env.Clock.Now().Unix()
	claims := func(mod func(map[string]any)) *apitest.Client { return env.Phone(alicePhone, mod) }
	push := map[string]any{"endpoint": "https://push.example.com/send/1", "keys": pushKeys(t)}
	p256dh := push["keys"].(map[string]any)["p256dh"]

	cases := []struct {
		name   string
		client *apitest.Client
		method string
		path   string
		body   any    // a string is sent as is
		status int    // 400 unless set
		field  string // the field a 400 names
		says   string // what the message for the field says
		reason string // the details.reason a 401 of the chat channel gives
	}{
		// U+0000 anywhere a string comes in.
		{name: "NUL in a name", client: alice, method: "POST", path: "/api/wallets", body: `{"name":"Ca\u0000sh"}`, field: "name", says: "NUL"},
		{name: "NUL in a key", client: alice, method: "POST", path: "/api/wallets", body: `{"name":"Bank","na\u0000me":"x"}`, field: `na\u0000me`, says: "NUL"},
		{name: "NUL in an unknown field", client: alice, method: "POST", path: "/api/wallets", body: `{"name":"Bank","note":"\u0000"}`, field: "note", says: "NUL"},
		{name: "NUL in a list", client: alice, method: "POST", path: "/api/webhooks/outbound",
			body: `{"name":"hook","url":"https://example.com/hook","events":["transaction.created","\u0000"]}`, field: "events[1]", says: "NUL"},
		{name: "NUL in a nested object", client: alice, method: "POST", path: "/api/push/subscribe",
			body: `{"endpoint":"https://push.example.com/send/1","keys":{"p256dh":"` + p256dh.(string) + `","auth":"\u0000"}}`, field: "keys.auth", says: "NUL"},
		{name: "NUL in a list of objects", client: alice, method: "PUT", path: "/api/exchange-rates",
			body: `{"rates":[{"base":"USD","quote":"MXN","rate":17},{"base":"US\u0000","quote":"MXN","rate":17}]}`, field: "rates[1].base", says: "NUL"},
		{name: "NUL in a transaction's concept", client: alice, method: "POST", path: "/api/transactions",
			body: `{"type":"expense","amount":1,"concept":"tacos\u0000"}`, field: "concept", says: "NUL"},
		{name: "NUL in a goal deposit's note", client: alice, method: "POST", path: "/api/goals/" + goal + "/deposit",
			body: `{"amount":1,"walletId":"00000000-0000-4000-8000-000000000000","note":"\u0000"}`, field: "note", says: "NUL"},
		{name: "NUL in the incoming webhook", client: machine, method: "POST", path: "/api/webhooks/incoming",
			body: `{"amount":"12.50","concept":"\u0000"}`, field: "concept", says: "NUL"},
		{name: "NUL in a chat-channel body", client: phone, method: "POST", path: "/api/whatsapp/transactions",
			body: `{"type":"expense","amount":1,"concept":"\u0000"}`, field: "concept", says: "NUL"},
		{name: "NUL in a search", client: alice, method: "GET", path: "/api/transactions?search=ta%00cos", field: "search", says: "NUL"},
		{name: "NUL in the audit's entity", client: alice, method: "GET", path: "/api/audit?entity=%00", field: "entity", says: "NUL"},
		{name: "NUL in a category parameter", client: alice, method: "GET", path: "/api/reports/spending-summary?category=%00", field: "category", says: "NUL"},
		{name: "NUL in an ignored parameter", client: alice, method: "GET", path: "/api/wallets?x=%00", field: "x", says: "NUL"},
		{name: "NUL in the chat channel's query", client: phone, method: "GET", path: "/api/transactions?q=%00", field: "q", says: "NUL"},
		{name: "not UTF-8 in a parameter", client: alice, method: "GET", path: "/api/transactions?q=%ff", field: "q", says: "UTF-8"},
		{name: "NUL in a path parameter", client: alice, method: "GET", path: "/api/wallets/%00", field: "id", says: "UUID"},
		{name: "not UTF-8 in X-Workspace-Id", client: alice.With("X-Workspace-Id", "\xff"), method: "GET", path: "/api/wallets", field: "X-Workspace-Id", says: "UUID"},
		{name: "not ASCII in Idempotency-Key", client: alice.With("Idempotency-Key", "ключ"), method: "POST", path: "/api/wallets",
			body: `{"name":"Bank"}`, field: "Idempotency-Key", says: "printable ASCII"},

		// Dates outside the ledger's calendar, 1900-01-01 to 2099-12-31: those PostgreSQL
		// cannot store (year 0) or Go cannot answer (beyond 9999), and the nonsense between.
		{name: "year 0", client: alice, method: "POST", path: "/api/transactions", body: `{"type":"expense","amount":1,"date":"0000-01-01"}`, field: "date", says: "1900-01-01 to 2099-12-31"},
		{name: "year 1", client: alice, method: "POST", path: "/api/transactions", body: `{"type":"expense","amount":1,"date":"0001-01-01"}`, field: "date", says: "1900-01-01 to 2099-12-31"},
		{name: "the day before the calendar", client: alice, method: "POST", path: "/api/transactions", body: `{"type":"expense","amount":1,"date":"1899-12-31"}`, field: "date", says: "1900-01-01 to 2099-12-31"},
		{name: "year 0 deadline", client: alice, method: "POST", path: "/api/goals", body: `{"name":"Old","targetAmount":1,"deadline":"0000-12-31"}`, field: "deadline", says: "1900-01-01 to 2099-12-31"},
		{name: "year 0 in the channel", client: phone, method: "POST", path: "/api/whatsapp/transactions",
			body: `{"type":"expense","amount":1,"date":"0000-01-01"}`, field: "date", says: "1900-01-01 to 2099-12-31"},
		{name: "year 10000", client: alice, method: "POST", path: "/api/debts", body: `{"name":"Loan","totalAmount":1,"dueDate":"10000-01-01"}`, field: "dueDate", says: "1900-01-01 to 2099-12-31"},
		{name: "year 9999 due date", client: alice, method: "POST", path: "/api/debts", body: `{"name":"Loan","totalAmount":1,"dueDate":"9999-12-31"}`, field: "dueDate", says: "1900-01-01 to 2099-12-31"},
		{name: "the day after the calendar", client: alice, method: "POST", path: "/api/budgets",
			body: `{"name":"B","categoryId":"` + category + `","amount":1,"startDate":"2026-01-01","endDate":"2100-01-01"}`, field: "endDate", says: "1900-01-01 to 2099-12-31"},
		{name: "a recurring payment in year 1", client: alice, method: "POST", path: "/api/recurrent",
			body: `{"name":"Gym","amount":25,"kind":"expense","periodicity":"weekly","nextPayment":"0001-01-01"}`, field: "nextPayment", says: "1900-01-01 to 2099-12-31"},
		{name: "a recurring payment moved to year 9999", client: alice, method: "PATCH", path: "/api/recurrent/" + uuid.NewString(),
			body: `{"nextPayment":"9999-06-30"}`, field: "nextPayment", says: "1900-01-01 to 2099-12-31"},
		{name: "a payment's day", client: alice, method: "POST", path: "/api/goals/" + goal + "/deposit",
			body: `{"amount":1,"walletId":"00000000-0000-4000-8000-000000000000","date":"1000-01-01"}`, field: "date", says: "1900-01-01 to 2099-12-31"},
		{name: "rates of year 1", client: alice, method: "PUT", path: "/api/exchange-rates",
			body: `{"date":"0001-01-01","rates":[{"base":"USD","quote":"MXN","rate":17}]}`, field: "date", says: "1900-01-01 to 2099-12-31"},
		{name: "the incoming webhook's date", client: machine, method: "POST", path: "/api/webhooks/incoming",
			body: `{"amount":"12.50","concept":"tacos","date":"9999-01-01"}`, field: "date", says: "1900-01-01 to 2099-12-31"},
		{name: "date-time beyond 9999 in UTC", client: alice, method: "POST", path: "/api/api-keys",
			body: `{"name":"late","scopes":["*"],"expiresAt":"9999-12-31T23:59:59-23:00"}`, field: "expiresAt", says: "1900-01-01 to 2099-12-31 in UTC"},
		{name: "date-time past the calendar in UTC", client: alice, method: "POST", path: "/api/api-keys",
			body: `{"name":"late","scopes":["*"],"expiresAt":"2099-12-31T23:00:00-05:00"}`, field: "expiresAt", says: "1900-01-01 to 2099-12-31 in UTC"},
		{name: "date-time before year 1 in UTC", client: alice, method: "GET", path: "/api/audit?from=" + url.QueryEscape("0001-01-01T00:00:00+01:00"), field: "from", says: "1900-01-01 to 2099-12-31 in UTC"},
		{name: "asOf in year 1", client: alice, method: "GET", path: "/api/wallets?asOf=0001-01-01T00:00:00Z", field: "asOf", says: "1900-01-01 to 2099-12-31 in UTC"},
		{name: "year 0 filter", client: alice, method: "GET", path: "/api/transactions?from=0000-01-01", field: "from", says: "1900-01-01 to 2099-12-31"},
		{name: "year 9999 filter", client: alice, method: "GET", path: "/api/transactions?to=9999-12-31", field: "to", says: "1900-01-01 to 2099-12-31"},
		{name: "a report of year 1", client: alice, method: "GET", path: "/api/reports?from=0001-01-01", field: "from", says: "1900-01-01 to 2099-12-31"},
		{name: "a summary of year 1", client: alice, method: "GET", path: "/api/reports/spending-summary?from=0001-01-01&to=0001-12-31", field: "from", says: "1900-01-01 to 2099-12-31"},
		{name: "year 0 month", client: alice, method: "GET", path: "/api/reports/monthly-summary?month=0000-12", field: "month", says: "1900-01 to 2099-12"},
		{name: "month of year 1", client: alice, method: "GET", path: "/api/reports/monthly-summary?month=0001-01", field: "month", says: "1900-01 to 2099-12"},
		{name: "month of year 9999", client: alice, method: "GET", path: "/api/reports/monthly-summary?month=9999-12", field: "month", says: "1900-01 to 2099-12"},
		{name: "year 0 rates day", client: alice, method: "GET", path: "/api/exchange-rates?date=0000-01-01", field: "date", says: "1900-01-01 to 2099-12-31"},
		{name: "changes since year 1", client: alice, method: "GET", path: "/api/changes/diff?from=0001-01-01T00:00:00Z", field: "from", says: "1900-01-01 to 2099-12-31 in UTC"},

		// A key given twice, at any depth.
		{name: "duplicate key", client: alice, method: "POST", path: "/api/wallets", body: `{"name":"a","name":"b"}`, field: "name", says: "more than once"},
		{name: "duplicate key in another spelling", client: alice, method: "POST", path: "/api/wallets", body: `{"name":"a","n\u0061me":"b"}`, field: "name", says: "more than once"},
		{name: "duplicate key in a nested object", client: alice, method: "POST", path: "/api/push/subscribe",
			body: `{"endpoint":"https://push.example.com/send/1","keys":{"p256dh":"` + p256dh.(string) + `","auth":"a","auth":"b"}}`, field: "keys.auth", says: "more than once"},
		{name: "duplicate key in a list of objects", client: alice, method: "PUT", path: "/api/exchange-rates",
			body: `{"rates":[{"base":"USD","quote":"MXN","rate":17,"rate":18}]}`, field: "rates[0].rate", says: "more than once"},
		{name: "duplicate key in the channel", client: phone, method: "POST", path: "/api/whatsapp/transactions",
			body: `{"type":"expense","amount":1,"amount":2}`, field: "amount", says: "more than once"},

		// Currencies are ISO 4217 codes in use, wherever one is named.
		{name: "made-up currency", client: alice, method: "POST", path: "/api/wallets", body: `{"name":"Z","currency":"ZZZ"}`, field: "currency", says: "ISO 4217"},
		{name: "test currency", client: alice, method: "POST", path: "/api/wallets", body: `{"name":"T","currency":"XTS"}`, field: "currency", says: "ISO 4217"},
		{name: "withdrawn currency", client: alice, method: "POST", path: "/api/goals", body: `{"name":"G","targetAmount":1,"currency":"HRK"}`, field: "currency", says: "ISO 4217"},
		{name: "budget currency", client: alice, method: "POST", path: "/api/budgets",
			body: `{"name":"B","categoryId":"` + category + `","amount":1,"currency":"ABC","startDate":"2026-03-01","endDate":"2026-12-31"}`, field: "currency", says: "ISO 4217"},
		{name: "debt currency", client: alice, method: "POST", path: "/api/debts", body: `{"name":"D","totalAmount":1,"currency":"XXX"}`, field: "currency", says: "ISO 4217"},
		{name: "rate currency", client: alice, method: "PUT", path: "/api/exchange-rates", body: `{"rates":[{"base":"ZZZ","quote":"MXN","rate":1}]}`, field: "rates[0].base", says: "ISO 4217"},
		{name: "workspace currency", client: alice, method: "POST", path: "/api/workspaces", body: `{"name":"Team","currency":"ZZZ"}`, field: "currency", says: "ISO 4217"},
		{name: "profile currency", client: alice, method: "PATCH", path: "/api/me", body: `{"currency":"zzz"}`, field: "currency", says: "ISO 4217"},
		{name: "channel currency", client: phone, method: "POST", path: "/api/whatsapp/transactions",
			body: `{"type":"expense","amount":1,"currency":"ZZZ"}`, field: "currency", says: "ISO 4217"},

		// Names hold more than spaces.
		{name: "wallet of spaces", client: alice, method: "POST", path: "/api/wallets", body: `{"name":"   "}`, field: "name", says: "other than spaces"},
		{name: "category of spaces", client: alice, method: "POST", path: "/api/categories", body: `{"name":" \t "}`, field: "name", says: "other than spaces"},
		{name: "renamed to spaces", client: alice, method: "PATCH", path: "/api/categories/" + category, body: `{"name":"  "}`, field: "name", says: "other than spaces"},
		{name: "tag of spaces", client: alice, method: "POST", path: "/api/tags", body: `{"name":" "}`, field: "name", says: "other than spaces"},
		{name: "budget of spaces", client: alice, method: "POST", path: "/api/budgets",
			body: `{"name":" ","categoryId":"` + category + `","amount":1,"startDate":"2026-03-01","endDate":"2026-12-31"}`, field: "name", says: "other than spaces"},
		{name: "goal of spaces", client: alice, method: "POST", path: "/api/goals", body: `{"name":" ","targetAmount":1}`, field: "name", says: "other than spaces"},
		{name: "debt of spaces", client: alice, method: "POST", path: "/api/debts", body: `{"name":" ","totalAmount":1}`, field: "name", says: "other than spaces"},
		{name: "recurring of spaces", client: alice, method: "POST", path: "/api/recurrent",
			body: `{"name":" ","amount":1,"kind":"expense","periodicity":"monthly","nextPayment":"2026-04-01"}`, field: "name", says: "other than spaces"},
		{name: "workspace of spaces", client: alice, method: "POST", path: "/api/workspaces", body: `{"name":"\u00a0 "}`, field: "name", says: "other than spaces"},
		{name: "API key of spaces", client: alice, method: "POST", path: "/api/api-keys", body: `{"name":"  ","scopes":["*"]}`, field: "name", says: "other than spaces"},
		{name: "webhook of spaces", client: alice, method: "POST", path: "/api/webhooks/outbound", body: `{"name":" ","url":"https://example.com/hook"}`, field: "name", says: "other than spaces"},
		{name: "name too long once trimmed", client: alice, method: "POST", path: "/api/wallets", body: `{"name":" ` + strings.Repeat("x", 51) + ` "}`, field: "name", says: "1 to 50"},

		// Numbers within what the columns and the rules allow.
		{name: "rate 1e400", client: alice, method: "PUT", path: "/api/exchange-rates", body: `{"rates":[{"base":"USD","quote":"MXN","rate":1e400}]}`, field: "rates[0].rate", says: "10^15"},
		{name: "rate beyond the decimal type", client: alice, method: "PUT", path: "/api/exchange-rates", body: `{"rates":[{"base":"USD","quote":"MXN","rate":1e99999}]}`, field: "rates[0].rate", says: "out of range"},
		{name: "rate of 13 decimals", client: alice, method: "PUT", path: "/api/exchange-rates", body: `{"rates":[{"base":"USD","quote":"MXN","rate":0.0000000000001}]}`, field: "rates[0].rate", says: "12 decimal places"},
		{name: "amount 1e400", client: alice, method: "POST", path: "/api/transactions", body: `{"type":"expense","amount":1e400}`, field: "amount", says: "10^15"},
		{name: "amount 1e-5", client: alice, method: "POST", path: "/api/transactions", body: `{"type":"expense","amount":1e-5}`, field: "amount", says: "4 decimal places"},
		{name: "amount beyond the decimal type", client: alice, method: "POST", path: "/api/wallets", body: `{"name":"Big","balance":1e-99999}`, field: "balance", says: "out of range"},

		// The chat channel's claims: iat and exp are JSON numbers; labels hold no NUL.
		{name: "iat as a string", client: claims(func(c map[string]any) { c["iat"] = fmt.Sprint(now) }), method: "GET", path: "/api/wallets", status: 401, reason: "claims"},
		{name: "exp as a string", client: claims(func(c map[string]any) { c["exp"] = fmt.Sprint(now + 120) }), method: "GET", path: "/api/wallets", status: 401, reason: "claims"},
		{name: "agentId with NUL", client: claims(func(c map[string]any) { c["agentId"] = "agent\x00" }), method: "GET", path: "/api/wallets", status: 401, reason: "claims"},
		{name: "threadId with NUL", client: claims(func(c map[string]any) { c["threadId"] = "\x00" }), method: "GET", path: "/api/wallets", status: 401, reason: "claims"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := writes(t, env)
			r := c.client.Do(c.method, c.path, c.body)
			switch {
			case c.status == http.StatusUnauthorized:
				if got := reason(t, r); got != c.reason {
					t.Fatalf("reason %q, want %q", got, c.reason)
				}
			default:
				expectFieldError(t, r, c.field, c.says)
			}
			if after := writes(t, env); after != before {
				t.Fatalf("%d rows written by a refused request", after-before)
			}
		})
	}

	// The same rules let good input through.
	wallet := alice.Post("/api/wallets", map[string]any{"name": "  Gold  ", "currency": "xau"}).Expect(t, http.StatusOK).Object("wallet")
	if wallet["name"] != "Gold" || wallet["currency"] != "XAU" {
		t.Fatalf("trimmed name and upper-cased currency: %v", wallet)
	}
	tx := alice.Post("/api/transactions", map[string]any{"type": "expense", "amount": 1.5e1, "date": "1900-01-01"}).Expect(t, http.StatusCreated).Object("transaction")
	if num(tx["amount"]) != "15" || tx["date"] != "1900-01-01" {
		t.Fatalf("exponent amount, first day of the calendar: %v", tx)
	}
	alice.Post("/api/transactions", map[string]any{"type": "expense", "amount": 1, "date": "2099-12-31"}).Expect(t, http.StatusCreated)
	alice.Get("/api/transactions?from=1900-01-01&to=2099-12-31").Expect(t, http.StatusOK)
	alice.Get("/api/reports/monthly-summary?month=1900-01").Expect(t, http.StatusOK)
	alice.Do("PUT", "/api/exchange-rates", `{"rates":[{"base":"USD","quote":"VES","rate":999999999999999.999999999999}]}`).Expect(t, http.StatusOK)
	alice.Post("/api/api-keys", map[string]any{"name": "late", "scopes": []string{"*"}, "expiresAt": "2099-12-31T23:59:59Z"}).Expect(t, http.StatusOK)
	alice.Post("/api/push/subscribe", push).Expect(t, http.StatusOK)

	// A recurring payment cannot move past the calendar's last day.
	far := alice.Post("/api/recurrent", map[string]any{"name": "Far", "amount": 1, "kind": "expense", "periodicity": "yearly",
		"nextPayment": "2099-06-30"}).Expect(t, http.StatusOK).Object("recurring")["id"].(string)
	before := writes(t, env)
	expectError(t, alice.Post("/api/recurrent/"+far+"/pay", nil), http.StatusConflict, "CONFLICT")
	if writes(t, env) != before {
		t.Fatal("a refused payment wrote")
	}

	// A UUID is case-insensitive: a jti in capitals is accepted, and is the same jti as
	// its lower case.
	jti := uuid.NewString()
	claims(func(c map[string]any) { c["jti"] = strings.ToUpper(jti) }).Get("/api/wallets").Expect(t, http.StatusOK)
	if got := reason(t, claims(func(c map[string]any) { c["jti"] = jti }).Get("/api/wallets")); got != "reused" {
		t.Fatalf("the lower case of a spent upper-case jti: %q", got)
	}
	jti = uuid.NewString()
	claims(func(c map[string]any) { c["jti"] = jti }).Get("/api/wallets").Expect(t, http.StatusOK)
	if got := reason(t, claims(func(c map[string]any) { c["jti"] = strings.ToUpper(jti) }).Get("/api/wallets")); got != "reused" {
		t.Fatalf("the upper case of a spent jti: %q", got)
	}
}

// Headers that are stored are made storable or refused, never a 500: a User-Agent that
// is not UTF-8 is kept without its stray bytes, a request id that is not sane is replaced,
// and a header holding NUL never reaches the API (Go's server answers 400 itself).
func TestStoredHeaders(t *testing.T) {
	env := apitest.Start(t)
	alice := env.As("alice")
	r := alice.With("User-Agent", "books\xff\xfe-sync/2").With("X-Request-Id", "trace\xff").
		Post("/api/categories", map[string]any{"name": "Food"}).Expect(t, http.StatusOK)
	if id := r.Header.Get("X-Request-Id"); !strings.HasPrefix(id, "req_") {
		t.Fatalf("an insane request id was echoed: %q", id)
	}
	entries := alice.Get("/api/audit?entity=category").Expect(t, http.StatusOK).List("entries")
	if len(entries) != 1 || entries[0]["userAgent"] != "books-sync/2" {
		t.Fatalf("audit entries %v", entries)
	}

	u, err := url.Parse(env.URL)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /api/categories HTTP/1.1\r\nHost: %s\r\nAuthorization: %s\r\nUser-Agent: a\x00b\r\nContent-Length: 15\r\n\r\n{\"name\":\"Rent\"}",
		u.Host, alice.Headers["Authorization"])
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusBadRequest {
		t.Fatalf("a User-Agent holding NUL: %d", res.StatusCode)
	}
}
