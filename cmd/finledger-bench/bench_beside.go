package main

import (
	"context"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/ledger"
	"github.com/finledger/finledger/projections"
)

// besideWorkspaces registers n users, each with a personal workspace holding a wallet,
// a category and an expense, through the ledger, in parallel: the database of the
// million-transaction workspace then holds as many small workspaces beside it, whose
// rows its reads must not wade through.
func besideWorkspaces(ctx context.Context, pool *pgxpool.Pool, n int, out io.Writer) error {
	start := time.Now()
	l := ledger.NewLedger(pool, projections.Project, time.Now, 64)
	meta := ledger.Metadata{ActorType: ledger.ActorSystem, ActorID: "bench"}
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() {
			for i := next.Add(1) - 1; i < int64(n) && ctx.Err() == nil; i = next.Add(1) - 1 {
				if err := besideWorkspace(ctx, l, meta, i); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return fmt.Errorf("bench: workspaces beside: %w", err)
	}
	fmt.Fprintf(out, "%d workspaces beside it, each with a wallet, a category and an expense, in %s\n", n, time.Since(start).Round(time.Second))
	return nil
}

func besideWorkspace(ctx context.Context, ldg *ledger.Ledger, meta ledger.Metadata, i int64) error {
	owner, err := ldg.RegisterUser(ctx, domain.Identity{Subject: fmt.Sprintf("bench-beside-%d", i), Email: fmt.Sprintf("beside-%d@bench.local", i)})
	if err != nil {
		return err
	}
	workspace := domain.PersonalWorkspaceID(owner)
	wallet, category := uuid.New(), uuid.New()
	for _, decide := range []func(*domain.Workspace) ([]domain.Event, error){
		domain.CreateWallet{WalletID: wallet, WalletFields: domain.WalletFields{Name: "Main", Type: "cash", Currency: "MXN",
			CardColor: "#111827", InitialBalance: decimal.New(1000, 0), IsDefault: true}}.Decide,
		domain.CreateCategory{CategoryID: category, CategoryFields: domain.CategoryFields{Name: "Food", Icon: "tag", Color: "#6366f1"}}.Decide,
		domain.CreateTransaction{TransactionID: uuid.New(), Type: domain.TxExpense, Amount: decimal.New(int64(100+i%900), -2),
			Date: domain.DateOf(2025, time.June, 1), CategoryID: &category}.Decide,
	} {
		if _, err := ldg.Execute(ctx, ledger.Call{WorkspaceID: workspace, Metadata: meta, Decide: decide}); err != nil {
			return err
		}
	}
	return nil
}
