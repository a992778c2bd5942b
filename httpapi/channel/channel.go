// Package channel verifies the signed identity tokens of the chat-agent channel (spec
// 5.4): HS256 JWTs the messaging provider signs for a verified phone number, checked
// claim by claim, each failure named by a stable reason.
package channel

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Reasons of a refused identity, as details.reason says them (spec 7).
const (
	ReasonMissing          = "missing"
	ReasonMixedCredentials = "mixed_credentials"
	ReasonMalformed        = "malformed"
	ReasonSignature        = "signature"
	ReasonSub              = "sub"
	ReasonJTI              = "jti"
	ReasonClaims           = "claims"
	ReasonLifetime         = "lifetime"
	ReasonExpired          = "expired"
	ReasonIAT              = "iat"
	ReasonReused           = "reused"
)

// Token rules (spec 5.4).
const (
	Lifetime     = 120 * time.Second // exp - iat, exactly
	Tolerance    = 30 * time.Second  // clock skew allowed
	MaxPastIAT   = 150 * time.Second // how old iat may be: the lifetime plus the tolerance
	maxTokenSize = 8 << 10
)

// Error is a refused identity.
type Error struct {
	Reason string
	Detail string
}

func (e *Error) Error() string { return "channel identity " + e.Reason + ": " + e.Detail }

func refuse(reason, format string, args ...any) *Error {
	return &Error{Reason: reason, Detail: fmt.Sprintf(format, args...)}
}

// Identity is a verified token's claims.
type Identity struct {
	Phone           string // +<digits>, from sub
	AgentID         string
	ThreadID        string
	JTI             uuid.UUID
	IssuedAt        time.Time
	ExpiresAt       time.Time
	IdentityKeyHash string // "" when the token carries none
}

// UserAgent is how audit entries name the channel's requests.
func (i Identity) UserAgent() string {
	return "whatsapp; agent=" + i.AgentID + "; thread=" + i.ThreadID
}

// JTIStore remembers used token ids across every instance until they cannot be valid.
type JTIStore interface {
	// Use records jti until the given time and reports false when it was used before.
	Use(ctx context.Context, jti uuid.UUID, until time.Time) (bool, error)
}

// Verifier checks identity tokens.
type Verifier struct {
	secret    []byte
	issuer    string
	audiences []string
	now       func() time.Time
	jtis      JTIStore
}

// SecretPattern is the shape of the shared secret: 64 hexadecimal characters.
var SecretPattern = regexp.MustCompile(`^[0-9a-fA-F]{64}$`)

// NewVerifier returns a verifier; the secret's UTF-8 bytes (the 64 characters, not
// the 32 bytes they spell) are the HMAC key.
func NewVerifier(secret, issuer string, audiences []string, now func() time.Time, jtis JTIStore) (*Verifier, error) {
	if !SecretPattern.MatchString(secret) {
		return nil, errors.New("channel: the secret must be 64 hexadecimal characters")
	}
	if issuer == "" || len(audiences) == 0 {
		return nil, errors.New("channel: an issuer and an audience are required")
	}
	return &Verifier{secret: []byte(secret), issuer: issuer, audiences: audiences, now: now, jtis: jtis}, nil
}

