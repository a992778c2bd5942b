package httpapi_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/finledger/finledger/httpapi"
	"github.com/finledger/finledger/httpapi/channel"
	"github.com/finledger/finledger/internal/testkit/apitest"
)

const alicePhone = "+5215512345678"

// linkPhone links a phone to the client's user through a settings code.
func linkPhone(t *testing.T, env *apitest.Env, owner *apitest.Client, phone string, mod func(map[string]any)) *apitest.Client {
	t.Helper()
	code := owner.Post("/api/me/whatsapp", nil).Expect(t, http.StatusOK).JSON["code"].(string)
	p := env.Phone(phone, mod)
	r := p.Post("/api/whatsapp/link", map[string]any{"code": code}).Expect(t, http.StatusOK)
	if r.JSON["linked"] != true {
		t.Fatalf("link %s", r.Raw)
	}
	return p
}

func reason(t *testing.T, r *apitest.Response) string {
	t.Helper()
	e := expectError(t, r, http.StatusUnauthorized, "WHATSAPP_IDENTITY_INVALID")
	d, _ := e["details"].(map[string]any)
	s, _ := d["reason"].(string)
	return s
}

func TestChannelIdentityReasons(t *testing.T) {
	env := apitest.Start(t)
	alice := env.As("alice")
	alice.Post("/api/wallets", map[string]any{"name": "Cash"}).Expect(t, http.StatusOK)
	linkPhone(t, env, alice, alicePhone, nil)
	raw := func(token string) *apitest.Client {
		return env.Anonymous().With("X-Channel-Identity", token)
	}
	signed := func(mod func(map[string]any)) string {
		return channel.Mint(apitest.ChannelSecret, env.ChannelClaims(alicePhone, mod))
	}
	now := env.Clock.Now().Unix()
	header := func(h string, claims map[string]any) string {
		body, _ := json.Marshal(claims)
		return h + "." + b64url(body) + "."
	}
	cases := []struct {
		name   string
		client *apitest.Client
		want   string
	}{
		{"missing", env.Anonymous(), "missing"},
		{"missing on a channel route with a session", alice, "missing"},
		{"mixed with a session", raw(signed(nil)).With("Authorization", alice.Headers["Authorization"]), "mixed_credentials"},
		{"mixed with an API key", raw(signed(nil)).With("x-api-key", "fl_live_x"), "mixed_credentials"},
		{"malformed: not a JWT", raw("nonsense"), "malformed"},
		{"malformed: typ", raw(mintWithHeader(`{"alg":"HS256","typ":"JWS"}`, env.ChannelClaims(alicePhone, nil))), "malformed"},
		{"signature: alg none", raw(header(b64url([]byte(`{"alg":"none","typ":"JWT"}`)), env.ChannelClaims(alicePhone, nil))), "signature"},
		{"signature: wrong secret", raw(channel.Mint(strings.Repeat("a", 64), env.ChannelClaims(alicePhone, nil))), "signature"},
		{"sub: pattern", raw(signed(func(c map[string]any) { c["sub"] = "wa:+0123" })), "sub"},
		{"sub: missing", raw(signed(func(c map[string]any) { delete(c, "sub") })), "sub"},
		{"jti: not v4", raw(signed(func(c map[string]any) { c["jti"] = uuid.Must(uuid.NewV7()).String() })), "jti"},
		{"jti: missing", raw(signed(func(c map[string]any) { delete(c, "jti") })), "jti"},
		{"claims: iss", raw(signed(func(c map[string]any) { c["iss"] = "someone-else" })), "claims"},
		{"claims: aud", raw(signed(func(c map[string]any) { c["aud"] = "https://evil.example" })), "claims"},
		{"claims: agentId", raw(signed(func(c map[string]any) { delete(c, "agentId") })), "claims"},
		{"claims: identityKeyHash", raw(signed(func(c map[string]any) { c["identityKeyHash"] = "has spaces" })), "claims"},
		{"lifetime", raw(signed(func(c map[string]any) { c["exp"] = now + 300 })), "lifetime"},
		{"expired", raw(signed(func(c map[string]any) { c["iat"], c["exp"] = now-160, now-40 })), "expired"},
		{"iat in the future", raw(signed(func(c map[string]any) { c["iat"], c["exp"] = now+60, now+180 })), "iat"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := reason(t, c.client.Post("/api/whatsapp/transactions", map[string]any{"type": "expense", "amount": 1})); got != c.want {
				t.Fatalf("reason %q, want %q", got, c.want)
			}
		})
	}
	// Within the tolerances a token passes: iat 25 s ahead, exp passed by 25 s.
	for _, mod := range []func(map[string]any){
		func(c map[string]any) { c["iat"], c["exp"] = now+25, now+145 },
		func(c map[string]any) { c["iat"], c["exp"] = now-145, now-25 },
	} {
		raw(signed(mod)).Get("/api/wallets").Expect(t, http.StatusOK)
	}
	// A jti is spent once, across instances sharing the database.
	second := env.Instance()
	token := signed(nil)
	raw(token).Get("/api/wallets").Expect(t, http.StatusOK)
	if got := reason(t, raw(token).On(second).Get("/api/wallets")); got != "reused" {
		t.Fatalf("replayed jti on another instance: %q", got)
	}
	if got := reason(t, raw(token).Get("/api/wallets")); got != "reused" {
		t.Fatalf("replayed jti: %q", got)
	}
	// A refused token does not spend its jti: fixed, it works.
	jti := uuid.NewString()
	reason(t, raw(signed(func(c map[string]any) { c["jti"], c["aud"] = jti, "x" })).Get("/api/wallets"))
	raw(signed(func(c map[string]any) { c["jti"] = jti })).Get("/api/wallets").Expect(t, http.StatusOK)

	// Not configured: 503 for every channel request.
	off := apitest.StartWith(t, httpapi.Options{})
	expectError(t, off.Phone(alicePhone, nil).Get("/api/wallets"), http.StatusServiceUnavailable, "WHATSAPP_NOT_CONFIGURED")
}

