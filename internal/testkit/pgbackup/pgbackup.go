// Package pgbackup owns the backups of the test kit's private PostgreSQL clusters: a
// pgBackRest repository, on a folder or in a bucket of an S3-compatible server, with its
// configuration in a folder of its own, a cluster that archives its write-ahead log
// there continuously, full base backups, and restores to a moment into a fresh data
// folder, started as a cluster of its own. The backup drill
// uses it to prove, as an operator would, that the history restored to a moment is the
// history that stood then.
package pgbackup

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/finledger/finledger/internal/pgcluster"
)

// Stanza is the name pgBackRest knows the cluster by.
const Stanza = "finledger"

// Install is the command that installs pgBackRest on Debian and Ubuntu.
const Install = "apt-get install -y pgbackrest"

// Require reports whether pgBackRest is installed, and if not, how to install it.
func Require() error {
	if _, err := exec.LookPath("pgbackrest"); err != nil {
		return fmt.Errorf("pgbackup: pgbackrest is not installed (not on PATH); install it with `%s` (`make test` needs it)", Install)
	}
	return nil
}

// Repository is a pgBackRest repository, on a local folder or in an S3 bucket, with the
// configuration file that names it and the one cluster it backs up. Every pgBackRest
// command runs as the user the server runs as, who owns the repository's folder, as
// pgBackRest expects.
type Repository struct {
	// Dir holds everything but a bucket: the configuration, the repository on a folder,
	// pgBackRest's lock, the cluster's folder and its socket.
	Dir string
	// Conf is the configuration file, pgbackrest.conf.
	Conf string
	// Path is the repository itself (repo1-path): a folder, or in S3 the path within the
	// bucket that its objects' names begin with.
	Path string
	// S3 is the bucket that holds the repository; nil for one on a folder.
	S3 *S3
	// ClusterDir is the folder of the archived cluster (pgcluster.Options.Dir).
	ClusterDir string
	socket     string
	port       int
	options    map[string]string // set by Set
}

// S3 is a bucket of an S3-compatible server that holds a repository. pgBackRest speaks
// S3 over TLS only.
type S3 struct {
	// Endpoint is the server's host:port.
	Endpoint string
	// Bucket exists already; Region is the one requests are signed for.
	Bucket, Region string
	// Key and Secret are the credentials requests are signed with.
	Key, Secret string
	// CAFile is a PEM file of the certificates that vouch for the server's certificate;
	// empty, the server's certificate is not checked (repo1-storage-verify-tls=n).
	CAFile string
}

// s3Path is where in its bucket a repository keeps its objects.
const s3Path = "/pgbackrest"

// NewRepository makes a repository and its configuration in a new folder under the
// system's temporary folder (not a test's TempDir: run as root, the server's user must
// be able to enter every folder above it). Remove removes it.
func NewRepository() (*Repository, error) {
	return create(nil)
}

// NewS3Repository makes a repository as NewRepository does, kept in a bucket instead of
// a folder: its objects' names begin with /pgbackrest/. The configuration, the lock and
// the cluster stay in the new folder, with a copy of the CA file, which the server's
// user may read there.
func NewS3Repository(bucket S3) (*Repository, error) {
	if _, _, err := net.SplitHostPort(bucket.Endpoint); err != nil {
		return nil, fmt.Errorf("pgbackup: the S3 endpoint is host:port: %w", err)
	}
	return create(&bucket)
}

// create makes the repository's folder in the system's temporary folder and prepares it.
func create(bucket *S3) (*Repository, error) {
	if err := Require(); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "finledger-pitr-")
	if err != nil {
		return nil, fmt.Errorf("pgbackup: %w", err)
	}
	r, err := prepare(dir, bucket)
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	return r, nil
}

// prepare lays out a repository's folder and hands it to the server's user.
func prepare(dir string, bucket *S3) (*Repository, error) {
	r := &Repository{Dir: dir, Conf: filepath.Join(dir, "pgbackrest.conf"), Path: filepath.Join(dir, "repo"),
		ClusterDir: filepath.Join(dir, "cluster"), socket: filepath.Join(dir, "socket")}
	folders := []string{filepath.Join(dir, "lock"), r.ClusterDir, r.socket}
	if bucket == nil {
		folders = append(folders, r.Path)
	} else {
		copied := *bucket
		r.S3, r.Path = &copied, s3Path
	}
	for _, d := range folders {
		if err := os.MkdirAll(d, 0o750); err != nil {
			return nil, fmt.Errorf("pgbackup: %w", err)
		}
	}
	if r.S3 != nil && r.S3.CAFile != "" {
		pem, err := os.ReadFile(r.S3.CAFile)
		if err != nil {
			return nil, fmt.Errorf("pgbackup: the S3 server's CA file: %w", err)
		}
		r.S3.CAFile = filepath.Join(dir, "s3-ca.pem")
		if err := os.WriteFile(r.S3.CAFile, pem, 0o640); err != nil {
			return nil, fmt.Errorf("pgbackup: %w", err)
		}
	}
	if err := pgcluster.Hand(dir); err != nil {
		return nil, err
	}
	if err := r.writeConf(); err != nil {
		return nil, err
	}
	return r, nil
}

