package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/netip"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/httpapi"
	"github.com/finledger/finledger/internal/testkit/apitest"
	"github.com/finledger/finledger/ledger"
)

var keyShape = regexp.MustCompile(`^fl_live_[0-9A-Za-z]{49}$`)

// newKey creates an API key with the given scopes through c and returns a client using
// it and the key's id.
func newKey(t *testing.T, c *apitest.Client, scopes ...string) (*apitest.Client, string) {
	t.Helper()
	r := c.Post("/api/api-keys", map[string]any{"name": "integration", "scopes": scopes}).Expect(t, http.StatusOK)
	plaintext, _ := r.JSON["plaintext"].(string)
	if !keyShape.MatchString(plaintext) {
		t.Fatalf("key %q has not the documented shape", plaintext)
	}
	return c.With("Authorization", "Bearer "+plaintext), r.Object("apiKey")["id"].(string)
}

func TestAPIKeys(t *testing.T) {
	env := apitest.Start(t)
	alice := env.As("alice")
	created := alice.With("User-Agent", "settings-page").Post("/api/api-keys", map[string]any{
		"name": "books", "description": "accounting export", "scopes": []string{"transactions:read", "wallets:read"},
	}).Expect(t, http.StatusOK)
	plaintext := created.JSON["plaintext"].(string)
	key := created.Object("apiKey")
	if !keyShape.MatchString(plaintext) || key["prefix"] != plaintext[:12] || key["lastUsedAt"] != nil || key["hash"] != nil {
		t.Fatalf("created %s", created.Raw)
	}

	bearer := env.Anonymous().With("Authorization", "Bearer "+plaintext)
	header := env.Anonymous().With("x-api-key", plaintext)
	bearer.Get("/api/wallets").Expect(t, http.StatusOK)
	header.Get("/api/transactions").Expect(t, http.StatusOK)
	e := expectError(t, bearer.Post("/api/wallets", map[string]any{"name": "x"}), http.StatusForbidden, "FORBIDDEN")
	if !strings.Contains(e["message"].(string), "wallets:write") {
		t.Fatalf("message does not name the scope: %v", e["message"])
	}
	expectError(t, bearer.Get("/api/api-keys"), http.StatusForbidden, "FORBIDDEN")
	expectError(t, header.Post("/api/api-keys", map[string]any{"name": "x", "scopes": []string{"*"}}), http.StatusForbidden, "FORBIDDEN")

	// The key's owner sees it listed by prefix, with its last use; never its secret.
	list := alice.Get("/api/api-keys").Expect(t, http.StatusOK)
	if strings.Contains(string(list.Raw), plaintext[12:]) || len(list.List("apiKeys")) != 1 || list.List("apiKeys")[0]["lastUsedAt"] == nil {
		t.Fatalf("listing %s", list.Raw)
	}

	// Malformed, mistyped and foreign keys.
	flipped := plaintext[:20] + string(rune(plaintext[20]^1)) + plaintext[21:]
	for _, bad := range []string{"fl_live_short", plaintext + "x", flipped, strings.ToUpper(plaintext), "sk_live_" + plaintext[8:]} {
		expectError(t, env.Anonymous().With("x-api-key", bad).Get("/api/wallets"), http.StatusUnauthorized, "UNAUTHORIZED")
	}
	bobWS := env.As("bob").Get("/api/me").Object("workspace")["id"].(string)
	expectError(t, bearer.With("X-Workspace-Id", bobWS).Get("/api/wallets"), http.StatusForbidden, "FORBIDDEN")

	// Bad bodies.
	got := fieldErrors(t, alice.Post("/api/api-keys", map[string]any{"name": "", "scopes": []string{"wallets:read", "wallets:fly"},
		"expiresAt": "tomorrow"}))
	sort.Strings(got)
	if strings.Join(got, ",") != "expiresAt,name,scopes[1]" {
		t.Fatalf("fields %v", got)
	}
	fieldErrors(t, alice.Post("/api/api-keys", map[string]any{"name": "x", "scopes": []string{}}))
	fieldErrors(t, alice.Post("/api/api-keys", map[string]any{"name": "x", "scopes": []string{"*"}, "expiresAt": "2020-01-01T00:00:00Z"}))

	// Expiry and revocation.
	expiring := alice.Post("/api/api-keys", map[string]any{"name": "short", "scopes": []string{"*"},
		"expiresAt": env.Clock.Now().Add(time.Hour).Format(time.RFC3339)}).Expect(t, http.StatusOK).JSON["plaintext"].(string)
	env.Anonymous().With("x-api-key", expiring).Get("/api/wallets").Expect(t, http.StatusOK)
	alice.Delete("/api/api-keys/"+key["id"].(string)).Expect(t, http.StatusOK)
	expectError(t, bearer.Get("/api/wallets"), http.StatusUnauthorized, "UNAUTHORIZED")
	expectError(t, alice.Delete("/api/api-keys/"+key["id"].(string)), http.StatusNotFound, "API_KEY_NOT_FOUND")
	env.Clock.Set(env.Clock.Now().Add(2 * time.Hour))
	alice = env.As("alice")
	expectError(t, env.Anonymous().With("x-api-key", expiring).Get("/api/wallets"), http.StatusUnauthorized, "UNAUTHORIZED")

	// Only hashes are at rest: not in the events, the read models, the idempotency
	// records or the audit log.
	var leaks int
	err := env.Pool.QueryRow(context.Background(), `SELECT
		(SELECT count(*) FROM events WHERE data::text LIKE '%' || $1 || '%') +
		(SELECT count(*) FROM idempotency_keys WHERE convert_from(answer, 'UTF8') LIKE '%' || $1 || '%') +
		(SELECT count(*) FROM audit_log WHERE changes::text LIKE '%' || $1 || '%' OR changes::text LIKE '%hash%')`, plaintext[8:]).Scan(&leaks)
	if err != nil || leaks != 0 {
		t.Fatalf("secret found at rest %d times (%v)", leaks, err)
	}

	// A replay of the creation returns the key without its secret.
	k := alice.With("Idempotency-Key", "make-key")
	first := k.Post("/api/api-keys", map[string]any{"name": "once", "scopes": []string{"*"}}).Expect(t, http.StatusOK)
	again := k.Post("/api/api-keys", map[string]any{"name": "once", "scopes": []string{"*"}}).Expect(t, http.StatusOK)
	if first.JSON["plaintext"] == nil || again.JSON["plaintext"] != nil || again.Header.Get("Idempotent-Replayed") != "true" ||
		again.Object("apiKey")["id"] != first.Object("apiKey")["id"] {
		t.Fatalf("first %s\nreplay %s", first.Raw, again.Raw)
	}
}

