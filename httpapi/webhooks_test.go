package httpapi_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/finledger/finledger/internal/testkit/apitest"
	"github.com/finledger/finledger/webhooks"
	"github.com/finledger/finledger/webhooks/safehttp"
)

// receipt is one request a receiver got.
type receipt struct {
	Event, Delivery string
	Body            map[string]any
	Raw             string
}

// receiver is a webhook endpoint that verifies signatures the way docs/api.md tells
// subscribers to, and answers with the status status gives (200 when nil).
type receiver struct {
	t      *testing.T
	srv    *httptest.Server
	mu     sync.Mutex
	secret string
	status func(n int) int
	all    []receipt // every request, in arrival order
}

var signatureShape = regexp.MustCompile(`^t=([0-9]+),v1=([0-9a-f]{64})$`)

func newReceiver(t *testing.T) *receiver {
	r := &receiver{t: t}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) serve(w http.ResponseWriter, req *http.Request) {
	raw, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	defer r.mu.Unlock()
	// Verification as a subscriber does it: the timestamp within 5 minutes, then the
	// HMAC over "<t>.<body>" compared in constant time.
	m := signatureShape.FindStringSubmatch(req.Header.Get("X-Service-Signature"))
	if m == nil {
		r.t.Errorf("signature header %q", req.Header.Get("X-Service-Signature"))
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	ts, _ := strconv.ParseInt(m[1], 10, 64)
	if d := time.Since(time.Unix(ts, 0)); d > 5*time.Minute || d < -5*time.Minute {
		r.t.Errorf("signature time %d is %s away", ts, d)
	}
	mac := hmac.New(sha256.New, []byte(r.secret))
	fmt.Fprintf(mac, "%s.%s", m[1], raw)
	if !hmac.Equal([]byte(hex.EncodeToString(mac.Sum(nil))), []byte(m[2])) {
		r.t.Errorf("bad signature on %s", raw)
	}
	if req.Method != http.MethodPost || req.Header.Get("Content-Type") != "application/json" {
		r.t.Errorf("%s with content type %q", req.Method, req.Header.Get("Content-Type"))
	}
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		r.t.Errorf("body %s: %v", raw, err)
	}
	got := receipt{Event: req.Header.Get("X-Service-Event"), Delivery: req.Header.Get("X-Service-Delivery"), Body: body, Raw: string(raw)}
	if got.Event != body["type"] || got.Delivery != body["id"] {
		r.t.Errorf("headers %s %s, body %s", got.Event, got.Delivery, raw)
	}
	r.all = append(r.all, got)
	status := http.StatusOK
	if r.status != nil {
		status = r.status(len(r.all))
	}
	w.WriteHeader(status)
	fmt.Fprintf(w, "status %d", status)
}

// succeeded returns the receipts answered 2xx, in order.
func (r *receiver) receipts() []receipt {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.all)
}

func (r *receiver) setStatus(f func(n int) int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.status = f
}

// subscribe creates a webhook to the receiver and gives the receiver its secret.
func (r *receiver) subscribe(c *apitest.Client, events ...string) string {
	r.t.Helper()
	body := map[string]any{"name": "books", "url": r.srv.URL + "/hook"}
	if events != nil {
		body["events"] = events
	}
	created := c.Post("/api/webhooks/outbound", body).Expect(r.t, http.StatusOK)
	secret, _ := created.JSON["secret"].(string)
	if !regexp.MustCompile(`^whsec_[0-9a-f]{64}$`).MatchString(secret) {
		r.t.Fatalf("secret %q", secret)
	}
	r.mu.Lock()
	r.secret = secret
	r.mu.Unlock()
	return created.Object("webhook")["id"].(string)
}

// cashWallet gives the client's workspace a default wallet and returns its id.
func cashWallet(t *testing.T, c *apitest.Client) string {
	t.Helper()
	return c.Post("/api/wallets", map[string]any{"name": "Cash", "isDefault": true}).Expect(t, http.StatusOK).Object("wallet")["id"].(string)
}

