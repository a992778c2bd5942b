package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/finledger/finledger/httpapi/session"
	"github.com/finledger/finledger/internal/database"
)

// topology is deploy/'s topology as a drill sees it, whether deploy/local/run.sh runs it
// from binaries or Docker Compose from images: three instances, three clustered NATS
// servers with JetStream, and a database with a synchronous standby.
type topology struct {
	// deployment is FINLEDGER_DEPLOYMENT, which names the events stream.
	deployment string
	// bases are where requests go (each instance, or the load balancer in front of
	// them) and names what the answers call each.
	bases, names []string
	// proxied says bases are a load balancer's, whose own answer to a request whose
	// instance died under it is a 502 without a body: the client sends it again with
	// the same Idempotency-Key, as after a connection error.
	proxied bool
	db      clusterDatabase
	// natsURLs reach the three NATS servers from the test.
	natsURLs string
	// rec receives the webhooks at hookBase, its address as the instances reach it.
	rec      *hookReceiver
	hookBase string
	// stopNATS stops the NATS server the stream's information calls server.
	stopNATS func(t *testing.T, server string)
	// killInstance kills finledger-n, n from 1 to 3.
	killInstance func(t *testing.T, n string)
	// serving lists what is wrong with the instances left after finledger-killed died.
	serving func(killed string) []string
	// verify runs `finledger verify` on the database.
	verify func() (string, error)
}

