package commands

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

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
	opened, err := ledger.encode([]NewEvent{{TypeWorkspaceCreated, &WorkspaceCreated{
		WorkspaceID: workspaceID, Kind: WorkspacePersonal, Name: "Personal", Currency: "MXN", OwnerID: fixtureID(901)}}},
		Metadata{ActorType: ActorSystem})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := eventstore.Append(ctx, pool, StreamID(workspaceID), eventstore.NoStream, opened, time.Now()); err != nil {
		t.Fatal(err)
	}

	wallet := CreateWallet{WalletID: fixtureID(902), WalletFields: WalletFields{Name: "Cash", Type: "cash", Currency: "MXN",
		CardColor: "#111827", InitialBalance: decimal.NewFromInt(10)}}
	// The answer reads the stream's head in the write's round trip, after the append.
	head := AnswerFunc(func(b *pgx.Batch, appended []Appended) Answering {
		var version int64
		b.Queue(`SELECT max(version) FROM events WHERE stream_id = $1`, StreamID(workspaceID)).
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
		first.Events[0].Type != TypeWalletCreated || first.Events[0].Version != 2 {
		t.Fatalf("first result: %+v, want one wallet.created at version 2", first)
	}
	if created, ok := first.Events[0].Data.(*WalletCreated); !ok || created.WalletID != wallet.WalletID {
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
	if version, err := eventstore.Version(ctx, pool, StreamID(workspaceID), false); err != nil || version != 2 {
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
		Decide: func(*Workspace) ([]NewEvent, error) { return nil, nil }})
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
	identity := Identity{Subject: "https://id.example|ana", Email: "ana@example.com", Name: "Ana"}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Go(func() {
			userID, err := instances[i%2].RegisterUser(ctx, identity)
			if err == nil && userID != UserIDFor(identity.Subject) {
				err = fmt.Errorf("registered as %s, want %s", userID, UserIDFor(identity.Subject))
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
	userID := UserIDFor(identity.Subject)
	for stream, want := range map[string]string{UserStreamID(userID): TypeUserRegistered, StreamID(PersonalWorkspaceID(userID)): TypeWorkspaceCreated} {
		events, err := eventstore.ReadStream(ctx, pool, stream, 0, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(events) != 1 || events[0].Type != want {
			t.Fatalf("stream %s holds %d events, want one %s", stream, len(events), want)
		}
	}

	// The identity provider reports a new email: recorded on the user's stream.
	if err := instances[1].UpdateIdentity(ctx, userID, "ana@example.org", "Ana"); err != nil {
		t.Fatal(err)
	}
	if v, err := eventstore.Version(ctx, pool, UserStreamID(userID), false); err != nil || v != 2 {
		t.Fatalf("user stream at %d (%v) after the identity changed, want 2", v, err)
	}
}
