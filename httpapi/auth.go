package httpapi

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/httpapi/session"
	"github.com/finledger/finledger/ledger"
	"github.com/finledger/finledger/queries"
	"github.com/finledger/finledger/webapp"
)

// principal is the authenticated caller and the workspace the request acts in.
type principal struct {
	User      queries.User
	Workspace queries.Workspace // with the caller's role in it
	// Credential names who made the request for idempotency keys.
	Credential string
	Metadata   ledger.Metadata
	// KeyScopes are the scopes an API key holds (domain.KeyScopes); nil for a session.
	KeyScopes []string
	// Channel is set for requests of the chat channel.
	Channel *channelCaller
	// Proposes: the request's API key has its writes held for approval
	// (domain.KeyWritesPropose).
	Proposes bool
}

// isKey reports a request made with an API key.
func (p *principal) isKey() bool { return p.Metadata.ActorType == ledger.ActorAPIKey }

// allows reports whether the caller holds a scope: their role must grant it, and so
// must their API key, if they use one.
func (p *principal) allows(scope string) bool {
	return domain.Grants(domain.RoleScopes(p.Workspace.Role), scope) && (!p.isKey() || domain.Grants(p.KeyScopes, scope))
}

// sessionOnly marks the operations an API key may never call (spec 5.2): they need a
// person at a browser. Any member's session may call them; the command checks roles.
const sessionOnly = "session"

