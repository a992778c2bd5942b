package session

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

var t0 = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

const secret = "dev-secret-0123456789abcdef"

// clock is the injected clock; tests move it instead of sleeping.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: t0} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// idp is an identity provider's JWKS endpoint that counts its fetches.
type idp struct {
	mu      sync.Mutex
	body    []byte
	status  int
	gate    chan struct{} // when set, requests wait for it to close
	fetches atomic.Int64
	srv     *httptest.Server
}

func newIDP(t *testing.T, keys ...map[string]string) *idp {
	t.Helper()
	p := &idp{status: http.StatusOK}
	p.publish(keys...)
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.fetches.Add(1)
		p.mu.Lock()
		gate, status, body := p.gate, p.status, p.body
		p.mu.Unlock()
		if gate != nil {
			<-gate
		}
		w.WriteHeader(status)
		_, _ = w.Write(body)
	}))
	t.Cleanup(p.srv.Close)
	return p
}

// verifier returns a verifier of the provider's keys on clk's time; it needs no fetch.
func (p *idp) verifier(t *testing.T, clk *clock) *Verifier {
	t.Helper()
	v, err := NewVerifier(Config{JWKSURL: p.srv.URL, Now: clk.Now})
	if err != nil {
		t.Fatalf("NewVerifier must not need the provider: %v", err)
	}
	return v
}

func (p *idp) publish(keys ...map[string]string) {
	body, _ := json.Marshal(map[string]any{"keys": keys})
	p.serve(http.StatusOK, body)
}

func (p *idp) serve(status int, body []byte) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.status, p.body = status, body
}

func (p *idp) hold() chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.gate = make(chan struct{})
	return p.gate
}

// waitFetches waits for background fetches, which the verifier does not report.
func (p *idp) waitFetches(t *testing.T, want int64) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for p.fetches.Load() < want {
		if time.Now().After(deadline) {
			t.Fatalf("%d fetches, want %d", p.fetches.Load(), want)
		}
		time.Sleep(time.Millisecond)
	}
}

func enc(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func rsaJWK(kid string, k *rsa.PrivateKey) map[string]string {
	return map[string]string{"kty": "RSA", "kid": kid, "use": "sig", "alg": "RS256",
		"n": enc(k.N.Bytes()), "e": enc(big.NewInt(int64(k.E)).Bytes())}
}

func ecJWK(kid string, k *ecdsa.PrivateKey) map[string]string {
	size := (k.Curve.Params().BitSize + 7) / 8
	return map[string]string{"kty": "EC", "kid": kid, "crv": k.Curve.Params().Name,
		"x": enc(k.X.FillBytes(make([]byte, size))), "y": enc(k.Y.FillBytes(make([]byte, size)))}
}

func claims(mod func(jwt.MapClaims)) jwt.MapClaims {
	c := jwt.MapClaims{"sub": "u-1", "email": "u@example.com", "name": "U",
		"iat": t0.Unix(), "exp": t0.Add(time.Hour).Unix()}
	if mod != nil {
		mod(c)
	}
	return c
}

func sign(t *testing.T, method jwt.SigningMethod, kid string, key any, c jwt.MapClaims) string {
	t.Helper()
	tok := jwt.NewWithClaims(method, c)
	if kid != "" {
		tok.Header["kid"] = kid
	}
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func hs(t *testing.T, mod func(jwt.MapClaims)) string {
	return sign(t, jwt.SigningMethodHS256, "", []byte(secret), claims(mod))
}

// raw builds a token from literal JSON, for shapes the jwt package will not sign.
func raw(header, payload, sig string) string {
	return enc([]byte(header)) + "." + enc([]byte(payload)) + "." + sig
}

// hmacRaw signs literal JSON with the test secret.
func hmacRaw(t *testing.T, header, payload string) string {
	t.Helper()
	unsigned := enc([]byte(header)) + "." + enc([]byte(payload))
	sig, err := jwt.SigningMethodHS256.Sign(unsigned, []byte(secret))
	if err != nil {
		t.Fatal(err)
	}
	return unsigned + "." + enc(sig)
}

var (
	keysOnce               sync.Once
	rsaA, rsaB, rsaWeak    *rsa.PrivateKey
	ecA, ecB, ecP384       *ecdsa.PrivateKey
	rsaAPEM, rsaADER, rsaN []byte
)

// testKeys generates the keys once, since RSA generation is slow under -race.
func testKeys(t *testing.T) {
	t.Helper()
	keysOnce.Do(func() {
		rsaA, _ = rsa.GenerateKey(rand.Reader, 2048)
		rsaB, _ = rsa.GenerateKey(rand.Reader, 2048)
		rsaWeak, _ = rsa.GenerateKey(rand.Reader, 1024)
		ecA, _ = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		ecB, _ = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		ecP384, _ = ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
		rsaADER, _ = x509.MarshalPKIXPublicKey(&rsaA.PublicKey)
		rsaAPEM = pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: rsaADER})
		rsaN = rsaA.N.Bytes()
	})
	if rsaA == nil || rsaWeak == nil || ecP384 == nil || rsaAPEM == nil {
		t.Fatal("key generation failed")
	}
}

