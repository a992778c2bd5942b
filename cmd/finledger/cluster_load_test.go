package main

// The load of the cluster fault test: writers that create, correct and delete
// transactions through any instance, each request under an Idempotency-Key and retried
// with the same key and body on another instance until it gets a definitive answer,
// and the model of what every acknowledged write must have left behind.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// clientRequestDeadline bounds how long a client keeps retrying one request; past it the
// request has no definitive answer.
const clientRequestDeadline = 2 * time.Minute

// clientAttemptTimeout bounds one attempt of a request.
const clientAttemptTimeout = 20 * time.Second

// serverError is a 5xx answer.
type serverError struct {
	at         time.Time
	instance   string
	method     string
	path       string
	status     int
	retryAfter string
	body       string
}

// answerLog records what the clients saw besides their definitive answers.
type answerLog struct {
	mu          sync.Mutex
	serverErrs  []serverError
	writes      []answeredWrite // the writes answered 2xx, for the failover times
	connErrors  int
	rateLimited int
	unexpected  []string // definitive answers a correct service would not give
}

func (a *answerLog) addServerError(e serverError) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.serverErrs = append(a.serverErrs, e)
}

// answeredWrite is one attempt of a write that was answered 2xx: when it was sent and
// when its answer came.
type answeredWrite struct{ sent, answered time.Time }

func (a *answerLog) addWrite(w answeredWrite) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.writes = append(a.writes, w)
}

func (a *answerLog) addUnexpected(format string, args ...any) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.unexpected = append(a.unexpected, fmt.Sprintf(format, args...))
}

// retryingClient sends requests of one credential to a set of instances.
type retryingClient struct {
	bases []string
	names []string
	token string
	http  *http.Client
	log   *answerLog
}

// apiAnswer is the definitive answer to a request; status 0 when there was none.
type apiAnswer struct {
	status   int
	body     []byte
	instance string
	attempts int
	replayed bool
}

func (a apiAnswer) String() string {
	if a.status == 0 {
		return fmt.Sprintf("no definitive answer after %d attempts", a.attempts)
	}
	return fmt.Sprintf("%d from %s after %d attempt(s): %s", a.status, a.instance, a.attempts, bytes.TrimSpace(a.body))
}

// send makes a request, first on instance first, and retries it with the same key and
// body on the next instance after a connection error, a 429 or a 5xx, until it gets
// any other answer or ctx ends.
func (c *retryingClient) send(ctx context.Context, method, path, workspace, key string, body []byte, first int) apiAnswer {
	var last apiAnswer
	wait := 20 * time.Millisecond
	for attempt := 0; ; attempt++ {
		if ctx.Err() != nil {
			return apiAnswer{attempts: attempt}
		}
		i := (first + attempt) % len(c.bases)
		sent := time.Now()
		status, data, header, err := c.attempt(ctx, method, c.bases[i]+path, workspace, key, body)
		last = apiAnswer{status: status, body: data, instance: c.names[i], attempts: attempt + 1, replayed: header.Get("Idempotent-Replayed") == "true"}
		switch {
		case err != nil:
			c.log.mu.Lock()
			c.log.connErrors++
			c.log.mu.Unlock()
		case status >= 500:
			c.log.addServerError(serverError{at: time.Now(), instance: c.names[i], method: method, path: path, status: status,
				retryAfter: header.Get("Retry-After"), body: string(bytes.TrimSpace(data))})
		case status == http.StatusTooManyRequests:
			c.log.mu.Lock()
			c.log.rateLimited++
			c.log.mu.Unlock()
		default:
			if method != http.MethodGet && status < 300 {
				c.log.addWrite(answeredWrite{sent: sent, answered: time.Now()})
			}
			return last
		}
		select {
		case <-ctx.Done():
			return apiAnswer{attempts: attempt + 1}
		case <-time.After(wait/2 + rand.N(wait/2+1)):
		}
		wait = min(2*wait, 500*time.Millisecond)
	}
}

func (c *retryingClient) attempt(ctx context.Context, method, url, workspace, key string, body []byte) (int, []byte, http.Header, error) {
	ctx, cancel := context.WithTimeout(ctx, clientAttemptTimeout)
	defer cancel()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return 0, nil, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if workspace != "" {
		req.Header.Set("X-Workspace-Id", workspace)
	}
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	res, err := c.http.Do(req)
	if err != nil {
		return 0, nil, http.Header{}, err
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		return 0, nil, http.Header{}, err
	}
	return res.StatusCode, data, res.Header, nil
}