// Every operation, called with no credential, with an API key lacking its scope, and
// with the right credential.
func TestEveryRouteChecksItsScope(t *testing.T) {
	env := apitest.Start(t)
	alice := env.As("alice")
	personal := alice.Get("/api/me").Object("workspace")["id"].(string)
	doc := env.Anonymous().Get("/api/openapi.json").Expect(t, http.StatusOK)
	keys := map[string]*apitest.Client{}
	keyFor := func(scope string) *apitest.Client {
		if keys[scope] == nil {
			keys[scope], _ = newKey(t, alice, scope)
		}
		return keys[scope]
	}
	checked := 0
	for path, item := range doc.Object("paths") {
		concrete := pathParam.ReplaceAllString(strings.ReplaceAll(path, "{workspaceId}", personal), "00000000-0000-0000-0000-000000000001")
		for method, op := range item.(map[string]any) {
			method = strings.ToUpper(method)
			scope := op.(map[string]any)["x-scope"].(string)
			name := method + " " + path
			if scope == "channel" {
				// Only the chat channel calls these: TestChannelAllowList covers them.
				expectError(t, env.Anonymous().Do(method, concrete, nil), http.StatusUnauthorized, "WHATSAPP_IDENTITY_INVALID")
				continue
			}
			expectError(t, env.Anonymous().Do(method, concrete, nil), http.StatusUnauthorized, "UNAUTHORIZED")
			if scope == "realtime token" {
				continue // its token is its credential: TestRealtimeStream covers it
			}
			var wrong, right *apitest.Client
			if scope == "session" {
				wrong, right = keyFor("*"), alice
			} else {
				other := "comments:read"
				wrong, right = keyFor(other), keyFor(scope)
			}
			e := expectError(t, wrong.Do(method, concrete, "{}"), http.StatusForbidden, "FORBIDDEN")
			if scope != "session" && !strings.Contains(e["message"].(string), scope) {
				t.Errorf("%s: the refusal does not name %s: %v", name, scope, e["message"])
			}
			if name == "DELETE /api/me" {
				continue // the right call closes the account: TestProfileAndAccountDeletion makes it
			}
			if r := right.Do(method, concrete, "{}"); r.Status == http.StatusUnauthorized || r.Status == http.StatusForbidden || r.Status >= 500 {
				t.Errorf("%s with %s: %d %s", name, scope, r.Status, r.Raw)
			}
			checked++
		}
	}
	if checked < 30 {
		t.Fatalf("only %d operations checked", checked)
	}
}

