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
	"sync"
	"time"
)

// JWKS refresh policy: keys are refreshed every refreshEvery, and a token naming an
// unknown kid triggers a refetch at most every missEvery, so tokens with made-up kids
// cannot make the service hammer the identity provider.
const (
	refreshEvery = 5 * time.Minute
	missEvery    = 30 * time.Second
	maxJWKSBytes = 1 << 20
)

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

type publicKey struct {
	kid string
	alg string // RS256 or ES256
	key any
}

// jwks is a cached set of the identity provider's public keys.
type jwks struct {
	url    string
	client *http.Client
	now    func() time.Time

	mu        sync.Mutex
	keys      []publicKey
	fetchedAt time.Time
	fetching  chan struct{} // closed when the fetch in flight ends
	fetchErr  error
}

func newJWKS(url string, client *http.Client, now func() time.Time) *jwks {
	return &jwks{url: url, client: client, now: now}
}

// key returns the key for kid and alg, fetching the set when it is stale or, within the
// miss rate limit, when the kid is unknown.
func (s *jwks) key(ctx context.Context, kid, alg string) (any, error) {
	s.mu.Lock()
	stale := s.fetchedAt.IsZero() || s.now().Sub(s.fetchedAt) >= refreshEvery
	k, found := s.find(kid, alg)
	canRetry := s.now().Sub(s.fetchedAt) >= missEvery
	s.mu.Unlock()
	if found && !stale {
		return k, nil
	}
	if stale || canRetry {
		if err := s.refresh(ctx); err != nil && !found {
			return nil, err
		}
		s.mu.Lock()
		k, found = s.find(kid, alg)
		s.mu.Unlock()
	}
	if !found {
		return nil, fmt.Errorf("no %s key with kid %q", alg, kid)
	}
	return k, nil
}

// find picks the key named by kid; a token without kid may use the only key of its
// algorithm. Callers hold mu.
func (s *jwks) find(kid, alg string) (any, bool) {
	var match []publicKey
	for _, k := range s.keys {
		if k.alg == alg && (kid == "" || k.kid == kid) {
			match = append(match, k)
		}
	}
	if len(match) != 1 {
		return nil, false
	}
	return match[0].key, true
}

// refresh fetches the set once for all goroutines that ask at the same time.
func (s *jwks) refresh(ctx context.Context) error {
	s.mu.Lock()
	if s.fetching != nil {
		wait := s.fetching
		s.mu.Unlock()
		select {
		case <-wait:
		case <-ctx.Done():
			return ctx.Err()
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.fetchErr
	}
	done := make(chan struct{})
	s.fetching = done
	s.mu.Unlock()

	keys, err := s.fetch(ctx)

	s.mu.Lock()
	defer s.mu.Unlock()
	// A failed fetch also counts as an attempt, so a down provider is not hammered.
	s.fetchedAt = s.now()
	s.fetchErr = err
	if err == nil {
		s.keys = keys
	}
	s.fetching = nil
	close(done)
	return err
}

func (s *jwks) fetch(ctx context.Context) ([]publicKey, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url, nil)
	if err != nil {
		return nil, fmt.Errorf("session: jwks request: %w", err)
	}
	res, err := s.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("session: fetch jwks: %w", err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("session: fetch jwks: status %d", res.StatusCode)
	}
	data, err := io.ReadAll(io.LimitReader(res.Body, maxJWKSBytes+1))
	if err != nil {
		return nil, fmt.Errorf("session: read jwks: %w", err)
	}
	if len(data) > maxJWKSBytes {
		return nil, errors.New("session: jwks document larger than 1 MiB")
	}
	return parseJWKS(data)
}

// parseJWKS reads the RSA and P-256 signing keys of a JWKS document, skipping keys
// for other uses and of other types.
func parseJWKS(data []byte) ([]publicKey, error) {
	var doc struct {
		Keys []jwk `json:"keys"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("session: parse jwks: %w", err)
	}
	var out []publicKey
	for _, k := range doc.Keys {
		if k.Use != "" && k.Use != "sig" {
			continue
		}
		switch k.Kty {
		case "RSA":
			if k.Alg != "" && k.Alg != "RS256" {
				continue
			}
			n, err1 := b64int(k.N)
			e, err2 := b64int(k.E)
			if err1 != nil || err2 != nil || !e.IsInt64() || e.Int64() < 3 || n.BitLen() < 2048 {
				continue
			}
			out = append(out, publicKey{kid: k.Kid, alg: "RS256", key: &rsa.PublicKey{N: n, E: int(e.Int64())}})
		case "EC":
			if k.Crv != "P-256" || (k.Alg != "" && k.Alg != "ES256") {
				continue
			}
			x, err1 := base64.RawURLEncoding.DecodeString(k.X)
			y, err2 := base64.RawURLEncoding.DecodeString(k.Y)
			if err1 != nil || err2 != nil || len(x) != 32 || len(y) != 32 {
				continue
			}
			// Parsing the uncompressed point checks that it lies on the curve.
			pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), append(append([]byte{4}, x...), y...))
			if err != nil {
				continue
			}
			out = append(out, publicKey{kid: k.Kid, alg: "ES256", key: pub})
		}
	}
	return out, nil
}

func b64int(s string) (*big.Int, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, err
	}
	if len(b) == 0 {
		return nil, errors.New("empty")
	}
	return new(big.Int).SetBytes(b), nil
}