// waitFor polls cond until it holds or the time runs out.
func waitFor(t *testing.T, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// firstOf returns, in arrival order, the distinct deliveries among receipts of an
// event, and checks that every repeat of a delivery carries the same body.
func firstOf(t *testing.T, receipts []receipt, event string) []receipt {
	t.Helper()
	seen := map[string]string{}
	var out []receipt
	for _, r := range receipts {
		if r.Event != event {
			continue
		}
		if body, ok := seen[r.Delivery]; ok {
			if body != r.Raw {
				t.Fatalf("delivery %s sent with two bodies:\n%s\n%s", r.Delivery, body, r.Raw)
			}
			continue
		}
		seen[r.Delivery] = r.Raw
		out = append(out, r)
	}
	return out
}

func transactionIDs(receipts []receipt) []string {
	ids := make([]string, len(receipts))
	for i, r := range receipts {
		ids[i], _ = r.Body["data"].(map[string]any)["transactionId"].(string)
	}
	return ids
}

func TestWebhookSubscriptions(t *testing.T) {
	env := apitest.Start(t)
	alice := env.As("alice")
	created := alice.Post("/api/webhooks/outbound", map[string]any{"name": "books", "url": "https://books.example.com/hook"}).Expect(t, http.StatusOK)
	hook := created.Object("webhook")
	id := hook["id"].(string)
	secret := created.JSON["secret"].(string)
	if hook["events"].([]any)[0] != "*" || hook["active"] != true || hook["url"] != "https://books.example.com/hook" || hook["secret"] != nil {
		t.Fatalf("created %s", created.Raw)
	}
	for _, path := range []string{"/api/webhooks/outbound", "/api/webhooks/outbound/" + id} {
		r := alice.Get(path).Expect(t, http.StatusOK)
		if strings.Contains(string(r.Raw), secret[6:]) || strings.Contains(string(r.Raw), "sealed") {
			t.Fatalf("%s shows the secret: %s", path, r.Raw)
		}
	}
	var sealed []byte
	if err := env.Pool.QueryRow(t.Context(), `SELECT sealed_secret FROM webhooks WHERE id = $1`, id).Scan(&sealed); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(sealed), secret[6:]) {
		t.Fatal("the secret is stored in the clear")
	}
	var events string
	if err := env.Pool.QueryRow(t.Context(), `SELECT string_agg(data::text, ' ') FROM events`).Scan(&events); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(events, secret[6:]) {
		t.Fatal("the secret is in the event log in the clear")
	}

	updated := alice.Patch("/api/webhooks/outbound/"+id, map[string]any{"events": []string{"transaction.created", "transaction.created", "budget.threshold_reached"},
		"active": false, "name": "ledger"}).Expect(t, http.StatusOK).Object("webhook")
	if fmt.Sprint(updated["events"]) != "[transaction.created budget.threshold_reached]" || updated["active"] != false || updated["name"] != "ledger" {
		t.Fatalf("updated %v", updated)
	}

	// Bad bodies: unknown events, empty names, bad URLs.
	for _, body := range []map[string]any{
		{"name": "x", "url": "https://a.example.com", "events": []string{"transaction.exploded"}},
		{"name": "x", "url": "https://a.example.com", "events": []string{}},
		{"name": "x", "url": "https://a.example.com", "events": []string{""}},
		{"name": "", "url": "https://a.example.com"},
		{"name": "x", "url": "ftp://a.example.com/"},
		{"name": "x", "url": "/relative"},
		{"name": "x"},
		{"name": "x", "url": "https://user:pass@a.example.com/"},
	} {
		fieldErrors(t, alice.Post("/api/webhooks/outbound", body))
	}
	fieldErrors(t, alice.Patch("/api/webhooks/outbound/"+id, map[string]any{"events": []string{"nope"}}))
	fieldErrors(t, alice.Patch("/api/webhooks/outbound/"+id, map[string]any{"url": nil}))

	// Scopes and roles: a read-only key lists but does not create; other workspaces see nothing.
	reader, _ := newKey(t, alice, "webhooks:read")
	reader.Get("/api/webhooks/outbound").Expect(t, http.StatusOK)
	expectError(t, reader.Post("/api/webhooks/outbound", map[string]any{"name": "x", "url": "https://a.example.com"}), http.StatusForbidden, "FORBIDDEN")
	expectError(t, env.As("bob").Get("/api/webhooks/outbound/"+id), http.StatusNotFound, "WEBHOOK_NOT_FOUND")
	if list := env.As("bob").Get("/api/webhooks/outbound").Expect(t, http.StatusOK).List("webhooks"); len(list) != 0 {
		t.Fatalf("bob sees %v", list)
	}

	alice.Delete("/api/webhooks/outbound/"+id).Expect(t, http.StatusOK)
	expectError(t, alice.Get("/api/webhooks/outbound/"+id), http.StatusNotFound, "WEBHOOK_NOT_FOUND")
	expectError(t, alice.Delete("/api/webhooks/outbound/"+id), http.StatusNotFound, "WEBHOOK_NOT_FOUND")
	expectError(t, alice.Post("/api/webhooks/outbound/"+id+"/test", nil), http.StatusNotFound, "WEBHOOK_NOT_FOUND")

	// Every change is in the audit log, without the secret.
	audit := alice.Get("/api/audit?entity=webhook").Expect(t, http.StatusOK)
	if n := len(audit.List("entries")); n != 3 || strings.Contains(string(audit.Raw), secret[6:]) {
		t.Fatalf("audit %s", audit.Raw)
	}
}