func TestTeamWorkspacesAndRoles(t *testing.T) {
	env := apitest.Start(t)
	alice, bob, dave := env.As("alice"), env.As("bob"), env.As("dave")
	for _, c := range []*apitest.Client{bob, dave} {
		c.Get("/api/me").Expect(t, http.StatusOK)
	}
	ws := alice.Post("/api/workspaces", map[string]any{"name": "Acme", "currency": "usd"}).Expect(t, http.StatusOK).Object("workspace")
	if ws["type"] != "team" || ws["role"] != "owner" || ws["currency"] != "USD" {
		t.Fatalf("workspace %v", ws)
	}
	id := ws["id"].(string)
	members := "/api/workspaces/" + id + "/members"
	if list := alice.Get("/api/workspaces").List("workspaces"); len(list) != 2 || list[0]["type"] != "personal" || list[1]["id"] != id {
		t.Fatalf("workspaces %v", list)
	}
	fieldErrors(t, alice.Post("/api/workspaces", map[string]any{"name": "", "currency": "dollars"}))

	bobID := alice.Post(members, map[string]any{"email": "BOB@example.com", "role": "collaborator"}).Expect(t, http.StatusOK).Object("member")["userId"].(string)
	daveID := alice.Post(members, map[string]any{"email": "dave@example.com", "role": "admin"}).Expect(t, http.StatusOK).Object("member")["userId"].(string)
	invited := alice.Post(members, map[string]any{"email": "Carol@Example.com", "role": "reader"}).Expect(t, http.StatusOK).Object("member")
	if invited["status"] != "invited" || invited["email"] != "carol@example.com" || invited["userId"] != nil {
		t.Fatalf("invitation %v", invited)
	}
	expectError(t, alice.Post(members, map[string]any{"email": "bob@example.com", "role": "reader"}), http.StatusConflict, "CONFLICT")
	fieldErrors(t, alice.Post(members, map[string]any{"email": "nobody", "role": "boss"}))

	// Carol joins at her first sign-in, as a reader.
	carol := env.As("carol")
	if list := carol.Get("/api/workspaces").List("workspaces"); len(list) != 2 || list[1]["role"] != "reader" {
		t.Fatalf("carol's workspaces %v", list)
	}
	if list := alice.Get(members).List("members"); len(list) != 4 {
		t.Fatalf("members %v", list)
	}

	in := func(c *apitest.Client) *apitest.Client { return c.With("X-Workspace-Id", id) }
	wallet := in(bob).Post("/api/wallets", map[string]any{"name": "Ops", "isDefault": true}).Expect(t, http.StatusOK).Object("wallet")
	if wallet["currency"] != "MXN" {
		t.Logf("wallet currency %v", wallet["currency"])
	}
	in(bob).Post("/api/transactions", map[string]any{"type": "expense", "amount": 5}).Expect(t, http.StatusCreated)
	expectError(t, in(bob).Post("/api/tags", map[string]any{"name": "x"}), http.StatusForbidden, "FORBIDDEN")
	expectError(t, bob.Get(members), http.StatusForbidden, "FORBIDDEN")
	in(carol).Get("/api/wallets").Expect(t, http.StatusOK)
	expectError(t, in(carol).Post("/api/wallets", map[string]any{"name": "Mine"}), http.StatusForbidden, "FORBIDDEN")
	// A reader's key with every scope is still a reader's key.
	carolKey, _ := newKey(t, in(carol), "*")
	carolKey.Get("/api/wallets").Expect(t, http.StatusOK)
	expectError(t, carolKey.Post("/api/wallets", map[string]any{"name": "Mine"}), http.StatusForbidden, "FORBIDDEN")
	// Strangers see nothing of the workspace.
	stranger := env.As("eve")
	expectError(t, in(stranger).Get("/api/wallets"), http.StatusForbidden, "FORBIDDEN")
	expectError(t, stranger.Get(members), http.StatusForbidden, "FORBIDDEN")

	// Owner rules.
	expectError(t, dave.Patch(members+"/"+bobID, map[string]any{"role": "owner"}), http.StatusForbidden, "FORBIDDEN")
	aliceID := alice.Get("/api/me").Object("user")["id"].(string)
	expectError(t, dave.Delete(members+"/"+aliceID), http.StatusForbidden, "FORBIDDEN")
	expectError(t, alice.Patch(members+"/"+aliceID, map[string]any{"role": "admin"}), http.StatusConflict, "CONFLICT")
	if role := dave.Patch(members+"/"+bobID, map[string]any{"role": "reader"}).Expect(t, http.StatusOK).Object("member")["role"]; role != "reader" {
		t.Fatalf("bob's role %v", role)
	}
	expectError(t, in(bob).Post("/api/transactions", map[string]any{"type": "expense", "amount": 5}), http.StatusForbidden, "FORBIDDEN")
	alice.Patch(members+"/"+daveID, map[string]any{"role": "owner"}).Expect(t, http.StatusOK)
	alice.Patch(members+"/"+aliceID, map[string]any{"role": "admin"}).Expect(t, http.StatusOK)
	expectError(t, alice.Patch(members+"/00000000-0000-0000-0000-000000000001", map[string]any{"role": "admin"}), http.StatusNotFound, "MEMBER_NOT_FOUND")

	// A removed member's keys stop working.
	bobKey, _ := newKey(t, in(bob), "wallets:read")
	bobKey.Get("/api/wallets").Expect(t, http.StatusOK)
	dave.Delete(members+"/"+bobID).Expect(t, http.StatusOK)
	expectError(t, bobKey.Get("/api/wallets"), http.StatusUnauthorized, "UNAUTHORIZED")
	expectError(t, in(bob).Get("/api/wallets"), http.StatusForbidden, "FORBIDDEN")

	// Deleting: never a personal workspace this way, a team one by its owners only.
	expectError(t, alice.Delete("/api/workspace"), http.StatusConflict, "CONFLICT")
	expectError(t, in(alice).Delete("/api/workspace"), http.StatusForbidden, "FORBIDDEN")
	expectError(t, carolKey.Delete("/api/workspace"), http.StatusForbidden, "FORBIDDEN")
	in(dave).Delete("/api/workspace").Expect(t, http.StatusOK)
	expectError(t, in(dave).Get("/api/wallets"), http.StatusForbidden, "FORBIDDEN")
	expectError(t, carolKey.Get("/api/wallets"), http.StatusUnauthorized, "UNAUTHORIZED")
	if list := dave.Get("/api/workspaces").List("workspaces"); len(list) != 1 {
		t.Fatalf("deleted workspace still listed: %v", list)
	}
}

