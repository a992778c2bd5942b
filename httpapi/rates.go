package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/finledger/finledger/commands"
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
	rates, err := fx.InForce(r.Context(), s.pool, activeWorkspace(r), day)
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"date": day.Format(time.DateOnly), "rates": rates})
}

func setExchangeRates(s *Server, w http.ResponseWriter, r *http.Request) {
	_, b, ok := readRequest(w, r, false)
	if !ok {
		return
	}
	date := b.date("date")
	var raw []json.RawMessage
	if _, valid := b.value("rates", &raw, "an array of {base, quote, rate}"); !valid && !b.failed("rates") {
		b.fail("rates", "is required")
	}
	if len(raw) > 200 {
		b.fail("rates", "must hold at most 200 rates")
	}
	var rates []commands.ExchangeRate
	for i, item := range raw {
		rb, err := parseBody(item)
		if err != nil {
			b.fail(fmt.Sprintf("rates[%d]", i), "must be an object {base, quote, rate}")
			continue
		}
		base, quote, rate := currency(rb, "base"), currency(rb, "quote"), rb.number("rate")
		rb.required("base", base.Valid)
		rb.required("quote", quote.Valid)
		rb.required("rate", rate.Valid)
		if err := rb.finish(); err != nil {
			var de *commands.Error
			if errors.As(err, &de) {
				for _, f := range de.Fields {
					b.fail(fmt.Sprintf("rates[%d].%s", i, f.Field), "%s", f.Message)
				}
			}
			continue
		}
		rates = append(rates, commands.ExchangeRate{Base: base.Value, Quote: quote.Value, Rate: rate.Value})
	}
	day := orDefault(date, s.today().Format(time.DateOnly))
	cmd := commands.SetExchangeRates{Date: day, Rates: rates}
	s.run(w, r, b, command{Decide: cmd.Decide, Status: http.StatusOK,
		Answer: queries.Read(func(ctx context.Context, db queries.DB) (any, error) {
			d, _ := commands.ParseDate(day)
			list, err := fx.InForce(ctx, db, activeWorkspace(r), d)
			return map[string]any{"date": day, "rates": list}, err
		})})
}

// rateError turns a missing exchange rate into a clear 422.
func rateError(err error) error {
	if errors.Is(err, fx.ErrNoRate) {
		msg := err.Error()
		if i := strings.Index(msg, "no exchange rate"); i >= 0 {
			msg = msg[i:]
		}
		return &apiError{Status: http.StatusUnprocessableEntity, Code: "EXCHANGE_RATE_MISSING",
			Message: msg + "; set one with PUT /api/exchange-rates"}
	}
	return err
}