func b64url(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// mintWithHeader signs claims under a header of the test's choosing.
func mintWithHeader(header string, claims map[string]any) string {
	body, _ := json.Marshal(claims)
	signing := b64url([]byte(header)) + "." + b64url(body)
	mac := hmac.New(sha256.New, []byte(apitest.ChannelSecret))
	mac.Write([]byte(signing))
	return signing + "." + b64url(mac.Sum(nil))
}

func TestChannelLinks(t *testing.T) {
	env := apitest.Start(t)
	alice := env.As("alice")
	alice.Post("/api/wallets", map[string]any{"name": "Cash"}).Expect(t, http.StatusOK)
	phone := env.Phone(alicePhone, nil)
	e := expectError(t, phone.Get("/api/wallets"), http.StatusUnauthorized, "WHATSAPP_NOT_LINKED")
	if !strings.Contains(e["message"].(string), "Settings") {
		t.Fatalf("the refusal does not say how to link: %v", e["message"])
	}
	if alice.Get("/api/me/whatsapp").Expect(t, http.StatusOK).JSON["linked"] != false {
		t.Fatal("linked before linking")
	}
	issued := alice.Post("/api/me/whatsapp", nil).Expect(t, http.StatusOK).JSON
	code := issued["code"].(string)
	if len(code) != 8 || issued["expiresAt"] != "2026-03-10T18:10:00Z" {
		t.Fatalf("code %v", issued)
	}
	expectError(t, phone.Post("/api/whatsapp/link", map[string]any{"code": "WRONG123"}), http.StatusBadRequest, "WHATSAPP_CODE_INVALID")
	linked := phone.Post("/api/whatsapp/link", map[string]any{"code": code}).Expect(t, http.StatusOK).JSON
	if linked["linked"] != true || linked["workspaceName"] != "Personal" || linked["alreadyLinked"] != nil {
		t.Fatalf("link %v", linked)
	}
	again := phone.Post("/api/whatsapp/link", map[string]any{"code": strings.ToLower(code)}).Expect(t, http.StatusOK).JSON
	if again["alreadyLinked"] != true {
		t.Fatalf("second link %v", again)
	}
	status := alice.Get("/api/me/whatsapp").Expect(t, http.StatusOK).JSON
	if status["linked"] != true || status["phone"] != "+52*******5678" || status["status"] != "active" {
		t.Fatalf("status %v", status)
	}
	phone.Get("/api/wallets").Expect(t, http.StatusOK)
	// Another number cannot use the spent code.
	expectError(t, env.Phone("+5215599999999", nil).Post("/api/whatsapp/link", map[string]any{"code": code}), http.StatusBadRequest, "WHATSAPP_CODE_INVALID")

	// Expired codes.
	stale := alice.Post("/api/me/whatsapp", nil).Expect(t, http.StatusOK).JSON["code"].(string)
	env.Clock.Set(env.Clock.Now().Add(11 * time.Minute))
	expectError(t, env.Phone("+5215511111111", nil).Post("/api/whatsapp/link", map[string]any{"code": stale}), http.StatusBadRequest, "WHATSAPP_CODE_EXPIRED")

	// Five wrong codes lock a number for 15 minutes; five attempts a minute at most.
	bob := env.As("bob")
	bobPhone := env.Phone("+5215522222222", nil)
	for i := 0; i < 5; i++ {
		expectError(t, bobPhone.Post("/api/whatsapp/link", map[string]any{"code": "BADCODE" + string(rune('A'+i))}), http.StatusBadRequest, "WHATSAPP_CODE_INVALID")
	}
	r := bobPhone.Post("/api/whatsapp/link", map[string]any{"code": "BADCODEZ"})
	expectError(t, r, http.StatusTooManyRequests, "RATE_LIMITED")
	env.Clock.Set(env.Clock.Now().Add(time.Minute))
	bobCode := bob.Post("/api/me/whatsapp", nil).Expect(t, http.StatusOK).JSON["code"].(string)
	expectError(t, bobPhone.Post("/api/whatsapp/link", map[string]any{"code": bobCode}), http.StatusBadRequest, "WHATSAPP_CODE_LOCKED")
	env.Clock.Set(env.Clock.Now().Add(15 * time.Minute))
	bobCode = bob.Post("/api/me/whatsapp", nil).Expect(t, http.StatusOK).JSON["code"].(string)
	bobPhone.Post("/api/whatsapp/link", map[string]any{"code": bobCode}).Expect(t, http.StatusOK)

	// Unlinking from settings.
	alice.Delete("/api/me/whatsapp").Expect(t, http.StatusOK)
	expectError(t, phone.Get("/api/wallets"), http.StatusUnauthorized, "WHATSAPP_NOT_LINKED")
	if alice.Get("/api/me/whatsapp").JSON["linked"] != false {
		t.Fatal("still linked after unlinking")
	}
	// Settings are for the owner's session: not for API keys nor the channel.
	key, _ := newKey(t, alice, "*")
	expectError(t, key.Post("/api/me/whatsapp", nil), http.StatusForbidden, "FORBIDDEN")
	expectError(t, bobPhone.Get("/api/me/whatsapp"), http.StatusForbidden, "FORBIDDEN")
}

func TestChannelFingerprints(t *testing.T) {
	env := apitest.Start(t)
	alice := env.As("alice")
	alice.Post("/api/wallets", map[string]any{"name": "Cash"}).Expect(t, http.StatusOK)
	with := func(fp string) func(map[string]any) {
		return func(c map[string]any) { c["identityKeyHash"] = fp }
	}
	linkPhone(t, env, alice, alicePhone, nil)
	env.Phone(alicePhone, nil).Get("/api/wallets").Expect(t, http.StatusOK) // no claim: nothing checked
	env.Phone(alicePhone, with("key-one")).Get("/api/wallets").Expect(t, http.StatusOK)
	env.Phone(alicePhone, with("key-one")).Get("/api/wallets").Expect(t, http.StatusOK)
	expectError(t, env.Phone(alicePhone, with("key-two")).Get("/api/wallets"), http.StatusUnauthorized, "WHATSAPP_LINK_SUSPENDED")
	expectError(t, env.Phone(alicePhone, with("key-one")).Get("/api/wallets"), http.StatusUnauthorized, "WHATSAPP_LINK_SUSPENDED")
	if alice.Get("/api/me/whatsapp").JSON["status"] != "suspended" {
		t.Fatal("link not suspended")
	}
	entries := alice.Get("/api/audit?entity=whatsapp_link").Expect(t, http.StatusOK).List("entries")
	suspension, _ := json.Marshal(entries[0])
	if entries[0]["action"] != "update" || !strings.Contains(string(suspension), `"reason":{"after":"identity_changed"`) ||
		strings.Contains(string(suspension), "key-") || strings.Contains(string(suspension), "5678") {
		t.Fatalf("suspension entry %s", suspension)
	}
	// A new link from settings restores it, with the fingerprint of that moment.
	linkPhone(t, env, alice, alicePhone, with("key-two"))
	env.Phone(alicePhone, with("key-two")).Get("/api/wallets").Expect(t, http.StatusOK)
	expectError(t, env.Phone(alicePhone, with("key-one")).Get("/api/wallets"), http.StatusUnauthorized, "WHATSAPP_LINK_SUSPENDED")
	var leaks int
	if err := env.Pool.QueryRow(context.Background(), `SELECT count(*) FROM audit_log WHERE changes::text LIKE '%key-%' OR changes::text LIKE '%5512345678%'`).Scan(&leaks); err != nil || leaks != 0 {
		t.Fatalf("fingerprints or numbers in the audit log: %d %v", leaks, err)
	}
}

func TestChannelOperations(t *testing.T) {
	env := apitest.Start(t)
	env.Clock.Set(time.Date(2026, 3, 11, 3, 0, 0, 0, time.UTC)) // 10 March in Mexico City
	f := newLedger(t, env, "alice")                             // Cash (default), Bank, Dollars; Food, Rent
	cafe := f.c.Post("/api/categories", map[string]any{"name": "Café"}).Expect(t, http.StatusOK).Object("category")["id"].(string)
	f.c.Post("/api/budgets", map[string]any{"name": "Food", "categoryId": f.food, "amount": 100, "startDate": "2026-01-01", "endDate": "2026-12-31"}).Expect(t, http.StatusOK)
	phone := linkPhone(t, env, f.c, alicePhone, nil)

	created := phone.Post("/api/whatsapp/transactions", map[string]any{"type": "expense", "amount": 50, "walletName": "BANK", "categoryName": "cafe", "concept": "latte"}).
		Expect(t, http.StatusCreated)
	tr, resolved := created.Object("transaction"), created.Object("resolved")
	if tr["walletId"] != f.bank || tr["categoryId"] != cafe || tr["date"] != "2026-03-10" || resolved["walletName"] != "Bank" ||
		resolved["categoryName"] != "Café" || resolved["workspaceName"] != "Personal" || resolved["budgetWarning"] != nil {
		t.Fatalf("created %s", created.Raw)
	}
	// Without names: the first active wallet and category.
	first := phone.Post("/api/whatsapp/transactions", map[string]any{"type": "income", "amount": 5}).Expect(t, http.StatusCreated).Object("transaction")
	if first["walletId"] != f.cash || first["categoryId"] != f.food {
		t.Fatalf("defaults %v", first)
	}
	// Over budget.
	warned := phone.Post("/api/whatsapp/transactions", map[string]any{"type": "expense", "amount": 150, "categoryName": "food"}).
		Expect(t, http.StatusCreated).Object("resolved")
	if w, _ := warned["budgetWarning"].(string); !strings.Contains(w, "Food") || !strings.Contains(w, "150.00 of 100.00 MXN") {
		t.Fatalf("budget warning %v", warned)
	}
	// Unknown names: 404 with suggestions, nothing saved.
	before := len(f.c.Get("/api/transactions").List("transactions"))
	e := expectError(t, phone.Post("/api/whatsapp/transactions", map[string]any{"type": "expense", "amount": 1, "walletName": "Banc"}), http.StatusNotFound, "WALLET_NOT_FOUND")
	if s := e["details"].(map[string]any)["suggestions"].([]any); len(s) == 0 || s[0] != "Bank" {
		t.Fatalf("wallet suggestions %v", s)
	}
	e = expectError(t, phone.Post("/api/whatsapp/transactions", map[string]any{"type": "expense", "amount": 1, "categoryName": "Cofee"}), http.StatusNotFound, "CATEGORY_NOT_FOUND")
	if s := e["details"].(map[string]any)["suggestions"].([]any); len(s) == 0 || s[0] != "Café" {
		t.Fatalf("category suggestions %v", s)
	}
	fieldErrors(t, phone.Post("/api/whatsapp/transactions", map[string]any{"type": "transfer", "amount": 0}))
	fieldErrors(t, phone.Post("/api/whatsapp/transactions", map[string]any{"type": "expense", "amount": 1, "currency": "USD"}))
	if after := len(f.c.Get("/api/transactions").List("transactions")); after != before {
		t.Fatalf("a refused request saved something: %d, %d", before, after)
	}
	// The audit log names the agent and thread, never the number.
	entry := f.c.Get("/api/audit?entity=transaction&action=create").List("entries")[0]
	if entry["actorType"] != "channel" || entry["userAgent"] != "whatsapp; agent=agent-1; thread=thread-9" {
		t.Fatalf("audit entry %v", entry)
	}

	// The last transaction: update, then undo.
	lastID := phone.Post("/api/whatsapp/transactions", map[string]any{"type": "expense", "amount": 20, "walletName": "cash"}).
		Expect(t, http.StatusCreated).Object("transaction")["id"].(string)
	fieldErrors(t, phone.Patch("/api/whatsapp/last-transaction", map[string]any{"currency": "MXN"}))
	fieldErrors(t, phone.Patch("/api/whatsapp/last-transaction", map[string]any{"amount": 2, "currency": "USD"}))
	expectError(t, phone.Patch("/api/whatsapp/last-transaction", map[string]any{"categoryName": "Rnt"}), http.StatusNotFound, "CATEGORY_NOT_FOUND")
	upd := phone.Patch("/api/whatsapp/last-transaction", map[string]any{"amount": 25, "currency": "MXN", "walletName": "bank",
		"categoryName": "RENT", "concept": "taxi", "date": "2026-03-09"}).Expect(t, http.StatusOK).Object("transaction")
	if upd["id"] != lastID || num(upd["amount"]) != "25" || upd["walletId"] != f.bank || upd["categoryId"] != f.rent || upd["date"] != "2026-03-09" {
		t.Fatalf("updated %v", upd)
	}
	bankBefore := f.balance(t, f.bank)
	undone := phone.Post("/api/whatsapp/last-transaction/undo", nil).Expect(t, http.StatusOK)
	if undone.Object("transaction")["id"] != lastID || undone.Object("wallet")["id"] != f.bank || num(undone.Object("wallet")["balance"]) == bankBefore {
		t.Fatalf("undo %s", undone.Raw)
	}
	expectError(t, phone.Post("/api/whatsapp/last-transaction/undo", nil), http.StatusNotFound, "TRANSACTION_NOT_FOUND")
	// The 24-hour window.
	phone.Post("/api/whatsapp/transactions", map[string]any{"type": "expense", "amount": 3}).Expect(t, http.StatusCreated)
	env.Clock.Set(env.Clock.Now().Add(25 * time.Hour))
	phone = env.Phone(alicePhone, nil)
	expectError(t, phone.Post("/api/whatsapp/last-transaction/undo", nil), http.StatusNotFound, "TRANSACTION_NOT_FOUND")
	expectError(t, phone.Patch("/api/whatsapp/last-transaction", map[string]any{"amount": 1}), http.StatusNotFound, "TRANSACTION_NOT_FOUND")

	// Every 4.B operation passes; anything else is forbidden.
	goal := f.c.Post("/api/goals", map[string]any{"name": "Trip", "targetAmount": 100}).Expect(t, http.StatusOK).Object("goal")["id"].(string)
	debt := f.c.Post("/api/debts", map[string]any{"name": "Car", "totalAmount": 100}).Expect(t, http.StatusOK).Object("debt")["id"].(string)
	rec := f.c.Post("/api/recurrent", map[string]any{"name": "Gym", "amount": 10, "kind": "expense", "periodicity": "monthly", "nextPayment": "2026-03-11"}).
		Expect(t, http.StatusOK).Object("recurring")["id"].(string)
	for _, path := range []string{"/api/wallets", "/api/categories", "/api/tags", "/api/transactions", "/api/budgets", "/api/goals", "/api/debts",
		"/api/recurrent", "/api/reports/monthly-summary", "/api/reports/spending-summary?period=this_month", "/api/whatsapp/workspaces"} {
		phone.Get(path).Expect(t, http.StatusOK)
	}
	phone.Post("/api/categories", map[string]any{"name": "Gifts"}).Expect(t, http.StatusOK)
	phone.Post("/api/tags", map[string]any{"name": "Trip"}).Expect(t, http.StatusOK)
	phone.Post("/api/goals/"+goal+"/deposit", map[string]any{"amount": 10, "walletId": f.cash}).Expect(t, http.StatusOK)
	phone.Post("/api/goals/"+goal+"/withdraw", map[string]any{"amount": 5}).Expect(t, http.StatusOK)
	phone.Post("/api/debts/"+debt+"/payments", map[string]any{"amount": 10}).Expect(t, http.StatusOK)
	phone.Post("/api/recurrent/"+rec+"/pay", nil).Expect(t, http.StatusOK)
	byID := f.c.Post("/api/transactions", map[string]any{"type": "expense", "amount": 7}).Expect(t, http.StatusCreated).Object("transaction")["id"].(string)
	phone.With("Idempotency-Key", "fix").Patch("/api/transactions/"+byID, map[string]any{"amount": 8}).Expect(t, http.StatusOK)
	phone.With("Idempotency-Key", "del").Delete("/api/transactions/"+byID).Expect(t, http.StatusOK)
	for _, forbidden := range []struct{ method, path string }{
		{"GET", "/api/me"}, {"POST", "/api/wallets"}, {"GET", "/api/agent/context"}, {"GET", "/api/audit"}, {"GET", "/api/api-keys"},
		{"POST", "/api/transactions"}, {"GET", "/api/wallets/" + f.cash}, {"PATCH", "/api/wallets/" + f.cash}, {"GET", "/api/reports"},
		{"PUT", "/api/exchange-rates"}, {"POST", "/api/goals"}, {"DELETE", "/api/me"},
	} {
		expectError(t, phone.Do(forbidden.method, forbidden.path, "{}"), http.StatusForbidden, "FORBIDDEN")
	}
}

func TestChannelWorkspacesAndRoles(t *testing.T) {
	env := apitest.Start(t)
	alice, bob := env.As("alice"), env.As("bob")
	alice.Post("/api/wallets", map[string]any{"name": "Cash"}).Expect(t, http.StatusOK)
	bob.Get("/api/me").Expect(t, http.StatusOK)
	corp := bob.Post("/api/workspaces", map[string]any{"name": "Acme Corp"}).Expect(t, http.StatusOK).Object("workspace")["id"].(string)
	labs := bob.Post("/api/workspaces", map[string]any{"name": "Acme Labs"}).Expect(t, http.StatusOK).Object("workspace")["id"].(string)
	bob.Post("/api/workspaces/"+corp+"/members", map[string]any{"email": "alice@example.com", "role": "collaborator"}).Expect(t, http.StatusOK)
	bob.Post("/api/workspaces/"+labs+"/members", map[string]any{"email": "alice@example.com", "role": "reader"}).Expect(t, http.StatusOK)
	bob.With("X-Workspace-Id", corp).Post("/api/wallets", map[string]any{"name": "Ops"}).Expect(t, http.StatusOK)
	phone := linkPhone(t, env, alice, alicePhone, nil)

	list := phone.Get("/api/whatsapp/workspaces").Expect(t, http.StatusOK).List("workspaces")
	if len(list) != 3 || list[0]["active"] != true || list[0]["type"] != "personal" {
		t.Fatalf("workspaces %v", list)
	}
	e := expectError(t, phone.Put("/api/whatsapp/workspace", map[string]any{"name": "acme"}), http.StatusConflict, "CONFLICT")
	if c := e["details"].(map[string]any)["candidates"].([]any); len(c) != 2 {
		t.Fatalf("candidates %v", c)
	}
	e = expectError(t, phone.Put("/api/whatsapp/workspace", map[string]any{"name": "Globex"}), http.StatusNotFound, "WORKSPACE_NOT_FOUND")
	if a := e["details"].(map[string]any)["available"].([]any); len(a) != 3 {
		t.Fatalf("available %v", a)
	}
	if w := phone.Put("/api/whatsapp/workspace", map[string]any{"name": "ACME CORP"}).Expect(t, http.StatusOK).Object("workspace"); w["id"] != corp {
		t.Fatalf("switched to %v", w)
	}
	// In the team, as a collaborator: categories yes, tags no (rule 9).
	phone.Post("/api/categories", map[string]any{"name": "Travel"}).Expect(t, http.StatusOK)
	expectError(t, phone.Post("/api/tags", map[string]any{"name": "x"}), http.StatusForbidden, "FORBIDDEN")
	if tr := phone.Post("/api/whatsapp/transactions", map[string]any{"type": "expense", "amount": 4}).Expect(t, http.StatusCreated); tr.Object("resolved")["workspaceName"] != "Acme Corp" {
		t.Fatalf("recorded in %v", tr.Object("resolved"))
	}
	// "labs" is contained in one name only.
	phone.Put("/api/whatsapp/workspace", map[string]any{"name": "labs"}).Expect(t, http.StatusOK)
	phone.Get("/api/wallets").Expect(t, http.StatusOK)
	expectError(t, phone.Post("/api/whatsapp/transactions", map[string]any{"type": "expense", "amount": 4}), http.StatusForbidden, "FORBIDDEN")
	expectError(t, phone.Post("/api/categories", map[string]any{"name": "Nope"}), http.StatusForbidden, "FORBIDDEN")

	// Thirty requests a minute per phone, on every instance together.
	second := env.Instance()
	env.Clock.Set(env.Clock.Now().Add(time.Minute))
	for i := 0; i < 30; i++ {
		c := phone
		if i%2 == 1 {
			c = phone.On(second)
		}
		c.Get("/api/wallets").Expect(t, http.StatusOK)
	}
	expectError(t, phone.Get("/api/wallets"), http.StatusTooManyRequests, "RATE_LIMITED")
}