func TestProfileAndAccountDeletion(t *testing.T) {
	env := apitest.Start(t)
	alice := env.As("alice")
	me := alice.Get("/api/me").Expect(t, http.StatusOK).Object("user")
	if me["theme"] != "system" || me["notificationsEnabled"] != true || me["hasCompletedOnboarding"] != false {
		t.Fatalf("default profile %v", me)
	}
	u := alice.Patch("/api/me", map[string]any{"firstName": "Alicia", "lastName": "Pérez", "currency": "eur", "language": "es-MX",
		"theme": "dark", "notificationsEnabled": false, "hasCompletedOnboarding": true}).Expect(t, http.StatusOK).Object("user")
	if u["firstName"] != "Alicia" || u["currency"] != "EUR" || u["theme"] != "dark" || u["notificationsEnabled"] != false {
		t.Fatalf("profile %v", u)
	}
	if alice.Get("/api/me").Object("user")["lastName"] != "Pérez" {
		t.Fatal("profile not kept")
	}
	got := fieldErrors(t, alice.Patch("/api/me", map[string]any{"firstName": strings.Repeat("a", 101), "lastName": 3,
		"language": "a-very-long-tag", "theme": "sepia", "currency": "euros", "notificationsEnabled": nil, "nickname": "al"}))
	if len(got) != 7 {
		t.Fatalf("fields %v", got)
	}

	key, _ := newKey(t, alice, "*")
	key.Get("/api/wallets").Expect(t, http.StatusOK)
	expectError(t, key.Delete("/api/me"), http.StatusForbidden, "FORBIDDEN")

	// No payment provider (the default): nothing to cancel, the account goes at once.
	// account_deletion_test.go deletes through Stripe.
	alice.Delete("/api/me").Expect(t, http.StatusOK)
	expectError(t, alice.Get("/api/me"), http.StatusUnauthorized, "UNAUTHORIZED")
	expectError(t, env.As("alice").Get("/api/wallets"), http.StatusUnauthorized, "UNAUTHORIZED")
	expectError(t, key.Get("/api/wallets"), http.StatusUnauthorized, "UNAUTHORIZED")
}

func TestRateLimitsHoldAcrossInstances(t *testing.T) {
	env := apitest.StartWith(t, httpapi.Options{RateLimitPerMinute: 60, RateLimitBurst: 3})
	second := env.Instance()
	alice, bob := env.As("alice"), env.As("bob")
	alice.Get("/api/wallets").Expect(t, http.StatusOK)
	alice.On(second).Get("/api/wallets").Expect(t, http.StatusOK)
	alice.Get("/api/wallets").Expect(t, http.StatusOK)
	r := alice.On(second).Get("/api/wallets")
	expectError(t, r, http.StatusTooManyRequests, "RATE_LIMITED")
	if r.Header.Get("Retry-After") != "1" {
		t.Fatalf("Retry-After %q", r.Header.Get("Retry-After"))
	}
	bob.Get("/api/wallets").Expect(t, http.StatusOK)
	env.Clock.Set(env.Clock.Now().Add(1100 * time.Millisecond))
	alice.On(second).Get("/api/wallets").Expect(t, http.StatusOK)
	expectError(t, alice.Get("/api/wallets"), http.StatusTooManyRequests, "RATE_LIMITED")
}

// team makes a team workspace owned by alice with members of the given roles, each
// signed in first, and returns alice, the workspace's id and a client per member acting
// in it.
func team(t *testing.T, env *apitest.Env, roles map[string]string) (alice *apitest.Client, id string, in map[string]*apitest.Client, ids map[string]string) {
	t.Helper()
	alice = env.As("alice")
	id = alice.Post("/api/workspaces", map[string]any{"name": "Acme", "currency": "MXN"}).Expect(t, http.StatusOK).Object("workspace")["id"].(string)
	in, ids = map[string]*apitest.Client{"alice": alice.With("X-Workspace-Id", id)}, map[string]string{}
	for name, role := range roles {
		member := env.As(name)
		member.Get("/api/me").Expect(t, http.StatusOK)
		ids[name] = alice.Post("/api/workspaces/"+id+"/members", map[string]any{"email": name + "@example.com", "role": role}).
			Expect(t, http.StatusOK).Object("member")["userId"].(string)
		in[name] = member.With("X-Workspace-Id", id)
	}
	return alice, id, in, ids
}