// In production, URLs that point inside the network are refused when a webhook is
// created or changed.
func TestWebhookURLSafety(t *testing.T) {
	opts := apitest.Options()
	opts.Webhooks.Policy = safehttp.Policy{}
	env := apitest.StartWith(t, opts)
	alice := env.As("alice")
	for _, url := range []string{"http://127.0.0.1:8080/hook", "http://localhost/hook", "http://[::1]/", "http://10.0.0.5/",
		"http://169.254.169.254/latest/meta-data", "http://192.168.1.1/", "http://0x7f000001/", "http://[::ffff:127.0.0.1]/"} {
		if got := fieldErrors(t, alice.Post("/api/webhooks/outbound", map[string]any{"name": "x", "url": url})); fmt.Sprint(got) != "[url]" {
			t.Fatalf("%s: fields %v", url, got)
		}
	}
	id := alice.Post("/api/webhooks/outbound", map[string]any{"name": "x", "url": "https://93.184.216.34/hook"}).
		Expect(t, http.StatusOK).Object("webhook")["id"].(string)
	fieldErrors(t, alice.Patch("/api/webhooks/outbound/"+id, map[string]any{"url": "http://127.0.0.1/"}))
}

func TestWebhookDelivery(t *testing.T) {
	env, ev := apitest.StartEvents(t, nil)
	ev.Run()
	alice := env.As("alice")
	ws := alice.Get("/api/me").Object("workspace")["id"].(string)
	wallet := cashWallet(t, alice)
	rc := newReceiver(t)
	hookID := rc.subscribe(alice)
	var want []string
	for i := range 12 {
		tx := alice.Post("/api/transactions", map[string]any{"type": "expense", "amount": float64(i+1) + 0.25, "concept": "lunch"}).
			Expect(t, http.StatusCreated).Object("transaction")
		want = append(want, tx["id"].(string))
	}
	goal := alice.Post("/api/goals", map[string]any{"name": "Trip", "targetAmount": 100}).Expect(t, http.StatusOK).Object("goal")["id"].(string)
	deposit := alice.Post("/api/goals/"+goal+"/deposit", map[string]any{"amount": 30, "walletId": wallet}).Expect(t, http.StatusOK)

	waitFor(t, "every delivery", 15*time.Second, func() bool { return len(firstOf(t, rc.receipts(), "goal.deposit")) == 1 })
	created := firstOf(t, rc.receipts(), "transaction.created")
	got := transactionIDs(created)
	if len(got) != 13 || !slices.Equal(got[:12], want) {
		t.Fatalf("transaction.created for %v, want %v then the deposit", got, want)
	}
	first := created[0].Body
	data := first["data"].(map[string]any)
	if first["workspaceId"] != ws || first["dataVersion"] != float64(1) || data["amount"] != "1.25" || data["concept"] != "lunch" ||
		data["postings"] != nil {
		t.Fatalf("body %s", created[0].Raw)
	}
	if at, err := time.Parse(time.RFC3339Nano, first["occurredAt"].(string)); err != nil || !at.Equal(env.Clock.Now()) {
		t.Fatalf("occurredAt %v", first["occurredAt"])
	}
	dep := firstOf(t, rc.receipts(), "goal.deposit")[0].Body["data"].(map[string]any)
	if dep["goalId"] != goal || dep["type"] != "goal_deposit" || deposit.Status != http.StatusOK {
		t.Fatalf("goal.deposit %v", dep)
	}
	if n := len(firstOf(t, rc.receipts(), "wallet.created")); n != 0 {
		t.Fatalf("events from before the webhook was created were sent: %d wallet.created", n)
	}

	// The deliveries, with their attempts, newest first. The receiver has the last one;
	// the sender records its attempt once the receiver has answered.
	var list *apitest.Response
	waitFor(t, "the last attempt recorded", 10*time.Second, func() bool {
		list = alice.Get("/api/webhooks/outbound/"+hookID+"/deliveries?pageSize=5").Expect(t, http.StatusOK)
		return len(list.List("deliveries")) > 0 && list.List("deliveries")[0]["status"] != "pending"
	})
	if total := fmt.Sprint(list.Object("pagination")["total"]); total != "14" || len(list.List("deliveries")) != 5 {
		t.Fatalf("deliveries %s", list.Raw)
	}
	d := list.List("deliveries")[0]
	history := d["history"].([]any)
	if d["status"] != "succeeded" || len(history) != 1 || fmt.Sprint(history[0].(map[string]any)["statusCode"]) != "200" ||
		history[0].(map[string]any)["responseBody"] != "status 200" {
		t.Fatalf("delivery %v", d)
	}

	// A rotated secret signs what is sent from then on; the old one no longer verifies.
	rotated := alice.Post("/api/webhooks/outbound/"+hookID+"/rotate-secret", nil).Expect(t, http.StatusOK)
	newSecret, _ := rotated.JSON["secret"].(string)
	rc.mu.Lock()
	if !strings.HasPrefix(newSecret, "whsec_") || newSecret == rc.secret || rotated.Object("webhook")["id"] != hookID {
		t.Fatalf("rotation %s", rotated.Raw)
	}
	rc.secret = newSecret
	rc.mu.Unlock()
	expectError(t, env.As("bob").Post("/api/webhooks/outbound/"+hookID+"/rotate-secret", nil), http.StatusNotFound, "WEBHOOK_NOT_FOUND")

	// webhook.test goes through the same path, and so does a redelivery, same id.
	test := alice.Post("/api/webhooks/outbound/"+hookID+"/test", nil).Expect(t, http.StatusOK).Object("delivery")
	testID := test["id"].(string)
	waitFor(t, "the test delivery", 10*time.Second, func() bool { return len(firstOf(t, rc.receipts(), "webhook.test")) == 1 })
	alice.Post("/api/webhooks/outbound/"+hookID+"/deliveries/"+testID+"/redeliver", nil).Expect(t, http.StatusOK)
	waitFor(t, "the redelivery", 10*time.Second, func() bool {
		n := 0
		for _, r := range rc.receipts() {
			if r.Delivery == testID {
				n++
			}
		}
		return n == 2
	})
	expectError(t, alice.Post("/api/webhooks/outbound/"+hookID+"/deliveries/"+want[0]+"/redeliver", nil), http.StatusNotFound, "DELIVERY_NOT_FOUND")
	expectError(t, env.As("bob").Post("/api/webhooks/outbound/"+hookID+"/deliveries/"+testID+"/redeliver", nil), http.StatusNotFound, "DELIVERY_NOT_FOUND")
}

