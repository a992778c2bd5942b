package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"slices"
	"time"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/internal/fx"
	"github.com/finledger/finledger/queries"
)

func listExchangeRates(s *Server, w http.ResponseWriter, r *http.Request) {
	q := &query{values: r.URL.Query()}
	day := s.today()
	if d := q.date("date"); d != nil {
		day = *d
	}
	if err := q.err(); err != nil {
		writeError(w, r, err)
		return
	}
	answer, err := ratesAnswer(r.Context(), s.pool, principalFrom(r.Context()).Workspace, day)
	if err != nil {
		writeError(w, r, err)
		return
	}
	respond(w, r, answer)
}

// ratesAnswer lists the rates a workspace sees on a day, and the conversions of its
// wallets' currencies into its own that no rate in force makes.
func ratesAnswer(ctx context.Context, db queries.DB, ws queries.Workspace, day domain.Date) (map[string]any, error) {
	list, err := fx.InForce(ctx, db, ws.ID, day.Time())
	if err != nil {
		return nil, err
	}
	wallets, err := queries.Wallets(ctx, db, ws.ID)
	if err != nil {
		return nil, err
	}
	var currencies []string
	for _, w := range wallets {
		if !slices.Contains(currencies, w.Currency) {
			currencies = append(currencies, w.Currency)
		}
	}
	slices.Sort(currencies)
	missing, err := fx.NewRates(list, day.Time()).Missing(ctx, db, ws.ID, currencies, ws.Currency)
	if err != nil {
		return nil, err
	}
	return map[string]any{"date": day.String(), "rates": list, "missing": missing}, nil
}

func setExchangeRates(s *Server, w http.ResponseWriter, r *http.Request) {
	_, b, ok := readRequest(w, r, false)
	if !ok {
		return
	}
	date := ratesDate.read(b)
	rates := readObjects(b, ratesList, func(rb *body) domain.ExchangeRate {
		return domain.ExchangeRate{Base: rateBase.read(rb).Value, Quote: rateQuote.read(rb).Value, Rate: rateValue.read(rb).Value}
	})
	day := orDefault(date, s.today())
	cmd := domain.SetExchangeRates{Date: day, Rates: rates}
	s.run(w, r, b, command{Decide: cmd.Decide,
		Answer: queries.Read(func(ctx context.Context, db queries.DB) (any, error) {
			return ratesAnswer(ctx, db, principalFrom(r.Context()).Workspace, day)
		})})
}

// ecbImports limits the fetches of the ECB's feed that people ask for to one every ten
// minutes across every instance (its bucket is a row of rate_limits): the feed changes
// once a working day, and nobody may make the service hammer it.
var ecbImports = rateLimiter{perMinute: 0.1, burst: 1, counts: "imports of the ECB's rates"}

// importECBRates fetches the ECB's daily feed and stores its reference rates, which
// every workspace sees; the answer is the caller's rates as GET lists them.
func importECBRates(s *Server, w http.ResponseWriter, r *http.Request) {
	if err := s.take(r.Context(), ecbImports, "ecb-import"); err != nil {
		writeError(w, r, err)
		return
	}
	ctx := r.Context()
	rates, err := fx.ECB{URL: s.ecbURL, Client: &http.Client{Timeout: 15 * time.Second}}.Latest(ctx)
	if err != nil {
		slog.WarnContext(ctx, "ecb rates", "err", err)
		writeError(w, r, &apiError{Status: http.StatusBadGateway, Code: "ECB_UNAVAILABLE",
			Message: "the ECB's rates could not be fetched; enter a rate by hand, or try again later"})
		return
	}
	if err := fx.StoreReference(ctx, s.pool, rates, "ecb", s.now()); err != nil {
		writeError(w, r, err)
		return
	}
	answer, err := ratesAnswer(ctx, s.pool, principalFrom(ctx).Workspace, s.today())
	if err != nil {
		writeError(w, r, err)
		return
	}
	respond(w, r, answer)
}
