package httpapi

import (
	"context"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/imports"
	"github.com/finledger/finledger/ledger"
	"github.com/finledger/finledger/statement"
)

// The request fields of a preview row's change.
var (
	importDecision  = textField{Name: "decision", Enum: domain.ImportDecisions}
	importRowType   = textField{Name: "type", Enum: enum(domain.TxIncome, domain.TxExpense)}
	importMergeWith = idField{Name: "transactionId", Doc: obj{"description": "merge the row with this transaction instead of its match"}}
)

// errStatementTooLarge answers a statement file past imports.MaxFile.
var errStatementTooLarge = errorf(http.StatusRequestEntityTooLarge, "IMPORT_FILE_TOO_LARGE",
	"the statement file is larger than "+strconv.Itoa(imports.MaxFile>>20)+" MiB: split it")

// createImport reads a statement file into a preview: nothing is recorded until its
// commit. The whole file is read from the client before the database is asked anything.
func createImport(s *Server, w http.ResponseWriter, r *http.Request) {
	q := &query{values: r.URL.Query()}
	walletID := q.id("walletId")
	if walletID == nil && q.values.Get("walletId") == "" {
		q.fail("walletId", "is required: the wallet to import into")
	}
	var opts statement.Options
	switch order := statement.DateOrder(strings.ToLower(q.values.Get("dateOrder"))); order {
	case statement.DateOrderUnknown, statement.DateOrderDMY, statement.DateOrderMDY:
		opts.CSV.DateOrder, opts.QIF.DateOrder = order, order
	default:
		q.fail("dateOrder", "must be DMY or MDY")
	}
	account := q.text("account", 100)
	if err := q.err(); err != nil {
		writeError(w, r, err)
		return
	}
	data, name, err := readStatementFile(w, r)
	if err != nil {
		writeError(w, r, err)
		return
	}
	ctx := r.Context()
	imp, err := imports.Preview(ctx, s.pool, activeWorkspace(r), imports.Upload{WalletID: *walletID, Data: data, FileName: name,
		Options: opts, Account: account, CreatedBy: principalFrom(ctx).Metadata.ActorID}, newID(), s.now())
	if err != nil {
		writeError(w, r, err)
		return
	}
	respond(w, r, map[string]any{"import": imp})
}

// readStatementFile reads the statement file: the body itself, or the multipart field
// "file", with its name when the part gives one.
func readStatementFile(w http.ResponseWriter, r *http.Request) ([]byte, *string, error) {
	body := http.MaxBytesReader(w, r.Body, imports.MaxFile+1<<20)
	read := func(rd io.Reader) ([]byte, error) {
		data, err := io.ReadAll(rd)
		var tooLarge *http.MaxBytesError
		switch {
		case errors.As(err, &tooLarge) || len(data) > imports.MaxFile:
			return nil, errStatementTooLarge
		case err != nil:
			return nil, errorf(http.StatusBadRequest, "INVALID_BODY", "the statement file could not be read")
		case len(data) == 0:
			return nil, domain.InvalidField("file", "is empty: send the statement file as the body, or as the multipart field file")
		}
		return data, nil
	}
	media, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if media != "multipart/form-data" {
		data, err := read(io.LimitReader(body, imports.MaxFile+1))
		return data, nil, err
	}
	parts := multipart.NewReader(body, params["boundary"])
	for {
		part, err := parts.NextPart()
		if err != nil {
			var tooLarge *http.MaxBytesError
			if errors.As(err, &tooLarge) {
				return nil, nil, errStatementTooLarge
			}
			return nil, nil, domain.InvalidField("file", "is missing: send the statement file as the multipart field file")
		}
		if part.FormName() != "file" {
			continue
		}
		data, err := read(io.LimitReader(part, imports.MaxFile+1))
		if err != nil {
			return nil, nil, err
		}
		var name *string
		if n := domain.ConceptText.Clean(part.FileName()); n != "" {
			name = &n
		}
		return data, name, nil
	}
}

func listImports(s *Server, w http.ResponseWriter, r *http.Request) {
	q := &query{values: r.URL.Query()}
	page, size := q.paging()
	if err := q.err(); err != nil {
		writeError(w, r, err)
		return
	}
	list, total, err := imports.List(r.Context(), s.pool, activeWorkspace(r), size, (page-1)*size)
	if err != nil {
		writeError(w, r, err)
		return
	}
	respond(w, r, map[string]any{"imports": list, "pagination": pagination(size, (page-1)*size, total)})
}

func getImport(s *Server, w http.ResponseWriter, r *http.Request) {
	id, err := pathID(r, "id")
	if err != nil {
		writeError(w, r, err)
		return
	}
	imp, err := imports.Get(r.Context(), s.pool, activeWorkspace(r), id, true)
	if err != nil {
		writeError(w, r, err)
		return
	}
	respond(w, r, map[string]any{"import": imp})
}

func changeImportRow(s *Server, w http.ResponseWriter, r *http.Request) {
	id, b, ok := readRequest(w, r, true)
	if !ok {
		return
	}
	c := imports.RowChange{Decision: importDecision.read(b).Ptr(), Concept: transactionConcept.read(b),
		CategoryID: transactionCategory.read(b), TagID: recordTag.read(b), MergeWith: importMergeWith.read(b).Ptr()}
	if t := importRowType.read(b); t.Set {
		typ := domain.TransactionType(t.Value)
		c.Type = &typ
	}
	if err := b.finish(); err != nil {
		writeError(w, r, err)
		return
	}
	index, err := strconv.Atoi(chi.URLParam(r, "index"))
	if err != nil || index < 0 {
		writeError(w, r, domain.InvalidField("index", "must be a row's index, from 0"))
		return
	}
	row, err := imports.ChangeRow(r.Context(), s.pool, activeWorkspace(r), id, index, c)
	if err != nil {
		writeError(w, r, err)
		return
	}
	respond(w, r, map[string]any{"row": row})
}

func commitImport(s *Server, w http.ResponseWriter, r *http.Request) {
	id, b, ok := readRequest(w, r, true)
	if !ok {
		return
	}
	ws := activeWorkspace(r)
	cmd, revision, err := imports.Commit(r.Context(), s.pool, ws, id, newID)
	if err != nil {
		writeError(w, r, err)
		return
	}
	s.run(w, r, b, command{Bind: ledger.BindImportCommit(cmd, revision), Answer: importAnswer(ws, id)})
}

func undoImport(s *Server, w http.ResponseWriter, r *http.Request) {
	id, b, ok := readRequest(w, r, true)
	if !ok {
		return
	}
	ws := activeWorkspace(r)
	cmd, err := imports.Undo(r.Context(), s.pool, ws, id)
	if err != nil {
		writeError(w, r, err)
		return
	}
	s.run(w, r, b, command{Bind: ledger.BindImportUndo(cmd), Answer: importAnswer(ws, id)})
}

// importAnswer answers an import's command with the import, without its rows.
func importAnswer(workspaceID, id uuid.UUID) ledger.Answer {
	return ledger.AnswerFunc(func(*pgx.Batch, []ledger.Appended) ledger.Answering {
		return func(ctx context.Context, conn ledger.Conn) (any, error) {
			imp, err := imports.Get(ctx, conn, workspaceID, id, false)
			if err != nil {
				return nil, err
			}
			return map[string]any{"import": imp}, nil
		}
	})
}