// A receiver that is down gets every event once it is back, in order, each delivery
// keeping its id across retries.
func TestWebhookReceiverDownThenUp(t *testing.T) {
	schedule := slices.Repeat([]time.Duration{50 * time.Millisecond}, 40)
	env, ev := apitest.StartEvents(t, schedule)
	ev.Run()
	alice := env.As("alice")
	cashWallet(t, alice)
	rc := newReceiver(t)
	rc.setStatus(func(int) int { return http.StatusServiceUnavailable })
	hookID := rc.subscribe(alice, "transaction.created")
	var want []string
	for range 5 {
		want = append(want, alice.Post("/api/transactions", map[string]any{"type": "income", "amount": 3}).
			Expect(t, http.StatusCreated).Object("transaction")["id"].(string))
	}
	waitFor(t, "three failed attempts", 10*time.Second, func() bool { return len(rc.receipts()) >= 3 })
	rc.setStatus(nil)
	waitFor(t, "every delivery", 15*time.Second, func() bool {
		ok := 0
		for _, d := range alice.Get("/api/webhooks/outbound/" + hookID + "/deliveries").List("deliveries") {
			if d["status"] == "succeeded" {
				ok++
			}
		}
		return ok == 5
	})
	all := rc.receipts()
	failedIDs := map[string]bool{}
	for _, r := range all[:3] {
		failedIDs[r.Delivery] = true
	}
	firsts := firstOf(t, all, "transaction.created")
	if got := transactionIDs(firsts); !slices.Equal(got, want) {
		t.Fatalf("delivered %v, want %v", got, want)
	}
	if len(failedIDs) != 1 || !failedIDs[firsts[0].Delivery] {
		t.Fatalf("retries were not of the first delivery, by its id: %v", failedIDs)
	}
	deliveries := alice.Get("/api/webhooks/outbound/" + hookID + "/deliveries").List("deliveries")
	oldest := deliveries[len(deliveries)-1]
	history := oldest["history"].([]any)
	if oldest["id"] != firsts[0].Delivery || len(history) < 4 || fmt.Sprint(history[0].(map[string]any)["statusCode"]) != "503" ||
		history[len(history)-1].(map[string]any)["succeeded"] != true {
		t.Fatalf("oldest delivery %v", oldest)
	}
}

