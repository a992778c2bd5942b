// Package fx owns exchange rates: the feed that brings reference rates (the European
// Central Bank's daily rates), their storage, and the lookup that converts amounts.
// Conversions never guess: a missing rate is an error, never 1:1.
package fx

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/shopspring/decimal"
)

// Rate says 1 Base = Rate Quote on Date.
type Rate struct {
	Base  string          `json:"base"`
	Quote string          `json:"quote"`
	Date  time.Time       `json:"-"`
	Rate  decimal.Decimal `json:"rate"`
}

// Provider is a feed of reference rates.
type Provider interface {
	// Latest returns the feed's most recent rates.
	Latest(ctx context.Context) ([]Rate, error)
}

// ECBDailyURL is where the European Central Bank publishes its daily reference rates.
const ECBDailyURL = "https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml"

// ECB reads the European Central Bank's daily reference rates: euro against about 30
// currencies, published on working days around 16:00 CET.
type ECB struct {
	URL    string
	Client *http.Client
}

// Latest fetches and parses the feed.
func (e ECB) Latest(ctx context.Context) ([]Rate, error) {
	client := e.Client
	if client == nil {
		client = &http.Client{Timeout: 30 * time.Second}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, e.URL, nil)
	if err != nil {
		return nil, fmt.Errorf("fx: ecb request: %w", err)
	}
	res, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fx: fetch ecb rates: %w", err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fx: fetch ecb rates: status %d", res.StatusCode)
	}
	return ParseECB(io.LimitReader(res.Body, 1<<20))
}

// ParseECB reads the ECB's eurofxref XML (daily or historical): every
// <Cube time="..."> of <Cube currency="..." rate="..."/> becomes EUR-based rates.
func ParseECB(r io.Reader) ([]Rate, error) {
	var doc struct {
		Days []struct {
			Time  string `xml:"time,attr"`
			Rates []struct {
				Currency string `xml:"currency,attr"`
				Rate     string `xml:"rate,attr"`
			} `xml:"Cube"`
		} `xml:"Cube>Cube"`
	}
	if err := xml.NewDecoder(r).Decode(&doc); err != nil {
		return nil, fmt.Errorf("fx: parse ecb rates: %w", err)
	}
	var out []Rate
	for _, day := range doc.Days {
		date, err := time.Parse(time.DateOnly, day.Time)
		if err != nil {
			return nil, fmt.Errorf("fx: ecb day %q: %w", day.Time, err)
		}
		for _, c := range day.Rates {
			rate, err := decimal.NewFromString(c.Rate)
			if err != nil || !rate.IsPositive() || len(c.Currency) != 3 {
				return nil, fmt.Errorf("fx: ecb rate %q for %q on %s is not valid", c.Rate, c.Currency, day.Time)
			}
			out = append(out, Rate{Base: "EUR", Quote: strings.ToUpper(c.Currency), Date: date, Rate: rate})
		}
	}
	if len(out) == 0 {
		return nil, errors.New("fx: the ecb document holds no rates")
	}
	return out, nil
}

// Reference is the workspace id under which feed rates are kept, shared by every
// workspace that has not set its own.
var Reference = uuid.Nil

// DB is what the rates need of a connection.
type DB interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// StoreReference saves feed rates as reference rates, all or none: one statement. A
// rate already stored for a pair and day takes the feed's.
func StoreReference(ctx context.Context, db DB, rates []Rate, source string, now time.Time) error {
	_, err := storeReference(ctx, db, rates, source, now, `DO UPDATE SET rate = excluded.rate, source = excluded.source, updated_at = excluded.updated_at`)
	return err
}

// LoadReference adds reference rates, all or none, where no rate of that pair and day is
// stored: it may run again, and never overwrites. It returns how many rates were new.
func LoadReference(ctx context.Context, db DB, rates []Rate, source string, now time.Time) (int64, error) {
	return storeReference(ctx, db, rates, source, now, `DO NOTHING`)
}

