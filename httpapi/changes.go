package httpapi

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/queries"
)

// Change-feed page sizes.
const (
	defaultChanges = 100
	maxChanges     = 1000
)

// kindScopes is the read scope each kind of record in the feed needs: a caller gets
// the records it may read, and no others.
var kindScopes = map[string]string{
	queries.KindWallet: scopeWalletsRead, queries.KindCategory: scopeCategoriesRead,
	queries.KindTransaction: scopeTransactionsRead, queries.KindBudget: "budgets:read",
	queries.KindGoal: "goals:read", queries.KindDebt: "debts:read",
}

// readableKinds lists the kinds of record the caller may read.
func readableKinds(p *principal) []string {
	var kinds []string
	for _, k := range queries.RecordKinds() {
		if p.allows(kindScopes[k]) {
			kinds = append(kinds, k)
		}
	}
	return kinds
}

// listChanges answers a page of the change feed: the records the workspace's stream
// touched after the cursor, each with its state at the page's cursor or its deletion.
func listChanges(s *Server, w http.ResponseWriter, r *http.Request) {
	q := &query{values: r.URL.Query()}
	after := q.cursor()
	limit := q.integer("limit", 1, maxChanges, defaultChanges)
	if err := q.err(); err != nil {
		writeError(w, r, err)
		return
	}
	p := principalFrom(r.Context())
	var start int64
	if after != nil {
		start = *after
	}
	page, err := queries.Changes(r.Context(), s.pool, p.Workspace.ID, readableKinds(p), start, limit)
	if errors.Is(err, queries.ErrCursorAhead) {
		err = domain.InvalidField("cursor", "lies beyond the end of the workspace's history: give a cursor an earlier page gave")
	}
	if err != nil {
		writeError(w, r, err)
		return
	}
	respond(w, r, map[string]any{"changes": page.Changes, "cursor": strconv.FormatInt(page.Cursor, 10), "more": page.More})
}

// diffChanges answers the records whose state differs between two moments, each with
// its states then.
func diffChanges(s *Server, w http.ResponseWriter, r *http.Request) {
	q := &query{values: r.URL.Query()}
	from, to := q.dateTime("from"), q.dateTime("to")
	if from == nil && q.values.Get("from") == "" {
		q.fail("from", "is required")
	}
	now := s.now()
	if to == nil {
		to = &now
	}
	switch {
	case from != nil && from.After(now):
		q.fail("from", "must not be in the future")
	case to.After(now):
		q.fail("to", "must not be in the future")
	case from != nil && to.Before(*from):
		q.fail("to", "must not be before from")
	}
	after := q.cursor()
	limit := q.integer("limit", 1, maxChanges, defaultChanges)
	if err := q.err(); err != nil {
		writeError(w, r, err)
		return
	}
	ctx, p := r.Context(), principalFrom(r.Context())
	var cuts [2]queries.Cut
	for i, at := range []*time.Time{from, to} {
		c, err := queries.CutAt(ctx, s.pool, p.Workspace.ID, *at)
		if err != nil {
			writeError(w, r, historyError(err))
			return
		}
		cuts[i] = c
	}
	if after == nil {
		after = &cuts[0].Version
	}
	if *after < cuts[0].Version || *after > cuts[1].Version {
		writeError(w, r, domain.Invalid(domain.FieldError{Field: "cursor", Message: "must be a cursor a page of these moments gave"}))
		return
	}
	page, err := queries.Differences(ctx, s.pool, p.Workspace.ID, readableKinds(p), cuts[0].Version, cuts[1].Version, *after, limit)
	if err != nil {
		writeError(w, r, err)
		return
	}
	var cursor *string
	if page.Next != 0 {
		c := strconv.FormatInt(page.Next, 10)
		cursor = &c
	}
	respond(w, r, map[string]any{"from": cuts[0], "to": cuts[1], "differences": page.Differences, "cursor": cursor, "more": cursor != nil})
}

// cursor reads the cursor parameter: a version of the history an earlier page gave;
// nil when left out.
func (q *query) cursor() *int64 {
	c := q.values.Get("cursor")
	if c == "" {
		return nil
	}
	v, err := strconv.ParseInt(c, 10, 64)
	if err != nil || v < 0 {
		q.fail("cursor", "must be a cursor an earlier page gave, or left out to start")
		return nil
	}
	return &v
}
