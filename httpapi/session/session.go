// Package session owns the verification of the session JWTs that an identity provider
// issues to browser users: RS256 and ES256 tokens checked against the provider's JWKS,
// or HS256 tokens from a development provider that shares a secret. It decides which
// algorithms and keys are trusted, which claims a session must carry, and how often the
// provider's keys are fetched; it knows nothing of users or workspaces.
package session

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/golang-jwt/jwt/v5"
)

// Config says which identity providers are trusted and how their tokens are checked.
type Config struct {
	JWKSURL     string           // RS256/ES256 keys served as a JWKS document
	HS256Secret string           // development identity provider: the UTF-8 bytes of this value are the HMAC key
	Issuer      string           // when set, `iss` must equal it
	Audience    string           // when set, `aud` must contain it
	Now         func() time.Time // injected clock; nil = time.Now
	HTTPClient  *http.Client     // for JWKS; nil = a client with 10s timeout
	Leeway      time.Duration    // clock skew tolerance for exp/nbf/iat; default 30s when zero
}

// Claims are the parts of a verified token the service relies on.
type Claims struct {
	Subject string
	Email   string
	Name    string
	Issuer  string
}

// ErrInvalidToken is wrapped by every verification failure, so callers answer 401
// without knowing why; the wrapped reason is for logs.
var ErrInvalidToken = errors.New("invalid session token")

// Limits on what an unauthenticated caller can make us parse or store.
const (
	maxTokenBytes   = 8 << 10
	maxSubjectBytes = 255
	maxEmailBytes   = 320
	maxLocalBytes   = 64 // RFC 5321 limit on the part of an address before '@'
	maxNameBytes    = 255
	defaultLeeway   = 30 * time.Second
	defaultTimeout  = 10 * time.Second
)

// Verifier checks session tokens; it is safe for concurrent use.
type Verifier struct {
	hmacKey []byte  // nil unless HS256 is accepted
	keys    *keySet // nil unless RS256 and ES256 are accepted
	parser  *jwt.Parser
}

