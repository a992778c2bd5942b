package billing_test

import (
	"context"
	"net"
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
