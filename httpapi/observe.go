package httpapi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/http"
	"regexp"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"
)

// requestRecord is what an answered request leaves in the log and the metrics. The
// stages of a request fill it in as they learn: its id first, then who called (guard),
// then the error code, if it failed (writeError). It holds no credential, token, key,
// query string or body.
type requestRecord struct {
	id         string
	workspace  uuid.UUID
	credential string // "session", "api_key" or "channel"; "" before authentication
	code       string // the error envelope's code, if the answer is an error
}

type requestRecordKey struct{}

func recordOf(ctx context.Context) *requestRecord {
	rec, _ := ctx.Value(requestRecordKey{}).(*requestRecord)
	return rec
}

func requestID(ctx context.Context) string {
	if rec := recordOf(ctx); rec != nil {
		return rec.id
	}
	return ""
}

// noteCaller records who a request was authenticated as.
func noteCaller(ctx context.Context, p *principal) {
	rec := recordOf(ctx)
	if rec == nil {
		return
	}
	rec.workspace = p.Workspace.ID
	switch {
	case p.Channel != nil:
		rec.credential = "channel"
	case p.isKey():
		rec.credential = "api_key"
	default:
		rec.credential = "session"
	}
}

var clientRequestID = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,128}$`)

// observe takes a sane X-Request-Id from the client or makes one, and echoes it; once
// the request is answered it logs one line for it and counts it in the metrics, by the
// route pattern that matched rather than the path, which carries ids.
func (s *Server) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &requestRecord{id: r.Header.Get("X-Request-Id")}
		if !clientRequestID.MatchString(rec.id) {
			b := make([]byte, 12)
			_, _ = rand.Read(b)
			rec.id = "req_" + hex.EncodeToString(b)
		}
		w.Header().Set("X-Request-Id", rec.id)
		sw := &statusWriter{ResponseWriter: w}
		r = r.WithContext(context.WithValue(r.Context(), requestRecordKey{}, rec))
		defer func() {
			took := time.Since(start)
			route := ""
			if rc := chi.RouteContext(r.Context()); rc != nil {
				route = rc.RoutePattern()
			}
			status := sw.status
			if status == 0 {
				status = http.StatusOK
			}
			s.metrics.ObserveRequest(route, r.Method, status, took)
			if rec.code != "" {
				s.metrics.ErrorAnswered(rec.code)
			}
			attrs := []slog.Attr{slog.String("requestId", rec.id), slog.String("method", r.Method),
				slog.String("route", route), slog.Int("status", status), slog.Duration("took", took)}
			if rec.credential != "" {
				attrs = append(attrs, slog.String("credential", rec.credential), slog.String("workspace", rec.workspace.String()))
			}
			if rec.code != "" {
				attrs = append(attrs, slog.String("code", rec.code))
			}
			slog.LogAttrs(r.Context(), s.requestLogLevel, "request", attrs...)
		}()
		next.ServeHTTP(sw, r)
	})
}

// statusWriter remembers the status a handler answered with. Unwrap lets
// http.ResponseController reach the connection's Flush and deadlines (the realtime
// stream uses them).
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
