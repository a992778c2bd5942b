// Package session verifies the session JWTs that an identity provider issues to browser
// users: RS256 and ES256 tokens against the provider's JWKS, or HS256 tokens from a
// development provider sharing a secret.
package session

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Config says how session tokens are verified.
type Config struct {
	JWKSURL     string           // RS256/ES256 keys served as a JWKS document
	HS256Secret string           // development provider: the UTF-8 bytes of the value are the HMAC key
	Issuer      string           // when set, `iss` must equal it
	Audience    string           // when set, `aud` must contain it
	Now         func() time.Time // clock; nil means time.Now
	HTTPClient  *http.Client     // for the JWKS; nil means a client with a 10 s timeout
	Leeway      time.Duration    // clock skew allowed on exp, nbf and iat; 0 means 30 s
}

// Claims are what the service uses of a verified token.
type Claims struct {
	Subject string
	Email   string
	Name    string
	Issuer  string
}

// ErrInvalidToken is wrapped by every verification failure.
var ErrInvalidToken = errors.New("invalid session token")

// maxTokenBytes bounds the work an unauthenticated caller can ask of the parser.
const maxTokenBytes = 8 << 10

// Verifier checks session tokens.
type Verifier struct {
	cfg    Config
	keys   *jwks
	parser *jwt.Parser
}

// NewVerifier returns a verifier for cfg. It does no network I/O: JWKS keys are fetched
// at the first verification, so the service starts while the provider is down.
func NewVerifier(cfg Config) (*Verifier, error) {
	if cfg.JWKSURL == "" && cfg.HS256Secret == "" {
		return nil, errors.New("session: configure a JWKS URL or an HS256 secret")
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Leeway == 0 {
		cfg.Leeway = 30 * time.Second
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 10 * time.Second}
	}
	var methods []string
	if cfg.HS256Secret != "" {
		methods = append(methods, "HS256")
	}
	v := &Verifier{cfg: cfg}
	if cfg.JWKSURL != "" {
		methods = append(methods, "RS256", "ES256")
		v.keys = newJWKS(cfg.JWKSURL, cfg.HTTPClient, cfg.Now)
	}
	opts := []jwt.ParserOption{
		jwt.WithValidMethods(methods),
		jwt.WithLeeway(cfg.Leeway),
		jwt.WithIssuedAt(),
		jwt.WithExpirationRequired(),
		jwt.WithTimeFunc(cfg.Now),
	}
	if cfg.Issuer != "" {
		opts = append(opts, jwt.WithIssuer(cfg.Issuer))
	}
	if cfg.Audience != "" {
		opts = append(opts, jwt.WithAudience(cfg.Audience))
	}
	v.parser = jwt.NewParser(opts...)
	return v, nil
}

type tokenClaims struct {
	jwt.RegisteredClaims
	Email string `json:"email"`
	Name  string `json:"name"`
}

// Verify checks a token's signature, algorithm, times, issuer and audience, and returns
// its claims.
func (v *Verifier) Verify(ctx context.Context, token string) (Claims, error) {
	if len(token) > maxTokenBytes {
		return Claims{}, fmt.Errorf("%w: longer than %d bytes", ErrInvalidToken, maxTokenBytes)
	}
	var claims tokenClaims
	_, err := v.parser.ParseWithClaims(token, &claims, func(t *jwt.Token) (any, error) {
		return v.key(ctx, t)
	})
	if err != nil {
		return Claims{}, fmt.Errorf("%w: %v", ErrInvalidToken, err)
	}
	switch {
	case claims.Subject == "" || len(claims.Subject) > 255:
		return Claims{}, fmt.Errorf("%w: sub must hold 1 to 255 characters", ErrInvalidToken)
	case len(claims.Email) > 320 || !strings.Contains(claims.Email, "@"):
		return Claims{}, fmt.Errorf("%w: email missing or malformed", ErrInvalidToken)
	case len(claims.Name) > 255:
		return Claims{}, fmt.Errorf("%w: name longer than 255 characters", ErrInvalidToken)
	}
	return Claims{Subject: claims.Subject, Email: claims.Email, Name: claims.Name, Issuer: claims.Issuer}, nil
}

// key picks the verification key by the token's algorithm, so that a key of one kind is
// never used for another algorithm (no HMAC over a public key, no "none").
func (v *Verifier) key(ctx context.Context, t *jwt.Token) (any, error) {
	switch t.Method.Alg() {
	case "HS256":
		if v.cfg.HS256Secret == "" {
			return nil, errors.New("HS256 is not accepted")
		}
		return []byte(v.cfg.HS256Secret), nil
	case "RS256", "ES256":
		if v.keys == nil {
			return nil, fmt.Errorf("%s is not accepted", t.Method.Alg())
		}
		kid, _ := t.Header["kid"].(string)
		return v.keys.key(ctx, kid, t.Method.Alg())
	}
	return nil, fmt.Errorf("algorithm %q is not accepted", t.Method.Alg())
}

// MintHS256 issues a token from a development identity provider: for `finledger token`,
// `finledger dev` and tests.
func MintHS256(secret string, c Claims, issuedAt time.Time, ttl time.Duration, audience string) (string, error) {
	claims := tokenClaims{
		RegisteredClaims: jwt.RegisteredClaims{
			Subject:   c.Subject,
			Issuer:    c.Issuer,
			IssuedAt:  jwt.NewNumericDate(issuedAt),
			NotBefore: jwt.NewNumericDate(issuedAt),
			ExpiresAt: jwt.NewNumericDate(issuedAt.Add(ttl)),
		},
		Email: c.Email,
		Name:  c.Name,
	}
	if audience != "" {
		claims.Audience = jwt.ClaimStrings{audience}
	}
	tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString([]byte(secret))
	if err != nil {
		return "", fmt.Errorf("session: sign: %w", err)
	}
	return tok, nil
}
