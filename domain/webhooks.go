package domain

import (
	"slices"

	"github.com/google/uuid"
)

// Event types of outbound webhook subscriptions.
const (
	TypeWebhookCreated = "webhook.created.v1"
	TypeWebhookUpdated = "webhook.updated.v1"
	TypeWebhookDeleted = "webhook.deleted.v1"
	// TypeWebhookSecretRotated replaces a webhook's signing secret.
	TypeWebhookSecretRotated = "webhook.secret_rotated.v1"
)

// The public names of the events a webhook subscription receives.
const (
	HookTransactionCreated     = "transaction.created"
	HookTransactionUpdated     = "transaction.updated"
	HookTransactionDeleted     = "transaction.deleted"
	HookWalletCreated          = "wallet.created"
	HookWalletUpdated          = "wallet.updated"
	HookCategoryCreated        = "category.created"
	HookBudgetCreated          = "budget.created"
	HookBudgetThresholdReached = "budget.threshold_reached"
	HookGoalDeposit            = "goal.deposit"
	HookGoalWithdrawal         = "goal.withdrawal"
	HookDebtPayment            = "debt.payment"
	HookRecurringPaid          = "recurring.paid"
	HookRecurringSkipped       = "recurring.skipped"
	HookImportCommitted        = "import.committed"
	HookImportUndone           = "import.undone"
	HookProposalCreated        = "proposal.created"
	HookProposalRejected       = "proposal.rejected"
	HookProposalSettled        = "proposal.settled"
	HookTest                   = "webhook.test"
	// HookAll subscribes to every event, current and future.
	HookAll = "*"
)

// HookEvents lists every public event name.
var HookEvents = []string{
	HookTransactionCreated, HookTransactionUpdated, HookTransactionDeleted, HookWalletCreated, HookWalletUpdated,
	HookCategoryCreated, HookBudgetCreated, HookBudgetThresholdReached, HookGoalDeposit, HookGoalWithdrawal,
	HookDebtPayment, HookRecurringPaid, HookRecurringSkipped, HookImportCommitted, HookImportUndone,
	HookProposalCreated, HookProposalRejected, HookProposalSettled, HookTest,
}

// MaxWebhooks bounds a workspace's live subscriptions.
const MaxWebhooks = 25

// WebhookFields are a subscription's editable fields.
type WebhookFields struct {
	Name   string   `json:"name"`
	URL    string   `json:"url"`
	Events []string `json:"events"`
	Active bool     `json:"active"`
}

// Wants reports whether the subscription receives an event name.
func (f WebhookFields) Wants(name string) bool {
	return f.Active && (slices.Contains(f.Events, HookAll) || slices.Contains(f.Events, name))
}

// WebhookCreated adds a subscription. Its signing secret is kept sealed with the
// service's key: deliveries need it back, so it cannot be hashed like an API key.
type WebhookCreated struct {
	WebhookID    uuid.UUID `json:"webhookId"`
	SealedSecret []byte    `json:"sealedSecret" secret:"true"`
	CreatedBy    uuid.UUID `json:"createdBy"`
	WebhookFields
}

// EventType names WebhookCreated in history.
func (WebhookCreated) EventType() string { return TypeWebhookCreated }

func (WebhookCreated) sealed() {}

// WebhookUpdated replaces a subscription's fields.
type WebhookUpdated struct {
	WebhookID uuid.UUID     `json:"webhookId"`
	Before    WebhookFields `json:"before"`
	After     WebhookFields `json:"after"`
}

// EventType names WebhookUpdated in history.
func (WebhookUpdated) EventType() string { return TypeWebhookUpdated }

func (WebhookUpdated) sealed() {}

// WebhookDeleted removes a subscription; its delivery history stays readable to no one.
type WebhookDeleted struct {
	WebhookID uuid.UUID `json:"webhookId"`
}

// EventType names WebhookDeleted in history.
func (WebhookDeleted) EventType() string { return TypeWebhookDeleted }

func (WebhookDeleted) sealed() {}

// WebhookSecretRotated gives a subscription a new signing secret, sealed like the first.
type WebhookSecretRotated struct {
	WebhookID    uuid.UUID `json:"webhookId"`
	SealedSecret []byte    `json:"sealedSecret" secret:"true"`
}

// EventType names WebhookSecretRotated in history.
func (WebhookSecretRotated) EventType() string { return TypeWebhookSecretRotated }

func (WebhookSecretRotated) sealed() {}

// Webhook is a subscription as the write side sees it.
type Webhook struct {
	WebhookFields
	Deleted bool
}

