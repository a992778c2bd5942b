package httpapi

import (
	"bytes"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/finledger/finledger/queries"
)

// exportWorkspace answers the workspace's records as a zip (queries.Export). It is a
// bulk read: the zip is read in one read-only snapshot and made whole before it is sent,
// so no connection is held while the client reads. Its scope is team:manage, as the
// audit export's: the export holds the members' addresses, and is the whole workspace in
// one file; a viewer reads each resource through its own listing.
func exportWorkspace(s *Server, w http.ResponseWriter, r *http.Request) {
	p := principalFrom(r.Context())
	at := s.now()
	var zipped bytes.Buffer
	err := pgx.BeginTxFunc(r.Context(), s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly},
		func(tx pgx.Tx) error { return queries.Export(r.Context(), tx, p.Workspace, at, &zipped) })
	if err != nil {
		writeError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/zip")
	w.Header().Set("Content-Disposition", `attachment; filename="finledger-`+at.Format(time.DateOnly)+`.zip"`)
	startAnswer(w, r)
	_, _ = w.Write(zipped.Bytes())
}
