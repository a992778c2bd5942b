package httpapi_test

import (
	"context"
	"crypto/ecdh"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/finledger/finledger/internal/testkit/apitest"
)

// pushKeys returns the keys of a browser's PushSubscription: a fresh P-256 public key
// and a 16-byte authentication secret, both base64url without padding.
func pushKeys(t *testing.T) map[string]any {
	t.Helper()
	key, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]any{"p256dh": b64(key.PublicKey().Bytes()), "auth": b64(randomBytes(t, 16))}
}

func b64(data []byte) string { return base64.RawURLEncoding.EncodeToString(data) }

func randomBytes(t *testing.T, n int) []byte {
	t.Helper()
	data := make([]byte, n)
	if _, err := rand.Read(data); err != nil {
		t.Fatal(err)
	}
	return data
}

// storedKeys reads a subscription's keys as stored, which the API never shows.
func storedKeys(t *testing.T, env *apitest.Env, id string) (p256dh, auth string) {
	t.Helper()
	if err := env.Pool.QueryRow(context.Background(), `SELECT p256dh, auth FROM push_subscriptions WHERE id = $1`, id).Scan(&p256dh, &auth); err != nil {
		t.Fatal(err)
	}
	return p256dh, auth
}

func pushEndpoints(r *apitest.Response) []string {
	var out []string
	for _, s := range r.List("subscriptions") {
		out = append(out, s["endpoint"].(string))
	}
	return out
}

func TestPushSubscriptions(t *testing.T) {
	env := apitest.Start(t)
	alice := env.As("alice").With("User-Agent", "Firefox on the laptop")
	if list := alice.Get("/api/push/subscriptions").Expect(t, http.StatusOK); string(list.Raw) != `{"subscriptions":[]}` {
		t.Fatalf("empty listing %s", list.Raw)
	}

	laptop := "https://updates.push.services.mozilla.com/wpush/v2/gAAAAABl-laptop"
	keys := pushKeys(t)
	created := alice.Post("/api/push/subscribe", map[string]any{"endpoint": laptop, "keys": keys, "expirationTime": 1798761600000}).
		Expect(t, http.StatusOK)
	sub := created.Object("subscription")
	id, _ := sub["id"].(string)
	if len(id) != 36 || sub["endpoint"] != laptop || sub["expirationTime"] != json.Number("1798761600000") ||
		sub["userAgent"] != "Firefox on the laptop" || sub["createdAt"] != "2026-03-10T18:00:00Z" || sub["updatedAt"] != sub["createdAt"] {
		t.Fatalf("subscription %s", created.Raw)
	}
	for _, secret := range []string{keys["p256dh"].(string), keys["auth"].(string), `"keys"`, "p256dh"} {
		if strings.Contains(string(created.Raw), secret) {
			t.Fatalf("the answer echoes the keys: %s", created.Raw)
		}
	}
	if p256dh, auth := storedKeys(t, env, id); p256dh != keys["p256dh"] || auth != keys["auth"] {
		t.Fatalf("stored keys %s %s", p256dh, auth)
	}

	// The same endpoint again replaces the keys in place: one entry, same id.
	env.Clock.Set(env.Clock.Now().Add(time.Hour))
	newKeys := pushKeys(t)
	again := alice.Post("/api/push/subscribe", map[string]any{"endpoint": laptop, "keys": newKeys, "expirationTime": nil}).
		Expect(t, http.StatusOK).Object("subscription")
	if again["id"] != id || again["createdAt"] != "2026-03-10T18:00:00Z" || again["updatedAt"] != "2026-03-10T19:00:00Z" ||
		again["expirationTime"] != nil {
		t.Fatalf("resubscribed %v", again)
	}
	if p256dh, auth := storedKeys(t, env, id); p256dh != newKeys["p256dh"] || auth != newKeys["auth"] {
		t.Fatal("resubscribing did not replace the keys")
	}
	list := alice.Get("/api/push/subscriptions").Expect(t, http.StatusOK)
	if got := pushEndpoints(list); !slices.Equal(got, []string{laptop}) || strings.Contains(string(list.Raw), newKeys["auth"].(string)) {
		t.Fatalf("listing %s", list.Raw)
	}

	// A second device lists first; padded base64url is accepted too.
	env.Clock.Set(env.Clock.Now().Add(time.Hour))
	phone := "https://fcm.googleapis.com/fcm/send/phone-token:APA91b"
	padded := pushKeys(t)
	for _, k := range []string{"p256dh", "auth"} {
		raw, _ := base64.RawURLEncoding.DecodeString(padded[k].(string))
		padded[k] = base64.URLEncoding.EncodeToString(raw)
	}
	alice.With("User-Agent", "").Post("/api/push/subscribe", map[string]any{"endpoint": phone, "keys": padded}).Expect(t, http.StatusOK)
	list = alice.Get("/api/push/subscriptions").Expect(t, http.StatusOK)
	if got := pushEndpoints(list); !slices.Equal(got, []string{phone, laptop}) || list.List("subscriptions")[0]["userAgent"] != nil {
		t.Fatalf("listing %s", list.Raw)
	}

	// Unsubscribing says whether there was something to remove, and is safe to repeat.
	if r := alice.Post("/api/push/unsubscribe", map[string]any{"endpoint": laptop}).Expect(t, http.StatusOK); string(r.Raw) != `{"removed":true}` {
		t.Fatalf("unsubscribe %s", r.Raw)
	}
	if r := alice.Post("/api/push/unsubscribe", map[string]any{"endpoint": laptop}).Expect(t, http.StatusOK); string(r.Raw) != `{"removed":false}` {
		t.Fatalf("unsubscribe again %s", r.Raw)
	}
	if got := pushEndpoints(alice.Get("/api/push/subscriptions")); !slices.Equal(got, []string{phone}) {
		t.Fatalf("after unsubscribe %v", got)
	}

	// A User-Agent that is not UTF-8 is kept as a label, never a server error.
	odd := alice.With("User-Agent", "Agent\xff\xfe/1").Post("/api/push/subscribe", map[string]any{"endpoint": laptop, "keys": pushKeys(t)}).
		Expect(t, http.StatusOK).Object("subscription")
	if odd["userAgent"] != "Agent/1" {
		t.Fatalf("user agent %v", odd["userAgent"])
	}
}