// applyWebhook folds the events of webhook subscriptions.
func (w *Workspace) applyWebhook(event Event) (bool, error) {
	switch e := event.(type) {
	case *WebhookCreated:
		w.Webhooks[e.WebhookID] = &Webhook{WebhookFields: e.WebhookFields}
	case *WebhookUpdated:
		h, err := find(w.Webhooks, e.WebhookID, "webhook")
		if err != nil {
			return true, err
		}
		h.WebhookFields = e.After
	case *WebhookDeleted:
		h, err := find(w.Webhooks, e.WebhookID, "webhook")
		if err != nil {
			return true, err
		}
		h.Deleted = true
	case *WebhookSecretRotated:
		if _, err := find(w.Webhooks, e.WebhookID, "webhook"); err != nil {
			return true, err
		}
	default:
		return false, nil
	}
	return true, nil
}

// checkHookEvents validates a list of event names and returns it without repeats.
func checkHookEvents(events []string) ([]string, error) {
	if len(events) == 0 {
		return nil, InvalidField("events", "must name at least one event, or \"*\"")
	}
	var out []string
	for _, name := range events {
		if name != HookAll && !slices.Contains(HookEvents, name) {
			return nil, InvalidField("events", "%q is not an event; use \"*\" or one of %v", name, HookEvents)
		}
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out, nil
}

// CreateWebhook subscribes a URL to the workspace's events.
type CreateWebhook struct {
	WebhookID    uuid.UUID
	Fields       WebhookFields
	SealedSecret []byte
	CreatedBy    uuid.UUID
}

// Decide checks the event names and the workspace's limit.
func (c CreateWebhook) Decide(w *Workspace) ([]Event, error) {
	events, err := checkHookEvents(c.Fields.Events)
	if err != nil {
		return nil, err
	}
	live := 0
	for _, h := range w.Webhooks {
		if !h.Deleted {
			live++
		}
	}
	if live >= MaxWebhooks {
		return nil, Conflict("WEBHOOK_LIMIT", "a workspace can have at most %d webhooks", MaxWebhooks)
	}
	fields := c.Fields
	fields.Events = events
	return []Event{&WebhookCreated{WebhookID: c.WebhookID, SealedSecret: c.SealedSecret,
		CreatedBy: c.CreatedBy, WebhookFields: fields}}, nil
}

// UpdateWebhook changes a subscription; absent fields keep their value.
type UpdateWebhook struct {
	WebhookID uuid.UUID
	Name      Nullable[string]
	URL       Nullable[string]
	Events    Nullable[[]string]
	Active    Nullable[bool]
}

// Decide applies the changes to a live subscription.
func (c UpdateWebhook) Decide(w *Workspace) ([]Event, error) {
	h, ok := w.Webhooks[c.WebhookID]
	if !ok || h.Deleted {
		return nil, NotFound("WEBHOOK_NOT_FOUND", "webhook %s not found", c.WebhookID)
	}
	after := h.WebhookFields
	setValue(&after.Name, c.Name)
	setValue(&after.URL, c.URL)
	setValue(&after.Active, c.Active)
	if c.Events.Valid {
		events, err := checkHookEvents(c.Events.Value)
		if err != nil {
			return nil, err
		}
		after.Events = events
	}
	return []Event{&WebhookUpdated{WebhookID: c.WebhookID, Before: h.WebhookFields, After: after}}, nil
}

// DeleteWebhook removes a subscription.
type DeleteWebhook struct {
	WebhookID uuid.UUID
}

// Decide removes a live subscription.
func (c DeleteWebhook) Decide(w *Workspace) ([]Event, error) {
	if h, ok := w.Webhooks[c.WebhookID]; !ok || h.Deleted {
		return nil, NotFound("WEBHOOK_NOT_FOUND", "webhook %s not found", c.WebhookID)
	}
	return []Event{&WebhookDeleted{WebhookID: c.WebhookID}}, nil
}

// RotateWebhookSecret replaces a live subscription's signing secret; the caller keeps
// the new one.
type RotateWebhookSecret struct {
	WebhookID    uuid.UUID
	SealedSecret []byte
}

// Decide checks the subscription is live.
func (c RotateWebhookSecret) Decide(w *Workspace) ([]Event, error) {
	if h, ok := w.Webhooks[c.WebhookID]; !ok || h.Deleted {
		return nil, NotFound("WEBHOOK_NOT_FOUND", "webhook %s not found", c.WebhookID)
	}
	return []Event{&WebhookSecretRotated{WebhookID: c.WebhookID, SealedSecret: c.SealedSecret}}, nil
}
