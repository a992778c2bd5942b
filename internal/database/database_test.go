package database_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"

	"github.com/finledger/finledger/eventstore"
	"github.com/finledger/finledger/internal/database"
	"github.com/finledger/finledger/internal/testkit/testdb"
)

func TestMain(m *testing.M) { os.Exit(testdb.Main(m)) }

// Instances starting together apply each migration once; a second run applies none.
func TestMigrateConcurrentlyAndTwice(t *testing.T) {
	ctx := context.Background()
	pool, err := database.Open(ctx, testdb.EmptyURL(t), 8)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	all, err := database.Migrations()
	if err != nil || len(all) == 0 {
		t.Fatalf("migrations %v, %v", all, err)
	}
	var wg sync.WaitGroup
	applied := make([][]int, 4)
	errs := make([]error, 4)
	for i := range applied {
		wg.Add(1)
		go func() {
			defer wg.Done()
			applied[i], errs[i] = database.Migrate(ctx, pool)
		}()
	}
	wg.Wait()
	total := 0
	for i := range applied {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		total += len(applied[i])
	}
	if total != len(all) {
		t.Fatalf("%d migrations applied across instances, want %d", total, len(all))
	}
	again, err := database.Migrate(ctx, pool)
	if err != nil || len(again) != 0 {
		t.Fatalf("second run applied %v, %v", again, err)
	}
	var n int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM schema_migrations`).Scan(&n); err != nil || n != len(all) {
		t.Fatalf("schema_migrations has %d rows, %v", n, err)
	}
	if _, err := pool.Exec(ctx, `SELECT 1 FROM events LIMIT 1`); err != nil {
		t.Fatalf("events table missing: %v", err)
	}
}

// migrateUntil applies the migrations to an empty database, as Migrate would, up to the
// first that stop names: a database as a build of before that migration left it.
func migrateUntil(t *testing.T, pool *pgxpool.Pool, stop func(database.Migration) bool) {
	t.Helper()
	ctx := context.Background()
	all, err := database.Migrations()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL,
		applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		t.Fatal(err)
	}
	for _, m := range all {
		if stop(m) {
			return
		}
		if _, err := pool.Exec(ctx, m.SQL); err != nil {
			t.Fatalf("%s: %v", m.Name, err)
		}
		if _, err := pool.Exec(ctx, `INSERT INTO schema_migrations (version, name) VALUES ($1, $2)`, m.Version, m.Name); err != nil {
			t.Fatal(err)
		}
	}
	t.Fatal("no migration to stop at")
}

// A database written before stream heads carried an order key: migration 7 raises the
// keys of history so that each stream reads in version order, and new appends go on
// from the head's key.
func TestStreamOrderMigrationRaisesOutOfOrderHistory(t *testing.T) {
	ctx := context.Background()
	pool, err := database.Open(ctx, testdb.EmptyURL(t), 4)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	migrateUntil(t, pool, func(m database.Migration) bool { return m.Version >= 7 })
	// Stream s: version 2 was written by an older transaction than version 1, and
	// version 3 by a younger one again; stream t is in order.
	_, err = pool.Exec(ctx, `
		INSERT INTO streams (stream_id, version) VALUES ('s', 3), ('t', 1);
		INSERT INTO events (stream_id, version, event_id, type, data, metadata, recorded_at, tx_id) VALUES
			('s', 1, gen_random_uuid(), 'a.v1', '{}', '{}', now(), '1000'),
			('s', 2, gen_random_uuid(), 'a.v1', '{}', '{}', now(), '900'),
			('s', 3, gen_random_uuid(), 'a.v1', '{}', '{}', now(), '1100'),
			('t', 1, gen_random_uuid(), 'a.v1', '{}', '{}', now(), '950');`)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := database.Migrate(ctx, pool); err != nil {
		t.Fatal(err)
	}
	rows, err := pool.Query(ctx, `SELECT stream_id || '@' || version || '=' || tx_id FROM events ORDER BY tx_id, position`)
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"t@1=950", "s@1=1000", "s@2=1000", "s@3=1100"}
	if !slices.Equal(got, want) {
		t.Fatalf("log order after the migration %v, want %v", got, want)
	}
	var heads []string
	rows, err = pool.Query(ctx, `SELECT stream_id || '=' || tx_id FROM streams ORDER BY stream_id`)
	if err == nil {
		heads, err = pgx.CollectRows(rows, pgx.RowTo[string])
	}
	if err != nil || !slices.Equal(heads, []string{"s=1100", "t=950"}) {
		t.Fatalf("stream heads %v, %v", heads, err)
	}
	// Migration 18 chained the history stored before it, as appends chain new events.
	for stream, n := range map[string]int64{"s": 3, "t": 1} {
		if check, err := eventstore.VerifyChain(ctx, pool, stream); err != nil || check.BrokenAt != 0 || check.Checked != n {
			t.Fatalf("chain of %s after the migration: %+v, %v", stream, check, err)
		}
	}
}

// The pool reads dates as YYYY-MM-DD text even where the database's own setting writes
// them otherwise: a report's CSV takes the server's text as it comes.
func TestDatesComeAsISOText(t *testing.T) {
	ctx := context.Background()
	url := testdb.EmptyURL(t)
	setup, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer setup.Close(ctx)
	if _, err := setup.Exec(ctx, `DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET DateStyle = ''SQL, DMY''', current_database()); END $$`); err != nil {
		t.Fatal(err)
	}
	other, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close(ctx)
	var text string
	if err := other.QueryRow(ctx, `SELECT DATE '2026-03-01'::text`).Scan(&text); err != nil || text != "01/03/2026" {
		t.Fatalf("a plain connection reads %q (%v): the database's setting did not take", text, err)
	}
	pool, err := database.Open(ctx, url, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if err := pool.QueryRow(ctx, `SELECT DATE '2026-03-01'::text`).Scan(&text); err != nil || text != "2026-03-01" {
		t.Fatalf("the pool reads %q (%v)", text, err)
	}
}

// A decimal goes to PostgreSQL with its scale, given as a value or a pointer, in a
// statement or a batch: 2.20 stays 2.20, and a nil pointer is NULL.
func TestDecimalsKeepTheirScale(t *testing.T) {
	ctx := context.Background()
	pool, err := database.Open(ctx, testdb.EmptyURL(t), 1)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	d := decimal.RequireFromString("2.20")
	var none *decimal.Decimal
	shown := func(s *string) string {
		if s == nil {
			return "NULL"
		}
		return *s
	}
	for _, v := range []any{d, &d, none} {
		var text *string
		if err := pool.QueryRow(ctx, `SELECT (CASE WHEN $1 THEN $2 ELSE 1.0 END)::text`, true, v).Scan(&text); err != nil {
			t.Fatal(err)
		}
		b := &pgx.Batch{}
		var batched *string
		b.Queue(`SELECT $1::numeric::text`, v).QueryRow(func(r pgx.Row) error { return r.Scan(&batched) })
		if err := pool.SendBatch(ctx, b).Close(); err != nil {
			t.Fatal(err)
		}
		want := "2.20"
		if v == any(none) {
			if text != nil || batched != nil {
				t.Errorf("a nil pointer was sent as %s, %s", shown(text), shown(batched))
			}
			continue
		}
		if text == nil || *text != want || batched == nil || *batched != want {
			t.Errorf("%T sent as %s and %s, want %s", v, shown(text), shown(batched), want)
		}
	}
}

// A database whose chains hashed the secrets of its events: the migration that leaves
// them out of the canonical text recomputes each chain, which then holds, changing the
// hashes from each stream's first secret on and none before; a chain already broken
// stays broken at the same event; and the hash each event had before is still given by
// eventstore.FormerHash, from the stored events, for an auditor's old head.
func TestChainWithoutSecretsMigration(t *testing.T) {
	ctx := context.Background()
	pool, err := database.Open(ctx, testdb.EmptyURL(t), 4)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	migrateUntil(t, pool, func(m database.Migration) bool { return strings.HasSuffix(m.Name, "_chain_without_secrets.sql") })
	event := func(typ, data string) eventstore.Event {
		return eventstore.Event{ID: uuid.New(), Type: typ, Data: json.RawMessage(data), Metadata: json.RawMessage(`{}`)}
	}
	streams := map[string][]eventstore.Event{
		"keyed": {event("a.v1", `{"n": 1}`), event("api_key.created.v1", `{"hash": "AQI=", "name": "k"}`), event("a.v1", `{"n": 3}`)},
		"plain": {event("a.v1", `{"n": 1}`), event("a.v1", `{"n": 2}`)},
		"tampered": {event("webhook.created.v1", `{"sealedSecret": "CQk=", "url": "https://example.com"}`), event("a.v1", `{"n": 2}`),
			event("a.v1", `{"n": 3}`)},
	}
	for stream, events := range streams {
		if _, err := eventstore.Append(ctx, pool, stream, eventstore.NoStream, events, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	// Written with the secrets in the text, then one event changed in place.
	if _, err := pool.Exec(ctx, `UPDATE events SET data = '{"n": 20}' WHERE stream_id = 'tampered' AND version = 2`); err != nil {
		t.Fatal(err)
	}
	hashes := func() map[string][]byte {
		rows, err := pool.Query(ctx, `SELECT stream_id || '@' || version, hash FROM events`)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string][]byte{}
		var at string
		var hash []byte
		if _, err := pgx.ForEachRow(rows, []any{&at, &hash}, func() error { out[at] = hash; return nil }); err != nil {
			t.Fatal(err)
		}
		return out
	}
	before := hashes()
	if _, err := database.Migrate(ctx, pool); err != nil {
		t.Fatal(err)
	}
	after := hashes()
	for at, changed := range map[string]bool{"keyed@1": false, "keyed@2": true, "keyed@3": true, "plain@1": false, "plain@2": false,
		"tampered@1": true, "tampered@2": false, "tampered@3": false} {
		if !bytes.Equal(before[at], after[at]) != changed {
			t.Errorf("%s: changed %v, want %v", at, !bytes.Equal(before[at], after[at]), changed)
		}
	}
	for stream, want := range map[string]eventstore.ChainCheck{"keyed": {Checked: 3}, "plain": {Checked: 2}, "tampered": {Checked: 2, BrokenAt: 2}} {
		if check, err := eventstore.VerifyChain(ctx, pool, stream); err != nil || check.BrokenAt != want.BrokenAt || check.Checked != want.Checked {
			t.Errorf("chain of %s after the migration: %+v, %v", stream, check, err)
		}
	}
	for at, held := range map[string]bool{"keyed@1": true, "keyed@2": true, "keyed@3": true, "plain@2": true, "tampered@1": true,
		"tampered@2": false, "tampered@3": false} {
		stream, version, _ := strings.Cut(at, "@")
		v, _ := strconv.ParseInt(version, 10, 64)
		former, found, err := eventstore.FormerHash(ctx, pool, stream, v)
		if err != nil || !found || bytes.Equal(former[:], before[at]) != held {
			t.Errorf("former hash of %s: %x against %x kept before (%v, %v)", at, former, before[at], found, err)
		}
	}
	if _, found, err := eventstore.FormerHash(ctx, pool, "plain", 3); found || err != nil {
		t.Errorf("former hash beyond the stream: %v, %v", found, err)
	}
	// Appends go on under the new text.
	if _, err := eventstore.Append(ctx, pool, "keyed", 3, []eventstore.Event{event("webhook.secret_rotated.v1", `{"sealedSecret": "CAg="}`)},
		time.Now()); err != nil {
		t.Fatal(err)
	}
	if check, err := eventstore.VerifyChain(ctx, pool, "keyed"); err != nil || check.BrokenAt != 0 || check.Checked != 4 {
		t.Errorf("chain of keyed after an append: %+v, %v", check, err)
	}
}

// TestFoldKeepsItsValues: the fold of 0032 and 0038, which spares ASCII text the
// translate and Latin-1 text most of its list, gives every text the value 0028's gave, so
// the trigram indexes built on it stay valid: each letter the fold translates, alone and
// among ASCII words and Latin-1 letters, capitals, other scripts, symbols and NULL. And
// the fold is inlined, as an index's expression and a search's predicate want.
func TestFoldKeepsItsValues(t *testing.T) {
	ctx := context.Background()
	pool := testdb.Pool(t)
	all, err := database.Migrations()
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(all, func(m database.Migration) bool { return m.Version == 28 })
	start := strings.Index(all[i].SQL, "CREATE FUNCTION finledger_fold(")
	end := strings.Index(all[i].SQL[start:], "$$;")
	if i < 0 || start < 0 || end < 0 {
		t.Fatal("migration 0028 defines no finledger_fold")
	}
	before := strings.Replace(all[i].SQL[start:start+end+3], "finledger_fold(", "pg_temp.fold_0028(", 1)
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, before); err != nil {
		t.Fatal(err)
	}
	texts := []string{"", "SUPERAMA 107", "Oxxo sucursal 2", "café", "SÚPER", "Ñandú", "Łódź", "ǅ", "Страховка", "東京", "💸 refund",
		"tab\there", "~`!@#$%^&*()", "ASCII then é"}
	var letters string
	if err := conn.QueryRow(ctx, `SELECT string_agg(chr(c), '') FROM generate_series(128, 1023) c`).Scan(&letters); err != nil {
		t.Fatal(err)
	}
	for _, r := range letters {
		texts = append(texts, string(r), "PAGO "+string(r)+" Uber", "Línea "+string(r))
	}
	var differ []string
	if err := conn.QueryRow(ctx, `SELECT coalesce(array_agg(t), '{}') FROM unnest($1::text[]) t
		WHERE finledger_fold(t) IS DISTINCT FROM pg_temp.fold_0028(t)`, texts).Scan(&differ); err != nil {
		t.Fatal(err)
	}
	if len(differ) > 0 {
		t.Fatalf("the fold changed the values of %q", differ)
	}
	var null bool
	if err := conn.QueryRow(ctx, `SELECT finledger_fold(NULL) IS NULL AND pg_temp.fold_0028(NULL) IS NULL`).Scan(&null); err != nil || !null {
		t.Errorf("the fold of NULL is not NULL: %v", err)
	}
	plan := testdb.Explain(t, conn, `EXPLAIN (VERBOSE, COSTS OFF) SELECT finledger_fold(t) FROM unnest('{a}'::text[]) t`)
	if !strings.Contains(plan, "translate") || strings.Contains(plan, "finledger_fold") {
		t.Errorf("the fold is called, not inlined: %s", plan)
	}
}