// keyAudit returns why each key of a workspace was revoked, by key id, as its audit
// entries tell ("" for a key revoked by name), read from the database: the workspace
// may be deleted.
func keyAudit(t *testing.T, env *apitest.Env, workspaceID string) map[string]string {
	t.Helper()
	rows, err := env.Pool.Query(context.Background(), `SELECT entity_id, coalesce(changes->'reason'->>'after', '') FROM audit_log
		WHERE workspace_id = $1 AND entity = 'api_key' AND action = 'delete'`, workspaceID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var id, reason string
		if err := rows.Scan(&id, &reason); err != nil {
			t.Fatal(err)
		}
		out[id] = reason
	}
	return out
}

// A key lasts as long as the membership it was made in: removing its creator revokes it
// in the same command, audited with the reason, and adding them back (with more power)
// does not bring it back. Deleting the workspace or the account revokes theirs alike.
func TestAKeyEndsWithItsMembership(t *testing.T) {
	env := apitest.Start(t)
	second := env.Instance()
	alice, ws, in, ids := team(t, env, map[string]string{"bob": "collaborator"})
	members := "/api/workspaces/" + ws + "/members/"
	bobKey, bobKeyID := newKey(t, in["bob"], "*")
	bobKey.Post("/api/wallets", map[string]any{"name": "Ops"}).Expect(t, http.StatusOK)

	alice.On(second).Delete(members+ids["bob"]).Expect(t, http.StatusOK)
	expectError(t, bobKey.Get("/api/wallets"), http.StatusUnauthorized, "UNAUTHORIZED")
	if why := keyAudit(t, env, ws); why[bobKeyID] != "member_removed" {
		t.Fatalf("the removal's audit tells of the key %q", why[bobKeyID])
	}
	entries := in["alice"].Get("/api/audit?entity=api_key").Expect(t, http.StatusOK).List("entries")
	if len(entries) != 2 || entries[0]["action"] != "delete" || entries[0]["actorId"] != alice.Get("/api/me").Object("user")["id"] {
		t.Fatalf("audit of the key %v", entries)
	}

	// Back as an admin: the old key stays revoked, on every instance; a new one works.
	alice.Post("/api/workspaces/"+ws+"/members", map[string]any{"email": "bob@example.com", "role": "admin"}).Expect(t, http.StatusOK)
	for _, c := range []*apitest.Client{bobKey, bobKey.On(second)} {
		expectError(t, c.Get("/api/wallets"), http.StatusUnauthorized, "UNAUTHORIZED")
		expectError(t, c.Post("/api/webhooks/outbound", map[string]any{"name": "x", "url": "https://hooks.example.com/x"}),
			http.StatusUnauthorized, "UNAUTHORIZED")
	}
	listed := in["alice"].Get("/api/api-keys").Expect(t, http.StatusOK).List("apiKeys")
	if len(listed) != 1 || listed[0]["id"] != bobKeyID || listed[0]["revokedAt"] == nil {
		t.Fatalf("keys %v", listed)
	}
	expectError(t, in["alice"].Delete("/api/api-keys/"+bobKeyID), http.StatusNotFound, "API_KEY_NOT_FOUND")
	newBobKey, newBobKeyID := newKey(t, in["bob"], "*")
	aliceKey, aliceKeyID := newKey(t, in["alice"], "wallets:read")
	newBobKey.Get("/api/wallets").Expect(t, http.StatusOK)

	// The workspace's deletion revokes every key made in it.
	in["alice"].Delete("/api/workspace").Expect(t, http.StatusOK)
	for _, c := range []*apitest.Client{newBobKey, aliceKey} {
		expectError(t, c.Get("/api/wallets"), http.StatusUnauthorized, "UNAUTHORIZED")
	}
	why := keyAudit(t, env, ws)
	if why[newBobKeyID] != "workspace_deleted" || why[aliceKeyID] != "workspace_deleted" || len(why) != 3 {
		t.Fatalf("revocations audited %v", why)
	}

	// The account's deletion revokes the keys of the personal workspace, audited there.
	personal := env.As("bob").Get("/api/me").Object("workspace")["id"].(string)
	_, personalKeyID := newKey(t, env.As("bob"), "*")
	env.As("bob").Delete("/api/me").Expect(t, http.StatusOK)
	if why := keyAudit(t, env, personal); len(why) != 1 || why[personalKeyID] != "account_deleted" {
		t.Fatalf("the account's deletion audited %v", why)
	}
}