// A redelivery asked for while an attempt is on its way is not undone when that
// attempt's success is recorded: the delivery goes out again.
func TestWebhookRedeliveredDuringAnAttempt(t *testing.T) {
	env, ev := apitest.StartEvents(t, nil)
	ev.Run()
	alice := env.As("alice")
	rc := newReceiver(t)
	arrived, answer := make(chan struct{}), make(chan struct{})
	var release sync.Once
	t.Cleanup(func() { release.Do(func() { close(answer) }) })
	rc.setStatus(func(n int) int {
		if n == 1 { // held until the redelivery is stored
			close(arrived)
			<-answer
		}
		return http.StatusOK
	})
	hookID := rc.subscribe(alice)
	id := alice.Post("/api/webhooks/outbound/"+hookID+"/test", nil).Expect(t, http.StatusOK).Object("delivery")["id"].(string)
	select {
	case <-arrived:
	case <-time.After(10 * time.Second):
		t.Fatal("the test delivery never arrived")
	}
	alice.Post("/api/webhooks/outbound/"+hookID+"/deliveries/"+id+"/redeliver", nil).Expect(t, http.StatusOK)
	release.Do(func() { close(answer) })

	var d map[string]any
	waitFor(t, "the redelivery to succeed", 10*time.Second, func() bool {
		d = alice.Get("/api/webhooks/outbound/" + hookID + "/deliveries").List("deliveries")[0]
		return d["status"] == "succeeded" && fmt.Sprint(d["attempts"]) == "2"
	})
	if got := rc.receipts(); len(got) != 2 || got[0].Delivery != id || got[1].Delivery != id {
		t.Fatalf("receipts %v, want delivery %s twice", got, id)
	}
	if history := d["history"].([]any); len(history) != 2 {
		t.Fatalf("attempts recorded %v", history)
	}
}

