package billing_test

import (
	"context"
	"encoding/json"
	"net"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/finledger/finledger/billing"
	"github.com/finledger/finledger/internal/testkit/stripemock"
)

func stripeAt(t *testing.T, url string) *billing.Stripe {
	t.Helper()
	s, err := billing.NewStripe(billing.StripeConfig{SecretKey: stripemock.Key, APIURL: url})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The adapter searches the user's customers by the id in their metadata, lists each
// one's subscriptions and cancels the live ones.
func TestStripeCancelsTheLiveSubscriptionsOfTheUsersCustomers(t *testing.T) {
	mock := stripemock.Start(t)
	user := uuid.New()
	if err := stripeAt(t, mock.URL).CancelSubscriptions(context.Background(), user); err != nil {
		t.Fatal(err)
	}
	if cancelled := mock.Cancellation(t, user.String()); len(cancelled) == 0 {
		t.Fatal("no subscription cancelled")
	}
}

// Of several customers of the user, each one's active, trialing and past-due
// subscriptions are cancelled, and no other.
func TestStripeCancelsOnlyLiveSubscriptions(t *testing.T) {
	mock := stripemock.Start(t)
	mock.Edit("/v1/customers/search", func(_ url.Values, answer map[string]any) {
		answer["data"] = []any{copied(t, answer, "cus_first"), copied(t, answer, "cus_second")}
	})
	statuses := []string{"active", "trialing", "past_due", "canceled", "incomplete", "incomplete_expired", "unpaid", "paused"}
	mock.Edit("/v1/subscriptions", func(query url.Values, answer map[string]any) {
		var subs []any
		for _, status := range statuses {
			sub := copied(t, answer, "sub_"+query.Get("customer")+"_"+status)
			sub["status"] = status
			subs = append(subs, sub)
		}
		answer["data"] = subs
	})
	user := uuid.New()
	if err := stripeAt(t, mock.URL).CancelSubscriptions(context.Background(), user); err != nil {
		t.Fatal(err)
	}
	cancelled := mock.Cancellation(t, user.String())
	want := []string{"sub_cus_first_active", "sub_cus_first_trialing", "sub_cus_first_past_due",
		"sub_cus_second_active", "sub_cus_second_trialing", "sub_cus_second_past_due"}
	if !slices.Equal(cancelled, want) {
		t.Fatalf("cancelled %v, want %v", cancelled, want)
	}
}

// copied returns a copy of the first object of a list answer, with another id. It runs
// in the proxy, off the test's goroutine: a failure is reported, and the test goes on.
func copied(t *testing.T, answer map[string]any, id string) map[string]any {
	t.Helper()
	out := map[string]any{}
	data, _ := answer["data"].([]any)
	if len(data) == 0 {
		t.Errorf("an empty list: %v", answer)
		return out
	}
	first, err := json.Marshal(data[0])
	if err == nil {
		err = json.Unmarshal(first, &out)
	}
	if err != nil {
		t.Error(err)
	}
	out["id"] = id
	return out
}

// Stripe out of reach is an error soon, after the bounded retries.
func TestStripeUnreachableIsAnError(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String()
	ln.Close()
	start := time.Now()
	if err := stripeAt(t, closed).CancelSubscriptions(context.Background(), uuid.New()); err == nil {
		t.Fatal("no error from a closed port")
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Fatalf("took %v", took)
	}
}

func TestStripeNeedsAKey(t *testing.T) {
	if _, err := billing.NewStripe(billing.StripeConfig{}); err == nil {
		t.Fatal("no key accepted")
	}
	if err := (billing.None{}).CancelSubscriptions(context.Background(), uuid.New()); err != nil {
		t.Fatal(err)
	}
}