// mustSend is send for the setup, which runs without faults: anything but want fails.
func (c *retryingClient) mustSend(method, path, workspace, key, body string, want int) (map[string]json.RawMessage, error) {
	ctx, cancel := context.WithTimeout(context.Background(), clientRequestDeadline)
	defer cancel()
	var b []byte
	if body != "" {
		b = []byte(body)
	}
	a := c.send(ctx, method, path, workspace, key, b, 0)
	if a.status != want {
		return nil, fmt.Errorf("%s %s: %s", method, path, a)
	}
	var out map[string]json.RawMessage
	if err := json.Unmarshal(a.body, &out); err != nil {
		return nil, fmt.Errorf("%s %s: %w: %s", method, path, err, a.body)
	}
	return out, nil
}

// apiRecord is the part of an API record the test reads.
type apiRecord struct {
	ID      string      `json:"id"`
	Amount  json.Number `json:"amount"`
	Balance json.Number `json:"balance"`
}

func decodeRecord(raw json.RawMessage) (apiRecord, error) {
	var r apiRecord
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	err := d.Decode(&r)
	return r, err
}

// txState is what a transaction looks like in the read model at the end.
type txState struct {
	exists  bool
	deleted bool
	amount  decimal.Decimal
}

func (s txState) String() string {
	switch {
	case !s.exists:
		return "absent"
	case s.deleted:
		return "deleted"
	}
	return "amount " + s.amount.String()
}

func (s txState) equal(o txState) bool {
	if s.exists != o.exists || s.deleted != o.deleted {
		return false
	}
	return !s.exists || s.deleted || s.amount.Equal(o.amount)
}

// txModel is one transaction a writer created, and the states it may end in: one when
// every request about it got a definitive answer, more after one that did not.
type txModel struct {
	key      string // the create's Idempotency-Key, also its concept
	id       string // from the acknowledged create
	typ      string
	wallet   string
	toWallet string
	states   []txState
	history  []string
}

func (m *txModel) certain() bool { return len(m.states) == 1 }

func (m *txModel) current() txState { return m.states[len(m.states)-1] }

// uncertainTo adds next to the states the transaction may end in.
func (m *txModel) uncertainTo(next txState) {
	for _, s := range m.states {
		if s.equal(next) {
			return
		}
	}
	m.states = append(m.states, next)
}

// effect adds what the transaction in state s did to wallet balances.
func (m *txModel) effect(s txState, balances map[string]decimal.Decimal) {
	if !s.exists || s.deleted {
		return
	}
	switch m.typ {
	case "income":
		balances[m.wallet] = balances[m.wallet].Add(s.amount)
	case "expense":
		balances[m.wallet] = balances[m.wallet].Sub(s.amount)
	case "transfer":
		balances[m.wallet] = balances[m.wallet].Sub(s.amount)
		balances[m.toWallet] = balances[m.toWallet].Add(s.amount)
	}
}

// workspaceModel is one workspace of a deployment and what the writers did in it.
type workspaceModel struct {
	deployment string
	name       string
	id         string
	wallets    []string
	opening    map[string]decimal.Decimal
	hook       *hookLog

	final map[string]decimal.Decimal // wallet balances the acknowledged writes make; set by checkWrites

	mu  sync.Mutex
	txs []*txModel
}

func (w *workspaceModel) add(m *txModel) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.txs = append(w.txs, m)
}

// writeCounts are a writer's tallies.
type writeCounts struct {
	creates, updates, deletes int // acknowledged
	noAnswer                  int // requests without a definitive answer
	doubleSubmits             int
	replayed                  int // acknowledgements that replayed a stored answer (Idempotent-Replayed)
}

func (c *writeCounts) add(o writeCounts) {
	c.creates += o.creates
	c.updates += o.updates
	c.deletes += o.deletes
	c.noAnswer += o.noAnswer
	c.doubleSubmits += o.doubleSubmits
	c.replayed += o.replayed
}

func (c writeCounts) acknowledged() int { return c.creates + c.updates + c.deletes }

// loadWriter makes transactions in one workspace until its load ends.
type loadWriter struct {
	abort  context.Context // ends every request at once
	name   string
	api    *retryingClient
	ws     *workspaceModel
	rng    *rand.Rand
	seq    int
	live   []*txModel // created, acknowledged, not deleted, every request answered
	counts writeCounts
}