// check asserts the outcome of Verify and that a failure wraps ErrInvalidToken without
// quoting the token.
func check(t *testing.T, v *Verifier, token string, wantOK bool, wantReason string) Claims {
	t.Helper()
	got, err := v.Verify(t.Context(), token)
	if wantOK {
		if err != nil {
			t.Fatalf("rejected: %v", err)
		}
		return got
	}
	if err == nil {
		t.Fatalf("accepted: %+v", got)
	}
	if !errors.Is(err, ErrInvalidToken) {
		t.Fatalf("error does not wrap ErrInvalidToken: %v", err)
	}
	if wantReason != "" && !strings.Contains(err.Error(), wantReason) {
		t.Fatalf("error %q does not give the reason %q", err, wantReason)
	}
	for _, part := range strings.Split(token, ".") {
		if len(part) >= 16 && strings.Contains(err.Error(), part) {
			t.Fatalf("error quotes the token: %v", err)
		}
	}
	return got
}

func TestNewVerifier(t *testing.T) {
	p := newIDP(t)
	cases := []struct {
		name string
		cfg  Config
		ok   bool
	}{
		{"no key source", Config{}, false},
		{"only issuer", Config{Issuer: "https://idp.example"}, false},
		{"negative leeway", Config{HS256Secret: secret, Leeway: -time.Second}, false},
		{"relative JWKS URL", Config{JWKSURL: "/jwks.json"}, false},
		{"JWKS URL of another scheme", Config{JWKSURL: "file:///etc/jwks.json"}, false},
		{"HS256", Config{HS256Secret: secret}, true},
		{"JWKS", Config{JWKSURL: p.srv.URL}, true},
		{"both", Config{JWKSURL: p.srv.URL, HS256Secret: secret}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, err := NewVerifier(c.cfg)
			if c.ok != (err == nil) || c.ok != (v != nil) {
				t.Fatalf("NewVerifier = %v, %v; want ok=%v", v, err, c.ok)
			}
		})
	}
	if n := p.fetches.Load(); n != 0 {
		t.Fatalf("NewVerifier fetched the JWKS %d times", n)
	}
}

