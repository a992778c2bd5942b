package fx_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"

	"github.com/finledger/finledger/internal/fx"
	"github.com/finledger/finledger/internal/testkit/testdb"
)

func TestMain(m *testing.M) { os.Exit(testdb.Main(m)) }

func sample(t *testing.T) []byte {
	data, err := os.ReadFile("testdata/eurofxref-daily.xml")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestParseECB(t *testing.T) {
	rates, err := fx.ParseECB(strings.NewReader(string(sample(t))))
	if err != nil {
		t.Fatal(err)
	}
	if len(rates) != 29 {
		t.Fatalf("%d rates, want 29", len(rates))
	}
	byQuote := map[string]fx.Rate{}
	for _, r := range rates {
		byQuote[r.Quote] = r
	}
	mxn := byQuote["MXN"]
	if mxn.Base != "EUR" || mxn.Rate.String() != "18.4765" || mxn.Date.Format(time.DateOnly) != "2026-03-09" {
		t.Fatalf("MXN %+v", mxn)
	}
	for _, bad := range []string{"", "<x/>", `<Envelope><Cube><Cube time="2026-03-09"><Cube currency="USD" rate="-1"/></Cube></Cube></Envelope>`,
		`<Envelope><Cube><Cube time="yesterday"><Cube currency="USD" rate="1"/></Cube></Cube></Envelope>`} {
		if _, err := fx.ParseECB(strings.NewReader(bad)); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}

func TestECBProvider(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write(sample(t)) }))
	defer srv.Close()
	rates, err := fx.ECB{URL: srv.URL}.Latest(context.Background())
	if err != nil || len(rates) != 29 {
		t.Fatalf("%d rates, %v", len(rates), err)
	}
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusBadGateway) }))
	defer down.Close()
	if _, err := (fx.ECB{URL: down.URL}).Latest(context.Background()); err == nil {
		t.Fatal("a failing feed gave rates")
	}
}

// sampleStored is a database holding the sample feed's rates as reference rates.
func sampleStored(t *testing.T) *pgxpool.Pool {
	t.Helper()
	pool := testdb.Pool(t)
	rates, err := fx.ParseECB(strings.NewReader(string(sample(t))))
	if err != nil {
		t.Fatal(err)
	}
	if err := fx.StoreReference(context.Background(), pool, rates, "ecb", time.Now()); err != nil {
		t.Fatal(err)
	}
	return pool
}

func TestConversions(t *testing.T) {
	ctx := context.Background()
	pool := sampleStored(t)
	ws := uuid.New()
	monday := time.Date(2026, 3, 9, 0, 0, 0, 0, time.UTC)
	r, err := fx.Load(ctx, pool, ws, monday.AddDate(0, 0, 5)) // a Saturday uses Monday's rates
	if err != nil {
		t.Fatal(err)
	}
	check := func(from, to, amount, want string) {
		t.Helper()
		got, err := r.Convert(decimal.RequireFromString(amount), from, to)
		if err != nil {
			t.Fatalf("%s %s to %s: %v", amount, from, to, err)
		}
		if got.Round(4).String() != want {
			t.Errorf("%s %s to %s = %s, want %s", amount, from, to, got.Round(4), want)
		}
	}
	check("EUR", "MXN", "10", "184.765")
	check("MXN", "EUR", "184.765", "10")
	check("USD", "MXN", "100", "1705.8905") // across the euro: 100 × 18.4765 / 1.0831
	check("MXN", "MXN", "12.34", "12.34")
	if _, err := r.Rate("MXN", "XAU"); !errors.Is(err, fx.ErrNoRate) {
		t.Fatalf("missing rate: %v", err)
	}
	// A rate older than a week is no rate.
	stale, err := fx.Load(ctx, pool, ws, monday.AddDate(0, 0, 8))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := stale.Rate("USD", "MXN"); !errors.Is(err, fx.ErrNoRate) {
		t.Fatalf("stale rate used: %v", err)
	}
	// A workspace's own rate wins.
	if _, err := pool.Exec(ctx, fx.UpsertSQL, ws, "USD", "MXN", monday, decimal.RequireFromString("17.5"), "manual", time.Now()); err != nil {
		t.Fatal(err)
	}
	own, err := fx.Load(ctx, pool, ws, monday)
	if err != nil {
		t.Fatal(err)
	}
	if rate, _ := own.Rate("USD", "MXN"); rate.String() != "17.5" {
		t.Fatalf("own rate %s", rate)
	}
	if rate, _ := own.Rate("MXN", "USD"); rate.Round(6).String() != "0.057143" {
		t.Fatalf("inverse %s", rate)
	}
}