// Remove deletes the repository's folder with everything in it (not a bucket's objects).
func (r *Repository) Remove() error { return os.RemoveAll(r.Dir) }

// repoOptions are the configuration's lines that say where the repository is: its
// path, and for a bucket the server, the bucket and how to reach it.
func (r *Repository) repoOptions() string {
	lines := "repo1-path=" + r.Path + "\n"
	if b := r.S3; b != nil {
		host, port, _ := net.SplitHostPort(b.Endpoint)
		lines += fmt.Sprintf(`repo1-type=s3
repo1-s3-endpoint=%s
repo1-storage-port=%s
repo1-s3-uri-style=path
repo1-s3-bucket=%s
repo1-s3-region=%s
repo1-s3-key=%s
repo1-s3-key-secret=%s
`, host, port, b.Bucket, b.Region, b.Key, b.Secret)
		if b.CAFile != "" {
			lines += "repo1-storage-ca-file=" + b.CAFile + "\n"
		} else {
			lines += "repo1-storage-verify-tls=n\n"
		}
	}
	return lines
}

// writeConf writes the configuration: the repository, and the cluster, reached through
// its Unix socket, which is how pgBackRest connects to a local server.
func (r *Repository) writeConf() error {
	conf := fmt.Sprintf(`[global]
%srepo1-retention-full=2
lock-path=%s
log-level-console=warn
log-level-stderr=off
log-level-file=off
start-fast=y
archive-timeout=30
%s
[%s]
pg1-path=%s
pg1-socket-path=%s
pg1-user=finledger
`, r.repoOptions(), filepath.Join(r.Dir, "lock"), r.setOptions(), Stanza, filepath.Join(r.ClusterDir, "pgdata"), r.socket)
	if r.port != 0 {
		conf += "pg1-port=" + strconv.Itoa(r.port) + "\n"
	}
	if err := os.WriteFile(r.Conf, []byte(conf), 0o640); err != nil {
		return fmt.Errorf("pgbackup: write %s: %w", r.Conf, err)
	}
	return pgcluster.Hand(r.Conf)
}

// Set sets a global option of pgBackRest's, such as io-timeout, and rewrites the
// configuration, which every later command reads, the archiver's archive-push included.
func (r *Repository) Set(option, value string) error {
	if r.options == nil {
		r.options = map[string]string{}
	}
	r.options[option] = value
	return r.writeConf()
}

// setOptions are the configuration's lines of the options Set set, in their names' order.
func (r *Repository) setOptions() string {
	var lines string
	for _, option := range slices.Sorted(maps.Keys(r.options)) {
		lines += option + "=" + r.options[option] + "\n"
	}
	return lines
}

// ArchiveSettings are the server settings that push each finished WAL segment into the
// repository.
func (r *Repository) ArchiveSettings() map[string]string {
	return map[string]string{
		"archive_mode":    "on",
		"wal_level":       "replica",
		"archive_command": fmt.Sprintf("pgbackrest --config=%s --stanza=%s archive-push %%p", r.Conf, Stanza),
		// pgBackRest connects over a Unix socket; pgcluster's clusters have none by
		// default.
		"unix_socket_directories": r.socket,
	}
}

// StartArchived starts the repository's cluster, archiving into it, creates the stanza
// and checks that a segment reaches the repository.
func (r *Repository) StartArchived(ctx context.Context) (*pgcluster.Cluster, error) {
	settings := r.ArchiveSettings()
	settings["fsync"] = "off" // a test's cluster need not survive a crash of the machine
	c, err := pgcluster.Start(ctx, pgcluster.Options{Dir: r.ClusterDir, Settings: settings})
	if err != nil {
		return nil, err
	}
	r.port = c.Port()
	if err := r.writeConf(); err != nil {
		_ = c.Stop()
		return nil, err
	}
	if _, err := r.Run(ctx, "stanza-create"); err != nil {
		_ = c.Stop()
		return nil, err
	}
	if err := r.Check(ctx); err != nil {
		_ = c.Stop()
		return nil, err
	}
	return c, nil
}