// A delivery whose schedule runs out is failed; a redelivery sends it again, same id.
func TestWebhookFailsThenRedelivered(t *testing.T) {
	env, ev := apitest.StartEvents(t, []time.Duration{20 * time.Millisecond, 20 * time.Millisecond})
	ev.Run()
	alice := env.As("alice")
	cashWallet(t, alice)
	rc := newReceiver(t)
	rc.setStatus(func(int) int { return http.StatusInternalServerError })
	hookID := rc.subscribe(alice)
	alice.Post("/api/transactions", map[string]any{"type": "expense", "amount": 1}).Expect(t, http.StatusCreated)
	fieldErrors(t, alice.Get("/api/webhooks/outbound/"+hookID+"/deliveries?status=lost"))
	var failed map[string]any
	waitFor(t, "the delivery to fail", 10*time.Second, func() bool {
		list := alice.Get("/api/webhooks/outbound/" + hookID + "/deliveries?status=failed").List("deliveries")
		if len(list) == 1 && list[0]["status"] == "failed" {
			failed = list[0]
		}
		return failed != nil
	})
	if fmt.Sprint(failed["attempts"]) != "3" || failed["completedAt"] == nil {
		t.Fatalf("failed delivery %v", failed)
	}
	rc.setStatus(nil)
	id := failed["id"].(string)
	again := alice.Post("/api/webhooks/outbound/"+hookID+"/deliveries/"+id+"/redeliver", nil).Expect(t, http.StatusOK).Object("delivery")
	if again["id"] != id {
		t.Fatalf("redelivery %v", again)
	}
	if list := alice.Get("/api/webhooks/outbound/" + hookID + "/deliveries?status=failed").List("deliveries"); len(list) != 0 {
		t.Fatalf("failed after the redelivery: %v", list)
	}
	waitFor(t, "the redelivery to succeed", 10*time.Second, func() bool {
		d := alice.Get("/api/webhooks/outbound/" + hookID + "/deliveries").List("deliveries")[0]
		return d["status"] == "succeeded" && fmt.Sprint(d["attempts"]) == "4"
	})
	all := rc.receipts()
	for _, r := range all {
		if r.Delivery != id {
			t.Fatalf("receipt of another delivery %s", r.Delivery)
		}
	}

	// Finished deliveries are purged after their retention, attempts with them.
	if n, err := webhooks.PurgeDeliveries(t.Context(), env.Pool, time.Now().Add(-time.Hour)); err != nil || n != 0 {
		t.Fatalf("purged %d recent deliveries (%v)", n, err)
	}
	if n, err := webhooks.PurgeDeliveries(t.Context(), env.Pool, time.Now().Add(time.Hour)); err != nil || n != 1 {
		t.Fatalf("purged %d deliveries (%v)", n, err)
	}
	var attempts int
	if err := env.Pool.QueryRow(t.Context(), `SELECT count(*) FROM webhook_attempts`).Scan(&attempts); err != nil || attempts != 0 {
		t.Fatalf("%d attempts left (%v)", attempts, err)
	}
	if list := alice.Get("/api/webhooks/outbound/" + hookID + "/deliveries").List("deliveries"); len(list) != 0 {
		t.Fatalf("deliveries after the purge: %v", list)
	}
}

