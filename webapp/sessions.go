package webapp

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/finledger/finledger/httpapi/session"
)

// The cookies of a browser session. The session cookie is HttpOnly: scripts never see
// the token. The CSRF cookie is readable by the app's own script, which sends its value
// back in the CSRFHeader; a page on another site can make the browser send the cookies,
// but cannot read them to fill the header.
const (
	SessionCookie = "finledger_session"
	CSRFCookie    = "finledger_csrf"
	CSRFHeader    = "X-CSRF-Token"
)

// SessionLifetime is how long a sign-in lasts before the person signs in again.
const SessionLifetime = 12 * time.Hour

// ErrNoSession is returned for a cookie that names no live session.
var ErrNoSession = errors.New("webapp: no such browser session")

// Sessions keeps browser sessions in PostgreSQL, so that every instance knows every
// session and a sign-out holds everywhere at once.
type Sessions struct {
	pool *pgxpool.Pool
	now  func() time.Time
}

// NewSessions returns the store of browser sessions.
func NewSessions(pool *pgxpool.Pool, now func() time.Time) *Sessions {
	return &Sessions{pool: pool, now: now}
}

// Issued is a new session: the token for the HttpOnly cookie, the CSRF token for the
// readable one, and when both end.
type Issued struct {
	Token, CSRF string
	Expires     time.Time
}

// Create starts a session for an identity the sign-in verified.
func (s *Sessions) Create(ctx context.Context, c session.Claims) (Issued, error) {
	token, err := randomToken()
	if err != nil {
		return Issued{}, err
	}
	now := s.now()
	expires := now.Add(SessionLifetime)
	hash := sha256.Sum256([]byte(token))
	if _, err := s.pool.Exec(ctx, `INSERT INTO browser_sessions (token_hash, subject, issuer, email, name, created_at, expires_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`, hash[:], c.Subject, c.Issuer, c.Email, c.Name, now, expires); err != nil {
		return Issued{}, fmt.Errorf("create browser session: %w", err)
	}
	return Issued{Token: token, CSRF: CSRFOf(token), Expires: expires}, nil
}

// Lookup returns the identity of a live session.
func (s *Sessions) Lookup(ctx context.Context, token string) (session.Claims, error) {
	var c session.Claims
	hash := sha256.Sum256([]byte(token))
	err := s.pool.QueryRow(ctx, `SELECT subject, issuer, email, name FROM browser_sessions
		WHERE token_hash = $1 AND expires_at > $2`, hash[:], s.now()).Scan(&c.Subject, &c.Issuer, &c.Email, &c.Name)
	if errors.Is(err, pgx.ErrNoRows) {
		return c, ErrNoSession
	}
	if err != nil {
		return c, fmt.Errorf("look up browser session: %w", err)
	}
	return c, nil
}

// End deletes a session: its cookie stops working on every instance.
func (s *Sessions) End(ctx context.Context, token string) error {
	hash := sha256.Sum256([]byte(token))
	if _, err := s.pool.Exec(ctx, `DELETE FROM browser_sessions WHERE token_hash = $1`, hash[:]); err != nil {
		return fmt.Errorf("end browser session: %w", err)
	}
	return nil
}

// errNoSignin is returned for a state that names no sign-in under way.
var errNoSignin = errors.New("no sign-in under way with that state")

// holdSignin keeps a sign-in under way, sealed, under its state's hash for
// signinLifetime.
func (s *Sessions) holdSignin(ctx context.Context, stateHash, sealed []byte) error {
	if _, err := s.pool.Exec(ctx, `INSERT INTO browser_signins (state_hash, sealed, expires_at) VALUES ($1, $2, $3)`,
		stateHash, sealed, s.now().Add(signinLifetime)); err != nil {
		return fmt.Errorf("record a sign-in: %w", err)
	}
	return nil
}

// takeSignin deletes the sign-in a state's hash names and returns what it kept: two
// callbacks with one state, on any instances, find it once, and none finds it after
// its lifetime.
func (s *Sessions) takeSignin(ctx context.Context, stateHash []byte) ([]byte, error) {
	var sealed []byte
	var expires time.Time
	err := s.pool.QueryRow(ctx, `DELETE FROM browser_signins WHERE state_hash = $1 RETURNING sealed, expires_at`,
		stateHash).Scan(&sealed, &expires)
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && !expires.After(s.now())) {
		return nil, errNoSignin
	}
	if err != nil {
		return nil, fmt.Errorf("spend a sign-in: %w", err)
	}
	return sealed, nil
}

// Purge forgets the sessions and sign-ins that ended before now, and returns how many.
func (s *Sessions) Purge(ctx context.Context) (int64, error) {
	now := s.now()
	a, err := s.pool.Exec(ctx, `DELETE FROM browser_sessions WHERE expires_at <= $1`, now)
	if err != nil {
		return 0, fmt.Errorf("purge browser sessions: %w", err)
	}
	b, err := s.pool.Exec(ctx, `DELETE FROM browser_signins WHERE expires_at <= $1`, now)
	if err != nil {
		return 0, fmt.Errorf("purge browser sign-ins: %w", err)
	}
	return a.RowsAffected() + b.RowsAffected(), nil
}

// CSRFOf derives a session's CSRF token from its secret token: nobody who lacks the
// session cookie can compute it, and the server needs to keep nothing more.
func CSRFOf(token string) string {
	sum := sha256.Sum256([]byte("finledger csrf\x00" + token))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// FromRequest returns the session token of a request's cookie, or "" when it has none.
// A request carrying the cookie must also carry the session's CSRF token in its header;
// ok is false when it does not.
func FromRequest(r *http.Request) (token string, ok bool) {
	c, err := r.Cookie(SessionCookie)
	if err != nil || c.Value == "" {
		return "", true
	}
	want := CSRFOf(c.Value)
	got := r.Header.Get(CSRFHeader)
	return c.Value, subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

// setCookies gives the browser a session's cookies. secure is false only for a
// development server on plain HTTP.
func setCookies(w http.ResponseWriter, is Issued, secure bool) {
	http.SetCookie(w, &http.Cookie{Name: SessionCookie, Value: is.Token, Path: "/", Expires: is.Expires,
		HttpOnly: true, Secure: secure, SameSite: http.SameSiteLaxMode})
	http.SetCookie(w, &http.Cookie{Name: CSRFCookie, Value: is.CSRF, Path: "/", Expires: is.Expires,
		Secure: secure, SameSite: http.SameSiteStrictMode})
}

// clearCookies removes a session's cookies from the browser.
func clearCookies(w http.ResponseWriter, secure bool) {
	for _, name := range []string{SessionCookie, CSRFCookie} {
		http.SetCookie(w, &http.Cookie{Name: name, Value: "", Path: "/", MaxAge: -1, HttpOnly: name == SessionCookie,
			Secure: secure, SameSite: http.SameSiteLaxMode})
	}
}

func randomToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("random token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}