func TestHS256(t *testing.T) {
	testKeys(t)
	v, err := NewVerifier(Config{HS256Secret: secret, Now: newClock().Now})
	if err != nil {
		t.Fatal(err)
	}
	noneHeader := `{"alg":"none","typ":"JWT"}`
	payload := fmt.Sprintf(`{"sub":"u-1","email":"u@example.com","iat":%d,"exp":%d}`, t0.Unix(), t0.Add(time.Hour).Unix())
	valid := hs(t, nil)
	parts := strings.Split(valid, ".")
	cases := []struct {
		name   string
		token  string
		ok     bool
		reason string
	}{
		{"valid", valid, true, ""},
		{"valid from literal JSON", hmacRaw(t, `{"alg":"HS256","typ":"JWT"}`, payload), true, ""},
		{"wrong secret", sign(t, jwt.SigningMethodHS256, "", []byte("another-secret"), claims(nil)), false, "signature is invalid"},
		{"signature of another token", parts[0] + "." + parts[1] + "." + strings.Split(hs(t, func(c jwt.MapClaims) { c["sub"] = "u-2" }), ".")[2], false, "signature"},
		{"alg none", raw(noneHeader, payload, ""), false, "none"},
		{"alg none with a signature", raw(noneHeader, payload, parts[2]), false, "none"},
		{"alg NONE", raw(`{"alg":"NONE","typ":"JWT"}`, payload, ""), false, ""},
		{"alg missing", raw(`{"typ":"JWT"}`, payload, parts[2]), false, "alg"},
		{"unknown alg", raw(`{"alg":"XS999","typ":"JWT"}`, payload, parts[2]), false, "alg"},
		{"HS512", sign(t, jwt.SigningMethodHS512, "", []byte(secret), claims(nil)), false, "HS512 is invalid"},
		{"HS384", sign(t, jwt.SigningMethodHS384, "", []byte(secret), claims(nil)), false, "HS384 is invalid"},
		{"RS256 without a JWKS", sign(t, jwt.SigningMethodRS256, "a", rsaA, claims(nil)), false, "RS256 is invalid"},
		{"crit header", hmacRaw(t, `{"alg":"HS256","crit":["exp"],"exp":1}`, payload), false, "crit"},
		{"expired", hs(t, func(c jwt.MapClaims) { c["exp"] = t0.Add(-time.Minute).Unix() }), false, "expired"},
		{"expired within leeway", hs(t, func(c jwt.MapClaims) { c["exp"] = t0.Add(-20 * time.Second).Unix() }), true, ""},
		{"no exp", hs(t, func(c jwt.MapClaims) { delete(c, "exp") }), false, "exp"},
		{"exp not a number", hs(t, func(c jwt.MapClaims) { c["exp"] = "tomorrow" }), false, ""},
		{"nbf in the future", hs(t, func(c jwt.MapClaims) { c["nbf"] = t0.Add(time.Minute).Unix() }), false, "not valid yet"},
		{"nbf within leeway", hs(t, func(c jwt.MapClaims) { c["nbf"] = t0.Add(20 * time.Second).Unix() }), true, ""},
		{"iat in the future", hs(t, func(c jwt.MapClaims) { c["iat"] = t0.Add(5 * time.Minute).Unix() }), false, "before issued"},
		{"iat within leeway", hs(t, func(c jwt.MapClaims) { c["iat"] = t0.Add(20 * time.Second).Unix() }), true, ""},
		{"no iat", hs(t, func(c jwt.MapClaims) { delete(c, "iat") }), true, ""},
		{"missing sub", hs(t, func(c jwt.MapClaims) { delete(c, "sub") }), false, "sub missing"},
		{"empty sub", hs(t, func(c jwt.MapClaims) { c["sub"] = "" }), false, "sub missing"},
		{"sub not a string", hs(t, func(c jwt.MapClaims) { c["sub"] = 42 }), false, ""},
		{"sub of 255 bytes", hs(t, func(c jwt.MapClaims) { c["sub"] = strings.Repeat("s", 255) }), true, ""},
		{"sub of 256 bytes", hs(t, func(c jwt.MapClaims) { c["sub"] = strings.Repeat("s", 256) }), false, "sub longer"},
		{"missing email", hs(t, func(c jwt.MapClaims) { delete(c, "email") }), false, "email missing"},
		{"email without @", hs(t, func(c jwt.MapClaims) { c["email"] = "nobody" }), false, "email malformed"},
		{"email with two @", hs(t, func(c jwt.MapClaims) { c["email"] = "a@b@example.com" }), false, "email malformed"},
		{"email without local part", hs(t, func(c jwt.MapClaims) { c["email"] = "@example.com" }), false, "email malformed"},
		{"email without domain", hs(t, func(c jwt.MapClaims) { c["email"] = "u@" }), false, "email malformed"},
		{"email with a space", hs(t, func(c jwt.MapClaims) { c["email"] = "u @example.com" }), false, "email malformed"},
		{"email with a newline", hs(t, func(c jwt.MapClaims) { c["email"] = "u@example.com\nBcc: x@y" }), false, "email malformed"},
		{"email display form", hs(t, func(c jwt.MapClaims) { c["email"] = "U <u@example.com>" }), false, "email malformed"},
		{"email of 320 bytes", hs(t, func(c jwt.MapClaims) { c["email"] = "u@" + strings.Repeat("d", 314) + ".com" }), true, ""},
		{"email of 321 bytes", hs(t, func(c jwt.MapClaims) { c["email"] = "u@" + strings.Repeat("d", 315) + ".com" }), false, "email malformed"},
		{"email not a string", hs(t, func(c jwt.MapClaims) { c["email"] = true }), false, ""},
		{"email verified", hs(t, func(c jwt.MapClaims) { c["email_verified"] = true }), true, ""},
		{"email verified as a string", hs(t, func(c jwt.MapClaims) { c["email_verified"] = "true" }), true, ""},
		{"email not verified", hs(t, func(c jwt.MapClaims) { c["email_verified"] = false }), false, "email not verified"},
		{"email not verified as a string", hs(t, func(c jwt.MapClaims) { c["email_verified"] = "false" }), false, "email not verified"},
		{"email_verified of another type", hs(t, func(c jwt.MapClaims) { c["email_verified"] = 1 }), false, ""},
		{"no name", hs(t, func(c jwt.MapClaims) { delete(c, "name") }), true, ""},
		{"name of 256 bytes", hs(t, func(c jwt.MapClaims) { c["name"] = strings.Repeat("n", 256) }), false, "name longer"},
		{"oversize", hs(t, func(c jwt.MapClaims) { c["pad"] = strings.Repeat("x", 9000) }), false, "8 KiB"},
		{"empty", "", false, "empty"},
		{"one segment", "abc", false, "malformed"},
		{"two segments", parts[0] + "." + parts[1], false, "malformed"},
		{"four segments", valid + ".x", false, "malformed"},
		{"bearer prefix", "Bearer " + valid, false, ""},
		{"header not base64", "!!!." + parts[1] + "." + parts[2], false, "malformed"},
		{"payload not base64", parts[0] + ".%%%." + parts[2], false, "malformed"},
		{"signature not base64", parts[0] + "." + parts[1] + ".***", false, "malformed"},
		{"padded segments", parts[0] + "==." + parts[1] + "." + parts[2], false, "malformed"},
		{"header not JSON", raw("not json", payload, parts[2]), false, "malformed"},
		{"payload not JSON", hmacRaw(t, `{"alg":"HS256"}`, "not json"), false, "malformed"},
		{"payload a JSON array", hmacRaw(t, `{"alg":"HS256"}`, "[]"), false, "malformed"},
		{"dots only", "..", false, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := check(t, v, c.token, c.ok, c.reason)
			if c.ok && got.Subject == "" {
				t.Fatalf("claims %+v", got)
			}
		})
	}
	got := check(t, v, valid, true, "")
	if want := (Claims{Subject: "u-1", Email: "u@example.com", Name: "U"}); got != want {
		t.Fatalf("claims %+v, want %+v", got, want)
	}
}

