package httpapi

import (
	"context"
	"sync"

	"github.com/google/uuid"
)

// Billing is the payment provider as account deletion needs it. The adapter for a real
// provider (Stripe: list the customer's subscriptions by the user id kept in their
// metadata, cancel each) implements it; RecordingBilling stands in until then.
type Billing interface {
	// CancelSubscriptions cancels every subscription of the user; it must be safe to call
	// again for a user whose subscriptions are already cancelled.
	CancelSubscriptions(ctx context.Context, userID uuid.UUID, email string) error
}

// RecordingBilling is an in-process Billing that records the cancellations asked of it.
type RecordingBilling struct {
	mu        sync.Mutex
	cancelled []uuid.UUID
	// Fail, when set, is returned by CancelSubscriptions.
	Fail error
}

// CancelSubscriptions records the call.
func (b *RecordingBilling) CancelSubscriptions(_ context.Context, userID uuid.UUID, _ string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.Fail != nil {
		return b.Fail
	}
	b.cancelled = append(b.cancelled, userID)
	return nil
}

// Cancelled returns the users whose subscriptions were cancelled, in order.
func (b *RecordingBilling) Cancelled() []uuid.UUID {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]uuid.UUID(nil), b.cancelled...)
}
