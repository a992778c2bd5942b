package main

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/finledger/finledger/httpapi/session"
	"github.com/finledger/finledger/internal/pgcluster"
)

// Development identity: the user `finledger dev` prints a token for, and the file of
// the data folder that token is kept in, to be found again once the console scrolled.
const (
	devSubject   = "dev-user"
	devEmail     = "dev@finledger.local"
	devName      = "Dev User"
	devTokenFile = "dev-token"
)

// dev runs the whole service with no configuration: a private PostgreSQL cluster in the
// data folder (unless FINLEDGER_DATABASE_URL names one) and a development identity
// provider whose secret is kept in the data folder. Unlike serve, it also serves the
// metrics on the API's listener, and logs requests at Debug: the development token it
// prints last, and keeps in the data folder (devTokenFile), stays in sight.
func dev(ctx context.Context, cfg config, out io.Writer) error {
	dataDir, err := filepath.Abs(cfg.DataDir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dataDir, 0o755); err != nil {
		return fmt.Errorf("create data folder: %w", err)
	}
	if cfg.DatabaseURL == "" {
		logFile, err := os.OpenFile(filepath.Join(dataDir, "postgres.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return fmt.Errorf("open postgres log: %w", err)
		}
		defer logFile.Close()
		pgDir := clusterDir(dataDir)
		fmt.Fprintf(out, "starting PostgreSQL in %s ...\n", pgDir)
		cluster, err := pgcluster.Start(ctx, pgcluster.Options{Dir: pgDir, Log: logFile})
		if err != nil {
			return err
		}
		defer cluster.Stop()
		if err := ensureDatabase(ctx, cluster.URL("postgres"), "finledger"); err != nil {
			return err
		}
		cfg.DatabaseURL = cluster.URL("finledger")
	}
	if cfg.SessionJWKSURL == "" && cfg.SessionHS256Secret == "" {
		if cfg.SessionHS256Secret, err = keptSecret(dataDir, "dev-session-secret"); err != nil {
			return err
		}
	}
	cfg.DevSignIn, cfg.PublicMetrics, cfg.QuietRequests, cfg.DevRates = true, true, true, true
	return serve(ctx, cfg, func(base string) {
		fmt.Fprintf(out, "\nFinledger is running at %s\nOpen %s/app/ in a browser and sign in with one click.\n", base, base)
		if cfg.SessionHS256Secret == "" {
			return
		}
		tok, err := session.MintHS256(cfg.SessionHS256Secret, session.Claims{Subject: devSubject, Email: devEmail, Name: devName, Issuer: cfg.SessionIssuer},
			time.Now(), 30*24*time.Hour, cfg.SessionAudience)
		if err != nil {
			fmt.Fprintln(out, "could not mint a development token:", err)
			return
		}
		kept := filepath.Join(dataDir, devTokenFile)
		if err := writePrivate(kept, tok+"\n"); err != nil {
			fmt.Fprintln(out, "could not keep the development token:", err)
			kept = "nowhere; `finledger token` mints another"
		}
		fmt.Fprintf(out, "Development session token (30 days, user %s; kept in %s):\n\n  %s\n\nTry:\n  curl -H 'Authorization: Bearer %s' %s/api/me\n\n",
			devEmail, kept, tok, tok, base)
	})
}

// clusterDir is where dev keeps its PostgreSQL cluster: inside the data folder, unless
// the server (which cannot run as root) could not reach it there, as under a root
// user's private home; then in a folder of /var/tmp named after the data folder.
func clusterDir(dataDir string) string {
	dir := filepath.Join(dataDir, "postgres")
	if pgcluster.Reachable(dir) == nil {
		return dir
	}
	sum := sha256.Sum256([]byte(dataDir))
	return filepath.Join("/var/tmp", "finledger-postgres-"+hex.EncodeToString(sum[:6]))
}

// ensureDatabase creates a database unless it exists.
func ensureDatabase(ctx context.Context, adminURL, name string) error {
	conn, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		return fmt.Errorf("connect to postgres: %w", err)
	}
	defer conn.Close(ctx)
	var exists bool
	if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)`, name).Scan(&exists); err != nil {
		return fmt.Errorf("look up database %s: %w", name, err)
	}
	if exists {
		return nil
	}
	if _, err := conn.Exec(ctx, `CREATE DATABASE `+pgx.Identifier{name}.Sanitize()); err != nil {
		return fmt.Errorf("create database %s: %w", name, err)
	}
	return nil
}

// keptSecret returns a random 32-byte secret, as 64 hex digits, kept in a file of the
// data folder and made on first use: the development identity provider's, or the key
// that seals secrets at rest outside production.
func keptSecret(dataDir, file string) (string, error) {
	data, err := keptFile(dataDir, file, func() ([]byte, error) {
		b := make([]byte, 32)
		if _, err := rand.Read(b); err != nil {
			return nil, err
		}
		return []byte(hex.EncodeToString(b) + "\n"), nil
	})
	return strings.TrimSpace(string(data)), err
}

// keptFile returns the content of a file of the data folder, written by create on
// first use.
func keptFile(dataDir, file string, create func() ([]byte, error)) ([]byte, error) {
	path := filepath.Join(dataDir, file)
	data, err := os.ReadFile(path)
	if err == nil {
		return data, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if data, err = create(); err != nil {
		return nil, fmt.Errorf("make %s: %w", path, err)
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, fmt.Errorf("create data folder: %w", err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	return data, nil
}

// writePrivate writes a file only its owner may read, replacing what it held.
func writePrivate(path, content string) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	// A file made before, by hand, may have been readable by others.
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return fmt.Errorf("restrict %s: %w", path, err)
	}
	if _, err := f.WriteString(content); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Close()
}

// tokenFlags declares the token command's flags: it mints a session token with
// FINLEDGER_SESSION_HS256_SECRET or, failing that, the secret `finledger dev` keeps in
// the data folder.
func tokenFlags(fs *flag.FlagSet) runner {
	sub := fs.String("sub", "", "subject (user id at the identity provider)")
	email := fs.String("email", "", "email address")
	name := fs.String("name", "", "display name")
	ttl := fs.Duration("ttl", 24*time.Hour, "lifetime")
	return func(_ context.Context, cfg config, out io.Writer) error {
		if *sub == "" || *email == "" {
			return usageError{errors.New("token needs --sub and --email")}
		}
		secret := cfg.SessionHS256Secret
		if secret == "" {
			data, err := os.ReadFile(filepath.Join(cfg.DataDir, "dev-session-secret"))
			if err != nil {
				return errors.New("set FINLEDGER_SESSION_HS256_SECRET, or run `finledger dev` once to create a development secret")
			}
			secret = strings.TrimSpace(string(data))
		}
		tok, err := session.MintHS256(secret, session.Claims{Subject: *sub, Email: *email, Name: *name, Issuer: cfg.SessionIssuer},
			time.Now(), *ttl, cfg.SessionAudience)
		if err != nil {
			return err
		}
		fmt.Fprintln(out, tok)
		return nil
	}
}