// NewVerifier returns a verifier for cfg without any network I/O, so the service can
// start while the identity provider is down; JWKS keys are fetched at first use.
func NewVerifier(cfg Config) (*Verifier, error) {
	if cfg.JWKSURL == "" && cfg.HS256Secret == "" {
		return nil, errors.New("session: configure a JWKS URL or an HS256 secret")
	}
	if cfg.Leeway < 0 {
		return nil, errors.New("session: leeway must not be negative")
	}
	if cfg.Leeway == 0 {
		cfg.Leeway = defaultLeeway
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: defaultTimeout}
	}
	v := &Verifier{}
	var methods []string
	if cfg.HS256Secret != "" {
		v.hmacKey = []byte(cfg.HS256Secret)
		methods = append(methods, jwt.SigningMethodHS256.Alg())
	}
	if cfg.JWKSURL != "" {
		// A typo in the URL should stop the service at start, not reject every login later.
		u, err := url.Parse(cfg.JWKSURL)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return nil, errors.New("session: the JWKS URL must be an absolute http(s) URL")
		}
		v.keys = newKeySet(cfg.JWKSURL, cfg.HTTPClient, cfg.Now)
		methods = append(methods, jwt.SigningMethodRS256.Alg(), jwt.SigningMethodES256.Alg())
	}
	opts := []jwt.ParserOption{
		jwt.WithValidMethods(methods),
		jwt.WithLeeway(cfg.Leeway),
		jwt.WithIssuedAt(),
		jwt.WithExpirationRequired(),
		jwt.WithTimeFunc(cfg.Now),
		// Non-canonical base64 would let one signature stand for several token strings.
		jwt.WithStrictDecoding(),
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

// tokenClaims is the wire form of a session token's payload.
type tokenClaims struct {
	jwt.RegisteredClaims
	Email         string   `json:"email,omitempty"`
	Name          string   `json:"name,omitempty"`
	EmailVerified flexBool `json:"email_verified,omitzero"`
}

// flexBool reads email_verified, which some providers send as the string "true" or
// "false" instead of a JSON boolean.
type flexBool struct {
	set, value bool
}

func (b *flexBool) UnmarshalJSON(data []byte) error {
	switch string(data) {
	case "true", `"true"`:
		*b = flexBool{set: true, value: true}
	case "false", `"false"`:
		*b = flexBool{set: true, value: false}
	case "null":
		*b = flexBool{}
	default:
		return errors.New("email_verified is not a boolean")
	}
	return nil
}

func invalid(reason string) error { return fmt.Errorf("%w: %s", ErrInvalidToken, reason) }

// Verify checks a token's algorithm, signature, times, issuer and audience and the
// claims a session needs, and returns those claims.
func (v *Verifier) Verify(ctx context.Context, token string) (Claims, error) {
	if len(token) > maxTokenBytes {
		return Claims{}, invalid("token longer than 8 KiB")
	}
	if token == "" {
		return Claims{}, invalid("empty token")
	}
	var tc tokenClaims
	_, err := v.parser.ParseWithClaims(token, &tc, func(t *jwt.Token) (any, error) {
		return v.key(ctx, t)
	})
	if err != nil {
		// The jwt errors describe the failure without quoting the token.
		return Claims{}, fmt.Errorf("%w: %w", ErrInvalidToken, err)
	}
	c := Claims{Subject: tc.Subject, Email: tc.Email, Name: tc.Name, Issuer: tc.Issuer}
	var verified *bool
	if tc.EmailVerified.set {
		verified = &tc.EmailVerified.value
	}
	if err := Check(c, verified); err != nil {
		return Claims{}, err
	}
	return c, nil
}

// Check applies the rules every session's identity must meet, however it was verified:
// a subject, a well-formed email the provider has not marked unverified (nil: it said
// nothing), and bounded lengths. It wraps ErrInvalidToken.
func Check(c Claims, emailVerified *bool) error {
	switch {
	case c.Subject == "":
		return invalid("sub missing")
	case len(c.Subject) > maxSubjectBytes:
		return invalid("sub longer than 255 bytes")
	case c.Email == "":
		return invalid("email missing")
	case !validEmail(c.Email):
		return invalid("email malformed")
	case emailVerified != nil && !*emailVerified:
		// Invitations are matched by email, so an unverified address must not sign in.
		return invalid("email not verified")
	case len(c.Name) > maxNameBytes:
		return invalid("name longer than 255 bytes")
	}
	return nil
}

// key returns the key for the token's algorithm from the source configured for that
// algorithm only, and of the matching type, so no key is ever used with an algorithm it
// was not meant for: no HMAC keyed by a public key, no "none".
func (v *Verifier) key(ctx context.Context, t *jwt.Token) (any, error) {
	// We implement no header extensions, and RFC 7515 says a token that requires one
	// must then be rejected.
	if _, ok := t.Header["crit"]; ok {
		return nil, errors.New("crit header extensions are not supported")
	}
	switch t.Method {
	case jwt.SigningMethodHS256:
		if v.hmacKey == nil {
			return nil, errors.New("HS256 is not accepted")
		}
		return v.hmacKey, nil
	case jwt.SigningMethodRS256, jwt.SigningMethodES256:
		if v.keys == nil {
			return nil, errors.New("RS256 and ES256 are not accepted")
		}
		kid, ok := t.Header["kid"].(string)
		if _, present := t.Header["kid"]; present && !ok {
			return nil, errors.New("kid is not a string")
		}
		return v.keys.key(ctx, kid, t.Method.Alg())
	}
	// Unreachable while WithValidMethods lists only the cases above; kept so that a
	// change there cannot silently accept a method with a key of another kind.
	return nil, errors.New("algorithm not accepted")
}

// validEmail accepts what an identity provider plausibly asserts as an address and
// rejects what would be unsafe to store or display; the provider owns real validation.
func validEmail(s string) bool {
	if len(s) > maxEmailBytes || !utf8.ValidString(s) {
		return false
	}
	local, domain, ok := strings.Cut(s, "@")
	if !ok || local == "" || len(local) > maxLocalBytes || domain == "" || strings.Contains(domain, "@") ||
		strings.HasPrefix(domain, ".") || strings.HasSuffix(domain, ".") {
		return false
	}
	for _, r := range s {
		if unicode.IsSpace(r) || unicode.IsControl(r) || r == '<' || r == '>' {
			return false
		}
	}
	return true
}

// MintHS256 issues a token as the development identity provider would, for a dev token
// command and tests; it refuses claims that Verify would reject.
func MintHS256(secret string, c Claims, issuedAt time.Time, ttl time.Duration, audience string) (string, error) {
	switch {
	case secret == "":
		return "", errors.New("session: mint: empty secret")
	case c.Subject == "" || len(c.Subject) > maxSubjectBytes:
		return "", errors.New("session: mint: subject must hold 1 to 255 bytes")
	case !validEmail(c.Email):
		return "", errors.New("session: mint: email malformed")
	case len(c.Name) > maxNameBytes:
		return "", errors.New("session: mint: name longer than 255 bytes")
	case ttl <= 0:
		return "", errors.New("session: mint: ttl must be positive")
	}
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
		return "", fmt.Errorf("session: mint: %w", err)
	}
	return tok, nil
}