// Subscriptions belong to one user in one workspace: another member sees none of them
// and cannot remove them, and the same user's other workspace has its own list.
func TestPushSubscriptionsArePerUserAndWorkspace(t *testing.T) {
	env := apitest.Start(t)
	alice, bob := env.As("alice"), env.As("bob")
	bob.Get("/api/me").Expect(t, http.StatusOK)
	team := alice.Post("/api/workspaces", map[string]any{"name": "Acme"}).Expect(t, http.StatusOK).Object("workspace")["id"].(string)
	alice.Post("/api/workspaces/"+team+"/members", map[string]any{"email": "bob@example.com", "role": "admin"}).Expect(t, http.StatusOK)
	in := func(c *apitest.Client) *apitest.Client { return c.With("X-Workspace-Id", team) }

	endpoint := "https://push.example.net/send/alice-browser"
	in(alice).Post("/api/push/subscribe", map[string]any{"endpoint": endpoint, "keys": pushKeys(t)}).Expect(t, http.StatusOK)
	if got := pushEndpoints(in(bob).Get("/api/push/subscriptions").Expect(t, http.StatusOK)); len(got) != 0 {
		t.Fatalf("bob sees %v", got)
	}
	if r := in(bob).Post("/api/push/unsubscribe", map[string]any{"endpoint": endpoint}).Expect(t, http.StatusOK); string(r.Raw) != `{"removed":false}` {
		t.Fatalf("bob's unsubscribe %s", r.Raw)
	}
	if got := pushEndpoints(in(alice).Get("/api/push/subscriptions")); !slices.Equal(got, []string{endpoint}) {
		t.Fatalf("alice's subscription after bob's attempt: %v", got)
	}
	// Bob may subscribe the same endpoint (one browser, two people): a row of his own.
	in(bob).Post("/api/push/subscribe", map[string]any{"endpoint": endpoint, "keys": pushKeys(t)}).Expect(t, http.StatusOK)
	in(bob).Post("/api/push/unsubscribe", map[string]any{"endpoint": endpoint}).Expect(t, http.StatusOK)
	if got := pushEndpoints(in(alice).Get("/api/push/subscriptions")); !slices.Equal(got, []string{endpoint}) {
		t.Fatalf("alice's subscription after bob unsubscribed his own: %v", got)
	}

	// Alice's personal workspace has a list of its own.
	if got := pushEndpoints(alice.Get("/api/push/subscriptions")); len(got) != 0 {
		t.Fatalf("personal workspace lists %v", got)
	}
	if r := alice.Post("/api/push/unsubscribe", map[string]any{"endpoint": endpoint}).Expect(t, http.StatusOK); string(r.Raw) != `{"removed":false}` {
		t.Fatalf("unsubscribe in the personal workspace %s", r.Raw)
	}
	// A stranger cannot act in the team workspace at all.
	expectError(t, in(env.As("eve")).Get("/api/push/subscriptions"), http.StatusForbidden, "FORBIDDEN")
}

