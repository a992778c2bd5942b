package httpapi

import (
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/finledger/finledger/queries"
)

var auditActions = []string{"create", "update", "delete"}

func listAudit(s *Server, w http.ResponseWriter, r *http.Request) {
	q := &query{values: r.URL.Query()}
	page, size := q.paging()
	f := queries.AuditFilter{Entity: q.text("entity", 64), Action: q.values.Get("action"), From: q.dateTime("from"), To: q.dateTime("to")}
	if f.Action != "" && !slices.Contains(auditActions, f.Action) {
		q.fail("action", "must be one of create, update, delete")
	}
	if f.From != nil && f.To != nil && f.To.Before(*f.From) {
		q.fail("to", "must not be before from")
	}
	if err := q.err(); err != nil {
		writeError(w, r, err)
		return
	}
	f.Limit, f.Offset = size, (page-1)*size
	entries, total, err := queries.Audit(r.Context(), s.pool, activeWorkspace(r), f)
	if err != nil {
		writeError(w, r, err)
		return
	}
	respond(w, r, map[string]any{
		"entries":    entries,
		"pagination": pagination(f.Limit, f.Offset, total),
	})
}

// verifyAudit answers whether the active workspace's chain of events holds, with its
// head, and with formerAt the hash the chain had there before secrets were left out of
// the canonical text (queries.VerifyHistory).
func verifyAudit(s *Server, w http.ResponseWriter, r *http.Request) {
	q := &query{values: r.URL.Query()}
	formerAt := q.version("formerAt")
	if err := q.err(); err != nil {
		writeError(w, r, err)
		return
	}
	check, err := queries.VerifyHistory(r.Context(), s.pool, activeWorkspace(r), formerAt)
	if err != nil {
		writeError(w, r, err)
		return
	}
	respond(w, r, check)
}

// version reads a parameter naming a version of a stream, from 1; nil when left out.
func (q *query) version(name string) *int64 {
	s := q.values.Get(name)
	if s == "" {
		return nil
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v < 1 {
		q.fail(name, "must be a version of the history, an integer from 1")
		return nil
	}
	return &v
}

// exportAudit writes the active workspace's events as JSON lines, each the event's
// canonical text and its chain hash (docs/history.md, "Verifying an export").
func exportAudit(s *Server, w http.ResponseWriter, r *http.Request) {
	ws := activeWorkspace(r)
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Header().Set("Content-Disposition", `attachment; filename="finledger-`+ws.String()+`.jsonl"`)
	startAnswer(w, r)
	err := queries.ExportHistory(r.Context(), s.pool, ws, w)
	// The answer has begun: cut short, its last line is incomplete, and the reader's
	// check of it fails. A reader that went away, or stopped reading past the write
	// deadline, is no fault of the service's.
	switch {
	case errors.Is(err, queries.ErrExportNotTaken):
		slog.InfoContext(r.Context(), "audit export cut short by its reader", "requestId", requestID(r.Context()), "err", err)
	case err != nil:
		slog.ErrorContext(r.Context(), "audit export", "requestId", requestID(r.Context()), "err", err)
	}
}

// dateTime reads an RFC 3339 date-time parameter.
func (q *query) dateTime(name string) *time.Time {
	s := q.values.Get(name)
	if s == "" {
		return nil
	}
	t, err := parseDateTime(s)
	if err != nil {
		q.fail(name, dateTimeRule)
		return nil
	}
	return &t
}