// A key never holds more than its creator's role granted when it was made: raising the
// role does not widen it, lowering the role narrows it, and raising it back restores at
// most what it had.
func TestAKeyNeverOutgrowsTheRoleItWasMadeWith(t *testing.T) {
	env := apitest.Start(t)
	alice, ws, in, ids := team(t, env, map[string]string{"carol": "collaborator", "dave": "admin"})
	members := "/api/workspaces/" + ws + "/members/"
	hook := map[string]any{"name": "x", "url": "https://hooks.example.com/x"}
	carolKey, _ := newKey(t, in["carol"], "*")
	carolWriter, _ := newKey(t, in["carol"], "wallets:write", "webhooks:write")
	carolNothing, _ := newKey(t, in["carol"], "team:manage")
	daveKey, _ := newKey(t, in["dave"], "*")

	alice.Patch(members+ids["carol"], map[string]any{"role": "admin"}).Expect(t, http.StatusOK)
	in["carol"].Post("/api/webhooks/outbound", hook).Expect(t, http.StatusOK)
	for _, c := range []*apitest.Client{carolKey, carolWriter} {
		expectError(t, c.Post("/api/webhooks/outbound", hook), http.StatusForbidden, "FORBIDDEN")
		expectError(t, c.Get("/api/workspaces/"+ws+"/members"), http.StatusForbidden, "FORBIDDEN")
	}
	carolKey.Post("/api/wallets", map[string]any{"name": "Ops"}).Expect(t, http.StatusOK)
	carolWriter.Post("/api/wallets", map[string]any{"name": "Ops 2"}).Expect(t, http.StatusOK)
	// A key its role granted nothing of holds nothing, and is still a key, not a session.
	expectError(t, carolNothing.Get("/api/workspaces/"+ws+"/members"), http.StatusForbidden, "FORBIDDEN")
	expectError(t, carolNothing.Get("/api/api-keys"), http.StatusForbidden, "FORBIDDEN")

	alice.Patch(members+ids["dave"], map[string]any{"role": "reader"}).Expect(t, http.StatusOK)
	expectError(t, daveKey.Post("/api/webhooks/outbound", hook), http.StatusForbidden, "FORBIDDEN")
	daveKey.Get("/api/wallets").Expect(t, http.StatusOK)
	alice.Patch(members+ids["dave"], map[string]any{"role": "admin"}).Expect(t, http.StatusOK)
	daveKey.Post("/api/webhooks/outbound", hook).Expect(t, http.StatusOK)
}

