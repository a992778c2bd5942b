package httpapi

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/google/uuid"

	"github.com/finledger/finledger/commands"
	"github.com/finledger/finledger/httpapi/session"
	"github.com/finledger/finledger/queries"
)

// principal is the authenticated caller and the workspace the request acts in.
type principal struct {
	User      queries.User
	Workspace queries.Workspace
	// Credential names who made the request for idempotency keys: keys of different
	// callers never collide.
	Credential string
	Metadata   commands.Metadata
}

type principalKey struct{}

func principalFrom(ctx context.Context) *principal {
	p, _ := ctx.Value(principalKey{}).(*principal)
	return p
}

// subjectOf qualifies the identity provider's subject with its issuer, so that two
// providers' subjects never name the same user.
func subjectOf(c session.Claims) string {
	if c.Issuer == "" {
		return c.Subject
	}
	return c.Issuer + "|" + c.Subject
}

// authenticate resolves the bearer token to a user, provisioning users seen for the
// first time, and picks the active workspace from X-Workspace-Id.
func (s *Server) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, err := s.resolve(r)
		if err != nil {
			writeError(w, r, err)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), principalKey{}, p)))
	})
}

func (s *Server) resolve(r *http.Request) (*principal, error) {
	ctx := r.Context()
	token, ok := bearerToken(r)
	if !ok {
		return nil, errUnauthorized
	}
	claims, err := s.sessions.Verify(ctx, token)
	if err != nil {
		if errors.Is(err, session.ErrInvalidToken) {
			return nil, errorf(http.StatusUnauthorized, "UNAUTHORIZED", "the session token is not valid")
		}
		return nil, err
	}
	var wsID *uuid.UUID
	if h := r.Header.Get("X-Workspace-Id"); h != "" {
		id, err := parseUUID(h)
		if err != nil {
			return nil, commands.InvalidField("X-Workspace-Id", "must be a UUID")
		}
		wsID = &id
	}
	subject := subjectOf(claims)
	sc, err := queries.SessionContext(ctx, s.pool, subject, wsID)
	if errors.Is(err, queries.ErrNotFound) {
		if _, err := s.ledger.RegisterUser(ctx, commands.Identity{Subject: subject, Email: claims.Email, Name: claims.Name}); err != nil {
			return nil, err
		}
		sc, err = queries.SessionContext(ctx, s.pool, subject, wsID)
	}
	if err != nil {
		return nil, err
	}
	if sc.User.Email != claims.Email || derefOr(sc.User.Name, "") != claims.Name {
		if err := s.ledger.UpdateIdentity(ctx, sc.User.ID, claims.Email, claims.Name); err != nil {
			return nil, err
		}
		sc.User.Email, sc.User.Name = claims.Email, nilIfEmpty(claims.Name)
	}
	if sc.Workspace == nil {
		return nil, errorf(http.StatusForbidden, "FORBIDDEN", "you are not a member of that workspace")
	}
	return &principal{
		User:       sc.User,
		Workspace:  *sc.Workspace,
		Credential: "user:" + sc.User.ID.String(),
		Metadata: commands.Metadata{
			ActorType: "user", ActorID: sc.User.ID.String(), UserID: sc.User.ID,
			UserAgent: r.UserAgent(), RequestID: requestID(ctx),
		},
	}, nil
}

func bearerToken(r *http.Request) (string, bool) {
	h := r.Header.Get("Authorization")
	scheme, token, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}

func derefOr(s *string, fallback string) string {
	if s == nil {
		return fallback
	}
	return *s
}

func nilIfEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
