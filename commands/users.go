package commands

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/finledger/finledger/eventstore"
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

// DefaultCurrency is the currency of a new personal workspace.
const DefaultCurrency = "MXN"

// RegisterUser provisions a user seen for the first time with a personal workspace. It
// is idempotent: a repeat, or a twin racing it on another instance, appends nothing.
func (l *Ledger) RegisterUser(ctx context.Context, id Identity) (uuid.UUID, error) {
	userID := UserIDFor(id.Subject)
	workspaceID := PersonalWorkspaceID(userID)
	_, err := l.Execute(ctx, Call{
		WorkspaceID: workspaceID,
		Metadata:    Metadata{ActorType: ActorUser, ActorID: userID.String(), UserID: userID},
		UserID:      userID,
		OpenUser: &UserRegistered{
			UserID: userID, Subject: id.Subject, Email: id.Email, Name: id.Name, PersonalWorkspaceID: workspaceID,
		},
		OpenWorkspace: &WorkspaceCreated{
			WorkspaceID: workspaceID, Kind: WorkspacePersonal, Name: "Personal", Currency: DefaultCurrency, OwnerID: userID,
		},
	})
	if err != nil {
		return uuid.Nil, fmt.Errorf("commands: register user: %w", err)
	}
	return userID, nil
}

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
func (u *User) Apply(event any) error {
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
			return fmt.Errorf("commands: user state cannot apply %T", event)
		}
	}
	return nil
}

// loadUser folds a user's stream under the lock of its head, so that writers of one
// user's stream take turns. A user's stream is short: profile changes are rare.
func loadUser(ctx context.Context, tx pgx.Tx, id uuid.UUID) (*User, error) {
	stream := UserStreamID(id)
	head, err := eventstore.Version(ctx, tx, stream, true)
	if err != nil {
		return nil, err
	}
	u := &User{ID: id}
	for u.Version < head {
		events, err := eventstore.ReadStream(ctx, tx, stream, u.Version, foldBatch)
		if err != nil {
			return nil, err
		}
		if len(events) == 0 {
			return nil, fmt.Errorf("commands: stream %s ends at %d, head says %d", stream, u.Version, head)
		}
		for _, e := range events {
			data, err := DecodeEvent(e.Type, e.Data)
			if err == nil {
				err = u.Apply(data)
			}
			if err != nil {
				return nil, fmt.Errorf("commands: fold %s@%d: %w", stream, e.Version, err)
			}
			u.Version = e.Version
		}
	}
	return u, nil
}

// UpdateIdentity records a new email or name reported by the identity provider, once:
// requests racing with the same news append one event.
func (l *Ledger) UpdateIdentity(ctx context.Context, userID uuid.UUID, email, name string) error {
	_, err := l.Execute(ctx, Call{
		WorkspaceID: PersonalWorkspaceID(userID),
		Metadata:    Metadata{ActorType: ActorUser, ActorID: userID.String(), UserID: userID},
		UserID:      userID,
		DecideUser: func(u *User) ([]NewEvent, error) {
			if u.Email == email && u.Name == name {
				return nil, nil
			}
			return []NewEvent{{TypeUserIdentityChanged, &UserIdentityChanged{UserID: userID, Email: email, Name: name}}}, nil
		},
	})
	if err != nil {
		return fmt.Errorf("commands: update identity: %w", err)
	}
	return nil
}
