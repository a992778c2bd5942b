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

var now = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

type idp struct {
	mu      sync.Mutex
	keys    []map[string]string
	fetches atomic.Int64
	srv     *httptest.Server
}

func newIDP(t *testing.T) *idp {
	p := &idp{}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.fetches.Add(1)
		p.mu.Lock()
		defer p.mu.Unlock()
		_ = json.NewEncoder(w).Encode(map[string]any{"keys": p.keys})
	}))
	t.Cleanup(p.srv.Close)
	return p
}

func (p *idp) publish(keys ...map[string]string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.keys = keys
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func rsaJWK(kid string, k *rsa.PrivateKey) map[string]string {
	return map[string]string{"kty": "RSA", "kid": kid, "use": "sig", "alg": "RS256",
		"n": b64(k.N.Bytes()), "e": b64(big.NewInt(int64(k.E)).Bytes())}
}

func ecJWK(kid string, k *ecdsa.PrivateKey) map[string]string {
	raw, _ := k.PublicKey.Bytes()
	return map[string]string{"kty": "EC", "kid": kid, "crv": "P-256", "x": b64(raw[1:33]), "y": b64(raw[33:])}
}

func claims(mod func(jwt.MapClaims)) jwt.MapClaims {
	c := jwt.MapClaims{"sub": "u-1", "email": "u@example.com", "name": "U", "iat": now.Unix(), "exp": now.Add(time.Hour).Unix()}
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

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func TestHS256(t *testing.T) {
	secret := "dev-secret-0123456789"
	v, err := NewVerifier(Config{HS256Secret: secret, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	enc := base64.RawURLEncoding.EncodeToString
	cases := []struct {
		name  string
		token string
		ok    bool
	}{
		{"valid", sign(t, jwt.SigningMethodHS256, "", []byte(secret), claims(nil)), true},
		{"wrong secret", sign(t, jwt.SigningMethodHS256, "", []byte("other"), claims(nil)), false},
		{"HS512 is not accepted", sign(t, jwt.SigningMethodHS512, "", []byte(secret), claims(nil)), false},
		{"alg none", enc([]byte(`{"alg":"none","typ":"JWT"}`)) + "." + enc([]byte(`{"sub":"u","email":"u@e.x","exp":4102444800}`)) + ".", false},
		{"expired", sign(t, jwt.SigningMethodHS256, "", []byte(secret), claims(func(c jwt.MapClaims) { c["exp"] = now.Add(-time.Minute).Unix() })), false},
		{"expired within leeway", sign(t, jwt.SigningMethodHS256, "", []byte(secret), claims(func(c jwt.MapClaims) { c["exp"] = now.Add(-10 * time.Second).Unix() })), true},
		{"no exp", sign(t, jwt.SigningMethodHS256, "", []byte(secret), claims(func(c jwt.MapClaims) { delete(c, "exp") })), false},
		{"not yet valid", sign(t, jwt.SigningMethodHS256, "", []byte(secret), claims(func(c jwt.MapClaims) { c["nbf"] = now.Add(time.Minute).Unix() })), false},
		{"issued in the future", sign(t, jwt.SigningMethodHS256, "", []byte(secret), claims(func(c jwt.MapClaims) { c["iat"] = now.Add(5 * time.Minute).Unix() })), false},
		{"no sub", sign(t, jwt.SigningMethodHS256, "", []byte(secret), claims(func(c jwt.MapClaims) { delete(c, "sub") })), false},
		{"no email", sign(t, jwt.SigningMethodHS256, "", []byte(secret), claims(func(c jwt.MapClaims) { delete(c, "email") })), false},
		{"bad email", sign(t, jwt.SigningMethodHS256, "", []byte(secret), claims(func(c jwt.MapClaims) { c["email"] = "nobody" })), false},
		{"oversize", sign(t, jwt.SigningMethodHS256, "", []byte(secret), claims(func(c jwt.MapClaims) { c["pad"] = strings.Repeat("x", 9000) })), false},
		{"garbage", "not.a.token", false},
		{"empty", "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := v.Verify(context.Background(), c.token)
			if c.ok != (err == nil) {
				t.Fatalf("err = %v, want ok=%v", err, c.ok)
			}
			if err != nil && !errors.Is(err, ErrInvalidToken) {
				t.Fatalf("error does not wrap ErrInvalidToken: %v", err)
			}
			if c.ok && (got.Subject != "u-1" || got.Email != "u@example.com" || got.Name != "U") {
				t.Fatalf("claims %+v", got)
			}
		})
	}
}

func TestIssuerAndAudience(t *testing.T) {
	secret := "dev-secret"
	v, _ := NewVerifier(Config{HS256Secret: secret, Issuer: "https://idp.example", Audience: "finledger", Now: func() time.Time { return now }})
	good := claims(func(c jwt.MapClaims) { c["iss"] = "https://idp.example"; c["aud"] = []string{"other", "finledger"} })
	if got, err := v.Verify(context.Background(), sign(t, jwt.SigningMethodHS256, "", []byte(secret), good)); err != nil || got.Issuer != "https://idp.example" {
		t.Fatalf("good token: %+v, %v", got, err)
	}
	for name, mod := range map[string]func(jwt.MapClaims){
		"wrong issuer":   func(c jwt.MapClaims) { c["iss"] = "https://evil.example"; c["aud"] = "finledger" },
		"no issuer":      func(c jwt.MapClaims) { c["aud"] = "finledger" },
		"wrong audience": func(c jwt.MapClaims) { c["iss"] = "https://idp.example"; c["aud"] = "other" },
		"no audience":    func(c jwt.MapClaims) { c["iss"] = "https://idp.example" },
	} {
		if _, err := v.Verify(context.Background(), sign(t, jwt.SigningMethodHS256, "", []byte(secret), claims(mod))); err == nil {
			t.Errorf("%s accepted", name)
		}
	}
	// MintHS256 makes tokens this verifier accepts.
	tok, err := MintHS256(secret, Claims{Subject: "s", Email: "s@e.x", Issuer: "https://idp.example"}, now, time.Hour, "finledger")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.Verify(context.Background(), tok); err != nil {
		t.Fatalf("minted token: %v", err)
	}
}

func TestJWKS(t *testing.T) {
	rsaA, _ := rsa.GenerateKey(rand.Reader, 2048)
	rsaB, _ := rsa.GenerateKey(rand.Reader, 2048)
	ecA, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	p := newIDP(t)
	p.publish(rsaJWK("a", rsaA), ecJWK("e", ecA), map[string]string{"kty": "oct", "kid": "x", "k": "c2VjcmV0"},
		map[string]string{"kty": "RSA", "kid": "enc", "use": "enc", "n": "AQAB", "e": "AQAB"})
	clk := &clock{t: now}
	v, err := NewVerifier(Config{JWKSURL: p.srv.URL, Now: clk.now})
	if err != nil {
		t.Fatal(err)
	}
	if p.fetches.Load() != 0 {
		t.Fatal("NewVerifier fetched keys")
	}
	ctx := context.Background()
	if _, err := v.Verify(ctx, sign(t, jwt.SigningMethodRS256, "a", rsaA, claims(nil))); err != nil {
		t.Fatalf("RS256: %v", err)
	}
	if _, err := v.Verify(ctx, sign(t, jwt.SigningMethodES256, "e", ecA, claims(nil))); err != nil {
		t.Fatalf("ES256: %v", err)
	}
	// Without kid the only key of the algorithm is used.
	if _, err := v.Verify(ctx, sign(t, jwt.SigningMethodES256, "", ecA, claims(nil))); err != nil {
		t.Fatalf("ES256 without kid: %v", err)
	}
	if _, err := v.Verify(ctx, sign(t, jwt.SigningMethodRS256, "a", rsaB, claims(nil))); err == nil {
		t.Fatal("RS256 signed by an unknown key accepted")
	}
	// Algorithm confusion: HMAC keyed with the public key is refused when only JWKS is set.
	pubDER, _ := x509.MarshalPKIXPublicKey(&rsaA.PublicKey)
	pubPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER})
	for _, key := range [][]byte{pubPEM, pubDER, rsaA.N.Bytes()} {
		if _, err := v.Verify(ctx, sign(t, jwt.SigningMethodHS256, "a", key, claims(nil))); err == nil {
			t.Fatal("HS256 token keyed with the RSA public key accepted")
		}
	}
	// An RS256 header on an ES key id must not pick the EC key, nor the reverse.
	if _, err := v.Verify(ctx, sign(t, jwt.SigningMethodES256, "a", ecA, claims(nil))); err == nil {
		t.Fatal("ES256 token verified against an RSA kid")
	}
	if n := p.fetches.Load(); n != 1 {
		t.Fatalf("%d fetches for known keys, want 1", n)
	}

	// Rotation: a token with the new kid is accepted once the provider publishes it.
	p.publish(rsaJWK("a", rsaA), rsaJWK("b", rsaB))
	tokB := sign(t, jwt.SigningMethodRS256, "b", rsaB, claims(nil))
	clk.add(31 * time.Second)
	if _, err := v.Verify(ctx, tokB); err != nil {
		t.Fatalf("rotated key: %v", err)
	}
	// Unknown kids refetch at most once per 30 seconds.
	before := p.fetches.Load()
	var wg sync.WaitGroup
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _ = v.Verify(ctx, sign(t, jwt.SigningMethodRS256, "junk", rsaB, claims(nil)))
		}()
	}
	wg.Wait()
	if n := p.fetches.Load() - before; n != 0 {
		t.Fatalf("%d fetches for unknown kids within 30 s of the last fetch", n)
	}
	clk.add(31 * time.Second)
	for i := 0; i < 20; i++ {
		_, _ = v.Verify(ctx, sign(t, jwt.SigningMethodRS256, "junk", rsaB, claims(nil)))
	}
	if n := p.fetches.Load() - before; n != 1 {
		t.Fatalf("%d fetches for unknown kids after 30 s, want 1", n)
	}
	// Keys refresh after five minutes even when all kids are known.
	clk.add(6 * time.Minute)
	before = p.fetches.Load()
	if _, err := v.Verify(ctx, tokB); err != nil || p.fetches.Load()-before != 1 {
		t.Fatalf("periodic refresh: %v, %d fetches", err, p.fetches.Load()-before)
	}
}

func TestJWKSProviderDown(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "down", http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	k, _ := rsa.GenerateKey(rand.Reader, 2048)
	v, err := NewVerifier(Config{JWKSURL: srv.URL, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatalf("NewVerifier must not need the provider: %v", err)
	}
	if _, err := v.Verify(context.Background(), sign(t, jwt.SigningMethodRS256, "a", k, claims(nil))); !errors.Is(err, ErrInvalidToken) {
		t.Fatalf("err = %v", err)
	}
}

func TestNeedsAKeySource(t *testing.T) {
	if _, err := NewVerifier(Config{}); err == nil {
		t.Fatal("verifier without keys")
	}
}
