package main

// The webhook receiver of the cluster fault test and the checks made once the load has
// stopped: every acknowledged write present once, balances equal to the acknowledged
// effects, every event delivered to each webhook in stream order with stable delivery
// ids, and nothing of one deployment delivered to the other's webhooks.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"

	"github.com/finledger/finledger/webhooks"
)

// checkFailures collects the failed checks: a name, how many, examples.
type checkFailures struct {
	mu     sync.Mutex
	order  []string
	items  map[string][]string
	counts map[string]int
}

// add records one failure of check.
func (p *checkFailures) add(check, example string) { p.addN(check, 1, example) }

// addN records n failures of check that example describes together.
func (p *checkFailures) addN(check string, n int, example string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.items == nil {
		p.items, p.counts = map[string][]string{}, map[string]int{}
	}
	if _, ok := p.items[check]; !ok {
		p.order = append(p.order, check)
	}
	p.items[check] = append(p.items[check], example)
	p.counts[check] += n
}

func (p *checkFailures) count(check string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.counts[check]
}

// hookArrival is one request the receiver got.
type hookArrival struct {
	delivery string
	at       time.Time
}

// hookLog is what one webhook received.
type hookLog struct {
	deployment string
	workspace  string // the workspace the webhook belongs to
	id         string
	secret     string

	arrivals  []hookArrival     // every request, in arrival order
	firsts    []string          // delivery ids in the order of their first arrival
	bodies    map[string]string // delivery id -> body of its first arrival
	delivered map[string]bool   // answered 2xx at least once
	events    map[string]string // delivery id -> X-Service-Event
	bad       []string          // requests that broke the delivery contract
}

// hookReceiver is the webhook endpoint of every subscription: /hook/<n>. It fails the first
// attempt of some deliveries, so that retries happen, and accepts every other.
type hookReceiver struct {
	failFirst float64

	mu    sync.Mutex
	hooks map[string]*hookLog
	last  time.Time
	stray []string
}

func newReceiver(failFirst float64) *hookReceiver {
	return &hookReceiver{failFirst: failFirst, hooks: map[string]*hookLog{}}
}

// register makes /hook/<name> a webhook endpoint of workspace.
func (r *hookReceiver) register(name, deployment, workspace string) *hookLog {
	r.mu.Lock()
	defer r.mu.Unlock()
	h := &hookLog{deployment: deployment, workspace: workspace, bodies: map[string]string{}, delivered: map[string]bool{},
		events: map[string]string{}}
	r.hooks[name] = h
	return h
}

func (r *hookReceiver) setSecret(h *hookLog, id, secret string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	h.id, h.secret = id, secret
}

func (r *hookReceiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(req.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.last = now
	h, ok := r.hooks[strings.TrimPrefix(req.URL.Path, "/hook/")]
	if !ok {
		r.stray = append(r.stray, req.URL.Path)
		http.NotFound(w, req)
		return
	}
	var env struct {
		ID          string `json:"id"`
		Type        string `json:"type"`
		WorkspaceID string `json:"workspaceId"`
	}
	if err := json.Unmarshal(body, &env); err != nil || env.ID == "" {
		h.bad = append(h.bad, fmt.Sprintf("unreadable body %q", body))
		http.Error(w, "unreadable", http.StatusBadRequest)
		return
	}
	id := req.Header.Get(webhooks.HeaderDelivery)
	if id != env.ID {
		h.bad = append(h.bad, fmt.Sprintf("delivery header %q, body id %q", id, env.ID))
	}
	if ev := req.Header.Get(webhooks.HeaderEvent); ev != env.Type {
		h.bad = append(h.bad, fmt.Sprintf("delivery %s: event header %q, body type %q", env.ID, ev, env.Type))
	}
	if env.WorkspaceID != h.workspace {
		h.bad = append(h.bad, fmt.Sprintf("delivery %s of workspace %s reached the webhook of %s (%s)", env.ID, env.WorkspaceID, h.workspace, h.deployment))
	}
	if h.secret != "" && !signatureValid(h.secret, req.Header.Get(webhooks.HeaderSignature), body) {
		h.bad = append(h.bad, fmt.Sprintf("delivery %s: bad signature %q", env.ID, req.Header.Get(webhooks.HeaderSignature)))
	}
	h.arrivals = append(h.arrivals, hookArrival{delivery: env.ID, at: now})
	first, seen := h.bodies[env.ID]
	if !seen {
		h.bodies[env.ID] = string(body)
		h.events[env.ID] = env.Type
		h.firsts = append(h.firsts, env.ID)
		if rand.Float64() < r.failFirst {
			http.Error(w, "try again", http.StatusInternalServerError)
			return
		}
	} else if first != string(body) {
		h.bad = append(h.bad, fmt.Sprintf("delivery %s sent again with another body:\n\t\tfirst %s\n\t\tlater %s", env.ID, first, body))
	}
	h.delivered[env.ID] = true
	w.WriteHeader(http.StatusOK)
}

// signatureValid checks X-Service-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">.
func signatureValid(secret, header string, body []byte) bool {
	var ts string
	for _, part := range strings.Split(header, ",") {
		if k, v, _ := strings.Cut(part, "="); k == "t" {
			ts = v
		}
	}
	t, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return false
	}
	return webhooks.Sign([]byte(secret), time.Unix(t, 0), body) == header
}