// Relays and dispatchers stopped and restarted while several workspaces write at once,
// with two instances competing for the lead: nothing is skipped, each workspace's
// events arrive in order, and what arrives twice arrives with the same delivery id and
// body.
func TestWebhookRelayRestarts(t *testing.T) {
	env, ev := apitest.StartEvents(t, nil)
	stop := ev.Run()
	standby := ev.Run() // a second instance, waiting for the locks
	defer standby()
	users := []string{"alice", "bob", "carol"}
	receivers := make([]*receiver, len(users))
	wants := make([][]string, len(users))
	for i, u := range users {
		c := env.As(u)
		cashWallet(t, c)
		receivers[i] = newReceiver(t)
		receivers[i].subscribe(c, "transaction.created")
	}
	var wg sync.WaitGroup
	for i, u := range users {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := env.As(u)
			for range 40 {
				wants[i] = append(wants[i], c.Post("/api/transactions", map[string]any{"type": "expense", "amount": 2}).
					Expect(t, http.StatusCreated).Object("transaction")["id"].(string))
			}
		}()
	}
	// Stop the leader mid-stream, again and again, while the writers go on.
	for round := range 4 {
		time.Sleep(time.Duration(20+round*30) * time.Millisecond)
		stop()
		stop = ev.Run()
	}
	wg.Wait()
	for i, rc := range receivers {
		waitFor(t, users[i]+"'s deliveries", 30*time.Second, func() bool {
			return len(firstOf(t, rc.receipts(), "transaction.created")) >= len(wants[i])
		})
		if got := transactionIDs(firstOf(t, rc.receipts(), "transaction.created")); !slices.Equal(got, wants[i]) {
			t.Fatalf("%s: delivered %d: %v\nwant %d: %v", users[i], len(got), got, len(wants[i]), wants[i])
		}
	}
	var stored int
	if err := env.Pool.QueryRow(t.Context(), `SELECT count(*) FROM webhook_deliveries`).Scan(&stored); err != nil || stored != 3*40 {
		t.Fatalf("%d deliveries stored, want %d (%v)", stored, 3*40, err)
	}
}

// budget.threshold_reached is sent once per budget and period, when spending reaches
// the alert threshold.
func TestWebhookBudgetThreshold(t *testing.T) {
	env, ev := apitest.StartEvents(t, nil)
	ev.Run()
	alice := env.As("alice")
	cashWallet(t, alice)
	food := alice.Post("/api/categories", map[string]any{"name": "Food"}).Expect(t, http.StatusOK).Object("category")["id"].(string)
	budget := alice.Post("/api/budgets", map[string]any{"name": "Groceries", "categoryId": food, "amount": 100, "alertThreshold": 80,
		"startDate": "2026-01-01", "endDate": "2026-12-31"}).Expect(t, http.StatusOK).Object("budget")["id"].(string)
	rc := newReceiver(t)
	rc.subscribe(alice, "budget.threshold_reached", "transaction.created")
	for _, amount := range []float64{50, 35, 10} {
		alice.Post("/api/transactions", map[string]any{"type": "expense", "amount": amount, "categoryId": food}).Expect(t, http.StatusCreated)
	}
	// The next month is a new period.
	alice.Post("/api/transactions", map[string]any{"type": "expense", "amount": 90, "categoryId": food, "date": "2026-04-02"}).Expect(t, http.StatusCreated)
	marker := alice.Post("/api/transactions", map[string]any{"type": "income", "amount": 1}).Expect(t, http.StatusCreated).Object("transaction")["id"].(string)
	// Deliveries keep event order, so once the marker is in, every alert before it is.
	waitFor(t, "the marker", 10*time.Second, func() bool {
		return slices.Contains(transactionIDs(firstOf(t, rc.receipts(), "transaction.created")), marker)
	})
	alerts := firstOf(t, rc.receipts(), "budget.threshold_reached")
	if len(alerts) != 2 {
		t.Fatalf("%d alerts: %v", len(alerts), alerts)
	}
	for i, start := range []string{"2026-03-01", "2026-04-01"} {
		b := alerts[i].Body["data"].(map[string]any)["budget"].(map[string]any)
		if b["id"] != budget || b["periodStart"] != start || b["alertReached"] != true {
			t.Fatalf("alert %d: %s", i, alerts[i].Raw)
		}
	}
	if spent := fmt.Sprint(alerts[0].Body["data"].(map[string]any)["budget"].(map[string]any)["spent"]); spent != "85" && spent != "95" {
		t.Fatalf("first alert spent %s", spent)
	}
}

