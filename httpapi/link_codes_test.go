package httpapi_test

import (
	"bytes"
	"net/http"
	"sync"
	"testing"

	"github.com/finledger/finledger/internal/testkit/apitest"
)

// scriptedRandom hands out the link codes' randomness a test chose: each read the next
// of draws, the last one again once they run out.
type scriptedRandom struct {
	mu    sync.Mutex
	draws [][]byte
}

func (s *scriptedRandom) Read(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := copy(p, s.draws[0])
	if len(s.draws) > 1 {
		s.draws = s.draws[1:]
	}
	return n, nil
}

// A link code drawn again, whoever holds it (another user, on another instance), is
// never a 500: the issue draws a fresh code, a bounded number of times, and only a
// source that keeps giving taken codes gets a 503 to retry.
func TestALinkCodeThatCollidesIsDrawnAgain(t *testing.T) {
	taken, fresh := bytes.Repeat([]byte{7}, 8), bytes.Repeat([]byte{9}, 8)
	codes := &scriptedRandom{draws: [][]byte{taken, taken, taken, fresh}}
	opts := apitest.Options()
	opts.Channel.CodeRandom = codes
	env := apitest.StartWith(t, opts)
	other := env.Instance()
	alice, bob := env.As("alice"), env.As("bob").On(other)

	first := alice.Post("/api/me/whatsapp", nil).Expect(t, http.StatusOK).JSON["code"].(string)
	second := bob.Post("/api/me/whatsapp", nil).Expect(t, http.StatusOK).JSON["code"].(string)
	if first == second {
		t.Fatalf("bob was given alice's code %s", first)
	}
	// Each code links its own user.
	for _, c := range []struct {
		code  string
		phone string
		owner *apitest.Client
	}{{first, alicePhone, alice}, {second, "+5215599990000", bob}} {
		env.Phone(c.phone, nil).Post("/api/whatsapp/link", map[string]any{"code": c.code}).Expect(t, http.StatusOK)
		if link := c.owner.Get("/api/me/whatsapp").Expect(t, http.StatusOK); link.JSON["linked"] != true {
			t.Fatalf("code %s did not link its user: %s", c.code, link.Raw)
		}
	}

	// A source that only gives taken codes: a bounded retry, then 503.
	codes.mu.Lock()
	codes.draws = [][]byte{taken}
	codes.mu.Unlock()
	r := env.As("carol").Post("/api/me/whatsapp", nil)
	expectError(t, r, http.StatusServiceUnavailable, "SERVICE_UNAVAILABLE")
	if r.Header.Get("Retry-After") == "" {
		t.Fatalf("no Retry-After: %v", r.Header)
	}
}