func TestTokenSizeLimit(t *testing.T) {
	testKeys(t)
	p := newIDP(t)
	v, err := NewVerifier(Config{HS256Secret: secret, JWKSURL: p.srv.URL, Now: newClock().Now})
	if err != nil {
		t.Fatal(err)
	}
	// Find the largest token that fits in 8 KiB, and one just over.
	var fits, over string
	for n := 5800; n < 6400 && over == ""; n++ {
		tok := hs(t, func(c jwt.MapClaims) { c["pad"] = strings.Repeat("x", n) })
		switch {
		case len(tok) <= maxTokenBytes:
			fits = tok
		default:
			over = tok
		}
	}
	if fits == "" || over == "" || len(fits) < maxTokenBytes-4 {
		t.Fatalf("could not build tokens around the limit: %d, %d", len(fits), len(over))
	}
	check(t, v, fits, true, "")
	check(t, v, over, false, "8 KiB")
	// Rejected before parsing: the JWKS is never asked for the oversize RS256 token's key.
	large := sign(t, jwt.SigningMethodRS256, "a", rsaA, claims(func(c jwt.MapClaims) { c["pad"] = strings.Repeat("x", 9000) }))
	check(t, v, large, false, "8 KiB")
	if n := p.fetches.Load(); n != 0 {
		t.Fatalf("oversize token made %d JWKS fetches", n)
	}
}

func TestIssuerAndAudience(t *testing.T) {
	const iss, aud = "https://idp.example", "finledger"
	strict, err := NewVerifier(Config{HS256Secret: secret, Issuer: iss, Audience: aud, Now: newClock().Now})
	if err != nil {
		t.Fatal(err)
	}
	lax, err := NewVerifier(Config{HS256Secret: secret, Now: newClock().Now})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name            string
		iss             any // nil: claim absent
		aud             any
		strictOK, laxOK bool
	}{
		{"both match", iss, aud, true, true},
		{"audience in a list", iss, []string{"other", aud}, true, true},
		{"wrong issuer", "https://evil.example", aud, false, true},
		{"issuer differing in case", "https://IDP.example", aud, false, true},
		{"issuer with a trailing slash", iss + "/", aud, false, true},
		{"no issuer", nil, aud, false, true},
		{"wrong audience", iss, "other", false, true},
		{"audience list without ours", iss, []string{"a", "b"}, false, true},
		{"no audience", iss, nil, false, true},
		{"neither", nil, nil, false, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tok := hs(t, func(m jwt.MapClaims) {
				if c.iss != nil {
					m["iss"] = c.iss
				}
				if c.aud != nil {
					m["aud"] = c.aud
				}
			})
			got := check(t, strict, tok, c.strictOK, "")
			if c.strictOK && got.Issuer != iss {
				t.Fatalf("issuer %q", got.Issuer)
			}
			check(t, lax, tok, c.laxOK, "")
		})
	}
}

