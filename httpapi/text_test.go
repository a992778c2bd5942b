package httpapi_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/finledger/finledger/httpapi/session"
	"github.com/finledger/finledger/internal/testkit/apitest"
)

// Every text field a person writes follows one rule (domain.Text): a name of
// zero-width or other invisible format characters is refused as a name of spaces is,
// bidirectional controls and stray control characters are refused anywhere, and a
// blank concept is refused wherever a concept is required. Nothing is written.
func TestInvisibleAndBidiTextIsRefused(t *testing.T) {
	env := apitest.Start(t)
	alice := env.As("alice")
	alice.Post("/api/wallets", map[string]any{"name": "Cash", "isDefault": true}).Expect(t, http.StatusOK)
	category := alice.Post("/api/categories", map[string]any{"name": "Food"}).Expect(t, http.StatusOK).Object("category")["id"].(string)
	goal := alice.Post("/api/goals", map[string]any{"name": "Trip", "targetAmount": 100}).Expect(t, http.StatusOK).Object("goal")["id"].(string)
	key := alice.Post("/api/api-keys", map[string]any{"name": "books", "scopes": []string{"*"}}).Expect(t, http.StatusOK).JSON["plaintext"].(string)
	machine := env.Anonymous().With("x-api-key", key)
	phone := linkPhone(t, env, alice, alicePhone, nil)
	budget := func(name string) string {
		return `{"name":"` + name + `","categoryId":"` + category + `","amount":1,"startDate":"2026-03-01","endDate":"2026-12-31"}`
	}
	const invisible = "invisible characters"

	cases := []struct {
		name   string
		client *apitest.Client
		method string
		path   string
		body   string
		field  string
		says   string
	}{
		// Names of invisible characters alone, on every kind of record.
		{"wallet of a zero-width space", alice, "POST", "/api/wallets", `{"name":"\u200b"}`, "name", invisible},
		{"category of joiners", alice, "POST", "/api/categories", `{"name":"\u200d\u200c"}`, "name", invisible},
		{"renamed to a BOM", alice, "PATCH", "/api/categories/" + category, `{"name":"\ufeff"}`, "name", invisible},
		{"tag of a word joiner", alice, "POST", "/api/tags", `{"name":"\u2060 "}`, "name", invisible},
		{"budget of format characters", alice, "POST", "/api/budgets", budget(`\u200b\u2060\ufeff`), "name", invisible},
		{"goal of a soft hyphen", alice, "POST", "/api/goals", `{"name":"\u00ad","targetAmount":1}`, "name", invisible},
		{"debt of a zero-width space", alice, "POST", "/api/debts", `{"name":" \u200b ","totalAmount":1}`, "name", invisible},
		{"recurring payment of joiners", alice, "POST", "/api/recurrent",
			`{"name":"\u200d","amount":1,"kind":"expense","periodicity":"monthly","nextPayment":"2026-04-01"}`, "name", invisible},
		{"workspace of a zero-width space", alice, "POST", "/api/workspaces", `{"name":"\u200b"}`, "name", invisible},
		{"webhook of a BOM", alice, "POST", "/api/webhooks/outbound", `{"name":"\ufeff","url":"https://example.com/hook"}`, "name", invisible},
		{"API key of a word joiner", alice, "POST", "/api/api-keys", `{"name":"\u2060","scopes":["*"]}`, "name", invisible},
		{"category icon of a zero-width space", alice, "POST", "/api/categories", `{"name":"Rent","icon":"\u200b"}`, "icon", invisible},

		// Bidirectional overrides, embeddings, isolates and marks.
		{"wallet with an override", alice, "POST", "/api/wallets", `{"name":"Bank\u202efdp.exe"}`, "name", "U+202E"},
		{"category with an isolate", alice, "POST", "/api/categories", `{"name":"a\u2066b\u2069"}`, "name", "U+2066"},
		{"tag with an embedding", alice, "POST", "/api/tags", `{"name":"x\u202ay"}`, "name", "U+202A"},
		{"budget with a mark", alice, "POST", "/api/budgets", budget(`Food\u200f`), "name", "U+200F"},
		{"goal with a mark", alice, "PATCH", "/api/goals/" + goal, `{"name":"\u200eTrip"}`, "name", "U+200E"},
		{"workspace with an override", alice, "POST", "/api/workspaces", `{"name":"Team\u202d"}`, "name", "U+202D"},
		{"webhook with an isolate", alice, "POST", "/api/webhooks/outbound", `{"name":"\u2067hook","url":"https://example.com/hook"}`, "name", "U+2067"},
		{"API key with an override", alice, "POST", "/api/api-keys", `{"name":"\u202ebooks","scopes":["*"]}`, "name", "U+202E"},
		{"concept with an override", alice, "POST", "/api/transactions", `{"type":"expense","amount":1,"concept":"\u202etxt.exe"}`, "concept", "U+202E"},
		{"description with an isolate", alice, "POST", "/api/transactions", `{"type":"expense","amount":1,"description":"a\n\u2068b"}`, "description", "U+2068"},
		{"reference with a mark", alice, "POST", "/api/transactions", `{"type":"expense","amount":1,"referenceNumber":"\u200f1"}`, "referenceNumber", "U+200F"},
		{"attachment with an override", alice, "POST", "/api/transactions",
			`{"type":"expense","amount":1,"attachmentUrl":"https://files.example.com/\u202efdp.exe"}`, "attachmentUrl", "U+202E"},
		{"goal note with an override", alice, "POST", "/api/goals/" + goal + "/deposit", `{"amount":1,"walletId":"00000000-0000-4000-8000-000000000000","note":"\u202e"}`, "note", "U+202E"},
		{"creditor with an override", alice, "POST", "/api/debts", `{"name":"Loan","totalAmount":1,"creditor":"\u202eBank"}`, "creditor", "U+202E"},
		{"first name with an override", alice, "PATCH", "/api/me", `{"firstName":"\u202eAlice"}`, "firstName", "U+202E"},
		{"wallet description with an isolate", alice, "POST", "/api/wallets", `{"name":"Card","description":"\u2066"}`, "description", "U+2066"},
		{"incoming concept with an override", machine, "POST", "/api/webhooks/incoming", `{"amount":"1","concept":"\u202eabc"}`, "concept", "U+202E"},
		{"channel concept with an override", phone, "POST", "/api/whatsapp/transactions", `{"type":"expense","amount":1,"concept":"\u202eabc"}`, "concept", "U+202E"},

		// Control characters, and line breaks in single-line fields.
		{"wallet with an escape sequence", alice, "POST", "/api/wallets", `{"name":"Cash\u001b[31m"}`, "name", "U+001B"},
		{"concept on two lines", alice, "POST", "/api/transactions", `{"type":"expense","amount":1,"concept":"a\nb"}`, "concept", "single line"},
		{"hidden tag characters", alice, "POST", "/api/categories", `{"name":"Food\udb40\udc41"}`, "name", "U+E0041"},

		// A concept of blanks where a concept is required, and names to look up.
		{"incoming concept of spaces", machine, "POST", "/api/webhooks/incoming", `{"amount":"12.50","concept":"   "}`, "concept", "other than spaces"},
		{"incoming concept of a zero-width space", machine, "POST", "/api/webhooks/incoming", `{"amount":12.5,"concept":"\u200b"}`, "concept", invisible},
		{"incoming wallet name of spaces", machine, "POST", "/api/webhooks/incoming", `{"amount":1,"concept":"x","walletName":"  "}`, "walletName", "other than spaces"},
		{"channel wallet name of spaces", phone, "POST", "/api/whatsapp/transactions", `{"type":"expense","amount":1,"walletName":"  "}`, "walletName", "other than spaces"},
		{"channel category name of a BOM", phone, "PATCH", "/api/whatsapp/last-transaction", `{"categoryName":"\ufeff"}`, "categoryName", invisible},
		{"channel workspace name of spaces", phone, "PUT", "/api/whatsapp/workspace", `{"name":" "}`, "name", "other than spaces"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := writes(t, env)
			expectFieldError(t, c.client.Do(c.method, c.path, c.body), c.field, c.says)
			if after := writes(t, env); after != before {
				t.Fatalf("%d rows written by a refused request", after-before)
			}
		})
	}

	// Real text in any script passes as written, emoji sequences and joiners included;
	// invisible characters around it go.
	for _, name := range []string{"👨\u200d👩\u200d👧 Family", "مصاريف البيت", "קניות", "می\u200cخواهم", "Trip 🏴\U000E0067\U000E0062\U000E0065\U000E006E\U000E0067\U000E007F"} {
		got := alice.Post("/api/categories", map[string]any{"name": name}).Expect(t, http.StatusOK).Object("category")["name"]
		if got != name {
			t.Errorf("category %q kept as %q", name, got)
		}
	}
	wallet := alice.Post("/api/wallets", map[string]any{"name": "\u200b Gold\ufeff"}).Expect(t, http.StatusOK).Object("wallet")
	if wallet["name"] != "Gold" {
		t.Fatalf("name kept as %q", wallet["name"])
	}
	tx := alice.Post("/api/transactions", map[string]any{"type": "expense", "amount": 1, "concept": " \u200bTacos ",
		"description": "first line\nsecond line\t(tab)"}).Expect(t, http.StatusCreated).Object("transaction")
	if tx["concept"] != "Tacos" || tx["description"] != "first line\nsecond line\t(tab)" {
		t.Fatalf("transaction %v", tx)
	}
	// A name that looks like another, bar an invisible character, is that name.
	expectError(t, alice.Post("/api/wallets", map[string]any{"name": "Ca\u200bsh"}), http.StatusConflict, "CONFLICT")
}

// What the service cannot refuse it makes fit by the same rule: the name the identity
// provider gives and the User-Agent kept in the audit log lose bidirectional controls,
// control characters and invisible edges.
func TestIdentityNameAndUserAgentAreMadeFit(t *testing.T) {
	env := apitest.Start(t)
	token, err := session.MintHS256(apitest.Secret, session.Claims{Subject: "alice", Email: "alice@example.com", Name: "\u200b\u202eecilA\u202c "},
		env.Clock.Now(), time.Hour, "")
	if err != nil {
		t.Fatal(err)
	}
	alice := env.Anonymous().With("Authorization", "Bearer "+token).With("User-Agent", "books\u202e-sync/2\u2066")
	if name := alice.Get("/api/me").Expect(t, http.StatusOK).Object("user")["name"]; name != "ecilA" {
		t.Fatalf("name %q", name)
	}
	alice.Post("/api/categories", map[string]any{"name": "Food"}).Expect(t, http.StatusOK)
	entries := alice.Get("/api/audit?entity=category").Expect(t, http.StatusOK).List("entries")
	if len(entries) != 1 || entries[0]["userAgent"] != "books-sync/2" {
		t.Fatalf("audit entries %v", entries)
	}
}
