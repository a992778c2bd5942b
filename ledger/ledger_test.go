package ledger

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/eventstore"
	"github.com/finledger/finledger/internal/testkit/testdb"
)

// TestExecuteReturnsWhatTheCommandDid: the result names the events appended with their
// versions and the stream's version, carries the answer read after the write, and a
// request repeated with its Idempotency-Key gets the same result back, replayed, with
// nothing written again.
func TestExecuteReturnsWhatTheCommandDid(t *testing.T) {
	pool := testdb.Pool(t)
	ctx := context.Background()
	ledger := NewLedger(pool, noProjection, time.Now, 10)
	workspaceID := fixtureID(900)
	opened, err := ledger.encode([]domain.Event{&domain.WorkspaceCreated{
		WorkspaceID: workspaceID, Kind: domain.WorkspacePersonal, Name: "Personal", Currency: "MXN", OwnerID: fixtureID(901)}},
		Metadata{ActorType: ActorSystem})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := eventstore.Append(ctx, pool, domain.StreamID(workspaceID), eventstore.NoStream, opened, time.Now()); err != nil {
		t.Fatal(err)
	}

	wallet := domain.CreateWallet{WalletID: fixtureID(902), WalletFields: domain.WalletFields{Name: "Cash", Type: "cash", Currency: "MXN",
		CardColor: "#111827", InitialBalance: decimal.NewFromInt(10)}}
	// The answer reads the stream's head in the write's round trip, after the append.
	head := AnswerFunc(func(b *pgx.Batch, appended []Appended) Answering {
		var version int64
		b.Queue(`SELECT max(version) FROM events WHERE stream_id = $1`, domain.StreamID(workspaceID)).
			QueryRow(func(row pgx.Row) error { return row.Scan(&version) })
		return func(context.Context, Conn) (any, error) {
			return map[string]any{"head": version, "appended": len(appended)}, nil
		}
	})
	call := Call{WorkspaceID: workspaceID, Metadata: Metadata{ActorType: ActorSystem}, Decide: wallet.Decide, Answer: head,
		Idempotency: &Idempotency{Credential: "test", Key: "wallet-1", RequestHash: []byte("create the wallet")}}
	first, err := ledger.Execute(ctx, call)
	if err != nil {
		t.Fatal(err)
	}
	if first.Replayed || first.Version != 2 || len(first.Events) != 1 ||
		first.Events[0].Type != domain.TypeWalletCreated || first.Events[0].Version != 2 {
		t.Fatalf("first result: %+v, want one wallet.created at version 2", first)
	}
	if created, ok := first.Events[0].Data.(*domain.WalletCreated); !ok || created.WalletID != wallet.WalletID {
		t.Fatalf("the appended event carries %#v, want the decided *WalletCreated", first.Events[0].Data)
	}
	if string(first.Answer) != `{"appended":1,"head":2}` {
		t.Fatalf("answer %s, want the head read after the append", first.Answer)
	}

	// A new instance, with nothing cached, gets the recorded result back.
	again, err := NewLedger(pool, noProjection, time.Now, 10).Execute(ctx, call)
	if err != nil {
		t.Fatal(err)
	}
	sameEvents := slices.EqualFunc(again.Events, first.Events, func(a, b Appended) bool {
		return a.Type == b.Type && a.Version == b.Version && a.Data == nil
	})
	if !again.Replayed || again.Version != first.Version || !sameEvents || !json.Valid(again.Answer) ||
		string(again.Answer) != string(first.Answer) {
		t.Fatalf("replayed result: %+v, want %+v replayed, with the events' types and versions", again, first)
	}
	if version, err := eventstore.Version(ctx, pool, domain.StreamID(workspaceID), false); err != nil || version != 2 {
		t.Fatalf("stream at version %d (%v) after the replay, want 2: nothing written again", version, err)
	}

	// The same key with another request is refused.
	other := call
	other.Idempotency = &Idempotency{Credential: "test", Key: "wallet-1", RequestHash: []byte("something else")}
	if _, err := ledger.Execute(ctx, other); err != ErrIdempotencyKeyReused {
		t.Fatalf("the key reused with another request: %v, want ErrIdempotencyKeyReused", err)
	}

	// A command that changes nothing appends nothing and says so.
	nothing, err := ledger.Execute(ctx, Call{WorkspaceID: workspaceID, Metadata: Metadata{ActorType: ActorSystem},
		Decide: func(*domain.Workspace) ([]domain.Event, error) { return nil, nil }})
	if err != nil || len(nothing.Events) != 0 || nothing.Version != 2 || nothing.Answer != nil {
		t.Fatalf("a command deciding nothing: %+v (%v), want no events at version 2 and no answer", nothing, err)
	}
}

