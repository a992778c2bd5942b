package billing

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/stripe/stripe-go/v85"
)

// UserIDKey is the key of the customer metadata that holds the Finledger user id of a
// Stripe customer. Whatever creates the customers (a checkout of the deployment's own)
// sets it; the adapter finds a user's customers by it and by nothing else, so that a
// Stripe account that also sells other things never has those cancelled.
const UserIDKey = "finledger_user_id"

// liveStatuses are the states of a subscription that still charges, or will: those are
// cancelled. Canceled, incomplete_expired and the rest are left as they are.
var liveStatuses = map[stripe.SubscriptionStatus]bool{
	stripe.SubscriptionStatusActive:   true,
	stripe.SubscriptionStatusTrialing: true,
	stripe.SubscriptionStatusPastDue:  true,
}

// StripeConfig is how the adapter reaches Stripe.
type StripeConfig struct {
	// SecretKey is a secret (sk_) or restricted (rk_) key allowed to read customers and
	// to read and cancel subscriptions.
	SecretKey string
	// APIURL replaces https://api.stripe.com, for a stripe-mock or a proxy; "" keeps it.
	APIURL string
}

// Stripe cancels a user's subscriptions through Stripe's API.
type Stripe struct {
	client *stripe.Client
}

// stripeTimeout bounds one request to Stripe; the caller's context bounds them all.
const stripeTimeout = 15 * time.Second

// stripeRetries bounds the retries of a request that failed on the network or that
// Stripe said may be retried; stripe-go waits between them.
const stripeRetries = 2

// NewStripe returns the adapter; it refuses a config without a key.
func NewStripe(cfg StripeConfig) (*Stripe, error) {
	if cfg.SecretKey == "" {
		return nil, errors.New("billing: Stripe needs a secret key")
	}
	backendConfig := &stripe.BackendConfig{
		HTTPClient:        &http.Client{Timeout: stripeTimeout},
		MaxNetworkRetries: stripe.Int64(stripeRetries),
		// Failures come back as errors, which the caller logs with the request's id.
		LeveledLogger:   &stripe.LeveledLogger{Level: stripe.LevelNull},
		EnableTelemetry: stripe.Bool(false),
	}
	if cfg.APIURL != "" {
		backendConfig.URL = stripe.String(cfg.APIURL)
	}
	return &Stripe{client: stripe.NewClient(cfg.SecretKey, stripe.WithBackends(stripe.NewBackendsWithConfig(backendConfig)))}, nil
}

// CancelSubscriptions cancels, at once and without proration, every live subscription
// of every Stripe customer whose metadata names the user. It finds those customers with
// Stripe's customer search: the list endpoint filters by email only, and an email
// changes and may be shared by customers of other products, while the user id does not.
// The search lags writes by up to a minute (more during Stripe's incidents), which
// deletion, unlike a read after a write, can bear; it is not offered to accounts in
// India. Already cancelled subscriptions are not listed again, so a retry after a
// partial failure cancels only what is left.
func (s *Stripe) CancelSubscriptions(ctx context.Context, userID uuid.UUID) error {
	search := &stripe.CustomerSearchParams{SearchParams: stripe.SearchParams{
		Query: fmt.Sprintf("metadata['%s']:'%s'", UserIDKey, userID), Limit: stripe.Int64(100)}}
	var customers []string
	for customer, err := range s.client.V1Customers.Search(ctx, search).All(ctx) {
		if err != nil {
			return fmt.Errorf("billing: search the Stripe customers of user %s: %w", userID, err)
		}
		customers = append(customers, customer.ID)
	}
	for _, customer := range customers {
		if err := s.cancelCustomer(ctx, customer); err != nil {
			return err
		}
	}
	return nil
}

// cancelCustomer cancels the live subscriptions of one customer.
func (s *Stripe) cancelCustomer(ctx context.Context, customer string) error {
	// Without a status, Stripe lists every subscription not cancelled: one request per
	// hundred, where asking for each live status would take three.
	list := &stripe.SubscriptionListParams{Customer: stripe.String(customer), ListParams: stripe.ListParams{Limit: stripe.Int64(100)}}
	var live []string
	for sub, err := range s.client.V1Subscriptions.List(ctx, list).All(ctx) {
		if err != nil {
			return fmt.Errorf("billing: list the subscriptions of Stripe customer %s: %w", customer, err)
		}
		if liveStatuses[sub.Status] {
			live = append(live, sub.ID)
		}
	}
	for _, id := range live {
		if _, err := s.client.V1Subscriptions.Cancel(ctx, id, &stripe.SubscriptionCancelParams{}); err != nil {
			return fmt.Errorf("billing: cancel Stripe subscription %s of customer %s: %w", id, customer, err)
		}
	}
	return nil
}