var (
	subPattern  = regexp.MustCompile(`^wa:\+[1-9][0-9]{7,14}$`)
	hashPattern = regexp.MustCompile(`^[A-Za-z0-9+/=_-]{1,128}$`)
	// A UUID's hex digits may come in either case (RFC 9562); the jti is kept as a
	// uuid.UUID, so both cases of one id are one jti.
	uuidV4 = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-4[0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$`)
)

// Verify checks a token. The checks run in this order, and the first that fails names
// the reason: the token's shape (malformed), its header's alg HS256 and typ JWT
// (signature for another alg, malformed for another typ), the signature (signature),
// sub (sub), jti (jti), iss, aud, agentId and threadId (strings without NUL, which no
// audit entry could store), iat and exp (JSON integers, not strings) being present and
// well-typed, and identityKeyHash's pattern (claims), exp = iat + 120 (lifetime), exp
// plus the 30 s tolerance not passed (expired), iat not more than 30 s ahead or 150 s
// behind (iat), and last, the jti not used before (reused), which also spends it.
func (v *Verifier) Verify(ctx context.Context, token string) (Identity, error) {
	if len(token) > maxTokenSize {
		return Identity{}, refuse(ReasonMalformed, "longer than %d bytes", maxTokenSize)
	}
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return Identity{}, refuse(ReasonMalformed, "not three dot-separated parts")
	}
	var header struct {
		Alg string `json:"alg"`
		Typ string `json:"typ"`
	}
	if err := decodePart(parts[0], &header); err != nil {
		return Identity{}, refuse(ReasonMalformed, "header: %v", err)
	}
	var claims map[string]json.RawMessage
	if err := decodePart(parts[1], &claims); err != nil {
		return Identity{}, refuse(ReasonMalformed, "claims: %v", err)
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		return Identity{}, refuse(ReasonMalformed, "signature encoding: %v", err)
	}
	if header.Alg != "HS256" {
		return Identity{}, refuse(ReasonSignature, "alg %q is not HS256", header.Alg)
	}
	if header.Typ != "JWT" {
		return Identity{}, refuse(ReasonMalformed, "typ %q is not JWT", header.Typ)
	}
	mac := hmac.New(sha256.New, v.secret)
	mac.Write([]byte(parts[0] + "." + parts[1]))
	if !hmac.Equal(sig, mac.Sum(nil)) {
		return Identity{}, refuse(ReasonSignature, "the signature does not match")
	}

	var id Identity
	var sub, jti, iss string
	if !stringClaim(claims, "sub", &sub) || !subPattern.MatchString(sub) {
		return Identity{}, refuse(ReasonSub, "sub must match ^wa:\\+[1-9][0-9]{7,14}$")
	}
	id.Phone = strings.TrimPrefix(sub, "wa:")
	if !stringClaim(claims, "jti", &jti) || !uuidV4.MatchString(jti) {
		return Identity{}, refuse(ReasonJTI, "jti must be a UUID v4")
	}
	id.JTI = uuid.MustParse(jti)
	if !stringClaim(claims, "iss", &iss) || iss != v.issuer {
		return Identity{}, refuse(ReasonClaims, "iss must be %q", v.issuer)
	}
	if !v.audienceMatches(claims["aud"]) {
		return Identity{}, refuse(ReasonClaims, "aud must name this service")
	}
	if !labelClaim(claims, "agentId", &id.AgentID) || !labelClaim(claims, "threadId", &id.ThreadID) {
		return Identity{}, refuse(ReasonClaims, "agentId and threadId are required strings, without the NUL character")
	}
	iat, ok1 := intClaim(claims, "iat")
	exp, ok2 := intClaim(claims, "exp")
	if !ok1 || !ok2 {
		return Identity{}, refuse(ReasonClaims, "iat and exp are required, as JSON integers (not strings)")
	}
	if raw, ok := claims["identityKeyHash"]; ok && string(raw) != "null" {
		if !stringClaim(claims, "identityKeyHash", &id.IdentityKeyHash) || !hashPattern.MatchString(id.IdentityKeyHash) {
			return Identity{}, refuse(ReasonClaims, "identityKeyHash must match ^[A-Za-z0-9+/=_-]{1,128}$")
		}
	}
	id.IssuedAt, id.ExpiresAt = time.Unix(iat, 0), time.Unix(exp, 0)
	if exp-iat != int64(Lifetime/time.Second) {
		return Identity{}, refuse(ReasonLifetime, "exp must be iat + 120")
	}
	now := v.now()
	if now.After(id.ExpiresAt.Add(Tolerance)) {
		return Identity{}, refuse(ReasonExpired, "expired at %s", id.ExpiresAt.UTC().Format(time.RFC3339))
	}
	if id.IssuedAt.After(now.Add(Tolerance)) || id.IssuedAt.Before(now.Add(-MaxPastIAT)) {
		return Identity{}, refuse(ReasonIAT, "iat is outside the accepted window")
	}
	fresh, err := v.jtis.Use(ctx, id.JTI, id.ExpiresAt.Add(Tolerance))
	if err != nil {
		return Identity{}, err
	}
	if !fresh {
		return Identity{}, refuse(ReasonReused, "this jti was used before")
	}
	return id, nil
}

func (v *Verifier) audienceMatches(raw json.RawMessage) bool {
	var one string
	var many []string
	if json.Unmarshal(raw, &one) == nil {
		many = []string{one}
	} else if json.Unmarshal(raw, &many) != nil {
		return false
	}
	for _, a := range many {
		for _, want := range v.audiences {
			if a == want {
				return true
			}
		}
	}
	return false
}

func decodePart(part string, v any) error {
	data, err := base64.RawURLEncoding.DecodeString(part)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return dec.Decode(v)
}

func stringClaim(claims map[string]json.RawMessage, name string, out *string) bool {
	raw, ok := claims[name]
	return ok && json.Unmarshal(raw, out) == nil
}

// labelClaim reads a non-empty string claim that names something in the audit log's user
// agent, so it must not hold NUL.
func labelClaim(claims map[string]json.RawMessage, name string, out *string) bool {
	return stringClaim(claims, name, out) && *out != "" && !strings.Contains(*out, "\x00")
}

// intClaim reads an integer claim written as a JSON number: json.Number alone would also
// take a string holding digits.
func intClaim(claims map[string]json.RawMessage, name string) (int64, bool) {
	raw, ok := claims[name]
	if !ok || len(raw) == 0 || raw[0] == '"' {
		return 0, false
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err != nil {
		return 0, false
	}
	i, err := n.Int64()
	return i, err == nil
}

// Mint signs a token: for tests and for the channel provider's side of development.
func Mint(secret string, claims map[string]any) string {
	enc := func(v any) string {
		data, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(data)
	}
	signing := enc(map[string]string{"alg": "HS256", "typ": "JWT"}) + "." + enc(claims)
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(signing))
	return signing + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// PhoneKey is the stored form of a phone number: an HMAC under the channel secret, so
// the database never holds the number itself.
func PhoneKey(secret, phone string) []byte {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(phone))
	return mac.Sum(nil)
}

// MaskPhone shows a number's country code start and last four digits only.
func MaskPhone(phone string) string {
	if len(phone) < 7 {
		return "***"
	}
	return phone[:3] + strings.Repeat("*", len(phone)-7) + phone[len(phone)-4:]
}

// NewCode makes a one-time link code: 8 characters from an alphabet without look-alikes.
func NewCode(random []byte) string {
	const alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
	out := make([]byte, 8)
	for i := range out {
		out[i] = alphabet[int(random[i])%len(alphabet)]
	}
	return string(out)
}

// CodeKey is the stored form of a link code.
func CodeKey(code string) string {
	sum := sha256.Sum256([]byte(strings.ToUpper(strings.TrimSpace(code))))
	return hex.EncodeToString(sum[:])
}
