package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/google/uuid"

	"github.com/finledger/finledger/internal/testkit/apitest"
)

// keyedAtOnce sends one keyed request nine times at once through three instances and
// checks that exactly one answer carries the secret field, every other one being a
// replay without it. It returns the secret and the answers.
func keyedAtOnce(t *testing.T, env *apitest.Env, c *apitest.Client, path string, body any, field string) (string, []*apitest.Response) {
	t.Helper()
	keyed := c.With("Idempotency-Key", "once-"+uuid.NewString())
	answers := concurrently(9, threeInstances(env), func(_ int, on *apitest.Env) *apitest.Response {
		return keyed.On(on).Post(path, body)
	})
	var secret string
	for _, r := range answers {
		r.Expect(t, http.StatusOK)
		s, shown := r.JSON[field].(string)
		replayed := r.Header.Get("Idempotent-Replayed") == "true"
		switch {
		case shown && !replayed && secret == "":
			secret = s
		case shown:
			t.Fatalf("%s shown twice, or in a replay: %s", field, r.Raw)
		case !replayed:
			t.Fatalf("an answer neither shows the %s nor replays: %s", field, r.Raw)
		}
	}
	if secret == "" {
		t.Fatalf("no answer shows the %s", field)
	}
	return secret, answers
}

// An API key created by one keyed request sent at once to three instances is created
// once, and its plaintext is shown once.
func TestAPIKeyPlaintextShownOnceAtOnce(t *testing.T) {
	env := apitest.Start(t)
	alice := env.As("alice")
	plaintext, answers := keyedAtOnce(t, env, alice, "/api/api-keys", map[string]any{"name": "books", "scopes": []string{"wallets:read"}}, "plaintext")
	id := answers[0].Object("apiKey")["id"]
	for _, r := range answers {
		if r.Object("apiKey")["id"] != id {
			t.Fatalf("two keys: %v and %v", id, r.Object("apiKey")["id"])
		}
	}
	if keys := alice.Get("/api/api-keys").Expect(t, http.StatusOK).List("apiKeys"); len(keys) != 1 {
		t.Fatalf("%d keys", len(keys))
	}
	env.Anonymous().With("Authorization", "Bearer "+plaintext).Get("/api/wallets").Expect(t, http.StatusOK)
}

// A webhook created, and its secret rotated, by keyed requests sent at once to three
// instances: one webhook, one rotation, each secret shown once, and the one shown is
// the one that signs.
func TestWebhookSecretShownOnceAtOnce(t *testing.T) {
	env := apitest.Start(t)
	alice := env.As("alice")
	secret, answers := keyedAtOnce(t, env, alice, "/api/webhooks/outbound", map[string]any{"name": "books", "url": "https://books.example.com/hook"}, "secret")
	id := answers[0].Object("webhook")["id"].(string)
	if hooks := alice.Get("/api/webhooks/outbound").Expect(t, http.StatusOK).List("webhooks"); len(hooks) != 1 {
		t.Fatalf("%d webhooks", len(hooks))
	}
	if stored := storedWebhookSecret(t, env, id); stored != secret {
		t.Fatalf("the stored secret is not the one shown")
	}
	rotated, _ := keyedAtOnce(t, env, alice, "/api/webhooks/outbound/"+id+"/rotate-secret", nil, "secret")
	if stored := storedWebhookSecret(t, env, id); stored != rotated || rotated == secret {
		t.Fatalf("the stored secret is not the one the rotation showed")
	}
	if n := auditCount(t, alice, "webhook", "update"); n != 1 {
		t.Fatalf("%d rotations in the audit log", n)
	}
}

// storedWebhookSecret opens the sealed secret a webhook signs with.
func storedWebhookSecret(t *testing.T, env *apitest.Env, id string) string {
	t.Helper()
	var sealed []byte
	if err := env.Pool.QueryRow(context.Background(), `SELECT sealed_secret FROM webhooks WHERE id = $1`, id).Scan(&sealed); err != nil {
		t.Fatal(err)
	}
	hook := uuid.MustParse(id)
	secret, err := apitest.Box.Open(sealed, hook[:])
	if err != nil {
		t.Fatal(err)
	}
	return string(secret)
}

// An invited user's first requests, sent at once to three instances that cached the
// team before the invitation, make them a member once and spend the invitation; none
// is refused for finding the user registered before the join committed.
func TestInvitationSpentOnceAtOnce(t *testing.T) {
	env := apitest.Start(t)
	instances := threeInstances(env)
	bob := env.As("bob")
	team := bob.Post("/api/workspaces", map[string]any{"name": "Acme"}).Expect(t, http.StatusOK).Object("workspace")["id"].(string)
	inTeam := bob.With("X-Workspace-Id", team)
	for round := range 3 {
		for _, on := range instances {
			inTeam.On(on).Post("/api/wallets", map[string]any{"name": fmt.Sprintf("Ops %d %s", round, on.URL)}).Expect(t, http.StatusOK)
		}
		name := fmt.Sprintf("carol%d", round)
		email := name + "@example.com"
		inTeam.Post("/api/workspaces/"+team+"/members", map[string]any{"email": email, "role": "collaborator"}).Expect(t, http.StatusOK)

		invited := env.As(name).With("X-Workspace-Id", team)
		for _, r := range concurrently(9, instances, func(_ int, on *apitest.Env) *apitest.Response {
			return invited.On(on).Get("/api/wallets")
		}) {
			r.Expect(t, http.StatusOK)
		}
		found := 0
		for _, m := range inTeam.Get("/api/workspaces/"+team+"/members").Expect(t, http.StatusOK).List("members") {
			if m["email"] == email {
				found++
				if m["status"] != "active" || m["role"] != "collaborator" {
					t.Fatalf("%s: %v", name, m)
				}
			}
		}
		if found != 1 {
			t.Fatalf("%s listed %d times", name, found)
		}
		if n := auditCount(t, inTeam, "member", "create"); n != round+1 {
			t.Fatalf("round %d: %d members added in the audit log", round, n)
		}
	}
}