// lastArrival returns when the receiver last got a request.
func (r *hookReceiver) lastArrival() time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last
}

// expectedDelivery is one public event a webhook must receive.
type expectedDelivery struct {
	eventID string
	version int64
	name    string
}

// deliveryRow is a delivery as the dispatcher stored it.
type deliveryRow struct {
	eventID  string
	event    string
	status   string
	attempts int
	// lastError is what the last attempt met: an error, or the receiver's status.
	lastError string
}

// hookReport compares what a webhook received with what its workspace's stream holds.
type hookReport struct {
	expected    int
	missing     []string
	why         map[string]int // missing deliveries by what became of them
	outOfOrder  []string
	repeats     int // arrivals beyond the first of a delivery
	unknown     []string
	received    int
	attemptsMax int
}

// checkHook reads the workspace's events after the webhook's creation and the
// dispatcher's deliveries, and compares them with what the receiver got.
func checkHook(ctx context.Context, pool *pgxpool.Pool, r *hookReceiver, h *hookLog) (hookReport, error) {
	rep := hookReport{why: map[string]int{}}
	r.mu.Lock()
	hookID := h.id
	r.mu.Unlock()
	var createdVersion int64
	if err := pool.QueryRow(ctx, `SELECT created_version FROM webhooks WHERE workspace_id = $1 AND id = $2`, h.workspace, hookID).Scan(&createdVersion); err != nil {
		return rep, fmt.Errorf("webhook %s: %w", hookID, err)
	}
	rows, err := pool.Query(ctx, `SELECT event_id::text, version, type, data::text FROM events
		WHERE stream_id = $1 AND version > $2 ORDER BY version`, "workspace-"+h.workspace, createdVersion)
	if err != nil {
		return rep, err
	}
	var expected []expectedDelivery
	versions := map[string]int64{}
	for rows.Next() {
		var id, typ, data string
		var version int64
		if err := rows.Scan(&id, &version, &typ, &data); err != nil {
			rows.Close()
			return rep, err
		}
		versions[id] = version
		publics, err := webhooks.PublicEvents(typ, []byte(data))
		if err != nil {
			rows.Close()
			return rep, err
		}
		for _, p := range publics {
			expected = append(expected, expectedDelivery{eventID: id, version: version, name: p.Name})
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return rep, err
	}
	rows, err = pool.Query(ctx, `SELECT d.id::text, coalesce(d.event_id::text, ''), d.event, d.status, d.attempts,
			coalesce((SELECT coalesce(a.error, 'status ' || a.status_code) FROM webhook_attempts a
				WHERE a.workspace_id = d.workspace_id AND a.delivery_id = d.id ORDER BY a.attempt DESC LIMIT 1), '')
		FROM webhook_deliveries d WHERE d.workspace_id = $1 AND d.webhook_id = $2`, h.workspace, hookID)
	if err != nil {
		return rep, err
	}
	stored := map[string]deliveryRow{}
	byEvent := map[string]string{} // event id + name -> delivery id
	for rows.Next() {
		var id string
		var d deliveryRow
		if err := rows.Scan(&id, &d.eventID, &d.event, &d.status, &d.attempts, &d.lastError); err != nil {
			rows.Close()
			return rep, err
		}
		stored[id] = d
		byEvent[d.eventID+" "+d.event] = id
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return rep, err
	}

	r.mu.Lock()
	defer r.mu.Unlock()
	rep.expected = len(expected)
	rep.received = len(h.firsts)
	rep.repeats = len(h.arrivals) - len(h.firsts)
	for _, e := range expected {
		id, ok := byEvent[e.eventID+" "+e.name]
		switch {
		case !ok:
			rep.why["never stored by the dispatcher"]++
			rep.missing = append(rep.missing, fmt.Sprintf("%s of event %s (version %d): no delivery stored", e.name, e.eventID, e.version))
		case !h.delivered[id]:
			d := stored[id]
			rep.why[d.status]++
			last := ""
			if d.lastError != "" {
				last = " (the last: " + d.lastError + ")"
			}
			rep.missing = append(rep.missing, fmt.Sprintf("%s of event %s (version %d): delivery %s %s after %d attempt(s)%s",
				e.name, e.eventID, e.version, id, d.status, d.attempts, last))
		}
	}
	var highest int64
	var highestID string
	for _, id := range h.firsts {
		d, ok := stored[id]
		if !ok {
			rep.unknown = append(rep.unknown, fmt.Sprintf("delivery %s (%s) is not one of this deployment's", id, h.events[id]))
			continue
		}
		v, ok := versions[d.eventID]
		if !ok {
			rep.unknown = append(rep.unknown, fmt.Sprintf("delivery %s is of event %s, not in the workspace's stream after the webhook", id, d.eventID))
			continue
		}
		if v < highest {
			rep.outOfOrder = append(rep.outOfOrder, fmt.Sprintf("delivery %s (%s, version %d) arrived after %s (version %d)", id, d.event, v, highestID, highest))
		} else {
			highest, highestID = v, id
		}
		rep.attemptsMax = max(rep.attemptsMax, stored[id].attempts)
	}
	return rep, nil
}

// checkWrites compares the transactions and wallets of a deployment's database with
// the model of its writers, and reports lost and doubled writes and wrong balances.
func checkWrites(ctx context.Context, pool *pgxpool.Pool, spaces []*workspaceModel, p *checkFailures) (unknownCommitted, unknownAbsent int, err error) {
	for _, ws := range spaces {
		type row struct {
			id, concept, typ, wallet, toWallet string
			amount                             decimal.Decimal
			deleted                            bool
		}
		rows, err := pool.Query(ctx, `SELECT id::text, coalesce(concept, ''), type, coalesce(wallet_id::text, ''), coalesce(to_wallet_id::text, ''),
			amount, deleted_at IS NOT NULL FROM transactions WHERE workspace_id = $1`, ws.id)
		if err != nil {
			return 0, 0, err
		}
		byConcept := map[string][]row{}
		for rows.Next() {
			var r row
			if err := rows.Scan(&r.id, &r.concept, &r.typ, &r.wallet, &r.toWallet, &r.amount, &r.deleted); err != nil {
				rows.Close()
				return 0, 0, err
			}
			byConcept[r.concept] = append(byConcept[r.concept], r)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return 0, 0, err
		}
		expected := map[string]decimal.Decimal{}
		for _, w := range ws.wallets {
			expected[w] = ws.opening[w]
		}
		ws.mu.Lock()
		txs := append([]*txModel(nil), ws.txs...)
		ws.mu.Unlock()
		modelled := map[string]bool{}
		for _, m := range txs {
			modelled[m.key] = true
			found := byConcept[m.key]
			if len(found) > 1 {
				ids := make([]string, len(found))
				for i, f := range found {
					ids[i] = f.id
				}
				p.add("doubled", fmt.Sprintf("%s/%s: %d transactions with concept %s: %v", ws.deployment, ws.name, len(found), m.key, ids))
			}
			actual := txState{}
			if len(found) > 0 {
				f := found[0]
				for _, g := range found {
					if g.id == m.id {
						f = g
					}
				}
				actual = txState{exists: true, deleted: f.deleted, amount: f.amount}
				if m.id != "" && f.id != m.id {
					p.add("lost", fmt.Sprintf("%s/%s: acknowledged transaction %s (%s) is not there; %s has its concept", ws.deployment, ws.name, m.id, m.key, f.id))
				}
				if f.typ != m.typ || f.wallet != m.wallet || f.toWallet != m.toWallet {
					p.add("wrong record", fmt.Sprintf("%s/%s: %s is a %s from %s to %q, sent a %s from %s to %q",
						ws.deployment, ws.name, m.key, f.typ, f.wallet, f.toWallet, m.typ, m.wallet, m.toWallet))
				}
			}
			if m.id == "" { // a create without a definitive answer
				if actual.exists {
					unknownCommitted++
				} else {
					unknownAbsent++
				}
			}
			ok := false
			for _, s := range m.states {
				if s.equal(actual) {
					ok = true
				}
			}
			state := m.current()
			if ok {
				state = actual
			} else {
				want := make([]string, len(m.states))
				for i, s := range m.states {
					want[i] = s.String()
				}
				check := "lost"
				if !m.certain() || m.id == "" {
					check = "wrong state"
				}
				p.add(check, fmt.Sprintf("%s/%s: transaction %s (%s; %s) is %s, want %s", ws.deployment, ws.name, m.id, m.key,
					strings.Join(m.history, ", "), actual, strings.Join(want, " or ")))
			}
			m.effect(state, expected)
		}
		for concept, found := range byConcept {
			if !modelled[concept] {
				p.add("unrequested", fmt.Sprintf("%s/%s: %d transaction(s) nobody asked for, concept %q, first %s", ws.deployment, ws.name, len(found), concept, found[0].id))
			}
		}
		for _, w := range ws.wallets {
			var balance decimal.Decimal
			if err := pool.QueryRow(ctx, `SELECT balance FROM wallets WHERE workspace_id = $1 AND id = $2`, ws.id, w).Scan(&balance); err != nil {
				return 0, 0, err
			}
			if !balance.Equal(expected[w]) {
				p.add("balance", fmt.Sprintf("%s/%s: wallet %s holds %s, acknowledged writes make %s (off by %s)",
					ws.deployment, ws.name, w, balance, expected[w], balance.Sub(expected[w])))
			}
		}
		ws.mu.Lock()
		ws.final = expected
		ws.mu.Unlock()
	}
	return unknownCommitted, unknownAbsent, nil
}

// checkBalancesByAPI reads every wallet through every instance and compares it with
// the balance the model expects (set by checkWrites).
func checkBalancesByAPI(api *retryingClient, spaces []*workspaceModel, p *checkFailures) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, ws := range spaces {
		for _, w := range ws.wallets {
			ws.mu.Lock()
			want := ws.final[w]
			ws.mu.Unlock()
			for i := range api.bases {
				status, body, _, err := api.attempt(ctx, http.MethodGet, api.bases[i]+"/api/wallets/"+w, ws.id, "", nil)
				if err != nil || status != http.StatusOK {
					p.add("read", fmt.Sprintf("GET wallet %s on %s: %d %v %s", w, api.names[i], status, err, body))
					continue
				}
				var out struct {
					Wallet json.RawMessage `json:"wallet"`
				}
				_ = json.Unmarshal(body, &out)
				rec, err := decodeRecord(out.Wallet)
				got, err2 := decimal.NewFromString(rec.Balance.String())
				if err != nil || err2 != nil || !got.Equal(want) {
					p.add("balance", fmt.Sprintf("%s/%s: wallet %s read on %s: balance %s, want %s", ws.deployment, ws.name, w, api.names[i], rec.Balance, want))
				}
			}
		}
	}
}

