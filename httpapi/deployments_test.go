package httpapi_test

import (
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/finledger/finledger/internal/testkit/apitest"
	"github.com/finledger/finledger/internal/testkit/containers"
)

// Two deployments, each with its own database, on one NATS server, as staging beside
// production: each receives every delivery of its own workspaces, in order, and none of
// the other's.
func TestDeploymentsShareNATSWithoutSharingEvents(t *testing.T) {
	srv := containers.NATSFor(t)
	type deployment struct {
		alice *apitest.Client
		rc    *receiver
		want  []string
	}
	var deployments []*deployment
	for range 2 {
		env, ev := apitest.StartEventsOn(t, srv, "", nil)
		ev.Run()
		d := &deployment{alice: env.As("alice"), rc: newReceiver(t)}
		cashWallet(t, d.alice)
		d.rc.subscribe(d.alice, "transaction.created")
		deployments = append(deployments, d)
	}
	for i := range 30 {
		for _, d := range deployments {
			tx := d.alice.Post("/api/transactions", map[string]any{"type": "expense", "amount": i + 1, "concept": fmt.Sprint("lunch ", i)}).
				Expect(t, http.StatusCreated).Object("transaction")
			d.want = append(d.want, tx["id"].(string))
		}
	}
	for i, d := range deployments {
		waitFor(t, fmt.Sprint("deployment ", i, "'s deliveries"), 20*time.Second, func() bool {
			return len(firstOf(t, d.rc.receipts(), "transaction.created")) >= len(d.want)
		})
	}
	time.Sleep(300 * time.Millisecond) // time for a stray delivery to arrive
	for i, d := range deployments {
		if got := transactionIDs(firstOf(t, d.rc.receipts(), "transaction.created")); !slices.Equal(got, d.want) {
			t.Errorf("deployment %d received %v, want its own %v", i, got, d.want)
		}
	}
}
