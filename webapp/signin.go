package webapp

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"

	"github.com/finledger/finledger/httpapi/session"
)

// OIDC configures sign-in with an OpenID Connect provider: the authorization code flow
// with PKCE, for a confidential client.
type OIDC struct {
	Issuer       string // the provider's issuer URL; its discovery document is read at first sign-in
	ClientID     string
	ClientSecret string
	RedirectURL  string // this service's public origin + CallbackPath
	HTTPClient   *http.Client
}

// Paths of the sign-in.
const (
	CallbackPath = "/auth/callback"
	signinPath   = "/app/signin"
	signinCookie = "finledger_signin"
	// signinLifetime bounds how long a person may spend at the provider's pages.
	signinLifetime = 10 * time.Minute
)

// oidcClient discovers the provider once it answers, and keeps what it learnt.
type oidcClient struct {
	cfg OIDC
	mu  sync.Mutex
	// set once discovery succeeded
	oauth    *oauth2.Config
	verifier *oidc.IDTokenVerifier
	provider *oidc.Provider
}

func (o *oidcClient) discover(ctx context.Context) (*oauth2.Config, *oidc.IDTokenVerifier, *oidc.Provider, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.oauth != nil {
		return o.oauth, o.verifier, o.provider, nil
	}
	ctx = o.context(ctx)
	p, err := oidc.NewProvider(ctx, o.cfg.Issuer)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("discover the OpenID provider: %w", err)
	}
	o.provider = p
	o.oauth = &oauth2.Config{ClientID: o.cfg.ClientID, ClientSecret: o.cfg.ClientSecret, RedirectURL: o.cfg.RedirectURL,
		Endpoint: p.Endpoint(), Scopes: []string{oidc.ScopeOpenID, "email", "profile"}}
	o.verifier = p.Verifier(&oidc.Config{ClientID: o.cfg.ClientID})
	return o.oauth, o.verifier, o.provider, nil
}

// context carries the configured HTTP client to the oidc and oauth2 calls.
func (o *oidcClient) context(ctx context.Context) context.Context {
	if o.cfg.HTTPClient != nil {
		return oidc.ClientContext(ctx, o.cfg.HTTPClient)
	}
	return ctx
}

// pendingSignin is what the callback needs from the start of a sign-in.
type pendingSignin struct {
	Verifier string `json:"verifier"`
	Nonce    string `json:"nonce"`
	Next     string `json:"next,omitempty"` // the app's page to return to
}

// startOIDC sends the person to the provider's sign-in page.
func (a *App) startOIDC(w http.ResponseWriter, r *http.Request) {
	if a.oidc == nil {
		http.Error(w, "OpenID Connect sign-in is not configured", http.StatusNotFound)
		return
	}
	ctx := r.Context()
	conf, _, _, err := a.oidc.discover(ctx)
	if err != nil {
		slog.WarnContext(ctx, "sign-in: provider unavailable", "err", err)
		a.signinFailed(w, r, "provider_unavailable")
		return
	}
	state, err := randomToken()
	if err != nil {
		a.fail(w, r, err)
		return
	}
	nonce, err := randomToken()
	if err != nil {
		a.fail(w, r, err)
		return
	}
	p := pendingSignin{Verifier: oauth2.GenerateVerifier(), Nonce: nonce, Next: r.URL.Query().Get("next")}
	pending, err := json.Marshal(p)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	hash := sha256.Sum256([]byte(state))
	if err := a.sessions.holdSignin(ctx, hash[:], a.box.Seal(pending, hash[:])); err != nil {
		a.fail(w, r, err)
		return
	}
	// The state is also kept in this browser, so a callback started in another browser
	// (someone else's sign-in, pushed on this person) is refused.
	http.SetCookie(w, &http.Cookie{Name: signinCookie, Value: state, Path: CallbackPath, MaxAge: int(signinLifetime / time.Second),
		HttpOnly: true, Secure: a.secure, SameSite: http.SameSiteLaxMode})
	http.Redirect(w, r, conf.AuthCodeURL(state, oidc.Nonce(nonce), oauth2.S256ChallengeOption(p.Verifier)), http.StatusFound)
}

