package ledger

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/eventstore"
)

// RegisterUser provisions a user seen for the first time with a personal workspace. It
// is idempotent: a repeat, or a twin racing it on another instance, appends nothing.
func (l *Ledger) RegisterUser(ctx context.Context, id domain.Identity) (uuid.UUID, error) {
	userID := domain.UserIDFor(id.Subject)
	workspaceID := domain.PersonalWorkspaceID(userID)
	_, err := l.Execute(ctx, Call{
		WorkspaceID: workspaceID,
		Metadata:    Metadata{ActorType: ActorUser, ActorID: userID.String(), UserID: userID},
		UserID:      userID,
		OpenUser: &domain.UserRegistered{
			UserID: userID, Subject: id.Subject, Email: id.Email, Name: id.Name, PersonalWorkspaceID: workspaceID,
		},
		OpenWorkspace: &domain.WorkspaceCreated{
			WorkspaceID: workspaceID, Kind: domain.WorkspacePersonal, Name: "Personal", Currency: domain.DefaultCurrency, OwnerID: userID,
		},
	})
	if err != nil {
		return uuid.Nil, fmt.Errorf("domain: register user: %w", err)
	}
	return userID, nil
}

// loadUser folds a user's stream under the lock of its head, so that writers of one
// user's stream take turns. A user's stream is short: profile changes are rare.
func loadUser(ctx context.Context, tx pgx.Tx, id uuid.UUID) (*domain.User, error) {
	stream := domain.UserStreamID(id)
	head, err := eventstore.Version(ctx, tx, stream, true)
	if err != nil {
		return nil, err
	}
	u := &domain.User{ID: id}
	for u.Version < head {
		events, err := eventstore.ReadStream(ctx, tx, stream, u.Version, foldBatch)
		if err != nil {
			return nil, err
		}
		if len(events) == 0 {
			return nil, fmt.Errorf("domain: stream %s ends at %d, head says %d", stream, u.Version, head)
		}
		for _, e := range events {
			data, err := domain.DecodeEvent(e.Type, e.Data)
			if err == nil {
				err = u.Apply(data)
			}
			if err != nil {
				return nil, fmt.Errorf("domain: fold %s@%d: %w", stream, e.Version, err)
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
		WorkspaceID: domain.PersonalWorkspaceID(userID),
		Metadata:    Metadata{ActorType: ActorUser, ActorID: userID.String(), UserID: userID},
		UserID:      userID,
		DecideUser: func(u *domain.User) ([]domain.Event, error) {
			if u.Email == email && u.Name == name {
				return nil, nil
			}
			return []domain.Event{&domain.UserIdentityChanged{UserID: userID, Email: email, Name: name}}, nil
		},
	})
	if err != nil {
		return fmt.Errorf("domain: update identity: %w", err)
	}
	return nil
}