// runLoad starts writers, each writing until the returned stop is called, which waits
// for the requests under way to be answered. Should the test end first, its cleanup
// ends those requests too.
func runLoad(t *testing.T, writers []*loadWriter) (stop func()) {
	t.Helper()
	load, stopLoad := context.WithCancel(context.Background())
	abort, abortLoad := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() {
		stopLoad()
		abortLoad()
		wg.Wait()
	})
	for _, w := range writers {
		w.abort = abort
		wg.Go(func() { w.run(load) })
	}
	return func() {
		stopLoad()
		wg.Wait()
	}
}

// run writes until load ends; the request under way when it does is still seen
// through to a definitive answer.
func (w *loadWriter) run(load context.Context) {
	for load.Err() == nil {
		switch r := w.rng.Float64(); {
		case r < 0.70 || len(w.live) < 3:
			w.create()
		case r < 0.88:
			w.update()
		default:
			w.delete()
		}
	}
}

func (w *loadWriter) nextKey() string {
	w.seq++
	return fmt.Sprintf("%s-%s-%06d", w.ws.deployment, w.name, w.seq)
}

func (w *loadWriter) amount() decimal.Decimal {
	if w.rng.IntN(4) == 0 {
		return decimal.New(w.rng.Int64N(1_000_000)+1, -4) // four decimal places
	}
	return decimal.New(w.rng.Int64N(100_000)+1, -2)
}

// request sends one write; with double set, the same request goes to two instances at
// once, as a client that submits twice would, and both must get the same answer.
func (w *loadWriter) request(method, path, key string, body []byte, double bool) (apiAnswer, []apiAnswer) {
	ctx, cancel := context.WithTimeout(w.abort, clientRequestDeadline)
	defer cancel()
	first := w.rng.IntN(len(w.api.bases))
	if !double || len(w.api.bases) < 2 {
		a := w.api.send(ctx, method, path, w.ws.id, key, body, first)
		if a.replayed {
			w.counts.replayed++
		}
		return a, nil
	}
	w.counts.doubleSubmits++
	both := make([]apiAnswer, 2)
	var wg sync.WaitGroup
	for i := range both {
		wg.Add(1)
		go func() {
			defer wg.Done()
			both[i] = w.api.send(ctx, method, path, w.ws.id, key, body, first+i)
		}()
	}
	wg.Wait()
	for _, a := range both {
		if a.replayed {
			w.counts.replayed++
		}
	}
	// The model follows the first definitive answer, a success if there is one.
	a := both[0]
	if a.status/100 != 2 && both[1].status != 0 {
		a = both[1]
	}
	return a, both
}

func (w *loadWriter) create() {
	key := w.nextKey()
	m := &txModel{key: key, wallet: w.ws.wallets[0]}
	amount := w.amount()
	switch r := w.rng.IntN(10); {
	case r < 4:
		m.typ = "expense"
	case r < 8:
		m.typ = "income"
	default:
		m.typ = "transfer"
		m.toWallet = w.ws.wallets[1]
	}
	if w.rng.IntN(2) == 0 {
		m.wallet, m.toWallet = w.ws.wallets[1], w.ws.wallets[0]
		if m.typ != "transfer" {
			m.toWallet = ""
		}
	}
	body := fmt.Sprintf(`{"type":%q,"amount":%s,"walletId":%q,"concept":%q`, m.typ, amount, m.wallet, key)
	if m.toWallet != "" {
		body += fmt.Sprintf(`,"toWalletId":%q`, m.toWallet)
	}
	body += "}"
	a, both := w.request(http.MethodPost, "/api/transactions", key, []byte(body), w.rng.IntN(20) == 0)
	m.states = []txState{{}}
	w.ws.add(m)
	created := txState{exists: true, amount: amount}
	switch a.status {
	case http.StatusCreated:
		rec, err := decodeRecord(transactionOf(a.body))
		if err != nil || rec.ID == "" {
			w.api.log.addUnexpected("create %s: an answer without a transaction: %s", key, a)
			m.uncertainTo(created)
			return
		}
		m.id = rec.ID
		m.states = []txState{created}
		m.history = append(m.history, "created on "+a.instance)
		w.counts.creates++
		if got, err := decimal.NewFromString(rec.Amount.String()); err != nil || !got.Equal(amount) {
			w.api.log.addUnexpected("create %s: sent amount %s, answered %s", key, amount, rec.Amount)
		}
		for _, other := range both {
			if other.status == 0 {
				continue
			}
			if o, err := decodeRecord(transactionOf(other.body)); other.status != http.StatusCreated || err != nil || o.ID != rec.ID {
				w.api.log.addUnexpected("create %s submitted twice at once: answers differ: %s / %s", key, both[0], both[1])
			}
		}
		w.live = append(w.live, m)
	case 0:
		w.counts.noAnswer++
		m.uncertainTo(created)
		m.history = append(m.history, "create: no answer")
	default:
		w.api.log.addUnexpected("create %s on %s: %s", key, w.ws.name, a)
		m.uncertainTo(created)
		m.history = append(m.history, "create: "+a.String())
	}
}