// authorize checks the caller may call an operation that needs scope ("" for none:
// the chat channel's own operations).
func (p *principal) authorize(scope string) error {
	if scope == "" {
		return nil
	}
	if scope == sessionOnly {
		if p.isKey() || p.Channel != nil {
			return errorf(http.StatusForbidden, "FORBIDDEN", "this operation needs a browser session; API keys cannot call it")
		}
		return nil
	}
	if !p.allows(scope) {
		return errorf(http.StatusForbidden, "FORBIDDEN", "missing scope "+scope)
	}
	return nil
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

var (
	errBadSession = errorf(http.StatusUnauthorized, "UNAUTHORIZED", "the session token is not valid")
	errBadKey     = errorf(http.StatusUnauthorized, "UNAUTHORIZED", "the API key is not valid, revoked or expired")
	errNotMember  = errorf(http.StatusForbidden, "FORBIDDEN", "you are not a member of that workspace")
	errCSRF       = errorf(http.StatusForbidden, "FORBIDDEN", "a request with the browser session cookie needs its CSRF token in "+webapp.CSRFHeader)
)

// resolve authenticates a session, an API key or the web app's session cookie (with its
// CSRF token) and picks the workspace the request acts in: the route's {workspaceId},
// else X-Workspace-Id, else the caller's personal workspace (an API key's own workspace).
// It also takes a token from the person's rate-limit bucket, in the same round trip as
// the lookup. A credential presented and refused (401) counts against the failure
// budgets of the request's client address and key prefix; a request from an address
// over its budget is refused with 429 whatever its credential, and a wrong key whose
// prefix is over its budget gets 429 instead of 401.
func (s *Server) resolve(r *http.Request) (*principal, error) {
	token, fromHeader := credentialOf(r)
	var cookie string
	if token == "" && s.browser != nil {
		var ok bool
		if cookie, ok = webapp.FromRequest(r); cookie != "" && !ok {
			return nil, errCSRF
		}
	}
	if token == "" && cookie == "" {
		return nil, errUnauthorized
	}
	return s.authenticate(r, token, fromHeader, cookie)
}

// authenticate is resolvePresented, with a credential refused (401) counted against
// the failure budgets.
func (s *Server) authenticate(r *http.Request, token, fromHeader, cookie string) (*principal, error) {
	p, err := s.resolvePresented(r, token, fromHeader, cookie)
	if ae := (*apiError)(nil); errors.As(err, &ae) && ae.Status == http.StatusUnauthorized {
		return nil, s.authFailed(r, err)
	}
	return p, err
}

// resolvePresented authenticates the credential a request presents: a token from a
// header (or an API key from the query), or else the web app's session cookie.
func (s *Server) resolvePresented(r *http.Request, token, fromHeader, cookie string) (*principal, error) {
	wsID, err := requestedWorkspace(r)
	if err != nil {
		return nil, err
	}
	if cookie != "" {
		return s.resolveBrowser(r, cookie, wsID)
	}
	switch {
	case strings.HasPrefix(token, keyPrefix):
		return s.resolveKey(r, token, wsID)
	case fromHeader == "x-api-key":
		return nil, errBadKey
	}
	return s.resolveSession(r, token, wsID)
}

// credentialOf returns the credential and the header it came in.
func credentialOf(r *http.Request) (string, string) {
	if h := r.Header.Get("Authorization"); h != "" {
		scheme, token, ok := strings.Cut(h, " ")
		if !ok || !strings.EqualFold(scheme, "Bearer") {
			return "", ""
		}
		return strings.TrimSpace(token), "authorization"
	}
	if key := strings.TrimSpace(r.Header.Get("X-Api-Key")); key != "" || r.URL.Path != incomingPath {
		return key, "x-api-key"
	}
	// Taken as an API key, never as a session token: a URL is no place for those.
	return strings.TrimSpace(r.URL.Query().Get("key")), "x-api-key"
}

func requestedWorkspace(r *http.Request) (*uuid.UUID, error) {
	raw, field := chi.URLParam(r, "workspaceId"), "workspaceId"
	if raw == "" {
		raw, field = r.Header.Get("X-Workspace-Id"), "X-Workspace-Id"
	}
	if raw == "" {
		return nil, nil
	}
	id, err := parseUUID(raw)
	if err != nil {
		return nil, domain.InvalidField(field, "must be a UUID")
	}
	return &id, nil
}

func (s *Server) resolveSession(r *http.Request, token string, wsID *uuid.UUID) (*principal, error) {
	claims, err := s.sessions.Verify(r.Context(), token)
	if err != nil {
		if errors.Is(err, session.ErrInvalidToken) {
			return nil, errBadSession
		}
		return nil, err
	}
	return s.sessionPrincipal(r, claims, wsID)
}

// resolveBrowser authenticates the web app's session cookie, whose CSRF token the
// caller checked.
func (s *Server) resolveBrowser(r *http.Request, cookie string, wsID *uuid.UUID) (*principal, error) {
	claims, err := s.browser.Sessions().Lookup(r.Context(), cookie)
	if errors.Is(err, webapp.ErrNoSession) {
		return nil, errorf(http.StatusUnauthorized, "UNAUTHORIZED", "the browser session has ended; sign in again")
	}
	if err != nil {
		return nil, err
	}
	return s.sessionPrincipal(r, claims, wsID)
}

// maxIdentityName bounds the name kept of what the identity provider calls a person.
const maxIdentityName = 200

// sessionPrincipal is the principal of a person whose identity a session vouches for:
// a user registered on first sight, acting in a workspace they are a member of. The
// name the identity provider gives is shown to other members, so it is kept as the
// text rule makes it fit (domain.Text.Clean): a sign-in is not refused for it.
func (s *Server) sessionPrincipal(r *http.Request, claims session.Claims, wsID *uuid.UUID) (*principal, error) {
	ctx := r.Context()
	claims.Name = domain.Text{Max: maxIdentityName}.Clean(claims.Name)
	subject := subjectOf(claims)
	userID := domain.UserIDFor(subject)
	sc, err := lookupWithLimit(s, r, namedBucket(personBucket(userID)), queries.SessionContext(subject, wsID), nil)
	if errors.Is(err, queries.ErrNotFound) {
		if sc, err = s.provision(ctx, claims, subject, wsID); err != nil {
			return nil, err
		}
	} else if err != nil {
		return nil, err
	}
	if sc.UserDeleted {
		return nil, errorf(http.StatusUnauthorized, "UNAUTHORIZED", "this account was deleted")
	}
	if sc.User.Email != claims.Email || derefOr(sc.User.Name, "") != claims.Name {
		if err := s.ledger.UpdateIdentity(ctx, sc.User.ID, claims.Email, claims.Name); err != nil {
			return nil, err
		}
		sc.User.Email, sc.User.Name = claims.Email, nilIfEmpty(claims.Name)
	}
	if sc.Workspace == nil && wsID != nil {
		// A new user's first request joins the workspaces that invited them, but another
		// request sent with it, on any instance, can find the user registered before those
		// joins commit: it joins them too (a join that finds the user a member does nothing).
		if sc, err = s.joinInvitations(ctx, sc.User.ID, claims.Email, subject, wsID); err != nil {
			return nil, err
		}
	}
	if sc.Workspace == nil {
		return nil, errNotMember
	}
	return &principal{
		User:       sc.User,
		Workspace:  *sc.Workspace,
		Credential: "user:" + sc.User.ID.String(),
		Metadata: ledger.Metadata{
			ActorType: ledger.ActorUser, ActorID: sc.User.ID.String(), UserID: sc.User.ID,
			UserAgent: userAgent(r), RequestID: requestID(ctx),
		},
	}, nil
}

// provision registers a user seen for the first time and lets them join the
// workspaces that invited their email.
func (s *Server) provision(ctx context.Context, claims session.Claims, subject string, wsID *uuid.UUID) (queries.Session, error) {
	userID, err := s.ledger.RegisterUser(ctx, domain.Identity{Subject: subject, Email: claims.Email, Name: claims.Name})
	if err != nil {
		return queries.Session{}, err
	}
	return s.joinInvitations(ctx, userID, claims.Email, subject, wsID)
}

// joinInvitations lets a user join the workspaces that invited their email, and reads
// their session context again.
func (s *Server) joinInvitations(ctx context.Context, userID uuid.UUID, email, subject string, wsID *uuid.UUID) (queries.Session, error) {
	invitations, err := queries.InvitationsFor(ctx, s.pool, email)
	if err != nil {
		return queries.Session{}, err
	}
	meta := ledger.Metadata{ActorType: ledger.ActorUser, ActorID: userID.String(), UserID: userID}
	for _, workspaceID := range invitations {
		join := domain.JoinByInvitation{UserID: userID, Email: email}
		if _, err := s.ledger.Execute(ctx, ledger.Call{WorkspaceID: workspaceID, Metadata: meta, Decide: join.Decide}); err != nil {
			return queries.Session{}, fmt.Errorf("httpapi: join %s by invitation: %w", workspaceID, err)
		}
	}
	return queries.SessionContext(subject, wsID).Get(ctx, s.pool)
}

func (s *Server) resolveKey(r *http.Request, token string, wsID *uuid.UUID) (*principal, error) {
	ctx := r.Context()
	hash, ok := parseKey(token)
	if !ok {
		return nil, errBadKey
	}
	now := s.now()
	kc, err := lookupWithLimit(s, r, keyOwnerBucket(hash[:]), queries.KeyContext(hash[:]), func(b *pgx.Batch) {
		queries.QueueKeyUse(b, hash[:], now)
	})
	if errors.Is(err, queries.ErrNotFound) {
		return nil, errBadKey
	}
	if err != nil {
		return nil, err
	}
	live := subtle.ConstantTimeCompare(kc.Hash, hash[:]) == 1 && kc.RevokedAt == nil &&
		(kc.ExpiresAt == nil || kc.ExpiresAt.After(now)) && !kc.UserDeleted && kc.Workspace != nil
	if !live {
		return nil, errBadKey
	}
	if wsID != nil && *wsID != kc.Workspace.ID {
		return nil, errorf(http.StatusForbidden, "FORBIDDEN", "an API key acts only in the workspace it was created in")
	}
	return &principal{
		User:       kc.User,
		Workspace:  *kc.Workspace,
		Credential: "key:" + kc.KeyID.String(),
		KeyScopes:  domain.KeyScopes(kc.Scopes, derefOr(kc.RoleWhenMade, "")),
		Proposes:   kc.Writes == domain.KeyWritesPropose,
		Metadata: ledger.Metadata{
			ActorType: ledger.ActorAPIKey, ActorID: kc.KeyID.String(), UserID: kc.User.ID,
			UserAgent: userAgent(r), RequestID: requestID(ctx),
		},
	}, nil
}

// lookupWithLimit authenticates a request: in one round trip it takes a token from the
// request limit's bucket, reads whether the failure budget of the request's client
// address has a token left, and runs the lookup; extra may queue more statements on
// the batch. That budget spent refuses the request before its credential counts.
func lookupWithLimit[T any](s *Server, r *http.Request, from bucket, lookup queries.Lookup[T], extra func(*pgx.Batch)) (T, error) {
	return lookupWithLimiter(s, r.Context(), s.limiter, from, []string{s.addressFailures(r)}, lookup, extra)
}

// take takes a token from a bucket, alone.
func (s *Server) take(ctx context.Context, limiter rateLimiter, name string) error {
	b := &pgx.Batch{}
	decision := limiter.queue(b, namedBucket(name), s.now())
	if err := s.pool.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("httpapi: rate limit: %w", err)
	}
	return decision()
}