// Check runs `pgbackrest check`: the configuration holds, and a WAL segment switched
// now reaches the repository.
func (r *Repository) Check(ctx context.Context) error {
	_, err := r.Run(ctx, "check")
	return err
}

// Backup takes a full base backup of the running cluster.
func (r *Repository) Backup(ctx context.Context) error {
	_, err := r.Run(ctx, "backup", "--type=full")
	return err
}

// Info returns `pgbackrest info`: the repository's backups and the range of WAL it holds.
func (r *Repository) Info(ctx context.Context) (string, error) {
	return r.Run(ctx, "info")
}

// Restore restores the repository's latest backup, and the WAL archived after it up to
// the moment target, into into/pgdata, set to promote itself once it reaches target.
// pgBackRest refuses a data folder that holds anything, and Restore says so.
func (r *Repository) Restore(ctx context.Context, into string, target time.Time) error {
	pgdata := filepath.Join(into, "pgdata")
	if err := os.MkdirAll(pgdata, 0o700); err != nil {
		return fmt.Errorf("pgbackup: restore: %w", err)
	}
	if err := pgcluster.Hand(into); err != nil {
		return err
	}
	_, err := r.Run(ctx, "restore", "--pg1-path="+pgdata, "--type=time", "--target="+Moment(target),
		"--target-action=promote")
	if err != nil {
		return fmt.Errorf("%w (restoring to %s into %s)", err, Moment(target), pgdata)
	}
	return nil
}

// StartRestored starts the cluster Restore left in into and waits until it has
// replayed the archive to its target and promoted itself. It no longer archives.
func StartRestored(ctx context.Context, into string) (*pgcluster.Cluster, error) {
	c, err := pgcluster.Start(ctx, pgcluster.Options{Dir: into, Settings: map[string]string{"archive_mode": "off", "fsync": "off"}})
	if err != nil {
		return nil, err
	}
	if err := waitPromoted(ctx, c); err != nil {
		_ = c.Stop()
		return nil, err
	}
	return c, nil
}

// waitPromoted waits until the server has left recovery: while it replays the archive
// it may already accept read-only sessions.
func waitPromoted(ctx context.Context, c *pgcluster.Cluster) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	var last error
	for {
		conn, err := pgx.Connect(ctx, c.URL("postgres"))
		if err == nil {
			var recovering bool
			err = conn.QueryRow(ctx, `SELECT pg_is_in_recovery()`).Scan(&recovering)
			_ = conn.Close(ctx)
			if err == nil && !recovering {
				return nil
			}
			if err == nil {
				err = errors.New("still in recovery")
			}
		}
		last = err
		select {
		case <-ctx.Done():
			return fmt.Errorf("pgbackup: the restored cluster did not promote itself: %v", last)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// Moment writes t as a PostgreSQL timestamp with its zone, which recovery_target_time
// reads, to the microsecond.
func Moment(t time.Time) string {
	return t.UTC().Format("2006-01-02 15:04:05.000000") + "+00"
}

// SwitchAndWait closes the current WAL segment and waits until the archiver has pushed
// it, so that a restore can reach every commit made before the call.
func SwitchAndWait(ctx context.Context, conn *pgx.Conn) error {
	var segment string
	if err := conn.QueryRow(ctx, `SELECT pg_walfile_name(pg_switch_wal())`).Scan(&segment); err != nil {
		return fmt.Errorf("pgbackup: switch WAL: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	for {
		var archived, failed string
		err := conn.QueryRow(ctx, `SELECT coalesce(last_archived_wal, ''), coalesce(last_failed_wal, '') FROM pg_stat_archiver`).Scan(&archived, &failed)
		if err != nil {
			return fmt.Errorf("pgbackup: read pg_stat_archiver: %w", err)
		}
		if archived >= segment {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("pgbackup: WAL segment %s not archived (last archived %q, last failed %q): %w", segment, archived, failed, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Run runs a pgBackRest command on the stanza as the server's user and returns its
// output; a failure carries what pgBackRest said.
func (r *Repository) Run(ctx context.Context, args ...string) (string, error) {
	cmd, err := pgcluster.Command("pgbackrest", r.Dir, append([]string{"--config=" + r.Conf, "--stanza=" + Stanza}, args...)...)
	if err != nil {
		return "", err
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return "", fmt.Errorf("pgbackup: pgbackrest %s: %w", args[0], err)
	}
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		case <-done:
		}
	}()
	err = cmd.Wait()
	close(done)
	text := strings.TrimSpace(out.String())
	if err != nil {
		return text, fmt.Errorf("pgbackup: pgbackrest %s: %w: %s", args[0], err, text)
	}
	return text, nil
}