// callback finishes a sign-in: it spends the state, exchanges the code with the PKCE
// verifier, checks the ID token's signature, issuer, audience, expiry and nonce, and
// starts a session.
func (a *App) callback(w http.ResponseWriter, r *http.Request) {
	if a.oidc == nil {
		http.Error(w, "OpenID Connect sign-in is not configured", http.StatusNotFound)
		return
	}
	ctx := r.Context()
	q := r.URL.Query()
	state := q.Get("state")
	http.SetCookie(w, &http.Cookie{Name: signinCookie, Value: "", Path: CallbackPath, MaxAge: -1, HttpOnly: true, Secure: a.secure})
	kept, err := r.Cookie(signinCookie)
	if state == "" || err != nil || subtle.ConstantTimeCompare([]byte(kept.Value), []byte(state)) != 1 {
		a.signinFailed(w, r, "state_mismatch")
		return
	}
	pending, err := a.spendSignin(ctx, state)
	if errors.Is(err, errNoSignin) {
		a.signinFailed(w, r, "expired")
		return
	}
	if err != nil {
		a.fail(w, r, err)
		return
	}
	if e := q.Get("error"); e != "" {
		slog.InfoContext(ctx, "sign-in: the provider refused", "error", e)
		a.signinFailed(w, r, "refused")
		return
	}
	conf, verifier, provider, err := a.oidc.discover(ctx)
	if err != nil {
		a.signinFailed(w, r, "provider_unavailable")
		return
	}
	octx := a.oidc.context(ctx)
	tok, err := conf.Exchange(octx, q.Get("code"), oauth2.VerifierOption(pending.Verifier))
	if err != nil {
		slog.WarnContext(ctx, "sign-in: code exchange failed", "err", err)
		a.signinFailed(w, r, "exchange_failed")
		return
	}
	raw, _ := tok.Extra("id_token").(string)
	idt, err := verifier.Verify(octx, raw)
	if err != nil || subtle.ConstantTimeCompare([]byte(idt.Nonce), []byte(pending.Nonce)) != 1 {
		slog.WarnContext(ctx, "sign-in: ID token refused", "err", err)
		a.signinFailed(w, r, "bad_token")
		return
	}
	claims, verified, err := identityOf(octx, idt, provider, tok)
	if err == nil {
		err = session.Check(claims, verified)
	}
	if err != nil {
		slog.WarnContext(ctx, "sign-in: identity refused", "err", err)
		a.signinFailed(w, r, "bad_identity")
		return
	}
	a.signIn(w, r, claims, pending.Next)
}

// identityOf reads the person's identity from the ID token, asking the provider's
// userinfo endpoint for the email when the token does not carry it.
func identityOf(ctx context.Context, idt *oidc.IDToken, p *oidc.Provider, tok *oauth2.Token) (session.Claims, *bool, error) {
	var c struct {
		Email         string `json:"email"`
		Name          string `json:"name"`
		EmailVerified *bool  `json:"email_verified"`
	}
	if err := idt.Claims(&c); err != nil {
		return session.Claims{}, nil, fmt.Errorf("read the ID token's claims: %w", err)
	}
	if c.Email == "" {
		info, err := p.UserInfo(ctx, oauth2.StaticTokenSource(tok))
		if err != nil {
			return session.Claims{}, nil, fmt.Errorf("read userinfo: %w", err)
		}
		if info.Subject != idt.Subject {
			return session.Claims{}, nil, errors.New("userinfo names another subject")
		}
		var extra struct {
			Name          string          `json:"name"`
			EmailVerified json.RawMessage `json:"email_verified"`
		}
		_ = info.Claims(&extra)
		// UserInfo reads an email_verified the provider left out as false; as in the ID
		// token, only a stated one counts.
		c.Email, c.EmailVerified = info.Email, nil
		if len(extra.EmailVerified) > 0 && string(extra.EmailVerified) != "null" {
			verified := info.EmailVerified
			c.EmailVerified = &verified
		}
		if c.Name == "" {
			c.Name = extra.Name
		}
	}
	return session.Claims{Subject: idt.Subject, Issuer: idt.Issuer, Email: c.Email, Name: c.Name}, c.EmailVerified, nil
}

