package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/internal/metrics"
	"github.com/finledger/finledger/internal/pgcluster"
	"github.com/finledger/finledger/internal/testkit/apitest"
	"github.com/finledger/finledger/internal/testkit/pgbackup"
	"github.com/finledger/finledger/internal/testkit/s3server"
	"github.com/finledger/finledger/internal/testkit/testdb"
)

// folderRepository makes a pgBackRest repository on a folder, removed when the test
// ends.
func folderRepository(t *testing.T) *pgbackup.Repository {
	t.Helper()
	repo, err := pgbackup.NewRepository()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = repo.Remove() })
	return repo
}

// backupBucket is the bucket bucketRepository keeps its repository in.
const backupBucket = "backups"

// bucketRepository starts an S3-compatible server over TLS (versitygw, its certificate
// given to pgBackRest as a CA file) with the bucket backupBucket, and makes a pgBackRest
// repository in it; it returns the repository and the server.
func bucketRepository(t *testing.T) (*pgbackup.Repository, *s3server.Server) {
	t.Helper()
	server := s3server.StartTLS(t)
	if err := server.CreateBucket(backupBucket); err != nil {
		t.Fatal(err)
	}
	repo, err := pgbackup.NewS3Repository(pgbackup.S3{Endpoint: server.Addr(), Bucket: backupBucket, Region: s3server.Region,
		Key: s3server.AccessKey, Secret: s3server.SecretKey, CAFile: server.CAFile})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = repo.Remove() })
	return repo, server
}

// archivedService starts a cluster that archives its WAL into repo, with a migrated
// database finledger on it, and returns the cluster, a pool on the database and a
// connection to it for the WAL's controls.
func archivedService(t *testing.T, ctx context.Context, repo *pgbackup.Repository) (*pgcluster.Cluster, *pgxpool.Pool, *pgx.Conn) {
	t.Helper()
	cluster, err := repo.StartArchived(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cluster.Stop() })
	pool, url := migratedDatabase(t, ctx, cluster)
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close(ctx) })
	return cluster, pool, conn
}

// migratedDatabase creates the database finledger on cluster, migrates it and returns a
// pool on it with its URL.
func migratedDatabase(t *testing.T, ctx context.Context, cluster *pgcluster.Cluster) (*pgxpool.Pool, string) {
	t.Helper()
	conn, err := pgx.Connect(ctx, cluster.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `CREATE DATABASE finledger`); err != nil {
		t.Fatal(err)
	}
	return testdb.MigratedPool(t, cluster.URL("finledger"), 8), cluster.URL("finledger")
}

// spend records an expense named concept in the client's workspace.
func spend(t *testing.T, c *apitest.Client, concept string) {
	t.Helper()
	c.Post("/api/transactions", map[string]any{"type": "expense", "amount": 1.25, "concept": concept}).Expect(t, http.StatusCreated)
}

// concepts lists the concepts of the client's workspace's transactions.
func concepts(t *testing.T, c *apitest.Client) string {
	t.Helper()
	var names []string
	for _, tx := range c.Get("/api/transactions").Expect(t, http.StatusOK).List("transactions") {
		name, _ := tx["concept"].(string)
		names = append(names, name)
	}
	slices.Sort(names)
	return strings.Join(names, ",")
}

