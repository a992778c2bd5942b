package httpapi

import (
	"context"

	"github.com/google/uuid"
)

// Billing is the payment provider as account deletion needs it; package billing holds
// the providers (none, Stripe).
type Billing interface {
	// CancelSubscriptions cancels every subscription of the user; it must be safe to call
	// again for a user whose subscriptions are already cancelled, or some of them.
	CancelSubscriptions(ctx context.Context, userID uuid.UUID) error
}

// billingRetryAfter is the Retry-After, in seconds, of a deletion the payment provider
// failed: Stripe's own incidents last minutes, and a person retries by hand.
const billingRetryAfter = 30
