package session

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"strings"
	"sync"
	"time"
)

// JWKS fetch policy. Keys are refreshed every refreshEvery; a token naming a key we do
// not hold triggers a refetch at most every missEvery, so tokens with made-up kids
// cannot make us hammer the identity provider. Failed fetches count as fetches, so a
// provider that is down is not hammered either.
const (
	refreshEvery   = 5 * time.Minute
	missEvery      = 30 * time.Second
	fetchTimeout   = 10 * time.Second
	maxJWKSBytes   = 1 << 20
	minRSAKeyBits  = 2048
	p256CoordBytes = 32
)

// jwk is one key of a JWKS document (RFC 7517), with the members we read.
type jwk struct {
	Kty string `json:"kty"`
	Kid string `json:"kid"`
	Use string `json:"use"`
	Alg string `json:"alg"`
	N   string `json:"n"`
	E   string `json:"e"`
	Crv string `json:"crv"`
	X   string `json:"x"`
	Y   string `json:"y"`
}

// publicKey is a usable signing key; alg follows from the key's type, so that a key is
// only ever offered to the one algorithm it fits.
type publicKey struct {
	kid string
	alg string // RS256 for RSA keys, ES256 for P-256 keys
	key any    // *rsa.PublicKey or *ecdsa.PublicKey
}

// fetchCall is one JWKS fetch that every goroutine needing fresh keys waits on.
type fetchCall struct {
	done chan struct{} // closed when the fetch has ended and its result is stored
}

// keySet caches the identity provider's signing keys.
type keySet struct {
	url    string
	client *http.Client
	now    func() time.Time

	mu        sync.Mutex
	keys      []publicKey
	attempted bool      // a fetch has ended, successfully or not
	lastFetch time.Time // when the last fetch ended
	lastErr   error     // the last fetch's error, for the reason of a rejection
	inflight  *fetchCall
}

func newKeySet(url string, client *http.Client, now func() time.Time) *keySet {
	return &keySet{url: url, client: client, now: now}
}

// key returns the key for kid and alg. A cached key is returned at once, even when the
// set is due for a refresh, which then runs in the background: logins must not wait on
// the provider while we hold a usable key. A key we do not hold is waited for, when the
// rate limit allows a refetch.
func (s *keySet) key(ctx context.Context, kid, alg string) (any, error) {
	s.mu.Lock()
	if k, ok := s.find(kid, alg); ok {
		s.startLocked(ctx, refreshEvery)
		s.mu.Unlock()
		return k, nil
	}
	call := s.startLocked(ctx, missEvery)
	s.mu.Unlock()

	if call != nil {
		select {
		case <-call.done:
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for JWKS: %w", ctx.Err())
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if k, ok := s.find(kid, alg); ok {
		return k, nil
	}
	// The kid comes from the token, so it is left out of the reason.
	if s.lastErr != nil {
		return nil, fmt.Errorf("no %s key matches the token's kid: %w", alg, s.lastErr)
	}
	return nil, fmt.Errorf("no %s key matches the token's kid", alg)
}

// find picks the key named by kid; a token without kid may use the only key of its
// algorithm. Ambiguity is a miss rather than a guess. Callers hold mu.
func (s *keySet) find(kid, alg string) (any, bool) {
	var found any
	n := 0
	for _, k := range s.keys {
		if k.alg == alg && (kid == "" || k.kid == kid) {
			found = k.key
			n++
		}
	}
	return found, n == 1
}

// startLocked starts a fetch unless one is in flight, which it returns instead, or the
// last one ended less than minAge ago, when it returns nil. Callers hold mu.
func (s *keySet) startLocked(ctx context.Context, minAge time.Duration) *fetchCall {
	if s.inflight != nil {
		return s.inflight
	}
	// A negative age means the clock went back; fetching then starts a window that
	// makes sense on the new clock, where waiting would stall until it caught up.
	if age := s.now().Sub(s.lastFetch); s.attempted && age >= 0 && age < minAge {
		return nil
	}
	call := &fetchCall{done: make(chan struct{})}
	s.inflight = call
	// The fetch serves every waiter, so one caller giving up must not cancel it; its
	// own timeout bounds it even when the HTTP client has none.
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), fetchTimeout)
	go func() {
		defer cancel()
		keys, err := s.fetch(fctx)
		s.mu.Lock()
		s.attempted, s.lastFetch, s.lastErr = true, s.now(), err
		if err == nil {
			s.keys = keys
		}
		s.inflight = nil
		s.mu.Unlock()
		close(call.done)
	}()
	return call
}

