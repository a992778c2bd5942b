package httpapi_test

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdh"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/finledger/finledger/internal/testkit/apitest"
)

// pushService is a push service on this machine: it records what it is sent and
// answers with status.
type pushService struct {
	srv    *httptest.Server
	mu     sync.Mutex
	got    []*http.Request
	bodies [][]byte
	status int
}

func newPushService(t *testing.T) *pushService {
	p := &pushService{status: http.StatusCreated}
	p.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		p.mu.Lock()
		defer p.mu.Unlock()
		p.got = append(p.got, r)
		p.bodies = append(p.bodies, body)
		w.WriteHeader(p.status)
	}))
	t.Cleanup(p.srv.Close)
	return p
}

func (p *pushService) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.got)
}

// decryptPush opens an aes128gcm Web Push message (RFC 8291) as the browser does.
func decryptPush(t *testing.T, body []byte, browser *ecdh.PrivateKey, authSecret []byte) []byte {
	t.Helper()
	salt, rs, idLen := body[:16], binary.BigEndian.Uint32(body[16:20]), int(body[20])
	server, ciphertext := body[21:21+idLen], body[21+idLen:]
	if rs < 18 || len(ciphertext) > int(rs) {
		t.Fatalf("record size %d for %d bytes", rs, len(ciphertext))
	}
	serverKey, err := ecdh.P256().NewPublicKey(server)
	if err != nil {
		t.Fatal(err)
	}
	shared, err := browser.ECDH(serverKey)
	if err != nil {
		t.Fatal(err)
	}
	keyInfo := "WebPush: info\x00" + string(browser.PublicKey().Bytes()) + string(server)
	prkKey, _ := hkdf.Extract(sha256.New, shared, authSecret)
	ikm, _ := hkdf.Expand(sha256.New, prkKey, keyInfo, 32)
	prk, _ := hkdf.Extract(sha256.New, ikm, salt)
	cek, _ := hkdf.Expand(sha256.New, prk, "Content-Encoding: aes128gcm\x00", 16)
	nonce, _ := hkdf.Expand(sha256.New, prk, "Content-Encoding: nonce\x00", 12)
	block, _ := aes.NewCipher(cek)
	gcm, _ := cipher.NewGCM(block)
	plain, err := gcm.Open(nil, nonce, ciphertext, nil)
	if err != nil {
		t.Fatalf("cannot decrypt the push message: %v", err)
	}
	// The last record ends with the delimiter 2, then padding zeros.
	end := bytes.LastIndexByte(plain, 2)
	if end < 0 || len(bytes.Trim(plain[end+1:], "\x00")) != 0 {
		t.Fatalf("record padding %x", plain)
	}
	return plain[:end]
}

// A budget alert, and a write of an API key waiting for approval, reach the members'
// browsers through their push service, encrypted for the subscription and signed with
// the service's VAPID key; a subscription the push service says is gone is forgotten.
func TestPushNotifiesBudgetAlerts(t *testing.T) {
	env, ev := apitest.StartEvents(t, nil)
	service := newPushService(t)
	ev.Config.Push.Client = service.srv.Client()
	ev.Run()
	alice := env.As("alice")
	cashWallet(t, alice)
	if key := alice.Get("/api/push/vapid-public-key").Expect(t, http.StatusOK).JSON["publicKey"]; key != apitest.PushKeys.PublicKey {
		t.Fatalf("public key %v", key)
	}
	browser, err := ecdh.P256().GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	authSecret := make([]byte, 16)
	_, _ = rand.Read(authSecret)
	b64 := base64.RawURLEncoding.EncodeToString
	alice.Post("/api/push/subscribe", map[string]any{"endpoint": service.srv.URL + "/push/alice-laptop",
		"keys": map[string]string{"p256dh": b64(browser.PublicKey().Bytes()), "auth": b64(authSecret)}}).Expect(t, http.StatusOK)
	food := alice.Post("/api/categories", map[string]any{"name": "Food"}).Expect(t, http.StatusOK).Object("category")["id"].(string)
	alice.Post("/api/budgets", map[string]any{"name": "Groceries", "categoryId": food, "amount": 100, "alertThreshold": 80,
		"startDate": "2026-01-01", "endDate": "2026-12-31"}).Expect(t, http.StatusOK)
	alice.Post("/api/transactions", map[string]any{"type": "expense", "amount": 50, "categoryId": food}).Expect(t, http.StatusCreated)
	alice.Post("/api/transactions", map[string]any{"type": "expense", "amount": 40, "categoryId": food}).Expect(t, http.StatusCreated)
	waitFor(t, "the push message", 10*time.Second, func() bool { return service.count() == 1 })

	service.mu.Lock()
	req, body := service.got[0], service.bodies[0]
	service.mu.Unlock()
	if req.URL.Path != "/push/alice-laptop" || req.Header.Get("Content-Encoding") != "aes128gcm" || req.Header.Get("TTL") != "86400" ||
		!strings.HasPrefix(req.Header.Get("Topic"), "budget-") || !strings.Contains(req.Header.Get("Authorization"), "k="+apitest.PushKeys.PublicKey) {
		t.Fatalf("push request %s %v", req.URL.Path, req.Header)
	}
	var n struct {
		Title, Body, Tag string
		Data             map[string]any
	}
	if err := json.Unmarshal(decryptPush(t, body, browser, authSecret), &n); err != nil {
		t.Fatal(err)
	}
	if n.Title != "Groceries: 90% of the budget spent" || !strings.Contains(n.Body, "90.00 of 100.00 MXN") || n.Tag != req.Header.Get("Topic") ||
		n.Data["type"] != "budget.threshold_reached" {
		t.Fatalf("notification %+v", n)
	}

	// A write of an API key held for approval asks the members for it.
	key, _ := newProposingKey(t, alice)
	key.Post("/api/transactions", map[string]any{"type": "expense", "amount": 12, "concept": "Taxi"}).Expect(t, http.StatusAccepted)
	waitFor(t, "the proposal's push message", 10*time.Second, func() bool { return service.count() == 2 })
	service.mu.Lock()
	req, body = service.got[1], service.bodies[1]
	service.mu.Unlock()
	if err := json.Unmarshal(decryptPush(t, body, browser, authSecret), &n); err != nil {
		t.Fatal(err)
	}
	if n.Title != "An API key asks for your approval" || !strings.Contains(n.Body, `expense 12 MXN, "Taxi"`) || n.Data["type"] != "proposal.created" ||
		!strings.HasPrefix(req.Header.Get("Topic"), "proposal-") {
		t.Fatalf("the proposal's notification %+v", n)
	}

	// The next alert finds the subscription gone at the push service: it is forgotten.
	service.mu.Lock()
	service.status = http.StatusGone
	service.mu.Unlock()
	alice.Post("/api/transactions", map[string]any{"type": "expense", "amount": 85, "categoryId": food, "date": "2026-04-03"}).Expect(t, http.StatusCreated)
	waitFor(t, "the subscription to be forgotten", 10*time.Second, func() bool {
		return len(alice.Get("/api/push/subscriptions").List("subscriptions")) == 0
	})
	if service.count() != 3 {
		t.Fatalf("%d push requests", service.count())
	}
}
