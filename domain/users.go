package domain

import (
	"fmt"

	"github.com/google/uuid"
)

// idNamespace derives stable ids from identities, so that the first requests of a new
// user racing each other provision exactly one user and one personal workspace.
var idNamespace = uuid.MustParse("6f1c2a4e-8d0b-4c55-9b7e-2f1d9a3c7e10")

// Identity is a person as the identity provider names them.
type Identity struct {
	Subject string // unique and stable at the identity provider; qualified by issuer
	Email   string
	Name    string
}

// UserIDFor returns the user id of an identity provider subject.
func UserIDFor(subject string) uuid.UUID {
	return uuid.NewSHA1(idNamespace, []byte("user\x00"+subject))
}

// PersonalWorkspaceID returns the id of a user's personal workspace.
func PersonalWorkspaceID(userID uuid.UUID) uuid.UUID {
	return uuid.NewSHA1(idNamespace, []byte("personal\x00"+userID.String()))
}

// DefaultCurrency is the currency of a new personal workspace, and of a team workspace
// or a wallet created without one.
const DefaultCurrency = "MXN"

// User is the write-side state of a user stream.
type User struct {
	ID                  uuid.UUID
	Version             int64
	Exists              bool
	Deleted             bool
	PersonalWorkspaceID uuid.UUID
	Email, Name         string // as the identity provider last reported them
	Profile             Profile
	Link                *Link // the chat-channel link, nil when there is none
}

// DefaultProfile is the profile of a new user.
var DefaultProfile = Profile{Theme: "system", NotificationsEnabled: true}

// Apply folds one event of the user's stream into the state.
func (u *User) Apply(event Event) error {
	switch e := event.(type) {
	case *UserRegistered:
		u.Exists, u.PersonalWorkspaceID, u.Profile = true, e.PersonalWorkspaceID, DefaultProfile
		u.Email, u.Name = e.Email, e.Name
	case *UserIdentityChanged:
		u.Email, u.Name = e.Email, e.Name
	case *UserProfileUpdated:
		u.Profile = e.After
	case *UserDeleted:
		u.Deleted = true
	default:
		if !u.applyLink(event) {
			return fmt.Errorf("domain: user state cannot apply %T: %w", event, ErrUnknownEvent)
		}
	}
	return nil
}
