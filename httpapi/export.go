package httpapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/finledger/finledger/attachments"
	"github.com/finledger/finledger/queries"
)

// exportWorkspace answers the workspace's records as a zip (queries.Export), with the
// receipts' files. It is a bulk read: the zip is read in one read-only snapshot and made
// whole in a temporary file before it is sent, so no connection is held while the client
// reads, and no receipt is held in memory. Its scope is team:manage, as the audit
// export's: the export holds the members' addresses, and is the whole workspace in one
// file; a viewer reads each resource through its own listing.
func exportWorkspace(s *Server, w http.ResponseWriter, r *http.Request) {
	p := principalFrom(r.Context())
	at := s.now()
	zipped, err := os.CreateTemp("", "finledger-export-*")
	if err != nil {
		writeError(w, r, fmt.Errorf("httpapi: export: %w", err))
		return
	}
	defer os.Remove(zipped.Name()) //nolint:errcheck // a temporary file
	defer zipped.Close()           //nolint:errcheck // read only once written
	open := func(ctx context.Context, sha256 string) (io.ReadCloser, string, error) {
		content, err := s.files.Open(ctx, p.Workspace.ID, sha256)
		if errors.Is(err, attachments.ErrNotFound) {
			return nil, "", fmt.Errorf("%w: %w", queries.ErrFileDamaged, err)
		}
		if err != nil {
			return nil, "", err
		}
		return damagedReceipt{content}, string(content.Kind), nil
	}
	err = pgx.BeginTxFunc(r.Context(), s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly},
		func(tx pgx.Tx) error { return queries.Export(r.Context(), tx, p.Workspace, at, zipped, open) })
	if err == nil {
		_, err = zipped.Seek(0, io.SeekStart)
	}
	if err != nil {
		writeError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/zip")
	w.Header().Set("Content-Disposition", `attachment; filename="finledger-`+at.Format(time.DateOnly)+`.zip"`)
	startAnswer(w, r)
	_, _ = io.Copy(w, zipped)
}

// damagedReceipt is a receipt's content whose corruption reads as queries.ErrFileDamaged.
type damagedReceipt struct{ *attachments.Content }

func (d damagedReceipt) Read(p []byte) (int, error) {
	n, err := d.Content.Read(p)
	if errors.Is(err, attachments.ErrCorrupt) {
		err = fmt.Errorf("%w: %w", queries.ErrFileDamaged, err)
	}
	return n, err
}