// A URL that passed when the webhook was made but points inside the network when it is
// delivered to (DNS rebinding) is refused at delivery, and the attempt says why.
func TestWebhookDeliveryRefusesPrivateAddresses(t *testing.T) {
	env, ev := apitest.StartEvents(t, []time.Duration{10 * time.Millisecond})
	ev.Config.Client = safehttp.Policy{}.Client(10 * time.Second)
	ev.Run()
	alice := env.As("alice")
	cashWallet(t, alice)
	rc := newReceiver(t)
	hookID := rc.subscribe(alice)
	alice.Post("/api/transactions", map[string]any{"type": "expense", "amount": 1}).Expect(t, http.StatusCreated)
	var d map[string]any
	waitFor(t, "the delivery to fail", 10*time.Second, func() bool {
		list := alice.Get("/api/webhooks/outbound/" + hookID + "/deliveries").List("deliveries")
		if len(list) == 1 && list[0]["status"] == "failed" {
			d = list[0]
		}
		return d != nil
	})
	attempt := d["history"].([]any)[0].(map[string]any)
	if msg, _ := attempt["error"].(string); !strings.Contains(msg, "not allowed") || attempt["statusCode"] != nil {
		t.Fatalf("attempt %v", attempt)
	}
	if n := len(rc.receipts()); n != 0 {
		t.Fatalf("the receiver got %d requests", n)
	}
}

// Backlog counts what the relay and the dispatcher have yet to handle.
func TestWebhookBacklog(t *testing.T) {
	env, ev := apitest.StartEvents(t, nil)
	alice := env.As("alice")
	cashWallet(t, alice)
	stop := ev.Run()
	stop() // wired, then stopped: what follows waits
	for range 3 {
		alice.Post("/api/transactions", map[string]any{"type": "expense", "amount": 1}).Expect(t, http.StatusCreated)
	}
	if n, err := ev.Service.Backlog(t.Context()); err != nil || n < 3 {
		t.Fatalf("backlog %d (%v), want at least 3", n, err)
	}
	ev.Run()
	waitFor(t, "an empty backlog", 10*time.Second, func() bool {
		n, err := ev.Service.Backlog(t.Context())
		return err == nil && n == 0
	})
}

// The ledger tells the relay of each command that stored events, and of no other.
func TestLedgerTellsOfCommits(t *testing.T) {
	env := apitest.Start(t)
	alice := env.As("alice")
	cashWallet(t, alice) // the user, the workspace and the wallet, before counting
	var mu sync.Mutex
	commits := 0
	env.Ledger.OnCommit(func() { mu.Lock(); commits++; mu.Unlock() })
	alice.Post("/api/transactions", map[string]any{"type": "expense", "amount": 1}).Expect(t, http.StatusCreated)
	fieldErrors(t, alice.Post("/api/transactions", map[string]any{"type": "expense", "amount": -1}))
	alice.Post("/api/transactions", map[string]any{"type": "income", "amount": 2}).Expect(t, http.StatusCreated)
	mu.Lock()
	defer mu.Unlock()
	if commits != 2 {
		t.Fatalf("%d commits told, want 2", commits)
	}
}