// storeReference inserts rates as reference rates in one statement, onConflict saying
// what becomes of a rate already stored; it returns how many rows it wrote.
func storeReference(ctx context.Context, db DB, rates []Rate, source string, now time.Time, onConflict string) (int64, error) {
	bases, quotes, dates, values := make([]string, len(rates)), make([]string, len(rates)), make([]time.Time, len(rates)), make([]string, len(rates))
	for i, r := range rates {
		bases[i], quotes[i], dates[i], values[i] = r.Base, r.Quote, r.Date, r.Rate.String()
	}
	tag, err := db.Exec(ctx, `INSERT INTO exchange_rates (workspace_id, base, quote, date, rate, source, updated_at)
		SELECT $1, base, quote, date, rate, $6, $7 FROM unnest($2::text[], $3::text[], $4::date[], $5::numeric[]) AS r (base, quote, date, rate)
		ON CONFLICT (workspace_id, base, quote, date) `+onConflict,
		Reference, bases, quotes, dates, values, source, now)
	if err != nil {
		return 0, fmt.Errorf("fx: store reference rates: %w", err)
	}
	return tag.RowsAffected(), nil
}

// UpsertSQL saves one rate ($1 workspace, $2 base, $3 quote, $4 date, $5 rate,
// $6 source, $7 time); the projection of the rates a workspace sets uses it too.
const UpsertSQL = `INSERT INTO exchange_rates (workspace_id, base, quote, date, rate, source, updated_at)
	VALUES ($1, $2, $3, $4, $5, $6, $7)
	ON CONFLICT (workspace_id, base, quote, date) DO UPDATE SET rate = excluded.rate, source = excluded.source, updated_at = excluded.updated_at`

// MaxAge is how old the latest rate may be and still count as today's: the ECB
// publishes on working days only, so a Monday uses Friday's rates.
const MaxAge = 7 * 24 * time.Hour

// ErrNoRate reports a conversion without a rate.
var ErrNoRate = errors.New("no exchange rate")

// Rates converts between currencies on a day with the rates a workspace sees: its own
// first, then the reference rates; directly, inverted, or across the euro.
type Rates struct {
	known map[[2]string]Listed
	day   time.Time
}

// Listed is a rate in force, with where it comes from.
type Listed struct {
	Base   string          `json:"base"`
	Quote  string          `json:"quote"`
	Rate   decimal.Decimal `json:"rate"`
	Date   string          `json:"date"`
	Source string          `json:"source"`
}

// MarshalJSON writes the rate as a JSON number with its exact digits, as the API
// writes amounts.
func (l Listed) MarshalJSON() ([]byte, error) {
	type plain Listed
	data, err := json.Marshal(struct {
		plain
		Rate json.Number `json:"rate"`
	}{plain(l), json.Number(l.Rate.String())})
	if err != nil {
		return nil, fmt.Errorf("fx: encode rate: %w", err)
	}
	return data, nil
}

// inForceSQL picks, per pair, the latest rate of the week up to a day, the workspace's
// own winning over the reference.
const inForceSQL = `SELECT DISTINCT ON (base, quote) base, quote, rate, date, source FROM exchange_rates
	WHERE workspace_id IN ($1, $2) AND date <= $3 AND date > $4
	ORDER BY base, quote, (workspace_id = $1) DESC, date DESC`

func scanListed(row pgx.CollectableRow) (Listed, error) {
	var l Listed
	var date time.Time
	err := row.Scan(&l.Base, &l.Quote, &l.Rate, &date, &l.Source)
	l.Date = date.Format(time.DateOnly)
	return l, err
}

// InForce lists the rates a workspace sees on day.
func InForce(ctx context.Context, db DB, workspaceID uuid.UUID, day time.Time) ([]Listed, error) {
	rows, err := db.Query(ctx, inForceSQL, workspaceID, Reference, day, day.Add(-MaxAge))
	if err != nil {
		return nil, fmt.Errorf("fx: rates in force: %w", err)
	}
	list, err := pgx.CollectRows(rows, scanListed)
	if err != nil {
		return nil, fmt.Errorf("fx: rates in force: %w", err)
	}
	if list == nil {
		list = []Listed{}
	}
	return list, nil
}

// Load reads the rates in force on day for a workspace: for each pair, the latest of
// the week up to day, the workspace's own winning over the reference.
func Load(ctx context.Context, db DB, workspaceID uuid.UUID, day time.Time) (*Rates, error) {
	list, err := InForce(ctx, db, workspaceID, day)
	if err != nil {
		return nil, err
	}
	return NewRates(list, day), nil
}

// NewRates converts on day with the rates listed.
func NewRates(list []Listed, day time.Time) *Rates {
	r := &Rates{known: map[[2]string]Listed{}, day: day}
	for _, l := range list {
		r.known[[2]string{l.Base, l.Quote}] = l
	}
	return r
}