// The push operations need a browser session: an API key, even with every scope, is
// refused the way every session-only operation refuses it.
func TestPushRefusesAPIKeys(t *testing.T) {
	env := apitest.Start(t)
	alice := env.As("alice")
	key, _ := newKey(t, alice, "*")
	body := map[string]any{"endpoint": "https://push.example.net/send/k", "keys": pushKeys(t)}
	expectError(t, key.Post("/api/push/subscribe", body), http.StatusForbidden, "FORBIDDEN")
	expectError(t, key.Post("/api/push/unsubscribe", map[string]any{"endpoint": body["endpoint"]}), http.StatusForbidden, "FORBIDDEN")
	expectError(t, key.Get("/api/push/subscriptions"), http.StatusForbidden, "FORBIDDEN")
	expectError(t, env.Anonymous().Get("/api/push/subscriptions"), http.StatusUnauthorized, "UNAUTHORIZED")
	if got := pushEndpoints(alice.Get("/api/push/subscriptions")); len(got) != 0 {
		t.Fatalf("a refused key stored %v", got)
	}
}

func TestPushValidation(t *testing.T) {
	env := apitest.Start(t)
	alice := env.As("alice")
	good := pushKeys(t)
	key, _ := ecdh.P256().GenerateKey(rand.Reader)
	point := key.PublicKey().Bytes()
	withKeys := func(p256dh, auth any) map[string]any {
		return map[string]any{"endpoint": "https://push.example.net/send/x", "keys": map[string]any{"p256dh": p256dh, "auth": auth}}
	}
	notUncompressed := append([]byte{0x05}, point[1:]...)
	offCurve := append([]byte{0x04}, make([]byte, 64)...)
	cases := []struct {
		name string
		body any
		want []string
	}{
		{"missing endpoint", map[string]any{"keys": good}, []string{"endpoint"}},
		{"null endpoint", map[string]any{"endpoint": nil, "keys": good}, []string{"endpoint"}},
		{"http endpoint", map[string]any{"endpoint": "http://push.example.net/send/x", "keys": good}, []string{"endpoint"}},
		{"relative endpoint", map[string]any{"endpoint": "/send/x", "keys": good}, []string{"endpoint"}},
		{"endpoint with credentials", map[string]any{"endpoint": "https://user:pw@push.example.net/x", "keys": good}, []string{"endpoint"}},
		{"endpoint too long", map[string]any{"endpoint": "https://push.example.net/" + strings.Repeat("a", 2030), "keys": good}, []string{"endpoint"}},
		{"endpoint a number", map[string]any{"endpoint": 7, "keys": good}, []string{"endpoint"}},
		{"missing keys", map[string]any{"endpoint": "https://push.example.net/send/x"}, []string{"keys"}},
		{"keys a string", map[string]any{"endpoint": "https://push.example.net/send/x", "keys": "p256dh"}, []string{"keys"}},
		{"keys an array", map[string]any{"endpoint": "https://push.example.net/send/x", "keys": []any{good}}, []string{"keys"}},
		{"keys empty", map[string]any{"endpoint": "https://push.example.net/send/x", "keys": map[string]any{}}, []string{"keys.p256dh", "keys.auth"}},
		{"p256dh not base64url", withKeys("not+base64/url", good["auth"]), []string{"keys.p256dh"}},
		{"p256dh badly padded", withKeys(b64(point)+"==", good["auth"]), []string{"keys.p256dh"}},
		{"p256dh short", withKeys(b64(point[:64]), good["auth"]), []string{"keys.p256dh"}},
		{"p256dh long", withKeys(b64(append(point, 0)), good["auth"]), []string{"keys.p256dh"}},
		{"p256dh compressed", withKeys(b64(notUncompressed), good["auth"]), []string{"keys.p256dh"}},
		{"p256dh off the curve", withKeys(b64(offCurve), good["auth"]), []string{"keys.p256dh"}},
		{"p256dh a number", withKeys(4, good["auth"]), []string{"keys.p256dh"}},
		{"auth not base64url", withKeys(good["p256dh"], "%%%%"), []string{"keys.auth"}},
		{"auth short", withKeys(good["p256dh"], b64(randomBytes(t, 15))), []string{"keys.auth"}},
		{"auth long", withKeys(good["p256dh"], b64(randomBytes(t, 17))), []string{"keys.auth"}},
		{"auth null", withKeys(good["p256dh"], nil), []string{"keys.auth"}},
		{"unknown key", map[string]any{"endpoint": "https://push.example.net/send/x", "keys": map[string]any{
			"p256dh": good["p256dh"], "auth": good["auth"], "secret": "x"}}, []string{"keys.secret"}},
		{"expirationTime a string", map[string]any{"endpoint": "https://push.example.net/send/x", "keys": good, "expirationTime": "1798761600000"},
			[]string{"expirationTime"}},
		{"expirationTime negative", map[string]any{"endpoint": "https://push.example.net/send/x", "keys": good, "expirationTime": -1},
			[]string{"expirationTime"}},
		{"expirationTime past year 9999", map[string]any{"endpoint": "https://push.example.net/send/x", "keys": good, "expirationTime": 1e17},
			[]string{"expirationTime"}},
		{"expirationTime out of range", `{"endpoint":"https://push.example.net/send/x","keys":{"p256dh":"` + good["p256dh"].(string) +
			`","auth":"` + good["auth"].(string) + `"},"expirationTime":1e400}`, []string{"expirationTime"}},
		{"unknown field", map[string]any{"endpoint": "https://push.example.net/send/x", "keys": good, "options": map[string]any{}}, []string{"options"}},
		{"everything wrong", map[string]any{"endpoint": "ftp://x", "keys": map[string]any{"p256dh": "", "auth": 1}, "expirationTime": true},
			[]string{"endpoint", "keys.p256dh", "keys.auth", "expirationTime"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := fieldErrors(t, alice.Post("/api/push/subscribe", c.body))
			if !slices.Equal(got, c.want) {
				t.Fatalf("fields %v, want %v", got, c.want)
			}
		})
	}
	for _, raw := range []string{`[]`, `{"endpoint":`, `"https://push.example.net"`, `{"keys":{"p256dh":"a"}}{}`} {
		expectError(t, alice.Post("/api/push/subscribe", raw), http.StatusBadRequest, "INVALID_JSON")
	}
	for _, body := range []any{map[string]any{}, map[string]any{"endpoint": "http://push.example.net/x"},
		map[string]any{"endpoint": []any{"https://push.example.net/x"}}, map[string]any{"endpoint": "https://push.example.net/x", "keys": good}} {
		fieldErrors(t, alice.Post("/api/push/unsubscribe", body))
	}
	var n int
	if err := env.Pool.QueryRow(context.Background(), `SELECT count(*) FROM push_subscriptions`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("refused requests stored %d subscriptions (%v)", n, err)
	}

	// An exponent far out of range costs nothing and still means zero.
	ok := alice.Post("/api/push/subscribe", `{"endpoint":"https://push.example.net/send/x","keys":{"p256dh":"`+good["p256dh"].(string)+
		`","auth":"`+good["auth"].(string)+`"},"expirationTime":0e-999999999}`).Expect(t, http.StatusOK).Object("subscription")
	if ok["expirationTime"] != json.Number("0") {
		t.Fatalf("expirationTime %v", ok["expirationTime"])
	}
}