func TestMintHS256(t *testing.T) {
	clk := newClock()
	v, err := NewVerifier(Config{HS256Secret: secret, Issuer: "https://dev.local", Audience: "finledger", Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	in := Claims{Subject: "dev-user", Email: "dev@example.com", Name: "Dev", Issuer: "https://dev.local"}
	tok, err := MintHS256(secret, in, t0, time.Hour, "finledger")
	if err != nil {
		t.Fatal(err)
	}
	if got := check(t, v, tok, true, ""); got != in {
		t.Fatalf("claims %+v, want %+v", got, in)
	}
	var m jwt.MapClaims
	if _, _, err := jwt.NewParser().ParseUnverified(tok, &m); err != nil {
		t.Fatal(err)
	}
	for claim, want := range map[string]any{"iat": float64(t0.Unix()), "nbf": float64(t0.Unix()),
		"exp": float64(t0.Add(time.Hour).Unix()), "iss": "https://dev.local", "name": "Dev"} {
		if m[claim] != want {
			t.Errorf("%s = %v, want %v", claim, m[claim], want)
		}
	}
	if aud, _ := m.GetAudience(); len(aud) != 1 || aud[0] != "finledger" {
		t.Errorf("aud = %v", aud)
	}
	clk.Add(time.Hour + time.Minute)
	check(t, v, tok, false, "expired")

	bare, err := MintHS256(secret, Claims{Subject: "s", Email: "s@example.com"}, t0, time.Hour, "")
	if err != nil {
		t.Fatal(err)
	}
	m = jwt.MapClaims{}
	if _, _, err := jwt.NewParser().ParseUnverified(bare, &m); err != nil {
		t.Fatal(err)
	}
	for _, claim := range []string{"iss", "aud", "name", "email_verified"} {
		if _, ok := m[claim]; ok {
			t.Errorf("%s set without a value", claim)
		}
	}

	bad := []struct {
		name   string
		secret string
		c      Claims
		ttl    time.Duration
	}{
		{"empty secret", "", in, time.Hour},
		{"no subject", secret, Claims{Email: "a@b.c"}, time.Hour},
		{"long subject", secret, Claims{Subject: strings.Repeat("s", 256), Email: "a@b.c"}, time.Hour},
		{"bad email", secret, Claims{Subject: "s", Email: "nobody"}, time.Hour},
		{"long name", secret, Claims{Subject: "s", Email: "a@b.c", Name: strings.Repeat("n", 256)}, time.Hour},
		{"zero ttl", secret, in, 0},
		{"negative ttl", secret, in, -time.Hour},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			if tok, err := MintHS256(c.secret, c.c, t0, c.ttl, ""); err == nil {
				t.Fatalf("minted %q", tok)
			}
		})
	}
}

