package httpapi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/httpapi/channel"
	"github.com/finledger/finledger/ledger"
	"github.com/finledger/finledger/queries"
)

// channelHeader carries the chat channel's signed identity.
const channelHeader = "X-Channel-Identity"

// channelOnly marks the route table's operations that only the chat channel calls.
const channelOnly = "channel"

// Chat-channel rate limits (spec 8): requests per phone, and link attempts per phone.
var (
	channelLimiter = rateLimiter{perMinute: 30, burst: 30, counts: "requests from this phone"}
	linkLimiter    = rateLimiter{perMinute: 5, burst: 5, counts: "link attempts from this phone"}
)

// channelCaller is the chat channel's side of a principal.
type channelCaller struct {
	Identity channel.Identity
	PhoneKey []byte
	Link     *queries.LinkContext // nil before the phone is linked
}

// channelSettings holds the verifier; nil means the channel is not configured. Link
// codes are drawn from codes either way: a code can be issued before the channel is.
type channelSettings struct {
	verifier *channel.Verifier
	secret   string
	codes    io.Reader
}

func newChannelSettings(opts ChannelOptions, pool *pgxpool.Pool, now func() time.Time) channelSettings {
	codes := opts.CodeRandom
	if codes == nil {
		codes = rand.Reader
	}
	v, err := channel.NewVerifier(opts.Secret, opts.Issuer, opts.Audiences, now, pgJTIs{pool})
	if err != nil {
		return channelSettings{codes: codes}
	}
	return channelSettings{verifier: v, secret: opts.Secret, codes: codes}
}

// pgJTIs keeps used token ids in PostgreSQL, shared by every instance.
type pgJTIs struct{ pool *pgxpool.Pool }

func (s pgJTIs) Use(ctx context.Context, jti uuid.UUID, until time.Time) (bool, error) {
	tag, err := s.pool.Exec(ctx, `INSERT INTO channel_jtis (jti, expires_at) VALUES ($1, $2) ON CONFLICT (jti) DO NOTHING`, jti, until)
	if err != nil {
		return false, fmt.Errorf("httpapi: record jti: %w", err)
	}
	return tag.RowsAffected() == 1, nil
}

// jtiClockMargin is how long a token id is kept after the last second its token can be
// accepted: every instance purges by its own clock, and one running ahead must not
// forget an id that another, running behind, would still accept the token of.
const jtiClockMargin = 10 * time.Minute

// PurgeChannelTokens forgets token ids that can no longer be presented.
func PurgeChannelTokens(ctx context.Context, db queries.DB, now time.Time) (int64, error) {
	tag, err := db.Exec(ctx, `DELETE FROM channel_jtis WHERE expires_at < $1`, now.Add(-jtiClockMargin))
	if err != nil {
		return 0, fmt.Errorf("httpapi: purge channel tokens: %w", err)
	}
	return tag.RowsAffected(), nil
}

func channelReasonMissing() *channel.Error {
	return &channel.Error{Reason: channel.ReasonMissing, Detail: "the chat channel's operations need the " + channelHeader + " header"}
}

// identityError answers a refused identity: 401 with details.reason.
func identityError(e *channel.Error) error {
	return &apiError{Status: http.StatusUnauthorized, Code: "WHATSAPP_IDENTITY_INVALID",
		Message: "the channel identity is not valid: " + e.Detail, Details: map[string]string{"reason": e.Reason}}
}

var (
	errChannelOff = errorf(http.StatusServiceUnavailable, "WHATSAPP_NOT_CONFIGURED",
		"the chat channel is not configured on this server")
	errNotLinked = errorf(http.StatusUnauthorized, "WHATSAPP_NOT_LINKED",
		"this number is not linked: open Finledger, go to Settings > WhatsApp, ask for a link code and send it here")
	errSuspended = errorf(http.StatusUnauthorized, "WHATSAPP_LINK_SUSPENDED",
		"this link is paused for your security: link the number again from Settings > WhatsApp")
)

// resolveChannel authenticates a chat-channel request (spec 5.4).
func (s *Server) resolveChannel(r *http.Request, key string, allowed bool) (*principal, error) {
	ctx := r.Context()
	if r.Header.Get("Authorization") != "" || r.Header.Get("X-Api-Key") != "" {
		return nil, identityError(&channel.Error{Reason: channel.ReasonMixedCredentials, Detail: "the identity header goes alone"})
	}
	if s.channel.verifier == nil {
		return nil, errChannelOff
	}
	id, err := s.channel.verifier.Verify(ctx, r.Header.Get(channelHeader))
	var refused *channel.Error
	if errors.As(err, &refused) {
		return nil, identityError(refused)
	}
	if err != nil {
		return nil, err
	}
	if !allowed {
		return nil, errorf(http.StatusForbidden, "FORBIDDEN", "the chat channel cannot call this operation")
	}
	phoneKey := channel.PhoneKey(s.channel.secret, id.Phone)
	caller := &channelCaller{Identity: id, PhoneKey: phoneKey}
	meta := ledger.Metadata{ActorType: ledger.ActorChannel, UserAgent: id.UserAgent(), RequestID: requestID(ctx)}
	link, err := lookupWithLimiter(s, ctx, channelLimiter, namedBucket("phone:"+hex.EncodeToString(phoneKey[:16])), nil, queries.LinkByPhone(phoneKey), nil)
	switch {
	case key == "POST /api/whatsapp/link" && (errors.Is(err, queries.ErrNotFound) || err == nil):
		// Linking needs no link; a linked number may link again.
		return &principal{Channel: caller, Credential: "phone:" + hex.EncodeToString(phoneKey), Metadata: meta}, nil
	case errors.Is(err, queries.ErrNotFound):
		return nil, errNotLinked
	case err != nil:
		return nil, err
	case link.UserDeleted:
		return nil, errNotLinked
	case link.Status != domain.LinkActive:
		return nil, errSuspended
	}
	meta.ActorID, meta.UserID = link.LinkID.String(), link.User.ID
	if id.IdentityKeyHash != "" && id.IdentityKeyHash != link.Fingerprint {
		check := domain.CheckFingerprint{LinkID: link.LinkID, Fingerprint: id.IdentityKeyHash}
		if _, err := s.ledger.Execute(ctx, ledger.Call{WorkspaceID: link.User.PersonalWorkspaceID, Metadata: meta,
			UserID: link.User.ID, DecideUser: check.DecideUser}); err != nil {
			return nil, err
		}
		if link.Fingerprint != "" {
			return nil, errSuspended
		}
	}
	caller.Link = &link
	p := &principal{User: link.User, Credential: "channel:" + link.LinkID.String(), Metadata: meta, Channel: caller}
	switch {
	case link.Workspace != nil:
		p.Workspace = *link.Workspace
	case key != "GET /api/whatsapp/workspaces" && key != "PUT /api/whatsapp/workspace":
		return nil, errorf(http.StatusForbidden, "FORBIDDEN",
			"you are no longer a member of the channel's workspace: choose another one with PUT /api/whatsapp/workspace")
	}
	return p, nil
}
