package httpapi

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/google/uuid"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/queries"
)

// asOf reads the asOf parameter: the moment in the past a read answers for, nil for
// now.
func (s *Server) asOf(q *query) *time.Time {
	at := q.dateTime("asOf")
	if at != nil && at.After(s.now()) {
		q.fail("asOf", "must not be in the future")
		return nil
	}
	return at
}

// readAt runs read on the read models as they stand, with today's business day, or,
// when at is given, as they stood at that moment, with its business day.
func (s *Server) readAt(ctx context.Context, workspaceID uuid.UUID, at *time.Time, read func(db queries.DB, today domain.Date) error) error {
	if at == nil {
		return read(s.pool, s.dayOf(at))
	}
	cut, err := queries.CutAt(ctx, s.pool, workspaceID, *at)
	if err != nil {
		return historyError(err)
	}
	return queries.AsOf(ctx, s.pool, cut.Version, func(db queries.DB) error { return read(db, s.dayOf(at)) })
}

// dayOf is the business day of the moment a read answers for: at's, or today's.
func (s *Server) dayOf(at *time.Time) domain.Date {
	if at == nil {
		return s.today()
	}
	return domain.BusinessDay(*at)
}

// historyError answers a moment before the workspace's history starts.
func historyError(err error) error {
	if errors.Is(err, queries.ErrHistoryNotKept) {
		return errorf(http.StatusUnprocessableEntity, "HISTORY_NOT_KEPT",
			"this workspace's history starts later than the moment asked for: its data predates the histories, and no replay has rebuilt them since")
	}
	return err
}
