package main

// TestClusterFaults proves that several instances are exactly as correct as one
// (docs/architecture.md, decision 12): three `finledger serve` processes share one
// PostgreSQL and one NATS server while writers hammer them, instances are SIGKILLed and
// restarted (the relay, dispatcher and scheduler leaders among them) and PostgreSQL is
// stopped and started (and, when asked, its primary killed for the standby to take
// over); then every acknowledged write must be there exactly once,
// balances must equal the acknowledged effects, `finledger verify` must pass, and each
// webhook must have received every event in stream order under stable delivery ids. A
// second deployment (a fourth instance on another database, same NATS) must get all of
// its events and none of the first's.
//
// Its size is set by environment variables (the defaults are what `make test` runs;
// `make torture` runs it large):
//
//	FINLEDGER_TORTURE_CYCLES      kill-and-restart cycles (3)
//	FINLEDGER_TORTURE_OUTAGES     PostgreSQL outages, spread among the cycles (1)
//	FINLEDGER_TORTURE_FAILOVERS   failovers, spread among the cycles (0): with any, the
//	                              database is a primary and a synchronous standby
//	                              (pg_auto_failover), a failover SIGKILLs the primary,
//	                              and an outage stops both servers
//	FINLEDGER_TORTURE_WRITERS     concurrent writers on the first deployment (12): half
//	                              on one workspace, the rest spread over the others
//	FINLEDGER_TORTURE_WORKSPACES  workspaces besides the shared one (3)
//	FINLEDGER_TORTURE_DURATION    the load lasts at least this long (20s)

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"

	"github.com/finledger/finledger/httpapi/session"
	"github.com/finledger/finledger/internal/database"
	"github.com/finledger/finledger/internal/latency"
	"github.com/finledger/finledger/internal/testkit/pgfailover"
)

// clusterSecret is the session secret of every instance: the test mints its tokens.
const clusterSecret = "cluster-test-session-secret-0123456789abcdef"

// outageGrace is how long after PostgreSQL is back (and every instance says it is
// ready) a 503 still counts as part of the outage: pooled connections cut by the
// shutdown fail on their next use.
const outageGrace = 10 * time.Second

// settleQuiet ends the wait for webhooks early when nothing has arrived for this long.
const settleQuiet = 20 * time.Second

type outageWindow struct{ from, to time.Time }

type clusterDeployment struct {
	name      string
	database  string
	instances []*serveProcess
	api       *retryingClient
	spaces    []*workspaceModel
	writers   []*loadWriter
}

func TestClusterFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL, NATS and four servers")
	}
	var (
		cycles     = knobInt(t, "FINLEDGER_TORTURE_CYCLES", 3)
		outages    = knobInt(t, "FINLEDGER_TORTURE_OUTAGES", 1)
		failovers  = knobInt(t, "FINLEDGER_TORTURE_FAILOVERS", 0)
		writers    = max(2, knobInt(t, "FINLEDGER_TORTURE_WRITERS", 12))
		workspaces = max(1, knobInt(t, "FINLEDGER_TORTURE_WORKSPACES", 3))
		minLoad    = knobDuration(t, "FINLEDGER_TORTURE_DURATION", 20*time.Second)
	)
	began := time.Now()
	base := processesDir(t, "finledger-cluster-")
	bin, natsBin := buildBinaries(t, base)
	var (
		pg        clusterDatabase
		formation *pgfailover.Formation
	)
	if failovers > 0 {
		formation = pgfailover.Start(t)
		pg = failoverPostgres{formation}
	} else {
		pg = startClusterPostgres(t, filepath.Join(base, "pg"))
	}
	natsURL, natsLog := startNATS(t, natsBin, filepath.Join(base, "nats"))
	rec := newReceiver(0.1)
	hookServer := httptest.NewServer(rec)
	t.Cleanup(hookServer.Close)

	// Two deployments on one PostgreSQL server and one NATS server, each with its own
	// database and secret key; FINLEDGER_DEPLOYMENT is left to its default.
	one := &clusterDeployment{name: "one", database: "finledger_one"}
	two := &clusterDeployment{name: "two", database: "finledger_two"}
	var all []*serveProcess
	for _, d := range []*clusterDeployment{one, two} {
		createDatabase(t, pg, d.database)
		names := []string{"a", "b", "c"}
		key := strings.Repeat("1a", 32)
		if d == two {
			names, key = []string{"d"}, strings.Repeat("2b", 32)
		}
		for _, n := range names {
			dir := filepath.Join(base, "data-"+n)
			if err := os.MkdirAll(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			in := newServeProcess(n, bin, freeAddr(t), filepath.Join(base, "serve-"+n+".log"), map[string]string{
				"FINLEDGER_ENV":                    "production",
				"FINLEDGER_DATABASE_URL":           pg.url(d.database, "finledger-"+n),
				"FINLEDGER_NATS_URL":               natsURL,
				"FINLEDGER_DATA_DIR":               dir,
				"FINLEDGER_SESSION_HS256_SECRET":   clusterSecret,
				"FINLEDGER_SECRET_KEY":             key,
				"FINLEDGER_WEBHOOK_ALLOW_PRIVATE":  "true",
				"FINLEDGER_WEBHOOK_RETRY_SCHEDULE": "100ms,200ms,300ms,500ms,1s,1s,2s,2s,2s,2s",
				"FINLEDGER_DB_MAX_CONNS":           "8",
				"FINLEDGER_RATE_LIMIT_PER_MINUTE":  "10000000",
				"FINLEDGER_RATE_LIMIT_BURST":       "1000000",
			})
			d.instances = append(d.instances, in)
			all = append(all, in)
		}
	}
	t.Cleanup(func() {
		for _, in := range all {
			in.kill()
		}
	})
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		for _, in := range all {
			t.Logf("--- last lines of %s (%s):\n%s", in.name, in.logPath, logTail(in.logPath, 40))
		}
		t.Logf("--- last lines of PostgreSQL:\n%s", pg.logTail(15))
		t.Logf("--- last lines of NATS:\n%s", logTail(natsLog, 15))
	})
	// Three instances of one deployment start at once: they race for the migrations.
	for _, in := range all {
		if err := in.start(); err != nil {
			t.Fatal(err)
		}
	}
	for _, in := range all {
		if err := in.waitReady(serveStartTimeout); err != nil {
			t.Fatal(err)
		}
	}

	transport := &http.Transport{MaxIdleConnsPerHost: 64, IdleConnTimeout: 30 * time.Second}
	t.Cleanup(transport.CloseIdleConnections)
	log := &answerLog{}
	for _, d := range []*clusterDeployment{one, two} {
		token, err := session.MintHS256(clusterSecret, session.Claims{Subject: "owner-" + d.name, Email: "owner-" + d.name + "@example.com"},
			time.Now(), 6*time.Hour, "")
		if err != nil {
			t.Fatal(err)
		}
		d.api = &retryingClient{token: token, http: &http.Client{Transport: transport}, log: log}
		for _, in := range d.instances {
			d.api.bases = append(d.api.bases, in.base)
			d.api.names = append(d.api.names, in.name)
		}
		spaces := []string{"shared"}
		if d == one {
			for i := range workspaces {
				spaces = append(spaces, fmt.Sprintf("spread-%d", i+1))
			}
		}
		if err := setupDeployment(d, spaces, rec, hookServer.URL); err != nil {
			t.Fatal(err)
		}
	}
	for i := range writers {
		ws := one.spaces[0]
		if i >= max(2, writers/2) {
			ws = one.spaces[1+i%(len(one.spaces)-1)]
		}
		one.writers = append(one.writers, &loadWriter{name: fmt.Sprintf("w%02d", i), api: one.api, ws: ws, rng: rand.New(rand.NewPCG(uint64(i), uint64(began.UnixNano())))})
	}
	for i := range 2 {
		two.writers = append(two.writers, &loadWriter{name: fmt.Sprintf("v%02d", i), api: two.api, ws: two.spaces[0], rng: rand.New(rand.NewPCG(uint64(100+i), uint64(began.UnixNano())))})
	}

	// The load.
	stopLoad := runLoad(t, append(append([]*loadWriter{}, one.writers...), two.writers...))
	loadStart := time.Now()
	t.Logf("load started: %d writers on deployment one (%d workspaces), %d on deployment two; %d kill cycles, %d PostgreSQL outages, %d failovers, at least %s",
		len(one.writers), len(one.spaces), len(two.writers), cycles, outages, failovers, minLoad)

	// The faults.
	p := &checkFailures{}
	f := &faultPlan{t: t, pg: pg, formation: formation, one: one, all: all, leaderKills: map[string]int{}, p: p}
	letLoadRun(2 * time.Second)
	// Outages and failovers are spread among the cycles: after k cycles, outageAt[k]
	// outages and failoverAt[k] failovers.
	outageAt, failoverAt := spread(outages, cycles), spread(failovers, cycles)
	for k := 0; k <= cycles; k++ {
		for range outageAt[k] {
			f.outage()
		}
		for range failoverAt[k] {
			f.failover()
		}
		if k < cycles {
			f.killCycle(k)
		}
	}
	for time.Since(loadStart) < minLoad {
		letLoadRun(100 * time.Millisecond)
	}
	stopLoad()
	loadTime := time.Since(loadStart)
	t.Logf("load stopped after %s", loadTime.Round(time.Millisecond))

	// Settle: every instance serving, every webhook caught up or quiet.
	for _, in := range all {
		if !in.running() {
			if err := in.start(); err != nil {
				t.Fatal(err)
			}
		}
		if err := in.waitReady(serveStartTimeout); err != nil {
			t.Fatalf("after the load: %v", err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	reports, settled := settleWebhooks(t, ctx, pg, rec, one, two)
	if names, err := busNames(natsURL); err != nil {
		t.Logf("NATS streams unknown: %v", err)
	} else {
		t.Logf("NATS streams of the two deployments: %s", names)
	}

	// The checks.
	var total writeCounts
	for _, d := range []*clusterDeployment{one, two} {
		for _, w := range d.writers {
			total.add(w.counts)
		}
	}
	var unknownCommitted, unknownAbsent int
	for _, d := range []*clusterDeployment{one, two} {
		pool, err := database.Open(ctx, pg.url(d.database, "cluster-test"), 2)
		if err != nil {
			t.Fatal(err)
		}
		c, a, err := checkWrites(ctx, pool, d.spaces, p)
		pool.Close()
		if err != nil {
			t.Fatalf("check writes of %s: %v", d.name, err)
		}
		unknownCommitted += c
		unknownAbsent += a
		checkBalancesByAPI(d.api, d.spaces, p)
		verifyStart := time.Now()
		out, err := runVerify(bin, pg.url(d.database, "cluster-verify"))
		if err != nil {
			p.add("verify", fmt.Sprintf("deployment %s: %v\n%s", d.name, err, out))
		}
		t.Logf("deployment %s: writes checked; finledger verify took %s", d.name, time.Since(verifyStart).Round(time.Millisecond))
	}
	received, repeats, maxAttempts := 0, 0, 0
	for _, d := range []*clusterDeployment{one, two} {
		for _, ws := range d.spaces {
			r := reports[ws.hook]
			received += r.received
			repeats += r.repeats
			maxAttempts = max(maxAttempts, r.attemptsMax)
			if n := len(r.missing); n > 0 {
				var why []string
				for k, v := range r.why {
					why = append(why, fmt.Sprintf("%d %s", v, k))
				}
				sort.Strings(why)
				p.addN("webhook missing", n, fmt.Sprintf("%s/%s: %d of %d deliveries missing (%s), first: %s",
					d.name, ws.name, n, r.expected, strings.Join(why, ", "), strings.Join(r.missing[:min(3, n)], "; ")))
			}
			if n := len(r.outOfOrder); n > 0 {
				p.addN("webhook out of order", n, fmt.Sprintf("%s/%s: %d of %d deliveries arrived after a later event's, first: %s",
					d.name, ws.name, n, r.received, strings.Join(r.outOfOrder[:min(3, n)], "; ")))
			}
			for _, m := range r.unknown {
				p.add("webhook foreign", fmt.Sprintf("%s/%s: %s", d.name, ws.name, m))
			}
			rec.mu.Lock()
			for _, m := range ws.hook.bad {
				check := "webhook contract"
				if strings.Contains(m, "reached the webhook of") {
					check = "webhook foreign"
				}
				p.add(check, fmt.Sprintf("%s/%s: %s", d.name, ws.name, m))
			}
			rec.mu.Unlock()
		}
	}
	if !settled {
		t.Logf("webhooks did not catch up; the missing deliveries are listed below")
	}
	rec.mu.Lock()
	for _, s := range rec.stray {
		p.add("webhook contract", "a request to an unknown endpoint "+s)
	}
	rec.mu.Unlock()
	expected503, noRetryAfter := 0, 0
	var other5xx, late503 []serverError
	for _, e := range log.serverErrs {
		switch {
		case e.status != http.StatusServiceUnavailable:
			other5xx = append(other5xx, e)
		case !inWindow(e.at, f.windows):
			late503 = append(late503, e)
		default:
			expected503++
		}
		if e.status == http.StatusServiceUnavailable && e.retryAfter == "" {
			noRetryAfter++
		}
	}
	// During an outage, answers are grouped; outside, each is listed with the line the
	// instance logged about it.
	logs := map[string]string{}
	for _, in := range all {
		logs[in.name] = in.logPath
	}
	var outageOther []serverError
	for _, e := range other5xx {
		if inWindow(e.at, f.windows) {
			outageOther = append(outageOther, e)
		} else {
			p.add("5xx other than 503", describeServerError(e, logs[e.instance]))
		}
	}
	for _, g := range groupServerErrors(outageOther) {
		p.addN("5xx other than 503", g.n, "during an outage: "+g.text)
	}
	for _, e := range late503 {
		p.add("503 outside an outage", describeServerError(e, logs[e.instance]))
	}
	if noRetryAfter > 0 {
		p.addN("503 without Retry-After", noRetryAfter, fmt.Sprintf("%d answers", noRetryAfter))
	}
	for _, u := range log.unexpected {
		p.add("unexpected answer", u)
	}
	for _, in := range all {
		in.mu.Lock()
		for _, c := range in.crashes {
			p.add("instance crashed", c)
		}
		in.mu.Unlock()
	}

	// Every check above passes when there is nothing to check: each deployment's load
	// must have had writes acknowledged and webhook deliveries received, and the kills
	// must have hit a leader.
	for _, d := range []*clusterDeployment{one, two} {
		var acked writeCounts
		for _, w := range d.writers {
			acked.add(w.counts)
		}
		delivered := 0
		for _, ws := range d.spaces {
			delivered += reports[ws.hook].received
		}
		if acked.acknowledged() == 0 || delivered == 0 {
			p.add("nothing checked", fmt.Sprintf("deployment %s: %d writes acknowledged, %d webhook deliveries received", d.name, acked.acknowledged(), delivered))
		}
	}
	leaderKills := []string{}
	killedLeaders := 0
	for _, role := range []string{"relay", "dispatcher", "scheduler"} {
		leaderKills = append(leaderKills, fmt.Sprintf("%s leader %d", role, f.leaderKills[role]))
		killedLeaders += f.leaderKills[role]
	}
	if cycles > 0 && killedLeaders == 0 {
		p.add("nothing checked", fmt.Sprintf("none of the %d SIGKILLs hit the relay's, the dispatcher's or the scheduler's leader", f.kills))
	}
	failoverTimes := f.failoverTimes(log, p)
	lost := p.count("lost")
	doubled := p.count("doubled")
	outOfOrder := p.count("webhook out of order")
	t.Logf("cluster summary: writes acknowledged %d (creates %d, updates %d, deletes %d; %d submitted twice at once; %d answers replayed), without a definitive answer %d (creates: %d committed, %d not), lost %d, doubled %d; "+
		"webhook deliveries received %d (repeats %d, most attempts %d), missing %d, out of order %d, foreign %d; "+
		"5xx other than 503: %d (503 in outages and failovers %d, outside %d); kills %d (%s), PostgreSQL outages %d, failovers %d%s; connection errors %d; load %s, whole test %s",
		total.acknowledged(), total.creates, total.updates, total.deletes, total.doubleSubmits, total.replayed, total.noAnswer, unknownCommitted, unknownAbsent, lost, doubled,
		received, repeats, maxAttempts, p.count("webhook missing"), outOfOrder, p.count("webhook foreign"),
		len(other5xx), expected503, len(late503), f.kills, strings.Join(leaderKills, ", "), f.outages, len(f.failovers), failoverTimes, log.connErrors,
		loadTime.Round(time.Second), time.Since(began).Round(time.Second))
	for _, check := range p.order {
		t.Errorf("%s: %d%s", check, p.counts[check], exampleLines(p.items[check], 8))
	}
}

// letLoadRun lets the load run for d; it waits for nothing.
func letLoadRun(d time.Duration) { time.Sleep(d) }

// setupDeployment creates the owner, the workspaces, two wallets in each and a webhook
// subscribed to every event, through the deployment's first instance.
func setupDeployment(d *clusterDeployment, names []string, rec *hookReceiver, hookBase string) error {
	if _, err := d.api.mustSend(http.MethodGet, "/api/me", "", "", "", http.StatusOK); err != nil {
		return err
	}
	for i, name := range names {
		out, err := d.api.mustSend(http.MethodPost, "/api/workspaces", "", "setup-ws-"+name, fmt.Sprintf(`{"name":%q,"currency":"MXN"}`, name), http.StatusOK)
		if err != nil {
			return err
		}
		wsRec, err := decodeRecord(out["workspace"])
		if err != nil {
			return err
		}
		ws := &workspaceModel{deployment: d.name, name: name, id: wsRec.ID, opening: map[string]decimal.Decimal{}}
		for j, opening := range []string{"1000.5", "250"} {
			out, err := d.api.mustSend(http.MethodPost, "/api/wallets", ws.id, fmt.Sprintf("setup-wallet-%s-%d", name, j),
				fmt.Sprintf(`{"name":"Wallet %d","balance":%s,"isDefault":%t}`, j, opening, j == 0), http.StatusOK)
			if err != nil {
				return err
			}
			w, err := decodeRecord(out["wallet"])
			if err != nil {
				return err
			}
			ws.wallets = append(ws.wallets, w.ID)
			ws.opening[w.ID] = decimal.RequireFromString(opening)
		}
		endpoint := fmt.Sprintf("%s-%d", d.name, i)
		ws.hook = rec.register(endpoint, d.name, ws.id)
		out, err = d.api.mustSend(http.MethodPost, "/api/webhooks/outbound", ws.id, "setup-hook-"+name,
			fmt.Sprintf(`{"name":"cluster test","url":%q,"events":["*"]}`, hookBase+"/hook/"+endpoint), http.StatusOK)
		if err != nil {
			return err
		}
		h, err := decodeRecord(out["webhook"])
		if err != nil {
			return err
		}
		var secret string
		_ = json.Unmarshal(out["secret"], &secret)
		rec.setSecret(ws.hook, h.ID, secret)
		d.spaces = append(d.spaces, ws)
	}
	return nil
}

// faultPlan kills and restarts instances of the first deployment, stops PostgreSQL, and
// kills its primary.
type faultPlan struct {
	t           *testing.T
	pg          clusterDatabase
	formation   *pgfailover.Formation // nil when the database is one server
	one         *clusterDeployment
	all         []*serveProcess
	p           *checkFailures
	kills       int
	leaderKills map[string]int
	outages     int
	failovers   []failover
	windows     []outageWindow // the outages' and failovers', when a 503 is expected
}

// spread places n events among the gaps around cycles cycles, evenly: after k cycles,
// spread(n, cycles)[k] of them.
func spread(n, cycles int) map[int]int {
	at := map[int]int{}
	for j := range n {
		at[(j+1)*cycles/(n+1)]++
	}
	return at
}

// killCycle SIGKILLs one instance of the first deployment and restarts it. The victim
// is the leader of relay, dispatcher or scheduler in turn if it is among the instances
// killed least, else the first of those: the first cycle kills the relay's leader, and
// every instance goes down once before any goes down twice.
func (f *faultPlan) killCycle(k int) {
	roles := []string{"relay", "dispatcher", "scheduler"}
	role := roles[k%len(roles)]
	held, err := leaderHolders(f.pg.url(f.one.database, "cluster-test"))
	if err != nil {
		f.t.Logf("cycle %d: leaders unknown: %v", k, err)
	}
	least := f.one.instances[0]
	for _, in := range f.one.instances {
		if in.kills < least.kills {
			least = in
		}
	}
	victim := least
	for _, in := range f.one.instances {
		if held[role] == "finledger-"+in.name && in.kills == least.kills {
			victim = in
		}
	}
	var led []string
	for _, r := range roles {
		if held[r] == "finledger-"+victim.name {
			led = append(led, r)
			f.leaderKills[r]++
		}
	}
	f.t.Logf("cycle %d: SIGKILL %s at %s (leads: %s; leaders %v)", k, victim.name, time.Now().Format("15:04:05.000"), strings.Join(led, ", "), held)
	victim.kill()
	f.kills++
	letLoadRun(300*time.Millisecond + rand.N(1200*time.Millisecond))
	if err := victim.start(); err != nil {
		f.t.Fatal(err)
	}
	if err := victim.waitReady(serveStartTimeout); err != nil {
		f.p.add("restart", err.Error())
		f.t.Fatalf("cycle %d: %v", k, err)
	}
	letLoadRun(time.Second + rand.N(time.Second))
}

// outage stops PostgreSQL for two seconds and waits until every instance is ready again.
func (f *faultPlan) outage() {
	w := outageWindow{from: time.Now()}
	f.outages++
	f.t.Logf("PostgreSQL outage %d: stopping at %s", f.outages, w.from.Format("15:04:05.000"))
	if err := f.pg.outage(2 * time.Second); err != nil {
		f.t.Fatalf("PostgreSQL outage: %v", err)
	}
	back := time.Now()
	for _, in := range f.all {
		if err := in.waitReady(time.Minute); err != nil {
			f.p.add("ready after outage", err.Error())
		}
	}
	w.to = time.Now().Add(outageGrace)
	f.windows = append(f.windows, w)
	f.t.Logf("PostgreSQL outage %d: down %s, every instance ready %s after it was back",
		f.outages, back.Sub(w.from).Round(time.Millisecond), time.Since(back).Round(time.Millisecond))
	letLoadRun(time.Second)
}

// failover is one SIGKILL of the database's primary: when it died, when the standby was
// promoted, and when the old primary followed the new one again.
type failover struct{ killed, promoted, rejoined time.Time }

// failover SIGKILLs the database's primary, waits for the standby's promotion and
// brings the old primary back as the new standby; answers of 503 are expected from the
// kill until the instances are ready on the pair again, and a little after.
func (f *faultPlan) failover() {
	fo := failover{killed: time.Now()}
	old := f.formation.KillPrimary()
	f.t.Logf("failover %d: SIGKILL of node %d, the primary, at %s", len(f.failovers)+1, old+1, fo.killed.Format("15:04:05.000"))
	f.formation.WaitPromoted(old)
	fo.promoted = time.Now()
	f.formation.Rejoin(old)
	fo.rejoined = time.Now()
	for _, in := range f.all {
		if err := in.waitReady(time.Minute); err != nil {
			f.p.add("ready after failover", err.Error())
		}
	}
	f.windows = append(f.windows, outageWindow{from: fo.killed, to: time.Now().Add(outageGrace)})
	f.failovers = append(f.failovers, fo)
	f.t.Logf("failover %d: node %d promoted %s after the kill, node %d following it %s after that",
		len(f.failovers), 2-old, fo.promoted.Sub(fo.killed).Round(time.Millisecond), old+1, fo.rejoined.Sub(fo.promoted).Round(time.Millisecond))
	letLoadRun(time.Second)
}

// failoverTimes measures each failover as the writers saw it, from the first 503 after
// the kill to the answer of the first write sent after that 503 and answered 2xx, and
// returns their p50, p99 and most, to be told. A failover after which no write
// succeeded is a failure.
func (f *faultPlan) failoverTimes(log *answerLog, p *checkFailures) string {
	if len(f.failovers) == 0 {
		return ""
	}
	log.mu.Lock()
	defer log.mu.Unlock()
	var times, promotions []time.Duration
	for i, fo := range f.failovers {
		from, seen := fo.killed, false
		for _, e := range log.serverErrs {
			inside := !e.at.Before(fo.killed) && e.at.Before(fo.rejoined.Add(outageGrace))
			if e.status == http.StatusServiceUnavailable && inside && (!seen || e.at.Before(from)) {
				from, seen = e.at, true
			}
		}
		var back time.Time
		for _, w := range log.writes {
			if !w.sent.Before(from) && (back.IsZero() || w.answered.Before(back)) {
				back = w.answered
			}
		}
		if back.IsZero() {
			p.add("no write after a failover", fmt.Sprintf("failover %d at %s", i+1, fo.killed.Format("15:04:05.000")))
			continue
		}
		times = append(times, back.Sub(from))
		promotions = append(promotions, fo.promoted.Sub(fo.killed))
		f.t.Logf("failover %d: writes answered 503 from %s to %s (%s)", i+1, from.Format("15:04:05.000"), back.Format("15:04:05.000"), back.Sub(from).Round(time.Millisecond))
	}
	round := func(d time.Duration) time.Duration { return d.Round(10 * time.Millisecond) }
	return fmt.Sprintf(" (time from the first 503 to the first write answered: p50 %s, p99 %s, most %s; kill to promotion: p50 %s, p99 %s)",
		round(latency.Percentile(times, 50)), round(latency.Percentile(times, 99)), round(slices.Max(append(times, 0))),
		round(latency.Percentile(promotions, 50)), round(latency.Percentile(promotions, 99)))
}

// settleWebhooks waits until every webhook has every delivery its workspace's events
// call for, or until nothing has arrived for settleQuiet, and returns the last reports.
func settleWebhooks(t *testing.T, ctx context.Context, pg clusterDatabase, rec *hookReceiver, deps ...*clusterDeployment) (map[*hookLog]hookReport, bool) {
	t.Helper()
	pools := map[*clusterDeployment]*pgxpool.Pool{}
	for _, d := range deps {
		pool, err := database.Open(ctx, pg.url(d.database, "cluster-test"), 2)
		if err != nil {
			t.Fatal(err)
		}
		defer pool.Close()
		pools[d] = pool
	}
	started := time.Now()
	for {
		reports := map[*hookLog]hookReport{}
		missing := 0
		for _, d := range deps {
			for _, ws := range d.spaces {
				r, err := checkHook(ctx, pools[d], rec, ws.hook)
				if err != nil {
					t.Fatalf("webhook of %s/%s: %v", d.name, ws.name, err)
				}
				reports[ws.hook] = r
				missing += len(r.missing)
			}
		}
		if missing == 0 {
			t.Logf("webhooks caught up %s after the load", time.Since(started).Round(time.Millisecond))
			return reports, true
		}
		if last := rec.lastArrival(); time.Since(started) > settleQuiet && time.Since(last) > settleQuiet || ctx.Err() != nil {
			t.Logf("webhooks: %d deliveries still missing; nothing arrived for %s", missing, settleQuiet)
			return reports, false
		}
		time.Sleep(250 * time.Millisecond)
	}
}
