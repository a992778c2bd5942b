package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/finledger/finledger/billing"
	"github.com/finledger/finledger/internal/testkit/apitest"
	"github.com/finledger/finledger/internal/testkit/stripemock"
)

// Deleting an account with Stripe as the payment provider cancels the user's
// subscriptions there before anything is deleted: with Stripe out of reach the account
// stays, and the person may try again; once deleted, a second deletion is refused and
// cancels nothing.
func TestAccountDeletionCancelsStripeSubscriptionsFirst(t *testing.T) {
	mock := stripemock.Start(t)
	provider, err := billing.NewStripe(billing.StripeConfig{SecretKey: stripemock.Key, APIURL: mock.URL})
	if err != nil {
		t.Fatal(err)
	}
	opts := apitest.Options()
	opts.Billing = provider
	env := apitest.StartWith(t, opts)
	alice := env.As("alice")
	userID := alice.Get("/api/me").Expect(t, http.StatusOK).Object("user")["id"].(string)
	alice.Post("/api/wallets", map[string]any{"name": "Cash"}).Expect(t, http.StatusOK)

	mock.Stop()
	r := alice.Delete("/api/me")
	expectError(t, r, http.StatusServiceUnavailable, "BILLING_UNAVAILABLE")
	if r.Header.Get("Retry-After") == "" {
		t.Fatal("503 without Retry-After")
	}
	if got := mock.Requests(); len(got) != 0 {
		t.Fatalf("Stripe answered while stopped: %v", got)
	}
	alice.Get("/api/me").Expect(t, http.StatusOK)
	if wallets := alice.Get("/api/wallets").List("wallets"); len(wallets) != 1 {
		t.Fatalf("wallets after a failed deletion: %v", wallets)
	}

	mock.Resume()
	alice.Delete("/api/me").Expect(t, http.StatusOK)
	if cancelled := mock.Cancellation(t, userID); len(cancelled) == 0 {
		t.Fatal("no subscription cancelled")
	}
	expectError(t, alice.Get("/api/me"), http.StatusUnauthorized, "UNAUTHORIZED")
	asked := len(mock.Requests())
	expectError(t, alice.Delete("/api/me"), http.StatusUnauthorized, "UNAUTHORIZED")
	if again := mock.Requests()[asked:]; len(again) != 0 {
		t.Fatalf("a second deletion asked Stripe: %v", again)
	}
}