func TestJWKS(t *testing.T) {
	testKeys(t)
	weakJWK := rsaJWK("weak", rsaWeak)
	encJWK := rsaJWK("enc", rsaB)
	encJWK["use"] = "enc"
	psJWK := rsaJWK("ps", rsaB)
	psJWK["alg"] = "PS256"
	p := newIDP(t,
		rsaJWK("a", rsaA), ecJWK("e", ecA), weakJWK, encJWK, psJWK, ecJWK("p384", ecP384),
		map[string]string{"kty": "oct", "kid": "oct", "k": enc([]byte(secret))},
		map[string]string{"kty": "OKP", "kid": "ed", "crv": "Ed25519", "x": enc(make([]byte, 32))},
		map[string]string{"kty": "EC", "kid": "off-curve", "crv": "P-256", "x": enc(make([]byte, 32)), "y": enc(make([]byte, 32))},
		map[string]string{"kty": "RSA", "kid": "garbage", "n": "!!", "e": "AQAB"},
	)
	v := p.verifier(t, newClock())
	hsWith := func(key []byte) string { return sign(t, jwt.SigningMethodHS256, "a", key, claims(nil)) }
	jwkJSON, _ := json.Marshal(rsaJWK("a", rsaA))
	cases := []struct {
		name   string
		token  string
		ok     bool
		reason string
	}{
		{"RS256", sign(t, jwt.SigningMethodRS256, "a", rsaA, claims(nil)), true, ""},
		{"ES256", sign(t, jwt.SigningMethodES256, "e", ecA, claims(nil)), true, ""},
		{"RS256 without kid, one RSA key", sign(t, jwt.SigningMethodRS256, "", rsaA, claims(nil)), true, ""},
		{"ES256 without kid, one P-256 key", sign(t, jwt.SigningMethodES256, "", ecA, claims(nil)), true, ""},
		{"RS256 by a key not in the JWKS", sign(t, jwt.SigningMethodRS256, "a", rsaB, claims(nil)), false, "verification error"},
		{"ES256 by a key not in the JWKS", sign(t, jwt.SigningMethodES256, "e", ecB, claims(nil)), false, "verification error"},
		{"ES256 naming an RSA kid", sign(t, jwt.SigningMethodES256, "a", ecA, claims(nil)), false, "no ES256 key"},
		{"RS256 naming an EC kid", sign(t, jwt.SigningMethodRS256, "e", rsaA, claims(nil)), false, "no RS256 key"},
		{"HS256 keyed by the RSA public key PEM", hsWith(rsaAPEM), false, "HS256 is invalid"},
		{"HS256 keyed by the RSA public key DER", hsWith(rsaADER), false, "HS256 is invalid"},
		{"HS256 keyed by the RSA modulus", hsWith(rsaN), false, "HS256 is invalid"},
		{"HS256 keyed by the JWK JSON", hsWith(jwkJSON), false, "HS256 is invalid"},
		{"HS256 keyed by an oct JWK", sign(t, jwt.SigningMethodHS256, "oct", []byte(secret), claims(nil)), false, "HS256 is invalid"},
		{"alg none", raw(`{"alg":"none","typ":"JWT","kid":"a"}`, `{"sub":"u","email":"u@e.x","exp":4102444800}`, ""), false, "none"},
		{"RS384", sign(t, jwt.SigningMethodRS384, "a", rsaA, claims(nil)), false, "RS384 is invalid"},
		{"PS256", sign(t, jwt.SigningMethodPS256, "ps", rsaB, claims(nil)), false, "PS256 is invalid"},
		{"ES384", sign(t, jwt.SigningMethodES384, "p384", ecP384, claims(nil)), false, "ES384 is invalid"},
		{"RS256 by a key published for encryption", sign(t, jwt.SigningMethodRS256, "enc", rsaB, claims(nil)), false, "no RS256 key"},
		{"RS256 by a key published for PS256", sign(t, jwt.SigningMethodRS256, "ps", rsaB, claims(nil)), false, "no RS256 key"},
		{"RS256 by a 1024-bit key", sign(t, jwt.SigningMethodRS256, "weak", rsaWeak, claims(nil)), false, "no RS256 key"},
		{"expired RS256", sign(t, jwt.SigningMethodRS256, "a", rsaA, claims(func(c jwt.MapClaims) { c["exp"] = t0.Add(-time.Hour).Unix() })), false, "expired"},
		{"RS256 without email", sign(t, jwt.SigningMethodRS256, "a", rsaA, claims(func(c jwt.MapClaims) { delete(c, "email") })), false, "email missing"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { check(t, v, c.token, c.ok, c.reason) })
	}
	// A non-string kid is refused rather than treated as absent.
	tok := jwt.NewWithClaims(jwt.SigningMethodRS256, claims(nil))
	tok.Header["kid"] = 7
	s, err := tok.SignedString(rsaA)
	if err != nil {
		t.Fatal(err)
	}
	check(t, v, s, false, "kid is not a string")
	if n := p.fetches.Load(); n != 1 {
		// One fetch at first use; unknown kids within 30 s do not refetch.
		t.Fatalf("%d fetches, want 1", n)
	}
}

func TestJWKSKidAmbiguity(t *testing.T) {
	testKeys(t)
	p := newIDP(t, rsaJWK("a", rsaA), rsaJWK("b", rsaB), rsaJWK("dup", rsaA), rsaJWK("dup", rsaB))
	v := p.verifier(t, newClock())
	check(t, v, sign(t, jwt.SigningMethodRS256, "b", rsaB, claims(nil)), true, "")
	check(t, v, sign(t, jwt.SigningMethodRS256, "", rsaB, claims(nil)), false, "no RS256 key")
	check(t, v, sign(t, jwt.SigningMethodRS256, "dup", rsaB, claims(nil)), false, "no RS256 key")
}

func TestBothSourcesConfigured(t *testing.T) {
	testKeys(t)
	p := newIDP(t, rsaJWK("a", rsaA), ecJWK("e", ecA))
	v, err := NewVerifier(Config{JWKSURL: p.srv.URL, HS256Secret: secret, Now: newClock().Now})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		token string
		ok    bool
	}{
		{"HS256 with the secret", hs(t, nil), true},
		{"HS256 with the secret and an RSA kid", sign(t, jwt.SigningMethodHS256, "a", []byte(secret), claims(nil)), true},
		{"HS256 keyed by the RSA public key PEM", sign(t, jwt.SigningMethodHS256, "a", rsaAPEM, claims(nil)), false},
		{"HS256 keyed by the RSA public key DER", sign(t, jwt.SigningMethodHS256, "a", rsaADER, claims(nil)), false},
		{"RS256", sign(t, jwt.SigningMethodRS256, "a", rsaA, claims(nil)), true},
		{"ES256", sign(t, jwt.SigningMethodES256, "e", ecA, claims(nil)), true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { check(t, v, c.token, c.ok, "") })
	}
}

