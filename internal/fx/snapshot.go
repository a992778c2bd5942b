package fx

import (
	"archive/zip"
	"bytes"
	"context"
	_ "embed"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"
)

// snapshot is the ECB's reference history (eurofxref-hist.zip, a CSV of every working
// day since 1999-01-04) as published on SnapshotDate, shipped so that a new
// installation converts from its first minute, without the network.
//
//go:embed eurofxref-hist.zip
var snapshot []byte

// SnapshotDate is the last day of the shipped history.
var SnapshotDate = time.Date(2026, 4, 13, 0, 0, 0, 0, time.UTC)

// SnapshotSource marks the rates loaded from the shipped history.
const SnapshotSource = "ecb-snapshot"

// Snapshot reads the shipped history.
func Snapshot() ([]Rate, error) {
	z, err := zip.NewReader(bytes.NewReader(snapshot), int64(len(snapshot)))
	if err != nil {
		return nil, fmt.Errorf("fx: open snapshot: %w", err)
	}
	if len(z.File) != 1 {
		return nil, errors.New("fx: the snapshot holds more than one file")
	}
	f, err := z.File[0].Open()
	if err != nil {
		return nil, fmt.Errorf("fx: open snapshot: %w", err)
	}
	defer f.Close()
	return ParseECBHistory(f)
}

// currencyCode is an ISO 4217 code's shape.
var currencyCode = regexp.MustCompile(`^[A-Z]{3}$`)

// ParseECBHistory reads the ECB's eurofxref-hist.csv: a header "Date,USD,JPY,..." and
// a line per working day, "N/A" (or nothing) where a currency had no rate that day.
// Errors name the line.
func ParseECBHistory(r io.Reader) ([]Rate, error) {
	c := csv.NewReader(r)
	c.ReuseRecord = true
	header, err := c.Read()
	if err != nil {
		return nil, fmt.Errorf("fx: ecb history header: %w", err)
	}
	if len(header) < 2 || header[0] != "Date" {
		return nil, errors.New(`fx: ecb history: the header does not start with "Date"`)
	}
	currencies := make([]string, len(header))
	for i, h := range header[1:] {
		h = strings.ToUpper(strings.TrimSpace(h))
		if h != "" && !currencyCode.MatchString(h) {
			return nil, fmt.Errorf("fx: ecb history header: %q is not a currency", h)
		}
		currencies[i+1] = h
	}
	var out []Rate
	for line := 2; ; line++ {
		rec, err := c.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("fx: ecb history line %d: %w", line, err)
		}
		date, err := time.Parse(time.DateOnly, rec[0])
		if err != nil {
			return nil, fmt.Errorf("fx: ecb history line %d: date %q: %w", line, rec[0], err)
		}
		for i, v := range rec[1:] {
			v = strings.TrimSpace(v)
			if currencies[i+1] == "" || v == "" || v == "N/A" {
				continue
			}
			rate, err := decimal.NewFromString(v)
			if err != nil || !rate.IsPositive() {
				return nil, fmt.Errorf("fx: ecb history line %d: rate %q for %s is not valid", line, v, currencies[i+1])
			}
			out = append(out, Rate{Base: "EUR", Quote: currencies[i+1], Date: date, Rate: rate})
		}
	}
	if len(out) == 0 {
		return nil, errors.New("fx: the ecb history holds no rates")
	}
	return out, nil
}

// Copier is what loading many rates at once needs of a connection.
type Copier interface {
	DB
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	CopyFrom(ctx context.Context, table pgx.Identifier, columns []string, src pgx.CopyFromSource) (int64, error)
	Begin(ctx context.Context) (pgx.Tx, error)
}

// LoadReference adds many reference rates in one transaction: copied into a
// temporary table, then inserted where no rate of that pair and day exists, so that
// it may run again and never overwrites a rate already stored. It returns how many
// rates were new.
func LoadReference(ctx context.Context, db Copier, rates []Rate, source string, now time.Time) (int64, error) {
	var added int64
	err := pgx.BeginFunc(ctx, db, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `CREATE TEMPORARY TABLE incoming_rates (base text, quote text, date date, rate numeric) ON COMMIT DROP`); err != nil {
			return fmt.Errorf("fx: load reference rates: %w", err)
		}
		_, err := tx.CopyFrom(ctx, pgx.Identifier{"incoming_rates"}, []string{"base", "quote", "date", "rate"},
			pgx.CopyFromSlice(len(rates), func(i int) ([]any, error) {
				r := rates[i]
				return []any{r.Base, r.Quote, r.Date, r.Rate}, nil
			}))
		if err != nil {
			return fmt.Errorf("fx: copy reference rates: %w", err)
		}
		tag, err := tx.Exec(ctx, `INSERT INTO exchange_rates (workspace_id, base, quote, date, rate, source, updated_at)
			SELECT $1, base, quote, date, rate, $2, $3 FROM incoming_rates
			ON CONFLICT (workspace_id, base, quote, date) DO NOTHING`, Reference, source, now)
		if err != nil {
			return fmt.Errorf("fx: load reference rates: %w", err)
		}
		added = tag.RowsAffected()
		return nil
	})
	return added, err
}

// snapshotFirst is the first day of the shipped history.
var snapshotFirst = time.Date(1999, 1, 4, 0, 0, 0, 0, time.UTC)

// LoadSnapshot loads the shipped history into the reference rates, unless its first
// and last days are already there.
func LoadSnapshot(ctx context.Context, db Copier, now time.Time) (int64, error) {
	var loaded bool
	err := db.QueryRow(ctx, `SELECT count(*) = 2 FROM exchange_rates
		WHERE workspace_id = $1 AND base = 'EUR' AND quote = 'USD' AND date IN ($2, $3)`,
		Reference, snapshotFirst, SnapshotDate).Scan(&loaded)
	if err != nil {
		return 0, fmt.Errorf("fx: look for the snapshot: %w", err)
	}
	if loaded {
		return 0, nil
	}
	rates, err := Snapshot()
	if err != nil {
		return 0, err
	}
	return LoadReference(ctx, db, rates, SnapshotSource, now)
}
