package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"
)

// statementTimes reads what pg_stat_statements counts of the statements run during a
// ledger round: where PostgreSQL's own time goes, apart from the round trips.
type statementTimes struct {
	pool *pgxpool.Pool
}

func newStatementTimes(ctx context.Context, pool *pgxpool.Pool) (*statementTimes, error) {
	if _, err := pool.Exec(ctx, `CREATE EXTENSION IF NOT EXISTS pg_stat_statements`); err != nil {
		return nil, fmt.Errorf("bench: pg_stat_statements (it needs a private cluster, started with it preloaded): %w", err)
	}
	return &statementTimes{pool: pool}, nil
}

// start forgets what was counted before the round.
func (s *statementTimes) start(ctx context.Context) error {
	if s == nil {
		return nil
	}
	_, err := s.pool.Exec(ctx, `SELECT pg_stat_statements_reset()`)
	return err
}

// print writes the statements of the bench's database that took the most time.
func (s *statementTimes) print(ctx context.Context, out io.Writer) error {
	if s == nil {
		return nil
	}
	rows, err := s.pool.Query(ctx, `SELECT calls, total_exec_time, total_exec_time / calls, query
		FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
		ORDER BY total_exec_time DESC LIMIT 15`)
	if err != nil {
		return fmt.Errorf("bench: read pg_stat_statements: %w", err)
	}
	defer rows.Close()
	fmt.Fprintf(out, "%10s %12s %10s  %s\n", "calls", "total ms", "mean ms", "statement")
	for rows.Next() {
		var calls int64
		var total, mean float64
		var query string
		if err := rows.Scan(&calls, &total, &mean, &query); err != nil {
			return err
		}
		query = strings.Join(strings.Fields(query), " ")
		if len(query) > 110 {
			query = query[:110] + "..."
		}
		fmt.Fprintf(out, "%10d %12.1f %10.3f  %s\n", calls, total, mean, query)
	}
	return rows.Err()
}
