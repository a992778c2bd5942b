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

// snapshotFirst is the first day of the shipped history.
var snapshotFirst = time.Date(1999, 1, 4, 0, 0, 0, 0, time.UTC)

// LoadSnapshot loads the shipped history into the reference rates, unless its first
// and last days are already there.
func LoadSnapshot(ctx context.Context, db DB, now time.Time) (int64, error) {
	var loaded bool
	rows, err := db.Query(ctx, `SELECT count(*) = 2 FROM exchange_rates
		WHERE workspace_id = $1 AND base = 'EUR' AND quote = 'USD' AND date IN ($2, $3)`,
		Reference, snapshotFirst, SnapshotDate)
	if err == nil {
		loaded, err = pgx.CollectExactlyOneRow(rows, pgx.RowTo[bool])
	}
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