// lookupWithLimiter is lookupWithLimit with a given limiter, and the failure budgets
// named (none for the chat channel, which its limiter counts per phone).
func lookupWithLimiter[T any](s *Server, ctx context.Context, limiter rateLimiter, from bucket, failures []string,
	lookup queries.Lookup[T], extra func(*pgx.Batch)) (T, error) {
	b := &pgx.Batch{}
	now := s.now()
	decision := limiter.queue(b, from, now)
	budget := s.failures.queueLeft(b, failures, now)
	result := lookup.Queue(b)
	if extra != nil {
		extra(b)
	}
	var zero T
	if err := s.pool.SendBatch(ctx, b).Close(); err != nil {
		return zero, fmt.Errorf("httpapi: authenticate: %w", err)
	}
	if err := budget(); err != nil {
		return zero, err
	}
	if err := decision(); err != nil {
		return zero, err
	}
	return result()
}

// maxUserAgent bounds the User-Agent kept with an event, in its audit entry and with a
// push subscription.
const maxUserAgent = 512

// userAgent is the request's User-Agent as it is stored: a header is not refused for it,
// since a client's label is no reason to fail a write, but it is made storable and
// fit to show (domain.Text.Clean): bytes that are not UTF-8, control characters (NUL
// among them) and bidirectional controls are dropped, surrounding spaces trimmed and
// the rest cut to maxUserAgent characters.
func userAgent(r *http.Request) string {
	return domain.Text{Max: maxUserAgent}.Clean(strings.ToValidUTF8(r.UserAgent(), ""))
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

// refilledSQL is the tokens of bucket r refilled for the time elapsed until $4: $2 at
// most, $3 a second.
const refilledSQL = `least($2::float8, r.tokens + greatest(0, extract(epoch FROM $4::timestamptz - r.updated_at)) * $3::float8)`

// takeSQL refills a bucket and takes a token if there is one, in one statement; rows
// gives the bucket's name and its tokens if it is new (none: nothing is taken).
func takeSQL(rows string) string {
	return `INSERT INTO rate_limits AS r (key, tokens, updated_at, allowed) ` + rows + `
	ON CONFLICT (key) DO UPDATE SET
		allowed = ` + refilledSQL + ` >= 1,
		tokens = ` + refilledSQL + ` - CASE WHEN ` + refilledSQL + ` >= 1 THEN 1 ELSE 0 END,
		updated_at = greatest(r.updated_at, $4::timestamptz)
	RETURNING allowed, tokens`
}

// A bucket names the budget a request draws from: a bucket's name, or the person who
// made the API key whose hash it holds, found by the statement that takes the token.
type bucket struct {
	take string
	arg  any
}

var (
	takeNamed = takeSQL(`VALUES ($1::text, $2::float8 - 1, $4::timestamptz, true)`)
	// A key no one made takes nothing: its request fails, and counts as a failure.
	takeKeyOwner = takeSQL(`SELECT 'user:' || k.created_by, $2::float8 - 1, $4::timestamptz, true FROM api_keys k WHERE k.hash = $1`)
)

func namedBucket(name string) bucket { return bucket{takeNamed, name} }

// keyOwnerBucket is the bucket of the person who made the API key of a hash: one
// budget for all their keys and sessions, however many keys they make.
func keyOwnerBucket(hash []byte) bucket { return bucket{takeKeyOwner, hash} }

// personBucket names the request limit's bucket of a person.
func personBucket(userID uuid.UUID) string { return "user:" + userID.String() }

// rateLimiter is a token bucket per name, kept in PostgreSQL so that every instance
// draws from the same buckets.
type rateLimiter struct {
	perMinute float64
	burst     float64
	// counts says what the buckets count, in a refusal: "requests for this person".
	counts string
}

// queue takes a token in the batch; the returned function reports a refusal.
func (l rateLimiter) queue(b *pgx.Batch, from bucket, now time.Time) func() error {
	if l.perMinute <= 0 {
		return func() error { return nil }
	}
	allowed, tokens := true, 0.0
	err := errors.New("httpapi: rate limit not checked")
	b.Queue(from.take, from.arg, l.burst, l.perMinute/60, now).QueryRow(func(row pgx.Row) error {
		if err = row.Scan(&allowed, &tokens); errors.Is(err, pgx.ErrNoRows) {
			allowed, err = true, nil
		}
		return err
	})
	return func() error {
		if err != nil {
			return fmt.Errorf("httpapi: rate limit: %w", err)
		}
		if allowed {
			return nil
		}
		return l.refusal(tokens)
	}
}

// queueLeft reads in the batch whether each named bucket has a token left, taking none;
// the returned function refuses when one has not.
func (l rateLimiter) queueLeft(b *pgx.Batch, names []string, now time.Time) func() error {
	if l.perMinute <= 0 || len(names) == 0 {
		return func() error { return nil }
	}
	var least *float64
	err := errors.New("httpapi: rate limit not checked")
	b.Queue(`SELECT min(`+refilledSQL+`) FROM rate_limits r WHERE r.key = ANY($1)`, names, l.burst, l.perMinute/60, now).
		QueryRow(func(row pgx.Row) error {
			err = row.Scan(&least)
			return err
		})
	return func() error {
		if err != nil {
			return fmt.Errorf("httpapi: rate limit: %w", err)
		}
		if least == nil || *least >= 1 {
			return nil
		}
		return l.refusal(*least)
	}
}

// refusal is the answer to a request over the limit, when its bucket holds tokens.
func (l rateLimiter) refusal(tokens float64) error {
	seconds := max(1, int(math.Ceil((1-tokens)/(l.perMinute/60))))
	return &apiError{Status: http.StatusTooManyRequests, Code: "RATE_LIMITED",
		Message:    fmt.Sprintf("too many %s: at most %g a minute; retry in %d s", l.counts, l.perMinute, seconds),
		Details:    map[string]int{"retryAfterSeconds": seconds},
		RetryAfter: seconds}
}

// hashKey returns the stored form of an API key.
func hashKey(key string) [32]byte { return sha256.Sum256([]byte(key)) }

// PurgeRateLimits drops the buckets of credentials idle since cutoff: a bucket left
// alone refills to full, which is what a missing one means.
func PurgeRateLimits(ctx context.Context, db queries.DB, cutoff time.Time) (int64, error) {
	tag, err := db.Exec(ctx, `DELETE FROM rate_limits WHERE updated_at < $1`, cutoff)
	if err != nil {
		return 0, fmt.Errorf("httpapi: purge rate limits: %w", err)
	}
	return tag.RowsAffected(), nil
}