func TestKeyRotation(t *testing.T) {
	testKeys(t)
	p := newIDP(t, rsaJWK("a", rsaA))
	clk := newClock()
	v := p.verifier(t, clk)
	tokA := sign(t, jwt.SigningMethodRS256, "a", rsaA, claims(nil))
	tokB := sign(t, jwt.SigningMethodRS256, "b", rsaB, claims(nil))
	check(t, v, tokA, true, "")
	check(t, v, tokB, false, "no RS256 key")
	if n := p.fetches.Load(); n != 1 {
		t.Fatalf("%d fetches, want 1", n)
	}

	// The provider rotates to B while we are still inside the 30 s miss window.
	p.publish(rsaJWK("a", rsaA), rsaJWK("b", rsaB))
	clk.Add(10 * time.Second)
	check(t, v, tokB, false, "no RS256 key")
	if n := p.fetches.Load(); n != 1 {
		t.Fatalf("%d fetches inside the miss window, want 1", n)
	}
	clk.Add(21 * time.Second)
	check(t, v, tokB, true, "")
	check(t, v, tokA, true, "")
	if n := p.fetches.Load(); n != 2 {
		t.Fatalf("%d fetches after the rotation, want 2", n)
	}
}

func TestUnknownKidFlood(t *testing.T) {
	testKeys(t)
	p := newIDP(t, rsaJWK("a", rsaA))
	clk := newClock()
	v := p.verifier(t, clk)
	check(t, v, sign(t, jwt.SigningMethodRS256, "a", rsaA, claims(nil)), true, "")
	tokens := make([]string, 200)
	for i := range tokens {
		tokens[i] = sign(t, jwt.SigningMethodRS256, fmt.Sprintf("junk-%d", i), rsaB, claims(nil))
	}
	flood := func() {
		var wg sync.WaitGroup
		for _, tok := range tokens {
			wg.Go(func() {
				if _, err := v.Verify(context.Background(), tok); !errors.Is(err, ErrInvalidToken) {
					t.Errorf("unknown kid: %v", err)
				}
			})
		}
		wg.Wait()
	}
	steps := []struct {
		advance time.Duration
		fetches int64 // in total, after a flood at that time
	}{
		{0, 1},                // inside the window of the first fetch
		{29 * time.Second, 1}, // still inside it
		{2 * time.Second, 2},  // 31 s: one refetch for the whole flood
		{10 * time.Second, 2}, // inside the new window
		{25 * time.Second, 3}, // 35 s after the refetch
		{5 * time.Minute, 4},  // a long quiet spell still allows only one
		{time.Second, 4},      //
		{28 * time.Second, 4}, // 29 s after
		{time.Second, 5},      // exactly 30 s after
		{100 * time.Hour, 6},  //
		{29 * time.Second, 6}, //
		{-time.Hour, 7},       // the clock went back: one fetch starts a new window
		{10 * time.Second, 7}, // which holds on the new clock
		{30 * time.Second, 8}, //
	}
	for i, s := range steps {
		clk.Add(s.advance)
		flood()
		if n := p.fetches.Load(); n != s.fetches {
			t.Fatalf("step %d (+%v): %d fetches, want %d", i, s.advance, n, s.fetches)
		}
	}
}

func TestOneFetchInFlight(t *testing.T) {
	testKeys(t)
	p := newIDP(t, rsaJWK("a", rsaA))
	gate := p.hold()
	v := p.verifier(t, newClock())
	tok := sign(t, jwt.SigningMethodRS256, "a", rsaA, claims(nil))
	var wg sync.WaitGroup
	var ok atomic.Int64
	for range 100 {
		wg.Go(func() {
			if _, err := v.Verify(context.Background(), tok); err == nil {
				ok.Add(1)
			}
		})
	}
	p.waitFetches(t, 1)
	time.Sleep(50 * time.Millisecond) // let the other goroutines reach the fetch in flight
	close(gate)
	wg.Wait()
	if n := p.fetches.Load(); n != 1 {
		t.Fatalf("%d fetches for 100 concurrent first verifications, want 1", n)
	}
	if ok.Load() != 100 {
		t.Fatalf("%d of 100 verified", ok.Load())
	}
}

func TestCallerGivingUpDoesNotCancelTheFetch(t *testing.T) {
	testKeys(t)
	p := newIDP(t, rsaJWK("a", rsaA))
	gate := p.hold()
	v := p.verifier(t, newClock())
	tok := sign(t, jwt.SigningMethodRS256, "a", rsaA, claims(nil))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := v.Verify(ctx, tok)
		done <- err
	}()
	p.waitFetches(t, 1)
	cancel()
	if err := <-done; !errors.Is(err, ErrInvalidToken) || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	close(gate)
	// The abandoned fetch completes and serves the next caller, with no second fetch.
	check(t, v, tok, true, "")
	if n := p.fetches.Load(); n != 1 {
		t.Fatalf("%d fetches, want 1", n)
	}
}