func TestParseECBHistory(t *testing.T) {
	rates, err := fx.ParseECBHistory(strings.NewReader("Date,USD,MXN,CYP,\n2026-04-13,1.1684,20.3203,N/A,\n2026-04-10,1.1711,N/A,N/A,\n"))
	if err != nil || len(rates) != 3 || rates[1].Quote != "MXN" || rates[1].Rate.String() != "20.3203" || rates[2].Date.Format(time.DateOnly) != "2026-04-10" {
		t.Fatalf("%v %v", rates, err)
	}
	for bad, says := range map[string]string{
		"":                            "header",
		"When,USD\n":                  `"Date"`,
		"Date,DOLLAR\n2026-04-13,1\n": "not a currency",
		"Date,USD\nyesterday,1\n":     "line 2",
		"Date,USD\n2026-04-13,1\n2026-04-10,-1\n": "line 3",
		"Date,USD\n2026-04-13,N/A\n":              "no rates",
	} {
		if _, err := fx.ParseECBHistory(strings.NewReader(bad)); err == nil || !strings.Contains(err.Error(), says) {
			t.Errorf("%q: %v, want %q", bad, err, says)
		}
	}
}

// The shipped history loads in one transaction, quickly, once: a second load adds
// nothing, and a rate already stored for a day is kept.
func TestLoadSnapshot(t *testing.T) {
	ctx := context.Background()
	pool := testdb.Pool(t)
	rates, err := fx.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	last := rates[0]
	if last.Date != fx.SnapshotDate || len(rates) < 150_000 {
		t.Fatalf("%d rates, the first of %s", len(rates), last.Date)
	}
	kept := decimal.RequireFromString("1.5")
	if _, err := pool.Exec(ctx, fx.UpsertSQL, fx.Reference, "EUR", "USD", fx.SnapshotDate.AddDate(0, 0, -3), kept, "ecb", time.Now()); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	rates, err = fx.Snapshot()
	t.Logf("parsed in %s", time.Since(start))
	added, err := fx.LoadSnapshot(ctx, pool, time.Now())
	if err != nil || added != int64(len(rates))-1 {
		t.Fatalf("added %d of %d: %v", added, len(rates), err)
	}
	t.Logf("loaded %d rates in %s", added, time.Since(start))
	if again, err := fx.LoadSnapshot(ctx, pool, time.Now()); err != nil || again != 0 {
		t.Fatalf("second load added %d: %v", again, err)
	}
	r, err := fx.Load(ctx, pool, uuid.New(), fx.SnapshotDate.AddDate(0, 0, -3))
	if err != nil {
		t.Fatal(err)
	}
	if rate, err := r.Rate("EUR", "USD"); err != nil || !rate.Equal(kept) {
		t.Fatalf("the stored rate was overwritten: %s %v", rate, err)
	}
	if rate, err := r.Rate("EUR", "MXN"); err != nil || rate.String() != "20.3184" { // 2026-04-10's
		t.Fatalf("EUR to MXN %s %v", rate, err)
	}
}

// A conversion with no rate in force names the last rate known for it.
func TestMissingRates(t *testing.T) {
	ctx := context.Background()
	pool := sampleStored(t)
	ws := uuid.New()
	later := time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)
	r, err := fx.Load(ctx, pool, ws, later)
	if err != nil {
		t.Fatal(err)
	}
	missing, err := r.Missing(ctx, pool, ws, []string{"MXN", "USD", "XAU"}, "MXN")
	if err != nil || len(missing) != 2 {
		t.Fatalf("%+v %v", missing, err)
	}
	if l := missing[0].LastKnown; missing[0].From != "USD" || l == nil || l.Date != "2026-03-09" || l.Rate.Round(4).String() != "17.0589" || l.Source != "ecb" {
		t.Fatalf("USD %+v %+v", missing[0], l)
	}
	if missing[1].From != "XAU" || missing[1].LastKnown != nil {
		t.Fatalf("XAU %+v", missing[1])
	}
}

// FuzzParseECBHistory: any input gives rates or an error, never a panic, and every
// rate is positive, EUR-based, of a three-letter currency. Seeded with the shipped
// history's first lines; run for minutes with
// go test ./internal/fx -run '^$' -fuzz FuzzParseECBHistory -fuzztime 5m
func FuzzParseECBHistory(f *testing.F) {
	f.Add("Date,USD,JPY,BGN,CYP,\n2026-04-13,1.1684,186.75,N/A,N/A,\n1999-01-04,1.1789,133.73,N/A,0.58231,\n")
	f.Add("Date,USD\n2026-04-13,\"1.1\"\n")
	f.Add("Date\n2026-04-13\n")
	f.Fuzz(func(t *testing.T, in string) {
		rates, err := fx.ParseECBHistory(strings.NewReader(in))
		if err != nil {
			return
		}
		for _, r := range rates {
			if r.Base != "EUR" || !regexp.MustCompile(`^[A-Z]{3}$`).MatchString(r.Quote) || !r.Rate.IsPositive() {
				t.Fatalf("%q gave %+v", in, r)
			}
		}
	})
}
