package httpapi

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/finledger/finledger/internal/metrics"
)

// BenchmarkObserve is what the request log line and the metrics add to a request: the
// router and a handler that answers 201, with and without observe in front, logging
// JSON lines to nowhere.
func BenchmarkObserve(b *testing.B) {
	defaultLogger := slog.Default()
	slog.SetDefault(slog.New(slog.NewJSONHandler(io.Discard, nil)))
	defer slog.SetDefault(defaultLogger)
	for _, observed := range []bool{false, true} {
		s := &Server{metrics: metrics.New()}
		r := chi.NewRouter()
		if observed {
			r.Use(s.observe)
		}
		r.Post("/api/transactions", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusCreated) })
		name := "bare"
		if observed {
			name = "observed"
		}
		b.Run(name, func(b *testing.B) {
			req := httptest.NewRequest(http.MethodPost, "/api/transactions", nil)
			for b.Loop() {
				r.ServeHTTP(httptest.NewRecorder(), req)
			}
		})
	}
}