func TestPeriodicRefresh(t *testing.T) {
	testKeys(t)
	p := newIDP(t, rsaJWK("a", rsaA), rsaJWK("b", rsaB))
	clk := newClock()
	v := p.verifier(t, clk)
	tokA := sign(t, jwt.SigningMethodRS256, "a", rsaA, claims(func(c jwt.MapClaims) { c["exp"] = t0.Add(time.Hour).Unix() }))
	check(t, v, tokA, true, "")
	clk.Add(4 * time.Minute)
	check(t, v, tokA, true, "")
	if n := p.fetches.Load(); n != 1 {
		t.Fatalf("%d fetches within five minutes, want 1", n)
	}

	// The provider revokes A; after five minutes the cached key still serves while the
	// refresh runs in the background, and is dropped once it lands.
	p.publish(rsaJWK("b", rsaB))
	clk.Add(61 * time.Second)
	check(t, v, tokA, true, "")
	p.waitFetches(t, 2)
	deadline := time.Now().Add(5 * time.Second)
	for {
		_, err := v.Verify(context.Background(), tokA)
		if err != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("revoked key still accepted after the refresh")
		}
		time.Sleep(time.Millisecond)
	}
	check(t, v, tokA, false, "no RS256 key")
}

func TestProviderDown(t *testing.T) {
	testKeys(t)
	p := newIDP(t)
	p.serve(http.StatusServiceUnavailable, []byte("down"))
	clk := newClock()
	v := p.verifier(t, clk)
	tok := sign(t, jwt.SigningMethodRS256, "a", rsaA, claims(nil))
	check(t, v, tok, false, "status 503")
	clk.Add(10 * time.Second)
	check(t, v, tok, false, "status 503")
	if n := p.fetches.Load(); n != 1 {
		t.Fatalf("%d fetches from a provider that is down, want 1 per 30 s", n)
	}

	// The provider comes back.
	p.publish(rsaJWK("a", rsaA))
	clk.Add(25 * time.Second)
	check(t, v, tok, true, "")

	// It goes down again: the cached keys keep serving through failed refreshes.
	p.serve(http.StatusInternalServerError, nil)
	clk.Add(6 * time.Minute)
	check(t, v, tok, true, "")
	p.waitFetches(t, 3)
	time.Sleep(10 * time.Millisecond)
	check(t, v, tok, true, "")
}

func TestBadJWKSDocuments(t *testing.T) {
	testKeys(t)
	huge := []byte(`{"keys":[` + strings.Repeat(" ", 1<<20) + `]}`)
	cases := []struct {
		name   string
		status int
		body   []byte
		reason string
	}{
		{"larger than 1 MiB", http.StatusOK, huge, "larger than 1 MiB"},
		{"not JSON", http.StatusOK, []byte("<html>"), "parse"},
		{"no keys member", http.StatusOK, []byte(`{}`), "no usable"},
		{"only unusable keys", http.StatusOK, []byte(`{"keys":[{"kty":"oct","k":"c2VjcmV0"}]}`), "no usable"},
		{"not found", http.StatusNotFound, nil, "status 404"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := newIDP(t, rsaJWK("a", rsaA))
			clk := newClock()
			v := p.verifier(t, clk)
			tok := sign(t, jwt.SigningMethodRS256, "a", rsaA, claims(nil))
			check(t, v, tok, true, "")
			// A bad document neither verifies a new kid nor replaces the cached keys.
			p.serve(c.status, c.body)
			clk.Add(31 * time.Second)
			check(t, v, sign(t, jwt.SigningMethodRS256, "b", rsaB, claims(nil)), false, c.reason)
			check(t, v, tok, true, "")
			if n := p.fetches.Load(); n != 2 {
				t.Fatalf("%d fetches, want 2", n)
			}
		})
	}
	t.Run("padded base64 members", func(t *testing.T) {
		k := rsaJWK("a", rsaA)
		k["n"] += strings.Repeat("=", (4-len(k["n"])%4)%4)
		p := newIDP(t, k)
		v := p.verifier(t, newClock())
		check(t, v, sign(t, jwt.SigningMethodRS256, "a", rsaA, claims(nil)), true, "")
	})
}

func TestDefaultHTTPClientHasATimeout(t *testing.T) {
	v, err := NewVerifier(Config{JWKSURL: "https://idp.example/jwks"})
	if err != nil {
		t.Fatal(err)
	}
	if c := v.keys.client; c == nil || c.Timeout != 10*time.Second {
		t.Fatalf("client %+v", c)
	}
}