// pick takes a random live transaction out of the live list.
func (w *loadWriter) pick() *txModel {
	i := w.rng.IntN(len(w.live))
	m := w.live[i]
	w.live[i] = w.live[len(w.live)-1]
	w.live = w.live[:len(w.live)-1]
	return m
}

func (w *loadWriter) update() {
	if len(w.live) == 0 {
		w.create()
		return
	}
	m := w.pick()
	key := w.nextKey()
	amount := w.amount()
	if w.rng.IntN(3) == 0 {
		amount = m.current().amount // a correction that changes nothing
	}
	body := fmt.Sprintf(`{"amount":%s}`, amount)
	a, both := w.request(http.MethodPatch, "/api/transactions/"+m.id, key, []byte(body), w.rng.IntN(8) == 0)
	next := txState{exists: true, amount: amount}
	switch a.status {
	case http.StatusOK:
		m.states = []txState{next}
		m.history = append(m.history, "amount "+amount.String()+" on "+a.instance)
		w.counts.updates++
		rec, err := decodeRecord(transactionOf(a.body))
		if got, err2 := decimal.NewFromString(rec.Amount.String()); err != nil || err2 != nil || rec.ID != m.id || !got.Equal(amount) {
			w.api.log.addUnexpected("update %s of %s to %s: answered %s", key, m.id, amount, a)
		}
		for _, other := range both {
			if other.status != 0 && other.status != http.StatusOK {
				w.api.log.addUnexpected("update %s of %s submitted twice at once: answers differ: %s / %s", key, m.id, both[0], both[1])
			}
		}
		w.live = append(w.live, m)
	case 0:
		w.counts.noAnswer++
		m.uncertainTo(next)
		m.history = append(m.history, "update to "+amount.String()+": no answer")
	default:
		w.api.log.addUnexpected("update %s of %s (%s) to %s: %s", key, m.id, strings.Join(m.history, ", "), amount, a)
		m.uncertainTo(next)
		m.history = append(m.history, "update: "+a.String())
	}
}

func (w *loadWriter) delete() {
	if len(w.live) == 0 {
		w.create()
		return
	}
	m := w.pick()
	key := w.nextKey()
	a, _ := w.request(http.MethodDelete, "/api/transactions/"+m.id, key, nil, false)
	gone := txState{exists: true, deleted: true}
	switch a.status {
	case http.StatusOK:
		m.states = []txState{gone}
		m.history = append(m.history, "deleted on "+a.instance)
		w.counts.deletes++
	case 0:
		w.counts.noAnswer++
		m.uncertainTo(gone)
		m.history = append(m.history, "delete: no answer")
	default:
		w.api.log.addUnexpected("delete %s of %s (%s): %s", key, m.id, strings.Join(m.history, ", "), a)
		m.uncertainTo(gone)
		m.history = append(m.history, "delete: "+a.String())
	}
}

// transactionOf returns the "transaction" member of an answer.
func transactionOf(body []byte) json.RawMessage {
	var out struct {
		Transaction json.RawMessage `json:"transaction"`
	}
	_ = json.Unmarshal(body, &out)
	return out.Transaction
}

// exampleLines returns at most n of items, sorted, as indented lines.
func exampleLines(items []string, n int) string {
	sorted := append([]string(nil), items...)
	sort.Strings(sorted)
	if len(sorted) > n {
		sorted = append(sorted[:n], fmt.Sprintf("... and %d more", len(items)-n))
	}
	return "\n\t" + strings.Join(sorted, "\n\t")
}
