package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"

	"github.com/finledger/finledger/imports"
	"github.com/finledger/finledger/ledger"
	"github.com/finledger/finledger/projections"
	"github.com/finledger/finledger/queries"
	"github.com/finledger/finledger/statement"
)

// importFlags declares the import command: a statement file into a preview of a
// wallet's import, committed with --yes.
func importFlags(fs *flag.FlagSet) runner {
	workspace := workspaceFlag(fs)
	wallet := fs.String("wallet", "", "the wallet's id")
	account := fs.String("account", "", "of a file of several accounts, the one to import")
	dateOrder := fs.String("date-order", "", "DMY or MDY, for a CSV or QIF file whose dates read both ways")
	yes := fs.Bool("yes", false, "commit the preview")
	return func(ctx context.Context, cfg config, out io.Writer) error {
		ws, err := workspace()
		if err != nil {
			return err
		}
		walletID, err := uuid.Parse(*wallet)
		if err != nil {
			return usageError{errors.New("--wallet must be a wallet's id")}
		}
		order := statement.DateOrder(strings.ToLower(*dateOrder))
		if order != statement.DateOrderUnknown && order != statement.DateOrderDMY && order != statement.DateOrderMDY {
			return usageError{errors.New("--date-order must be DMY or MDY")}
		}
		path := fs.Arg(0)
		file, err := openStatement(path)
		if err != nil {
			return err
		}
		defer file.Close()
		name := filepath.Base(path)
		upload := imports.Upload{WalletID: walletID, File: file, FileName: &name, Account: *account, CreatedBy: "finledger import",
			Options: statement.Options{CSV: statement.CSVOptions{DateOrder: order}, QIF: statement.QIFOptions{DateOrder: order}}}
		return withPool(ctx, cfg, func(pool *pgxpool.Pool) error {
			imp, err := imports.Preview(ctx, pool, ws, upload, uuid.Must(uuid.NewV7()), time.Now())
			if err != nil {
				return err
			}
			printPreview(out, imp)
			if !*yes {
				fmt.Fprintf(out, "nothing is recorded yet: run again with --yes, or commit preview %s with POST /api/imports/{id}/commit\n", imp.ID)
				return nil
			}
			cmd, rows, err := imports.Commit(ctx, pool, ws, imp.ID)
			if err != nil {
				return err
			}
			l := ledger.NewLedger(pool, projections.Project, time.Now, 1)
			call := ledger.BindImportCommit(cmd, rows)(ledger.Call{WorkspaceID: ws,
				Metadata: ledger.Metadata{ActorType: ledger.ActorSystem, ActorID: "finledger import"}})
			if _, err := l.Execute(ctx, call); err != nil {
				return err
			}
			done, err := imports.Get(ctx, pool, ws, imp.ID, false)
			if err != nil {
				return err
			}
			fmt.Fprintf(out, "committed import %s: %d created, %d merged, %d skipped\n", done.ID, *done.Created, *done.Merged, *done.Skipped)
			return nil
		})
	}
}

// openStatement opens a statement file no larger than imports.MaxFile.
func openStatement(path string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err == nil && info.Size() > imports.MaxFile {
		err = fmt.Errorf("%s is larger than %d MiB: split it", path, imports.MaxFile>>20)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// printPreview prints a preview's summary and its rows.
func printPreview(out io.Writer, imp *imports.Import) {
	s := imp.Summary
	fmt.Fprintf(out, "preview %s: %s, %d rows: %d new, %d duplicate, %d probable; to import %d, merge %d, skip %d\n",
		imp.ID, imp.Format, s.Rows, s.New, s.Duplicate, s.Probable, s.Import, s.Merge, s.Skip)
	fmt.Fprintf(out, "wallet balance %s, after the import %s", dec(s.WalletBalance), dec(s.BalanceAfter))
	if s.Difference != nil {
		fmt.Fprintf(out, ", statement closing balance %s, difference %s", dec(*imp.Statement.ClosingBalance), dec(*s.Difference))
	}
	fmt.Fprintln(out)
	for _, r := range imp.Rows {
		fmt.Fprintf(out, "%5d  %s  %12s  %-6s %-9s %s\n", r.Index, r.Date, dec(r.Amount), r.Decision, r.Match.Verdict, r.Payee)
	}
}

// dec is an amount as the API writes it.
func dec(a queries.Amount) string { return decimal.Decimal(a).String() }
