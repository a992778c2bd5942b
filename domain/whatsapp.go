package domain

import (
	"time"

	"github.com/google/uuid"
)

// Event types of the chat-channel link, on the user's stream.
const (
	TypeWhatsAppLinked              = "whatsapp.linked.v1"
	TypeWhatsAppUnlinked            = "whatsapp.unlinked.v1"
	TypeWhatsAppSuspended           = "whatsapp.link_suspended.v1"
	TypeWhatsAppFingerprintRecorded = "whatsapp.fingerprint_recorded.v1"
	TypeWhatsAppWorkspaceChanged    = "whatsapp.workspace_changed.v1"
)

// Link statuses.
const (
	LinkActive    = "active"
	LinkSuspended = "suspended"
)

// WhatsAppLinked links a phone to the user and a workspace; it replaces any link the
// user had, and takes the phone from any other user.
type WhatsAppLinked struct {
	LinkID      uuid.UUID `json:"linkId"`
	PhoneKey    []byte    `json:"phoneKey" secret:"true"`
	PhoneMasked string    `json:"phoneMasked"`
	WorkspaceID uuid.UUID `json:"workspaceId"`
	Fingerprint string    `json:"fingerprint,omitempty"`
}

// EventType names WhatsAppLinked in history.
func (WhatsAppLinked) EventType() string { return TypeWhatsAppLinked }

func (WhatsAppLinked) sealed() {}

// WhatsAppUnlinked removes the user's link.
type WhatsAppUnlinked struct {
	LinkID uuid.UUID `json:"linkId"`
}

// EventType names WhatsAppUnlinked in history.
func (WhatsAppUnlinked) EventType() string { return TypeWhatsAppUnlinked }

func (WhatsAppUnlinked) sealed() {}

// WhatsAppSuspended pauses a link whose identity key changed.
type WhatsAppSuspended struct {
	LinkID uuid.UUID `json:"linkId"`
	Reason string    `json:"reason"`
}

// EventType names WhatsAppSuspended in history.
func (WhatsAppSuspended) EventType() string { return TypeWhatsAppSuspended }

func (WhatsAppSuspended) sealed() {}

// WhatsAppFingerprintRecorded stores the first identity key fingerprint a link sees.
type WhatsAppFingerprintRecorded struct {
	LinkID      uuid.UUID `json:"linkId"`
	Fingerprint string    `json:"fingerprint"`
}

// EventType names WhatsAppFingerprintRecorded in history.
func (WhatsAppFingerprintRecorded) EventType() string { return TypeWhatsAppFingerprintRecorded }

func (WhatsAppFingerprintRecorded) sealed() {}

// WhatsAppWorkspaceChanged points the channel at another of the user's workspaces.
type WhatsAppWorkspaceChanged struct {
	LinkID      uuid.UUID `json:"linkId"`
	WorkspaceID uuid.UUID `json:"workspaceId"`
}

// EventType names WhatsAppWorkspaceChanged in history.
func (WhatsAppWorkspaceChanged) EventType() string { return TypeWhatsAppWorkspaceChanged }

func (WhatsAppWorkspaceChanged) sealed() {}

// Link is the user's chat-channel link as the write side sees it.
type Link struct {
	ID          uuid.UUID
	Status      string
	Fingerprint string
}

// applyLink folds link events into the user state.
func (u *User) applyLink(event Event) bool {
	switch e := event.(type) {
	case *WhatsAppLinked:
		u.Link = &Link{ID: e.LinkID, Status: LinkActive, Fingerprint: e.Fingerprint}
	case *WhatsAppUnlinked:
		u.Link = nil
	case *WhatsAppSuspended:
		if u.Link != nil {
			u.Link.Status = LinkSuspended
		}
	case *WhatsAppFingerprintRecorded:
		if u.Link != nil {
			u.Link.Fingerprint = e.Fingerprint
		}
	case *WhatsAppWorkspaceChanged:
	default:
		return false
	}
	return true
}

// LinkPhone links a phone: a new link, or the renewal of a suspended one, with the
// fingerprint of the request that links it.
type LinkPhone struct {
	LinkID      uuid.UUID
	PhoneKey    []byte
	PhoneMasked string
	WorkspaceID uuid.UUID
	Fingerprint string
}

// DecideUser returns the link.
func (c LinkPhone) DecideUser(*User) ([]Event, error) {
	return []Event{&WhatsAppLinked{LinkID: c.LinkID, PhoneKey: c.PhoneKey, PhoneMasked: c.PhoneMasked,
		WorkspaceID: c.WorkspaceID, Fingerprint: c.Fingerprint}}, nil
}

// UnlinkPhone removes the user's link.
type UnlinkPhone struct{}

// DecideUser removes a link there is.
func (UnlinkPhone) DecideUser(u *User) ([]Event, error) {
	if u.Link == nil {
		return nil, NotFound("WHATSAPP_NOT_LINKED", "no phone is linked")
	}
	return []Event{&WhatsAppUnlinked{LinkID: u.Link.ID}}, nil
}

// CheckFingerprint applies the fingerprint rule (spec 5.4 rule 6): the first one seen
// is kept; another one suspends the link.
type CheckFingerprint struct {
	LinkID      uuid.UUID
	Fingerprint string
}

// DecideUser records or compares the fingerprint.
func (c CheckFingerprint) DecideUser(u *User) ([]Event, error) {
	if u.Link == nil || u.Link.ID != c.LinkID || u.Link.Status != LinkActive || c.Fingerprint == "" {
		return nil, nil
	}
	switch u.Link.Fingerprint {
	case c.Fingerprint:
		return nil, nil
	case "":
		return []Event{&WhatsAppFingerprintRecorded{LinkID: c.LinkID, Fingerprint: c.Fingerprint}}, nil
	}
	return []Event{&WhatsAppSuspended{LinkID: c.LinkID, Reason: "identity_changed"}}, nil
}

// ChangeLinkWorkspace points the channel at another workspace.
type ChangeLinkWorkspace struct {
	LinkID      uuid.UUID
	WorkspaceID uuid.UUID
}

// DecideUser records the change.
func (c ChangeLinkWorkspace) DecideUser(u *User) ([]Event, error) {
	if u.Link == nil || u.Link.ID != c.LinkID {
		return nil, NotFound("WHATSAPP_NOT_LINKED", "no phone is linked")
	}
	return []Event{&WhatsAppWorkspaceChanged{LinkID: c.LinkID, WorkspaceID: c.WorkspaceID}}, nil
}

// ChannelWindow is how long after recording a transaction the channel may undo or
// correct it as "the last one" (spec 4.B rule 1).
const ChannelWindow = 24 * time.Hour