// Removals recorded before they revoked the member's keys end them too: the read
// models and the workspace's state count a key live only while the membership it was
// made in lasts, and a replay rebuilds them alike.
func TestKeysOfRemovalsRecordedBeforeStayEnded(t *testing.T) {
	env := apitest.Start(t)
	alice, ws, in, ids := team(t, env, map[string]string{"bob": "collaborator"})
	bobKey, bobKeyID := newKey(t, in["bob"], "*")
	bobID, wsID := uuid.MustParse(ids["bob"]), uuid.MustParse(ws)
	// The removal as it was recorded before: the membership's end alone.
	_, err := env.Ledger.Execute(context.Background(), ledger.Call{WorkspaceID: wsID,
		Metadata: ledger.Metadata{ActorType: ledger.ActorSystem, ActorID: "test"},
		Decide: func(*domain.Workspace) ([]domain.Event, error) {
			return []domain.Event{&domain.MemberRemoved{UserID: bobID, Role: "collaborator"}}, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	alice.Post("/api/workspaces/"+ws+"/members", map[string]any{"email": "bob@example.com", "role": "admin"}).Expect(t, http.StatusOK)
	expectError(t, bobKey.Get("/api/wallets"), http.StatusUnauthorized, "UNAUTHORIZED")
	// Another instance folds the stream afresh and finds the key ended.
	expectError(t, in["alice"].On(env.Instance()).Delete("/api/api-keys/"+bobKeyID), http.StatusNotFound, "API_KEY_NOT_FOUND")
	replayReproduces(t, env)
}

// A person holds at most domain.MaxLiveAPIKeys live keys across their workspaces:
// creations racing on two instances in two workspaces never pass it together, and a
// key revoked or expired makes room again.
func TestLiveKeysPerPersonAreCapped(t *testing.T) {
	env := apitest.Start(t)
	second := env.Instance()
	alice := env.As("alice")
	ws := alice.Post("/api/workspaces", map[string]any{"name": "Acme", "currency": "MXN"}).Expect(t, http.StatusOK).Object("workspace")["id"].(string)
	inTeam := alice.With("X-Workspace-Id", ws)
	expiring := alice.Post("/api/api-keys", map[string]any{"name": "short", "scopes": []string{"*"},
		"expiresAt": env.Clock.Now().Add(time.Hour).Format(time.RFC3339)}).Expect(t, http.StatusOK).JSON["plaintext"].(string)
	_, revocable := newKey(t, inTeam, "wallets:read")
	for range domain.MaxLiveAPIKeys - 4 {
		newKey(t, alice, "wallets:read")
	}
	keyed := alice.With("Idempotency-Key", "the-last-but-one")
	keyed.Post("/api/api-keys", map[string]any{"name": "x", "scopes": []string{"*"}}).Expect(t, http.StatusOK)

	// One key left: six creations at once, through both instances, in both workspaces.
	statuses := make(chan *apitest.Response, 6)
	for i := range 6 {
		c := []*apitest.Client{alice, inTeam.On(second), alice.On(second), inTeam}[i%4]
		go func() { statuses <- c.Post("/api/api-keys", map[string]any{"name": "race", "scopes": []string{"*"}}) }()
	}
	created := 0
	for range 6 {
		r := <-statuses
		switch r.Status {
		case http.StatusOK:
			created++
		default:
			e := expectError(t, r, http.StatusConflict, "API_KEY_LIMIT_REACHED")
			if limit, _ := e["details"].(map[string]any)["limit"].(json.Number).Int64(); limit != domain.MaxLiveAPIKeys {
				t.Fatalf("refusal %v", e)
			}
		}
	}
	if created != 1 {
		t.Fatalf("%d keys made past the last one left", created)
	}
	expectError(t, inTeam.Post("/api/api-keys", map[string]any{"name": "more", "scopes": []string{"*"}}), http.StatusConflict, "API_KEY_LIMIT_REACHED")
	// A replay of a creation at the cap is the creation's answer, not a refusal.
	keyed.Post("/api/api-keys", map[string]any{"name": "x", "scopes": []string{"*"}}).Expect(t, http.StatusOK)

	inTeam.Delete("/api/api-keys/"+revocable).Expect(t, http.StatusOK)
	newKey(t, inTeam, "wallets:read")
	expectError(t, alice.Post("/api/api-keys", map[string]any{"name": "more", "scopes": []string{"*"}}), http.StatusConflict, "API_KEY_LIMIT_REACHED")
	env.Clock.Set(env.Clock.Now().Add(2 * time.Hour))
	expectError(t, env.Anonymous().With("x-api-key", expiring).Get("/api/wallets"), http.StatusUnauthorized, "UNAUTHORIZED")
	newKey(t, env.As("alice"), "wallets:read")
}

// A person has one request budget, whatever the credentials they use: their API keys
// and sessions draw from it together, on every instance.
func TestRequestLimitIsPerPerson(t *testing.T) {
	opts := apitest.Options()
	opts.RateLimitPerMinute, opts.RateLimitBurst = 60, 4
	env := apitest.StartWith(t, opts)
	second := env.Instance()
	alice, bob := env.As("alice"), env.As("bob")
	first, _ := newKey(t, alice, "wallets:read")
	other, _ := newKey(t, alice, "wallets:read")
	bobKey, _ := newKey(t, bob, "wallets:read")
	env.Clock.Set(env.Clock.Now().Add(time.Minute)) // every bucket full again

	first.Get("/api/wallets").Expect(t, http.StatusOK)
	first.On(second).Get("/api/wallets").Expect(t, http.StatusOK)
	other.Get("/api/wallets").Expect(t, http.StatusOK)
	alice.On(second).Get("/api/wallets").Expect(t, http.StatusOK)
	for _, c := range []*apitest.Client{other.On(second), first, alice} {
		expectError(t, c.Get("/api/wallets"), http.StatusTooManyRequests, "RATE_LIMITED")
	}
	bobKey.Get("/api/wallets").Expect(t, http.StatusOK)
}

// Failed authentications are limited per client address and per key prefix, on every
// instance: past the budget, an address is refused with 429 before its credential
// counts, right or wrong, until the budget refills. The client address is the
// connection's, or what X-Forwarded-For says when a trusted proxy sends it.
func TestFailedAuthenticationsAreLimited(t *testing.T) {
	opts := apitest.Options()
	opts.AuthFailuresPerMinute, opts.AuthFailureBurst = 60, 3
	opts.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	env := apitest.StartWith(t, opts)
	second := env.Instance()
	alice := env.As("alice")
	from := func(c *apitest.Client, addr string) *apitest.Client { return c.With("X-Forwarded-For", addr) }
	badKey := env.Anonymous().With("x-api-key", "fl_live_not-a-key")
	badSession := env.Anonymous().With("Authorization", "Bearer not.a.jwt")

	// Asking without a credential is no failure.
	for range 5 {
		expectError(t, from(env.Anonymous(), "203.0.113.7").Get("/api/wallets"), http.StatusUnauthorized, "UNAUTHORIZED")
	}
	for i, c := range []*apitest.Client{badKey, badSession.On(second), badKey.On(second)} {
		if r := from(c, "198.51.100.1, 203.0.113.7").Get("/api/wallets"); r.Status != http.StatusUnauthorized {
			t.Fatalf("failure %d: %d %s", i+1, r.Status, r.Raw)
		}
	}
	r := from(badKey, "203.0.113.7").Get("/api/wallets")
	expectError(t, r, http.StatusTooManyRequests, "RATE_LIMITED")
	if r.Header.Get("Retry-After") != "1" {
		t.Fatalf("Retry-After %q", r.Header.Get("Retry-After"))
	}
	// The address is refused even with a good credential; another address is not.
	expectError(t, from(alice.On(second), "203.0.113.7").Get("/api/wallets"), http.StatusTooManyRequests, "RATE_LIMITED")
	from(alice, "203.0.113.8").Get("/api/wallets").Expect(t, http.StatusOK)
	// A second later one failure more is let through, and counted.
	env.Clock.Set(env.Clock.Now().Add(1100 * time.Millisecond))
	expectError(t, from(badSession, "203.0.113.7").Get("/api/wallets"), http.StatusUnauthorized, "UNAUTHORIZED")
	expectError(t, from(alice, "203.0.113.7").Get("/api/wallets"), http.StatusTooManyRequests, "RATE_LIMITED")

	// One key guessed from many addresses: its prefix runs out, not the addresses, and
	// the guesses get 429; the key itself still works, from any address.
	live, _ := newKey(t, alice, "wallets:read")
	plaintext := strings.TrimPrefix(live.Headers["Authorization"], "Bearer ")
	guess := env.Anonymous().With("x-api-key", plaintext[:12]+strings.Repeat("x", len(plaintext)-12))
	for i := range 3 {
		expectError(t, from(guess, fmt.Sprintf("192.0.2.%d", i+1)).Get("/api/wallets"), http.StatusUnauthorized, "UNAUTHORIZED")
	}
	expectError(t, from(guess.On(second), "192.0.2.9").Get("/api/wallets"), http.StatusTooManyRequests, "RATE_LIMITED")
	from(live, "192.0.2.9").Get("/api/wallets").Expect(t, http.StatusOK)
	from(live.On(second), "192.0.2.10").Get("/api/wallets").Expect(t, http.StatusOK)
	// A revoked key is a wrong key like any other: its prefix runs out too.
	revoked, id := newKey(t, alice, "wallets:read")
	alice.Delete("/api/api-keys/"+id).Expect(t, http.StatusOK)
	for i := range 3 {
		expectError(t, from(revoked, fmt.Sprintf("192.0.2.%d", i+20)).Get("/api/wallets"), http.StatusUnauthorized, "UNAUTHORIZED")
	}
	expectError(t, from(revoked, "192.0.2.30").Get("/api/wallets"), http.StatusTooManyRequests, "RATE_LIMITED")

	// From a connection that is no trusted proxy, X-Forwarded-For is not believed: every
	// address it names is the connection's.
	direct := env.InstanceWith(func(o *httpapi.Options) { o.TrustedProxies = nil })
	for i := range 3 {
		expectError(t, from(badKey.On(direct), fmt.Sprintf("198.51.100.%d", i+10)).Get("/api/wallets"), http.StatusUnauthorized, "UNAUTHORIZED")
	}
	expectError(t, from(alice.On(direct), "198.51.100.99").Get("/api/wallets"), http.StatusTooManyRequests, "RATE_LIMITED")
}

// An open invitation is withdrawn by its id: the email no longer joins at first sign-in,
// the audit log says so, and only an owner withdraws an invitation to be an owner.
func TestInvitationsCanBeWithdrawn(t *testing.T) {
	env := apitest.Start(t)
	alice, dave := env.As("alice"), env.As("dave")
	dave.Get("/api/me").Expect(t, http.StatusOK)
	ws := alice.Post("/api/workspaces", map[string]any{"name": "Acme"}).Expect(t, http.StatusOK).Object("workspace")["id"].(string)
	members := "/api/workspaces/" + ws + "/members"
	invitations := "/api/workspaces/" + ws + "/invitations/"
	alice.Post(members, map[string]any{"email": "dave@example.com", "role": "admin"}).Expect(t, http.StatusOK)
	carol := alice.Post(members, map[string]any{"email": "Carol@Example.com", "role": "reader"}).Expect(t, http.StatusOK).Object("member")
	boss := alice.Post(members, map[string]any{"email": "boss@example.com", "role": "owner"}).Expect(t, http.StatusOK).Object("member")
	if carol["invitationId"] == nil || carol["userId"] != nil {
		t.Fatalf("invitation %v", carol)
	}
	for _, m := range alice.Get(members).List("members") {
		if (m["status"] == "invited") != (m["invitationId"] != nil) {
			t.Fatalf("member %v: an invitation id only and always on invitations", m)
		}
	}

	expectError(t, dave.Delete(invitations+boss["invitationId"].(string)), http.StatusForbidden, "FORBIDDEN")
	expectError(t, env.As("eve").Delete(invitations+carol["invitationId"].(string)), http.StatusForbidden, "FORBIDDEN")
	dave.Delete(invitations+carol["invitationId"].(string)).Expect(t, http.StatusOK)
	expectError(t, dave.Delete(invitations+carol["invitationId"].(string)), http.StatusNotFound, "INVITATION_NOT_FOUND")
	expectError(t, dave.Delete(invitations+"not-an-id"), http.StatusBadRequest, "VALIDATION_ERROR")
	alice.Delete(invitations+boss["invitationId"].(string)).Expect(t, http.StatusOK)
	if list := alice.Get(members).List("members"); len(list) != 2 {
		t.Fatalf("members after withdrawing both invitations %v", list)
	}
	if list := env.As("carol").Get("/api/workspaces").List("workspaces"); len(list) != 1 {
		t.Fatalf("carol joined a withdrawn invitation: %v", list)
	}
	withdrawn := alice.With("X-Workspace-Id", ws).Get("/api/audit?entity=invitation&action=delete").List("entries")
	if len(withdrawn) != 2 || withdrawn[0]["entityId"] != boss["invitationId"] {
		t.Fatalf("audit of the withdrawals %v", withdrawn)
	}
	// Invited again, the same email is the same invitation.
	again := alice.Post(members, map[string]any{"email": "Boss@example.com", "role": "admin"}).Expect(t, http.StatusOK).Object("member")
	if again["invitationId"] != boss["invitationId"] {
		t.Fatalf("invited again: %v, before %v", again, boss)
	}
}