// TestRegisterUserOnceAcrossInstances: the first requests of a new person, racing on two
// instances, register one user with one personal workspace, through the one write
// path; a later registration of the same person appends nothing.
func TestRegisterUserOnceAcrossInstances(t *testing.T) {
	pool := testdb.Pool(t)
	ctx := context.Background()
	instances := []*Ledger{NewLedger(pool, noProjection, time.Now, 10), NewLedger(pool, noProjection, time.Now, 10)}
	identity := domain.Identity{Subject: "https://id.example|ana", Email: "ana@example.com", Name: "Ana"}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Go(func() {
			userID, err := instances[i%2].RegisterUser(ctx, identity)
			if err == nil && userID != domain.UserIDFor(identity.Subject) {
				err = fmt.Errorf("registered as %s, want %s", userID, domain.UserIDFor(identity.Subject))
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if _, err := instances[0].RegisterUser(ctx, identity); err != nil {
		t.Fatal(err)
	}
	userID := domain.UserIDFor(identity.Subject)
	for stream, want := range map[string]string{domain.UserStreamID(userID): domain.TypeUserRegistered, domain.StreamID(domain.PersonalWorkspaceID(userID)): domain.TypeWorkspaceCreated} {
		events, err := eventstore.ReadStream(ctx, pool, stream, 0, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(events) != 1 || events[0].Type != want {
			t.Fatalf("stream %s holds %d events, want one %s", stream, len(events), want)
		}
	}

	// The identity provider reports a new email: recorded on the user's stream, once,
	// though two requests bring the news.
	for _, l := range instances {
		if err := l.UpdateIdentity(ctx, userID, "ana@example.org", "Ana"); err != nil {
			t.Fatal(err)
		}
	}
	if v, err := eventstore.Version(ctx, pool, domain.UserStreamID(userID), false); err != nil || v != 2 {
		t.Fatalf("user stream at %d (%v) after the identity changed, want 2", v, err)
	}
}

// TestKeyedCommandsOnCachedStates: a keyed command on a cached state takes the two
// round trips of keyedPipelined; a repeat of its key, on the same instance or racing on
// another, replays its result and appends nothing, and a domain error records nothing.
func TestKeyedCommandsOnCachedStates(t *testing.T) {
	pool := testdb.Pool(t)
	ctx := context.Background()
	workspaceID := fixtureID(950)
	instances := []*Ledger{NewLedger(pool, noProjection, time.Now, 10), NewLedger(pool, noProjection, time.Now, 10)}
	meta := Metadata{ActorType: ActorSystem}
	opened := &domain.WorkspaceCreated{WorkspaceID: workspaceID, Kind: domain.WorkspacePersonal, Name: "Personal", Currency: "MXN", OwnerID: fixtureID(951)}
	if _, err := instances[0].Execute(ctx, Call{WorkspaceID: workspaceID, Metadata: meta, OpenWorkspace: opened}); err != nil {
		t.Fatal(err)
	}
	version := func() int64 {
		v, err := eventstore.Version(ctx, pool, domain.StreamID(workspaceID), false)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	answer := AnswerFunc(func(_ *pgx.Batch, appended []Appended) Answering {
		return func(ctx context.Context, conn Conn) (any, error) {
			var expenses int
			err := conn.QueryRow(ctx, `SELECT count(*) FROM events WHERE stream_id = $1 AND type = $2`,
				domain.StreamID(workspaceID), domain.TypeTransactionCreated).Scan(&expenses)
			return map[string]any{"expenses": expenses, "appended": len(appended)}, err
		}
	})
	cash := domain.CreateWallet{WalletID: fixtureID(952), WalletFields: domain.WalletFields{Name: "Cash", Type: "cash", Currency: "MXN",
		CardColor: "#111827", InitialBalance: decimal.NewFromInt(500), IsDefault: true}}
	// Each request is decided anew, with an id of its own, as over HTTP: a repeat of a
	// recorded key appends in its transaction, and the record's insert undoes it.
	expense := func(n int) Call {
		create := domain.CreateTransaction{TransactionID: uuid.New(), Type: domain.TxExpense, Amount: decimal.NewFromInt(int64(n + 1)),
			Date: domain.MustParseDate("2026-03-01"), Today: issued}
		return Call{WorkspaceID: workspaceID, Metadata: meta, Decide: create.Decide, Answer: answer,
			Idempotency: &Idempotency{Credential: "test", Key: fmt.Sprintf("expense-%d", n), RequestHash: []byte(create.Amount.String())}}
	}
	// Both instances cache the workspace.
	if _, err := instances[0].Execute(ctx, Call{WorkspaceID: workspaceID, Metadata: meta, Decide: cash.Decide}); err != nil {
		t.Fatal(err)
	}
	for _, l := range instances {
		if _, err := l.Execute(ctx, expense(0)); err != nil {
			t.Fatal(err)
		}
	}
	before := version()
	first, err := instances[0].Execute(ctx, expense(1))
	if err != nil {
		t.Fatal(err)
	}
	if first.Replayed || len(first.Events) != 1 || first.Version != before+1 || string(first.Answer) != `{"appended":1,"expenses":2}` {
		t.Fatalf("keyed command on a cached state: %+v (%s)", first, first.Answer)
	}
	again, err := instances[0].Execute(ctx, expense(1))
	if err != nil || !again.Replayed || string(again.Answer) != string(first.Answer) || version() != before+1 {
		t.Fatalf("its repeat: %+v (%v), stream at %d", again, err, version())
	}

	// Racing on two instances, each with the workspace cached: one effect, one answer.
	var wg sync.WaitGroup
	results := make(chan Result, 8)
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Go(func() {
			res, err := instances[i%2].Execute(ctx, expense(2))
			if err != nil {
				errs <- err
				return
			}
			results <- res
		})
	}
	wg.Wait()
	close(results)
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	answers := map[string]int{}
	fresh := 0
	for res := range results {
		answers[string(res.Answer)]++
		if !res.Replayed {
			fresh++
		}
	}
	if fresh != 1 || len(answers) != 1 || version() != before+2 {
		t.Fatalf("racing repeats: %d not replayed, answers %v, stream at %d (want %d)", fresh, answers, version(), before+2)
	}

	// A domain error is answered, and leaves no record: the key may be used again.
	clash := expense(3)
	clash.Decide = domain.CreateTransaction{TransactionID: uuid.New(), Type: domain.TxExpense, Amount: decimal.NewFromInt(1),
		CategoryID: idp(fixtureID(999)), Date: domain.MustParseDate("2026-03-01"), Today: issued}.Decide
	if _, err := instances[1].Execute(ctx, clash); code(err) != "CATEGORY_NOT_FOUND" {
		t.Fatalf("an expense in no category: %v, want CATEGORY_NOT_FOUND", err)
	}
	var records int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM idempotency_keys WHERE key = 'expense-3'`).Scan(&records); err != nil || records != 0 {
		t.Fatalf("%d records (%v) after a domain error, want none", records, err)
	}
	if _, err := instances[1].Execute(ctx, expense(3)); err != nil {
		t.Fatal(err)
	}
	// No connection was left inside a transaction.
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%'`).Scan(&records); err != nil || records != 0 {
		t.Fatalf("%d connections idle in a transaction (%v)", records, err)
	}
}