// waitFor polls cond until it holds, failing the test after timeout.
func waitFor(t *testing.T, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(timeout); !cond(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// landedIn fails the test unless dir holds a pgBackRest repository of the stanza with a
// full backup and archived WAL segments, as files: so a repository meant for a bucket
// that went to a local folder instead is caught.
func landedIn(t *testing.T, dir string) {
	t.Helper()
	stanza := func(kind string) string { return filepath.Join(dir, kind, pgbackup.Stanza) }
	for _, file := range []string{filepath.Join(stanza("backup"), "backup.info"), filepath.Join(stanza("archive"), "archive.info")} {
		if _, err := os.Stat(file); err != nil {
			t.Errorf("the repository's files are not in %s: %v", dir, err)
		}
	}
	full, _ := filepath.Glob(filepath.Join(stanza("backup"), "*F", "backup.manifest"))
	segments, _ := filepath.Glob(filepath.Join(stanza("archive"), "*", "*", "0000000100000000000000*"))
	if len(full) == 0 || len(segments) == 0 {
		t.Errorf("in %s: full backups %q, WAL segments %q", dir, full, segments)
	}
}

// The backup drill of docs/operating.md, "Backups and restore to a moment", with the
// repository on a folder and in an S3 bucket (versitygw over TLS, whose files are then
// checked to hold the repository).
func TestRestoreToAMoment(t *testing.T) {
	t.Run("folder", func(t *testing.T) {
		repo := folderRepository(t)
		restoreToAMoment(t, repo, repo.Path)
	})
	t.Run("s3", func(t *testing.T) {
		repo, server := bucketRepository(t)
		restoreToAMoment(t, repo, filepath.Join(server.BucketDir(backupBucket), filepath.FromSlash(repo.Path)))
	})
}

// restoreToAMoment is the drill on repo, whose files land in the folder landed: the
// service runs on a cluster that archives its WAL with pgBackRest; two workspaces
// write, a full backup is taken, they write more, and `finledger heads` records every
// chain's head with the moment T; they write again after T. A restore into a folder
// that holds data is refused. Restored to T into a new data folder, the database
// passes `finledger verify`, holds each head recorded at T (`heads --check`, and GET
// /api/audit/verify), and the service on it shows the writes made before T and none of
// those after.
func restoreToAMoment(t *testing.T, repo *pgbackup.Repository, landed string) {
	ctx := context.Background()
	_, pool, conn := archivedService(t, ctx, repo)
	env := apitest.StartOn(t, pool, apitest.Options())
	alice, bob := env.As("alice"), env.As("bob")
	for _, c := range []*apitest.Client{alice, bob} {
		c.Post("/api/wallets", map[string]any{"name": "Cash", "balance": 100, "isDefault": true}).Expect(t, http.StatusOK)
		spend(t, c, "before the backup")
	}
	if err := repo.Backup(ctx); err != nil {
		t.Fatal(err)
	}
	// pgBackRest picks the backup that ended before the target by its stop time, kept in
	// seconds.
	time.Sleep(1100 * time.Millisecond)
	for _, c := range []*apitest.Client{alice, bob} {
		spend(t, c, "after the backup")
	}
	spend(t, alice, "after the backup, again")

	cfg := config{DatabaseURL: env.Pool.Config().ConnString()}
	out := &bytes.Buffer{}
	if err := run(ctx, cfg, out, "heads", nil); err != nil {
		t.Fatalf("heads: %v %s", err, out)
	}
	var atT Heads
	if err := json.Unmarshal(out.Bytes(), &atT); err != nil || len(atT.Heads) != 2 || atT.Target != pgbackup.Moment(atT.At) {
		t.Fatalf("heads at T: %v %s", err, out)
	}
	headsFile := filepath.Join(t.TempDir(), "heads.json")
	if err := os.WriteFile(headsFile, out.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	verifiedAtT := map[string]string{}
	for name, c := range map[string]*apitest.Client{"alice": alice, "bob": bob} {
		verifiedAtT[name] = string(c.Get("/api/audit/verify").Expect(t, http.StatusOK).Raw)
	}
	if err := pgbackup.SwitchAndWait(ctx, conn); err != nil {
		t.Fatal(err)
	}

	time.Sleep(10 * time.Millisecond)
	for _, c := range []*apitest.Client{alice, bob} {
		spend(t, c, "after T")
	}
	alice.Post("/api/wallets", map[string]any{"name": "Made after T"}).Expect(t, http.StatusOK)
	// Recovery stops at the first commit past T, which must be in the archive too.
	if err := pgbackup.SwitchAndWait(ctx, conn); err != nil {
		t.Fatal(err)
	}
	if info, err := repo.Info(ctx); err != nil || !strings.Contains(info, "full backup") {
		t.Fatalf("pgbackrest info: %v\n%s", err, info)
	}
	landedIn(t, landed)

	// A restore never writes over data: pgBackRest refuses a folder that holds some, and
	// the error says why.
	occupied := filepath.Join(repo.Dir, "occupied")
	if err := os.MkdirAll(filepath.Join(occupied, "pgdata"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(occupied, "pgdata", "PG_VERSION"), []byte("15\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := repo.Restore(ctx, occupied, atT.At); err == nil || !strings.Contains(err.Error(), "unable to restore to path") ||
		!strings.Contains(err.Error(), "because it contains files") {
		t.Fatalf("a restore into a folder that holds data: %v", err)
	}

	into := filepath.Join(repo.Dir, "restored")
	start := time.Now()
	if err := repo.Restore(ctx, into, atT.At); err != nil {
		t.Fatal(err)
	}
	restored, err := pgbackup.StartRestored(ctx, into)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = restored.Stop() })
	t.Logf("restored to %s and promoted in %s", pgbackup.Moment(atT.At), time.Since(start).Round(time.Millisecond))

	restoredCfg := config{DatabaseURL: restored.URL("finledger")}
	out.Reset()
	if err := run(ctx, restoredCfg, out, "verify", nil); err != nil {
		t.Fatalf("verify of the restored database: %v\n%s", err, out)
	}
	out.Reset()
	if err := run(ctx, restoredCfg, out, "heads", []string{"--check", headsFile}); err != nil ||
		!strings.Contains(out.String(), "heads: 2 same, 0 held within a longer history, 0 missing or different") {
		t.Fatalf("heads --check of the restored database: %v\n%s", err, out)
	}
	// The database of now holds the heads of T within a longer history.
	out.Reset()
	if err := run(ctx, cfg, out, "heads", []string{"--check", headsFile}); err != nil ||
		!strings.Contains(out.String(), "heads: 0 same, 2 held within a longer history, 0 missing or different") {
		t.Fatalf("heads --check of the database of now: %v\n%s", err, out)
	}

	back := apitest.StartOn(t, testdb.OpenPool(t, restoredCfg.DatabaseURL, 8), apitest.Options())
	for name, c := range map[string]*apitest.Client{"alice": back.As("alice"), "bob": back.As("bob")} {
		if got := string(c.Get("/api/audit/verify").Expect(t, http.StatusOK).Raw); got != verifiedAtT[name] {
			t.Errorf("%s's chain restored to T: %s; at T it was %s", name, got, verifiedAtT[name])
		}
		want := "after the backup,before the backup"
		if name == "alice" {
			want = "after the backup,after the backup, again,before the backup"
		}
		if got := concepts(t, c); got != want {
			t.Errorf("%s's transactions restored to T: %q, want %q", name, got, want)
		}
	}
	if wallets := back.As("alice").Get("/api/wallets").Expect(t, http.StatusOK).Raw; bytes.Contains(wallets, []byte("Made after T")) {
		t.Errorf("a wallet made after T was restored: %s", wallets)
	}
}

// A repository that cannot take the WAL is found while the service runs, not on the day
// of a restore: the metric finledger_wal_archive_failing turns 1 and a line is logged,
// and both clear once archiving works again. A folder turns read-only, as a full or
// unmounted one does; an S3 server stops, as an endpoint out of reach does, and then
// `pgbackrest check` fails too.
func TestArchiveFailuresAreReported(t *testing.T) {
	t.Run("folder", func(t *testing.T) {
		repo := folderRepository(t)
		setWritable := func(writable bool) {
			t.Helper()
			err := filepath.WalkDir(repo.Path, func(path string, d fs.DirEntry, err error) error {
				if err != nil || !d.IsDir() {
					return err
				}
				mode := os.FileMode(0o500)
				if writable {
					mode = 0o750
				}
				return os.Chmod(path, mode)
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		archiveFailuresAreReported(t, repo, func() {
			setWritable(false)
			t.Cleanup(func() { setWritable(true) })
		}, func() { setWritable(true) })
	})
	t.Run("s3", func(t *testing.T) {
		repo, server := bucketRepository(t)
		// pgBackRest retries a request to a server out of reach for several times
		// io-timeout (a minute by default) before it fails; a second here.
		setTimeout := func(seconds string) {
			t.Helper()
			if err := repo.Set("io-timeout", seconds); err != nil {
				t.Fatal(err)
			}
		}
		archiveFailuresAreReported(t, repo, func() {
			setTimeout("1")
			server.Stop()
			if err := repo.Check(context.Background()); err == nil || !strings.Contains(err.Error(), "unable to connect to '"+server.Addr()+"'") {
				t.Errorf("pgbackrest check with the S3 server stopped: %v", err)
			}
		}, func() {
			server.Resume(t)
			setTimeout("60")
		})
	})
}

// archiveFailuresAreReported runs a service archiving into repo, breaks the repository
// with brk, sees the failure reported, mends it with mend and sees the report clear.
func archiveFailuresAreReported(t *testing.T, repo *pgbackup.Repository, brk, mend func()) {
	ctx := context.Background()
	_, pool, conn := archivedService(t, ctx, repo)
	m := metrics.New()
	m.WatchArchiving(pool)
	scrape := httptest.NewServer(m.Handler())
	t.Cleanup(scrape.Close)
	failing := func() string {
		resp, err := http.Get(scrape.URL)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		for _, line := range strings.Split(string(body), "\n") {
			if value, ok := strings.CutPrefix(line, "finledger_wal_archive_failing "); ok {
				return value
			}
		}
		t.Fatalf("no finledger_wal_archive_failing in the metrics:\n%s", body)
		return ""
	}
	logs := &syncBuffer{}
	watchCtx, stopWatch := context.WithCancel(ctx)
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		watchArchiving(watchCtx, pool, 50*time.Millisecond, slog.New(slog.NewTextHandler(logs, nil)))
	}()
	t.Cleanup(func() { stopWatch(); <-watched })

	if got := failing(); got != "0" {
		t.Fatalf("finledger_wal_archive_failing while archiving works: %s", got)
	}
	brk()
	if _, err := pool.Exec(ctx, `CREATE TABLE archived_or_not AS SELECT 1 AS n`); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `SELECT pg_switch_wal()`); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the metric to say archiving fails", 30*time.Second, func() bool { return failing() == "1" })
	waitFor(t, "a log line to say archiving fails", 10*time.Second, func() bool {
		return strings.Contains(logs.String(), "PostgreSQL cannot archive its write-ahead log")
	})
	if !strings.Contains(logs.String(), "last_failed_wal=") {
		t.Errorf("the log line does not name the segment: %s", logs)
	}

	mend()
	// A new segment wakes the archiver, which retries the one that failed first.
	if err := pgbackup.SwitchAndWait(ctx, conn); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the metric to clear", 30*time.Second, func() bool { return failing() == "0" })
	waitFor(t, "a log line to say archiving works again", 10*time.Second, func() bool {
		return strings.Contains(logs.String(), "PostgreSQL archives its write-ahead log again")
	})
}

// heads --check names each workspace whose recorded head the database does not hold,
// and exits 3: one missing, one recorded longer than it is, one with another hash; and
// a chain that breaks gives no heads at all.
func TestHeadsCheck(t *testing.T) {
	ctx := context.Background()
	cfg, pool, ledger, workspace := personalWorkspace(t, time.Now, "keeper")
	out := &bytes.Buffer{}
	if err := run(ctx, cfg, out, "heads", nil); err != nil {
		t.Fatalf("heads: %v %s", err, out)
	}
	var heads Heads
	if err := json.Unmarshal(out.Bytes(), &heads); err != nil || len(heads.Heads) != 1 || heads.Heads[0].Workspace != workspace {
		t.Fatalf("heads: %v %s", err, out)
	}
	if _, err := ledger.RegisterUser(ctx, domain.Identity{Subject: "newcomer", Email: "newcomer@example.com"}); err != nil {
		t.Fatal(err)
	}
	check := func(h Heads) (string, error) {
		t.Helper()
		file := filepath.Join(t.TempDir(), "heads.json")
		data, _ := json.Marshal(h)
		if err := os.WriteFile(file, data, 0o600); err != nil {
			t.Fatal(err)
		}
		out := &bytes.Buffer{}
		err := run(ctx, cfg, out, "heads", []string{"--check", file})
		return out.String(), err
	}
	if got, err := check(heads); err != nil || !strings.Contains(got, "1 same, 0 held within a longer history, 0 missing or different") ||
		!strings.Contains(got, "not recorded") {
		t.Fatalf("heads --check of the same database: %v\n%s", err, got)
	}
	wrong := heads
	wrong.Heads = []WorkspaceHead{heads.Heads[0], heads.Heads[0], {Workspace: uuid.New(), ChainLink: heads.Heads[0].ChainLink}}
	wrong.Heads[0].Hash = strings.Repeat("0", 64)
	wrong.Heads[1].Version++
	got, err := check(wrong)
	if exitCode(err) != exitDifferent || !strings.Contains(got, "DIFFERS at version") || !strings.Contains(got, "SHORTER") ||
		!strings.Contains(got, "MISSING") || !strings.Contains(got, "0 same, 0 held within a longer history, 3 missing or different") {
		t.Fatalf("heads --check of heads the database does not hold: %v (exit %d)\n%s", err, exitCode(err), got)
	}
	if _, err := pool.Exec(ctx, `UPDATE events SET recorded_at = recorded_at - interval '1 day' WHERE stream_id = $1 AND version = 1`,
		domain.StreamID(workspace)); err != nil {
		t.Fatal(err)
	}
	if err := run(ctx, cfg, io.Discard, "heads", nil); exitCode(err) != exitDifferent || !strings.Contains(err.Error(), "breaks at version 1") {
		t.Fatalf("heads of a chain that breaks: %v", err)
	}
}