// drill writes through the topology on two workspaces, stops the NATS server leading
// the events stream and kills the instance leading the relay while the writes go on,
// and checks that nothing is lost: every acknowledged write stored once, balances as
// the writes make them (in the database and read through the survivors), `finledger
// verify` passing, each webhook given every event in stream order, no 5xx, and the
// survivors serving.
func (tp topology) drill(t *testing.T, began time.Time) {
	t.Helper()
	token, err := session.MintHS256(clusterSecret, session.Claims{Subject: "owner-" + tp.deployment, Email: "owner-" + tp.deployment + "@example.com"}, time.Now(), time.Hour, "")
	if err != nil {
		t.Fatal(err)
	}
	transport := &http.Transport{MaxIdleConnsPerHost: 16, IdleConnTimeout: 30 * time.Second}
	t.Cleanup(transport.CloseIdleConnections)
	log := &answerLog{}
	d := &clusterDeployment{name: tp.deployment, database: "finledger"}
	d.api = &retryingClient{token: token, http: &http.Client{Transport: transport}, log: log, bases: tp.bases, names: tp.names}
	if err := setupDeployment(d, []string{"shared", "other"}, tp.rec, tp.hookBase); err != nil {
		t.Fatal(err)
	}
	stream := "FINLEDGER_EVENTS_" + tp.deployment
	leader, replicas, err := streamLeader(tp.natsURLs, stream)
	if err != nil {
		t.Fatalf("the events stream: %v", err)
	}
	if replicas != 3 {
		t.Fatalf("the events stream has %d replicas, want 3 (FINLEDGER_NATS_REPLICAS)", replicas)
	}

	// Writers on both workspaces, each request sent first to an address of its own
	// choice and retried on the next one with the same Idempotency-Key.
	for i := range 4 {
		d.writers = append(d.writers, &loadWriter{name: fmt.Sprintf("w%d", i), api: d.api, ws: d.spaces[i%2],
			rng: rand.New(rand.NewPCG(uint64(i), uint64(began.UnixNano())))})
	}
	stopLoad := runLoad(t, d.writers)
	letLoadRun(3 * time.Second)

	// The NATS server leading the events stream stops; the relay publishes through the
	// others once the two left have elected a leader.
	t.Logf("stopping NATS server %s, the stream's leader", leader)
	tp.stopNATS(t, leader)
	letLoadRun(3 * time.Second)

	// The instance leading the relay is killed; another takes the lead.
	held, err := leaderHolders(tp.db.url(d.database, "drill"))
	if err != nil {
		t.Fatal(err)
	}
	victim := strings.TrimPrefix(held["relay"], "finledger-")
	if victim == "" {
		victim = "2"
	}
	t.Logf("killing finledger-%s (leaders: %v)", victim, held)
	tp.killInstance(t, victim)
	letLoadRun(4 * time.Second)
	stopLoad()

	// The checks, through the survivors.
	survivors := *d.api
	survivors.bases, survivors.names = nil, nil
	for i, name := range d.api.names {
		if name != "finledger-"+victim {
			survivors.bases = append(survivors.bases, d.api.bases[i])
			survivors.names = append(survivors.names, name)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	reports, _ := settleWebhooks(t, ctx, tp.db, tp.rec, d)
	p := &checkFailures{}
	pool, err := database.Open(ctx, tp.db.url(d.database, "drill"), 2)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = checkWrites(ctx, pool, d.spaces, p)
	pool.Close()
	if err != nil {
		t.Fatal(err)
	}
	checkBalancesByAPI(&survivors, d.spaces, p)
	if out, err := tp.verify(); err != nil {
		p.add("verify", fmt.Sprintf("%v\n%s", err, out))
	}
	var acked writeCounts
	for _, w := range d.writers {
		acked.add(w.counts)
	}
	received := 0
	for _, ws := range d.spaces {
		r := reports[ws.hook]
		received += r.received
		if n := len(r.missing); n > 0 {
			p.addN("webhook missing", n, fmt.Sprintf("%s: %d of %d deliveries missing, first: %s", ws.name, n, r.expected, strings.Join(r.missing[:min(3, n)], "; ")))
		}
		if n := len(r.outOfOrder); n > 0 {
			p.addN("webhook out of order", n, fmt.Sprintf("%s: first: %s", ws.name, strings.Join(r.outOfOrder[:min(3, n)], "; ")))
		}
		for _, m := range r.unknown {
			p.add("webhook foreign", ws.name+": "+m)
		}
		tp.rec.mu.Lock()
		for _, m := range ws.hook.bad {
			p.add("webhook contract", ws.name+": "+m)
		}
		tp.rec.mu.Unlock()
	}
	proxyRetries := 0
	for _, e := range log.serverErrs {
		if tp.proxied && e.status == http.StatusBadGateway && e.body == "" {
			proxyRetries++
			continue
		}
		p.add("5xx", fmt.Sprintf("%s %d %s %s on %s: %s", e.at.Format("15:04:05.000"), e.status, e.method, e.path, e.instance, e.body))
	}
	for _, u := range log.unexpected {
		p.add("unexpected answer", u)
	}
	if acked.acknowledged() == 0 || received == 0 {
		p.add("nothing checked", fmt.Sprintf("%d writes acknowledged, %d webhook deliveries received", acked.acknowledged(), received))
	}
	for _, problem := range tp.serving("finledger-" + victim) {
		p.add("survivor down", problem)
	}
	t.Logf("%s: writes acknowledged %d (creates %d, updates %d, deletes %d), without a definitive answer %d; lost %d, doubled %d; webhook deliveries %d, missing %d; connection errors %d, the load balancer's 502s %d; whole test %s",
		tp.deployment, acked.acknowledged(), acked.creates, acked.updates, acked.deletes, acked.noAnswer, p.count("lost"), p.count("doubled"),
		received, p.count("webhook missing"), log.connErrors, proxyRetries, time.Since(began).Round(time.Second))
	for _, check := range p.order {
		t.Errorf("%s: %d%s", check, p.counts[check], exampleLines(p.items[check], 8))
	}
}

// readyAt lists the addresses among bases whose GET /readyz is not 200.
func readyAt(bases ...string) []string {
	var problems []string
	for _, base := range bases {
		res, err := http.Get(base + "/readyz")
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", base, err))
			continue
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			problems = append(problems, base+": /readyz answered "+strconv.Itoa(res.StatusCode))
		}
	}
	return problems
}
