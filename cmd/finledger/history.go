package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/queries"
)

// The history commands read a workspace's past as the API's history operations do
// (asOf=, GET /api/changes, GET /api/changes/diff), with every kind of record.

// workspaceFlag declares --workspace and returns its parsed value.
func workspaceFlag(fs *flag.FlagSet) func() (uuid.UUID, error) {
	workspace := fs.String("workspace", "", "the workspace's id")
	return func() (uuid.UUID, error) {
		id, err := uuid.Parse(*workspace)
		if err != nil {
			return uuid.Nil, usageError{errors.New("--workspace must be a workspace's id")}
		}
		return id, nil
	}
}

// momentFlag declares a date-time flag; left out, it is now, or an error when required.
func momentFlag(fs *flag.FlagSet, name, usage string, required bool) func() (time.Time, error) {
	value := fs.String(name, "", usage)
	return func() (time.Time, error) {
		switch {
		case *value == "" && required:
			return time.Time{}, usageError{fmt.Errorf("--%s is required", name)}
		case *value == "":
			return time.Now(), nil
		}
		t, err := time.Parse(time.RFC3339Nano, *value)
		if err != nil {
			return time.Time{}, usageError{fmt.Errorf("--%s must be a date-time such as 2026-12-31T23:59:59Z", name)}
		}
		return t, nil
	}
}

// asofFlags declares the asof command: a workspace's wallets, budgets, goals and debts
// as they stood at a moment, as one JSON object.
func asofFlags(fs *flag.FlagSet) runner {
	workspace := workspaceFlag(fs)
	at := momentFlag(fs, "at", "the moment (RFC 3339); default: now", false)
	return func(ctx context.Context, cfg config, out io.Writer) error {
		id, err := workspace()
		if err != nil {
			return err
		}
		moment, err := at()
		if err != nil {
			return err
		}
		return withPool(ctx, cfg, func(pool *pgxpool.Pool) error {
			cut, err := queries.CutAt(ctx, pool, id, moment)
			if err != nil {
				return err
			}
			answer := map[string]any{"cut": cut}
			err = queries.AsOf(ctx, pool, cut.Version, func(db queries.DB) error {
				var err error
				if answer["wallets"], err = queries.Wallets(ctx, db, id); err != nil {
					return err
				}
				if answer["budgets"], err = queries.Budgets(ctx, db, id, domain.BusinessDay(moment)); err != nil {
					return err
				}
				if answer["goals"], err = queries.Goals(ctx, db, id); err != nil {
					return err
				}
				answer["debts"], err = queries.Debts(ctx, db, id)
				return err
			})
			if err != nil {
				return err
			}
			return json.NewEncoder(out).Encode(answer)
		})
	}
}

// changesFlags declares the changes command: the change feed of a workspace after a
// cursor, to its end, one JSON line per page.
func changesFlags(fs *flag.FlagSet) runner {
	workspace := workspaceFlag(fs)
	cursor := fs.Int64("cursor", 0, "the cursor a previous page gave; default: the beginning")
	limit := fs.Int("limit", 1000, "changes per page")
	return func(ctx context.Context, cfg config, out io.Writer) error {
		id, err := workspace()
		if err != nil {
			return err
		}
		if *cursor < 0 || *limit < 1 {
			return usageError{errors.New("--cursor must be 0 or more, --limit 1 or more")}
		}
		return withPool(ctx, cfg, func(pool *pgxpool.Pool) error {
			enc, after := json.NewEncoder(out), *cursor
			for {
				page, err := queries.Changes(ctx, pool, id, queries.RecordKinds(), after, *limit)
				if err != nil {
					return err
				}
				if err := enc.Encode(map[string]any{"changes": page.Changes, "cursor": fmt.Sprint(page.Cursor), "more": page.More}); err != nil {
					return err
				}
				if !page.More {
					return nil
				}
				after = page.Cursor
			}
		})
	}
}

// diffFlags declares the diff command: the records whose state differs between two
// moments, one JSON line each.
func diffFlags(fs *flag.FlagSet) runner {
	workspace := workspaceFlag(fs)
	from := momentFlag(fs, "from", "the earlier moment (RFC 3339)", true)
	to := momentFlag(fs, "to", "the later moment; default: now", false)
	return func(ctx context.Context, cfg config, out io.Writer) error {
		id, err := workspace()
		if err != nil {
			return err
		}
		moments := [2]time.Time{}
		for i, m := range []func() (time.Time, error){from, to} {
			if moments[i], err = m(); err != nil {
				return err
			}
		}
		if moments[1].Before(moments[0]) {
			return usageError{errors.New("--to must not be before --from")}
		}
		return withPool(ctx, cfg, func(pool *pgxpool.Pool) error {
			var cuts [2]queries.Cut
			for i, m := range moments {
				if cuts[i], err = queries.CutAt(ctx, pool, id, m); err != nil {
					return err
				}
			}
			enc, after := json.NewEncoder(out), cuts[0].Version
			for {
				page, err := queries.Differences(ctx, pool, id, queries.RecordKinds(), cuts[0].Version, cuts[1].Version, after, 1000)
				if err != nil {
					return err
				}
				for _, d := range page.Differences {
					if err := enc.Encode(d); err != nil {
						return err
					}
				}
				if page.Next == 0 {
					return nil
				}
				after = page.Next
			}
		})
	}
}