// runVerify runs `finledger verify` on a database.
func runVerify(bin, url string) (string, error) {
	cmd := exec.Command(bin, "verify")
	cmd.Env = serveEnv(map[string]string{"FINLEDGER_DATABASE_URL": url})
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// serverErrorGroup is the 5xx answers of one status, operation and body.
type serverErrorGroup struct {
	n     int
	first time.Time
	text  string
}

// groupServerErrors groups 5xx answers by status, operation and body (without the
// request id), each with its count and first time.
func groupServerErrors(errs []serverError) []serverErrorGroup {
	type group struct {
		n     int
		first time.Time
	}
	groups := map[string]*group{}
	for _, e := range errs {
		body := requestIDField.ReplaceAllString(e.body, `"requestId":"…"`)
		k := fmt.Sprintf("%d %s %s (Retry-After %q): %s", e.status, e.method, pathShape(e.path), e.retryAfter, body)
		g, ok := groups[k]
		if !ok {
			g = &group{first: e.at}
			groups[k] = g
		}
		g.n++
	}
	var out []serverErrorGroup
	for k, g := range groups {
		out = append(out, serverErrorGroup{n: g.n, first: g.first, text: fmt.Sprintf("%d× from %s: %s", g.n, g.first.Format("15:04:05.000"), k)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].first.Before(out[j].first) })
	return out
}

var requestIDField = regexp.MustCompile(`"requestId":"[^"]*"`)

// pathShape replaces ids in a path with {id}.
func pathShape(path string) string {
	parts := strings.Split(path, "/")
	for i, p := range parts {
		if len(p) == 36 && strings.Count(p, "-") == 4 {
			parts[i] = "{id}"
		}
	}
	return strings.Join(parts, "/")
}

// inWindow reports whether at falls in one of windows.
func inWindow(at time.Time, windows []outageWindow) bool {
	for _, w := range windows {
		if !at.Before(w.from) && !at.After(w.to) {
			return true
		}
	}
	return false
}

// describeServerError tells one 5xx answer with what its instance logged about it.
func describeServerError(e serverError, logPath string) string {
	var out struct {
		Error struct {
			RequestID string `json:"requestId"`
		} `json:"error"`
	}
	_ = json.Unmarshal([]byte(e.body), &out)
	logged := "(no log line)"
	if id := out.Error.RequestID; id != "" {
		if line := logLine(logPath, id); line != "" {
			logged = line
		}
	}
	return fmt.Sprintf("%s %d %s %s on %s (Retry-After %q): %s\n\t\tlogged: %s", e.at.Format("15:04:05.000"), e.status, e.method, e.path,
		e.instance, e.retryAfter, e.body, logged)
}

// logLine returns the first line of a log file that holds needle, cut to 1000 bytes.
func logLine(path, needle string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	for _, l := range strings.Split(string(data), "\n") {
		if strings.Contains(l, needle) {
			if len(l) > 1000 {
				l = l[:1000] + "…"
			}
			return l
		}
	}
	return ""
}
