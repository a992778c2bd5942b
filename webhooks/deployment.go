package webhooks

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/finledger/finledger/webhooks/bus"
)

// Deployment returns the deployment whose events the database behind pool publishes:
// called name or, when name is empty, by the default name of the database's identity
// (bus.DefaultName), and owned by that identity, so that no two databases share a
// stream or a consumer on one NATS server.
//
// The identity is a random id the migrations store in the database (table deployment):
// it outlives a rename of the database, a failover and a server upgrade. A copy of the
// database made under another database oid (CREATE DATABASE ... TEMPLATE, a restore
// into a new database) would carry its original's id, so it is given one of its own
// here, before anything uses it.
func Deployment(ctx context.Context, pool *pgxpool.Pool, name string) (bus.Deployment, error) {
	if _, err := pool.Exec(ctx, `UPDATE deployment SET id = gen_random_uuid(), database_oid = d.oid, created_at = now()
		FROM pg_database d WHERE d.datname = current_database() AND deployment.database_oid <> d.oid`); err != nil {
		return bus.Deployment{}, fmt.Errorf("webhooks: deployment identity of a copied database: %w", err)
	}
	var id uuid.UUID
	var database string
	err := pool.QueryRow(ctx, `SELECT id, 'database ' || current_database()
		|| coalesce(' on ' || host(inet_server_addr()) || ':' || inet_server_port(), '') FROM deployment`).Scan(&id, &database)
	if errors.Is(err, pgx.ErrNoRows) {
		return bus.Deployment{}, errors.New("webhooks: the database has no deployment identity: apply the migrations (finledger migrate)")
	}
	if err != nil {
		return bus.Deployment{}, fmt.Errorf("webhooks: deployment identity: %w", err)
	}
	if name == "" {
		name = bus.DefaultName(id.String())
	}
	return bus.Deployment{
		Name:  name,
		Owner: bus.Owner{ID: id.String(), Database: database},
		// Deliveries keep the stream positions of their events, and each webhook's go out
		// in that order behind the dispatcher's progress: a new stream (a new name, or a
		// NATS store lost) must continue above them.
		StartAfter: func(ctx context.Context) (uint64, error) {
			var last int64
			if err := pool.QueryRow(ctx, `SELECT coalesce(max(stream_seq), 0) FROM webhook_deliveries`).Scan(&last); err != nil {
				return 0, fmt.Errorf("webhooks: last stream position of the deliveries: %w", err)
			}
			return uint64(last), nil
		},
	}, nil
}

// ConnectBus connects the deployment of the database behind pool (see Deployment) to the
// NATS server or cluster at natsURL, its stream kept by replicas servers, or, when
// natsURL is empty, to a NATS server it starts in this process, keeping its stream under
// dataDir/nats. stop closes the connection and stops that server.
func ConnectBus(ctx context.Context, pool *pgxpool.Pool, natsURL, dataDir, name string, replicas int) (b *bus.Bus, stop func(), err error) {
	deployment, err := Deployment(ctx, pool, name)
	if err != nil {
		return nil, nil, err
	}
	deployment.Replicas = replicas
	url, stopServer := natsURL, func() {}
	if url == "" {
		deployment.Replicas = 1 // one server
		dir := filepath.Join(dataDir, "nats")
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, nil, fmt.Errorf("webhooks: create %s: %w", dir, err)
		}
		embedded, err := bus.StartEmbedded(dir)
		if err != nil {
			return nil, nil, err
		}
		url, stopServer = embedded.URL(), embedded.Shutdown
	}
	if b, err = bus.Connect(ctx, url, deployment); err != nil {
		stopServer()
		if errors.Is(err, bus.ErrStreamOwned) {
			err = fmt.Errorf("%w: deployments sharing a NATS server need names of their own; set FINLEDGER_DEPLOYMENT to a name no other deployment uses", err)
		}
		return nil, nil, err
	}
	slog.Info("bus connected", "deployment", deployment.Name, "stream", b.Names().Stream)
	return b, func() { b.Close(); stopServer() }, nil
}
