package httpapi

import (
	"net/http"
	"slices"
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
	writeJSON(w, http.StatusOK, map[string]any{
		"entries":    entries,
		"pagination": pagination(f.Limit, f.Offset, total),
	})
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