// fetch downloads and parses the JWKS document.
func (s *keySet) fetch(ctx context.Context) ([]publicKey, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url, nil)
	if err != nil {
		return nil, fmt.Errorf("session: JWKS request: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	res, err := s.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("session: fetch JWKS: %w", err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		// Drain a little so the connection can be reused.
		_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 4<<10))
		return nil, fmt.Errorf("session: fetch JWKS from %s: status %d", s.url, res.StatusCode)
	}
	data, err := io.ReadAll(io.LimitReader(res.Body, maxJWKSBytes+1))
	if err != nil {
		return nil, fmt.Errorf("session: read JWKS from %s: %w", s.url, err)
	}
	if len(data) > maxJWKSBytes {
		return nil, fmt.Errorf("session: JWKS from %s is larger than 1 MiB", s.url)
	}
	keys, err := parseJWKS(data)
	if err != nil {
		return nil, fmt.Errorf("session: JWKS from %s: %w", s.url, err)
	}
	return keys, nil
}

// parseJWKS reads the RSA and P-256 signing keys of a JWKS document and skips the
// rest: keys for encryption, of other types or curves, declared for other algorithms,
// or malformed, since one odd key must not cost us the provider's good ones. A document
// with no usable key is an error, so that a broken response does not replace the
// cached keys with none.
func parseJWKS(data []byte) ([]publicKey, error) {
	var doc struct {
		Keys []jwk `json:"keys"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	var out []publicKey
	for _, k := range doc.Keys {
		if k.Use != "" && k.Use != "sig" {
			continue
		}
		var pk publicKey
		var err error
		switch k.Kty {
		case "RSA":
			pk, err = rsaKey(k)
		case "EC":
			pk, err = ecKey(k)
		default:
			continue
		}
		if err == nil {
			out = append(out, pk)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("no usable RS256 or ES256 signing key")
	}
	return out, nil
}

func rsaKey(k jwk) (publicKey, error) {
	if k.Alg != "" && k.Alg != "RS256" {
		return publicKey{}, errors.New("declared for another algorithm")
	}
	n, err := b64Int(k.N)
	if err != nil {
		return publicKey{}, err
	}
	e, err := b64Int(k.E)
	if err != nil {
		return publicKey{}, err
	}
	// Small moduli are forgeable; even or oversized exponents are not RSA keys we trust.
	if n.BitLen() < minRSAKeyBits || e.BitLen() > 31 || e.Int64() < 3 || e.Bit(0) == 0 {
		return publicKey{}, errors.New("weak or malformed RSA key")
	}
	return publicKey{kid: k.Kid, alg: "RS256", key: &rsa.PublicKey{N: n, E: int(e.Int64())}}, nil
}

func ecKey(k jwk) (publicKey, error) {
	if k.Crv != "P-256" || (k.Alg != "" && k.Alg != "ES256") {
		return publicKey{}, errors.New("not a P-256 ES256 key")
	}
	x, err1 := b64(k.X)
	y, err2 := b64(k.Y)
	if err1 != nil || err2 != nil || len(x) != p256CoordBytes || len(y) != p256CoordBytes {
		return publicKey{}, errors.New("malformed EC coordinates")
	}
	// Parsing the uncompressed point also checks that it lies on the curve.
	point := append(append([]byte{4}, x...), y...)
	pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), point)
	if err != nil {
		return publicKey{}, err
	}
	return publicKey{kid: k.Kid, alg: "ES256", key: pub}, nil
}

// b64 decodes base64url, tolerating the padding some providers add against RFC 7518.
func b64(s string) ([]byte, error) {
	return base64.RawURLEncoding.Strict().DecodeString(strings.TrimRight(s, "="))
}

func b64Int(s string) (*big.Int, error) {
	b, err := b64(s)
	if err != nil {
		return nil, err
	}
	if len(b) == 0 {
		return nil, errors.New("empty integer")
	}
	return new(big.Int).SetBytes(b), nil
}