// precision is how many decimals a derived rate keeps.
const precision = 12

// Rate returns how many units of to one unit of from buys.
func (r *Rates) Rate(from, to string) (decimal.Decimal, error) {
	l, ok := r.resolve(from, to)
	if !ok {
		return decimal.Decimal{}, fmt.Errorf("%w from %s to %s on %s", ErrNoRate, from, to, r.day.Format(time.DateOnly))
	}
	return l.Rate, nil
}

// resolve finds the rate from one currency to another, dated by its oldest part.
func (r *Rates) resolve(from, to string) (Listed, bool) {
	if from == to {
		return Listed{Base: from, Quote: to, Rate: decimal.NewFromInt(1), Date: r.day.Format(time.DateOnly)}, true
	}
	if l, ok := r.direct(from, to); ok {
		return l, true
	}
	// Across the euro, the reference feed's base.
	viaFrom, ok1 := r.direct(from, "EUR")
	viaTo, ok2 := r.direct("EUR", to)
	if !ok1 || !ok2 {
		return Listed{}, false
	}
	older := viaFrom
	if viaTo.Date < viaFrom.Date {
		older = viaTo
	}
	return Listed{Base: from, Quote: to, Rate: viaFrom.Rate.Mul(viaTo.Rate).Round(precision), Date: older.Date, Source: older.Source}, true
}

func (r *Rates) direct(from, to string) (Listed, bool) {
	if l, ok := r.known[[2]string{from, to}]; ok {
		return l, true
	}
	if l, ok := r.known[[2]string{to, from}]; ok {
		return Listed{Base: from, Quote: to, Rate: decimal.NewFromInt(1).DivRound(l.Rate, precision), Date: l.Date, Source: l.Source}, true
	}
	return Listed{}, false
}

// Convert converts an amount.
func (r *Rates) Convert(amount decimal.Decimal, from, to string) (decimal.Decimal, error) {
	rate, err := r.Rate(from, to)
	if err != nil {
		return decimal.Decimal{}, err
	}
	return amount.Mul(rate), nil
}

// Missing is a conversion with no rate in force (none at all, or only one older than
// MaxAge: stale), with the last rate known for it, nil when there never was one.
type Missing struct {
	From      string  `json:"from"`
	To        string  `json:"to"`
	LastKnown *Listed `json:"lastKnown"`
}

// lastKnownSQL picks, for each pair of $3 and $4, its latest rate up to a day however
// old, the workspace's own winning on the same day.
const lastKnownSQL = `SELECT p.base, p.quote, r.rate, r.date, r.source FROM unnest($3::text[], $4::text[]) AS p (base, quote)
	CROSS JOIN LATERAL (SELECT rate, date, source FROM exchange_rates e
		WHERE e.workspace_id IN ($1, $2) AND e.base = p.base AND e.quote = p.quote AND e.date <= $5
		ORDER BY e.date DESC, (e.workspace_id = $1) DESC LIMIT 1) AS r`

// Missing lists the conversions of currencies into target that r cannot make, each
// with the last rate known for it: one query, run only when some are missing.
func (r *Rates) Missing(ctx context.Context, db DB, workspaceID uuid.UUID, currencies []string, target string) ([]Missing, error) {
	out := []Missing{}
	var bases, quotes []string
	for _, c := range currencies {
		if _, ok := r.resolve(c, target); ok {
			continue
		}
		out = append(out, Missing{From: c, To: target})
		for _, pair := range [][2]string{{c, target}, {target, c}, {c, "EUR"}, {"EUR", c}, {target, "EUR"}, {"EUR", target}} {
			bases, quotes = append(bases, pair[0]), append(quotes, pair[1])
		}
	}
	if len(out) == 0 {
		return out, nil
	}
	rows, err := db.Query(ctx, lastKnownSQL, workspaceID, Reference, bases, quotes, r.day)
	if err != nil {
		return nil, fmt.Errorf("fx: last known rates: %w", err)
	}
	list, err := pgx.CollectRows(rows, scanListed)
	if err != nil {
		return nil, fmt.Errorf("fx: last known rates: %w", err)
	}
	last := NewRates(list, r.day)
	for i, m := range out {
		if l, ok := last.resolve(m.From, m.To); ok {
			out[i].LastKnown = &l
		}
	}
	return out, nil
}
