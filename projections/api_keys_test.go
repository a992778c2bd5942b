package projections

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/internal/database"
	"github.com/finledger/finledger/internal/testkit/testdb"
	"github.com/finledger/finledger/ledger"
)

// A database written before keys recorded their creator's role, and before removals
// revoked the removed member's keys: migration 0024 gives its keys the role and the
// revocation a replay gives them. The history holds a key suspended by a removal, one
// revoked by name after its creator's removal, one of a member whose account was
// deleted before their removal, and keys of members whose role changed after.
func TestMigrationOfKeysEqualsTheReplay(t *testing.T) {
	ctx := context.Background()
	pool := testdb.Pool(t)
	var mu sync.Mutex
	clock := time.Date(2026, 3, 10, 18, 0, 0, 0, time.UTC)
	// Each command is recorded a second after the one before, but for one recorded earlier
	// than its predecessor, as an instance whose clock is behind records it.
	now := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		clock = clock.Add(time.Second)
		return clock
	}
	l := ledger.NewLedger(pool, Project, now, 10)
	meta := ledger.Metadata{ActorType: ledger.ActorSystem, ActorID: "test"}
	run := func(ws uuid.UUID, events ...domain.Event) {
		t.Helper()
		if _, err := l.Execute(ctx, ledger.Call{WorkspaceID: ws, Metadata: meta,
			Decide: func(*domain.Workspace) ([]domain.Event, error) { return events, nil }}); err != nil {
			t.Fatal(err)
		}
	}
	users := map[string]uuid.UUID{}
	for _, name := range []string{"alice", "bob", "carol", "dave"} {
		id, err := l.RegisterUser(ctx, domain.Identity{Subject: name, Email: name + "@example.com"})
		if err != nil {
			t.Fatal(err)
		}
		users[name] = id
	}
	ws := uuid.New()
	if _, err := l.Execute(ctx, ledger.Call{WorkspaceID: ws, Metadata: meta, OpenWorkspace: &domain.WorkspaceCreated{
		WorkspaceID: ws, Kind: domain.WorkspaceTeam, Name: "Acme", Currency: "MXN", OwnerID: users["alice"]}}); err != nil {
		t.Fatal(err)
	}
	keys := map[string]uuid.UUID{}
	key := func(name, creator string) domain.Event {
		keys[name] = uuid.New()
		return &domain.APIKeyCreated{KeyID: keys[name], Name: name,
			Scopes: []string{"*"}, Prefix: "fl_live_" + name[:4], Hash: []byte(name), CreatedBy: users[creator]}
	}
	member := func(name, role string) domain.Event {
		return &domain.MemberAdded{UserID: users[name], Role: role}
	}
	removed := func(name string) domain.Event {
		return &domain.MemberRemoved{UserID: users[name], Role: "reader"}
	}
	run(ws, member("bob", "collaborator"), member("carol", "reader"), member("dave", "reader"))
	run(ws, key("owners", "alice"), key("bobs-suspended", "bob"), key("bobs-revoked", "bob"), key("carols", "carol"), key("daves", "dave"))
	run(ws, &domain.MemberRoleChanged{UserID: users["dave"],
		Before: "reader", After: "admin"})
	run(ws, removed("bob"))
	mu.Lock()
	clock = clock.Add(-time.Minute)
	mu.Unlock()
	run(ws, &domain.APIKeyRevoked{KeyID: keys["bobs-revoked"]})
	run(ws, member("bob", "admin"))
	var deleteUser domain.DeleteUser
	if _, err := l.Execute(ctx, ledger.Call{WorkspaceID: domain.PersonalWorkspaceID(users["carol"]), Metadata: meta,
		UserID: users["carol"], Decide: deleteUser.Decide, DecideUser: deleteUser.DecideUser}); err != nil {
		t.Fatal(err)
	}
	run(ws, removed("carol"))

	// The read models as the build before the migration left them: no role, and keys
	// revoked only by name or by their creator's account's deletion.
	if _, err := pool.Exec(ctx, `UPDATE api_keys SET role = NULL,
		revoked_at = CASE id WHEN $1 THEN NULL WHEN $2 THEN (SELECT recorded_at FROM events WHERE type = 'api_key.revoked.v1') ELSE revoked_at END
		WHERE workspace_id = $3`, keys["bobs-suspended"], keys["bobs-revoked"], ws); err != nil {
		t.Fatal(err)
	}
	if differs(t, pool) == 0 {
		t.Fatal("the read models of the build before equal the replay: the fixture shows nothing")
	}
	migrations, err := database.Migrations()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range migrations {
		for _, statement := range strings.Split(m.SQL, ";\n") {
			if i := strings.Index(statement, "WITH keys AS"); m.Version == 24 && i >= 0 {
				if _, err := pool.Exec(ctx, statement[i:]); err != nil {
					t.Fatalf("%s: %v", m.Name, err)
				}
			}
		}
	}
	if n := differs(t, pool); n != 0 {
		t.Fatalf("after the migration, %d read models differ from the replay", n)
	}
	got := map[string]string{}
	rows, err := pool.Query(ctx, `SELECT name, coalesce(role, '?') || ' ' || (revoked_at IS NOT NULL)::text FROM api_keys`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var name, state string
		if err := rows.Scan(&name, &state); err != nil {
			t.Fatal(err)
		}
		got[name] = state
	}
	want := map[string]string{"owners": "owner false", "bobs-suspended": "collaborator true", "bobs-revoked": "collaborator true",
		"carols": "reader true", "daves": "reader false"}
	for name, state := range want {
		if got[name] != state {
			t.Errorf("%s: %q, want %q", name, got[name], state)
		}
	}
}

// differs counts the read models that differ from a replay of the log, logging each.
func differs(t *testing.T, pool *pgxpool.Pool) int {
	t.Helper()
	diffs, err := Verify(context.Background(), pool)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, d := range diffs {
		if d.LiveOnly != 0 || d.ReplayOnly != 0 {
			t.Logf("%s differs: %+v", d.Table, d)
			n++
		}
	}
	return n
}
