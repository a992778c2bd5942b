// Package billing owns the payment providers whose subscriptions a person's account
// deletion cancels: None, for a deployment that bills nobody (the default of a
// self-hosted one), and Stripe. Each has the one method httpapi.Billing asks for.
package billing

import (
	"context"

	"github.com/google/uuid"
)

// None is the provider of a deployment that charges nobody: there is never a
// subscription to cancel.
type None struct{}

// CancelSubscriptions has nothing to cancel.
func (None) CancelSubscriptions(context.Context, uuid.UUID) error { return nil }