// spendSignin takes the sign-in its state names and opens what it kept.
func (a *App) spendSignin(ctx context.Context, state string) (pendingSignin, error) {
	hash := sha256.Sum256([]byte(state))
	sealed, err := a.sessions.takeSignin(ctx, hash[:])
	if err != nil {
		return pendingSignin{}, err
	}
	plain, err := a.box.Open(sealed, hash[:])
	if err != nil {
		return pendingSignin{}, fmt.Errorf("open a sign-in: %w", err)
	}
	var p pendingSignin
	if err := json.Unmarshal(plain, &p); err != nil {
		return pendingSignin{}, fmt.Errorf("read a sign-in: %w", err)
	}
	return p, nil
}

// signIn starts a session for a verified identity and sends the person to the app's
// page they were on (next), or to its Overview.
func (a *App) signIn(w http.ResponseWriter, r *http.Request, c session.Claims, next string) {
	is, err := a.sessions.Create(r.Context(), c)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	setCookies(w, is, a.secure)
	http.Redirect(w, r, appPage(next), http.StatusSeeOther)
}

// appPage is where a sign-in may send the person back to: a path of the app on this
// origin, never another site ("//evil.example", "/\evil.example", "https://..."), nor
// outside /app/, nor the sign-in page itself; anything else is the Overview.
func appPage(next string) string {
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || strings.ContainsAny(next, "\\\x00\r\n\t") ||
		!strings.HasPrefix(next, "/app/") || !strings.HasPrefix(path.Clean(u.Path)+"/", "/app/") || path.Clean(u.Path) == signinPath {
		return "/app/"
	}
	return u.RequestURI()
}

// signinFailed sends the person back to the sign-in page with a reason it can show.
func (a *App) signinFailed(w http.ResponseWriter, r *http.Request, reason string) {
	http.Redirect(w, r, signinPath+"?error="+url.QueryEscape(reason), http.StatusSeeOther)
}

func (a *App) fail(w http.ResponseWriter, r *http.Request, err error) {
	slog.ErrorContext(r.Context(), "sign-in", "err", err)
	w.Header().Set("Retry-After", "5")
	http.Error(w, "sign-in is not available right now; try again in a moment", http.StatusServiceUnavailable)
}

// devSignIn signs the person in as the development identity with one click.
func (a *App) devSignIn(w http.ResponseWriter, r *http.Request) {
	if a.dev == nil {
		http.Error(w, "development sign-in is off", http.StatusNotFound)
		return
	}
	if !sameOrigin(r) {
		http.Error(w, "cross-site request refused", http.StatusForbidden)
		return
	}
	a.signIn(w, r, *a.dev, r.PostFormValue("next"))
}

// signOut ends the session on every instance and removes its cookies.
func (a *App) signOut(w http.ResponseWriter, r *http.Request) {
	token, ok := FromRequest(r)
	if !ok || !sameOrigin(r) {
		http.Error(w, "missing or wrong CSRF token", http.StatusForbidden)
		return
	}
	if token != "" {
		if err := a.sessions.End(r.Context(), token); err != nil {
			a.fail(w, r, err)
			return
		}
	}
	clearCookies(w, a.secure)
	w.WriteHeader(http.StatusNoContent)
}

// sameOrigin refuses a request another site's page made: browsers send Origin on
// every cross-origin POST, and Sec-Fetch-Site names the relation outright.
func sameOrigin(r *http.Request) bool {
	switch r.Header.Get("Sec-Fetch-Site") {
	case "", "same-origin", "none":
	default:
		return false
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	return err == nil && strings.EqualFold(u.Host, r.Host)
}
