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
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/imports"
	"github.com/finledger/finledger/ledger"
	"github.com/finledger/finledger/queries"
	"github.com/finledger/finledger/statement"
)

// The request fields of a preview row's change.
var (
	importDecision  = textField{Name: "decision", Enum: domain.ImportDecisions}
	importRowType   = textField{Name: "type", Enum: enum(domain.TxIncome, domain.TxExpense, domain.TxTransfer)}
	importToWallet  = idField{Name: "toWalletId", Doc: obj{"description": "with type transfer: the wallet the money goes to"}}
	importMergeWith = idField{Name: "transactionId", Doc: obj{"description": "merge the row with this transaction instead of its match"}}
)

// statementDeadline bounds the reading of a statement's upload and the writing of an
// import's answers, past the server's own timeouts: a 64 MiB file on a home connection,
// the answer of 200,000 rows, or the commit of as many outlast those. Nothing waits on
// the client while it holds a database connection: the file is read whole first, and
// an answer is written once the database is done.
const statementDeadline = 10 * time.Minute

// allowStatementTime extends the request's read and write deadlines to
// statementDeadline from now.
func allowStatementTime(w http.ResponseWriter) {
	rc, deadline := http.NewResponseController(w), time.Now().Add(statementDeadline)
	// A server without deadlines does not support them: there is nothing to extend.
	_ = rc.SetReadDeadline(deadline)
	_ = rc.SetWriteDeadline(deadline)
}

// errStatementTooLarge answers a statement file past imports.MaxFile.
var errStatementTooLarge = errorf(http.StatusRequestEntityTooLarge, "IMPORT_FILE_TOO_LARGE",
	"the statement file is larger than "+strconv.Itoa(imports.MaxFile>>20)+" MiB: split it")

// createImport reads a statement file into a preview: nothing is recorded until its
// commit. The whole file is read from the client before the database is asked anything.
func createImport(s *Server, w http.ResponseWriter, r *http.Request) {
	allowStatementTime(w)
	q := &query{values: r.URL.Query()}
	walletID := q.id("walletId")
	if walletID == nil && q.values.Get("walletId") == "" {
		q.fail("walletId", "is required: the wallet to import into")
	}
	order := statement.DateOrder(strings.ToLower(q.values.Get("dateOrder")))
	if order != statement.DateOrderUnknown && order != statement.DateOrderDMY && order != statement.DateOrderMDY {
		q.fail("dateOrder", "must be DMY or MDY")
	}
	account := q.text("account", 100)
	if err := q.err(); err != nil {
		writeError(w, r, err)
		return
	}
	sent, err := readStatementUpload(w, r)
	if err != nil {
		writeError(w, r, err)
		return
	}
	ctx, ws := r.Context(), activeWorkspace(r)
	opts, fallback, err := s.csvOptionsOf(r, ws, *walletID, sent)
	if err != nil {
		writeError(w, r, err)
		return
	}
	preview := func(opts statement.CSVOptions) (*imports.Import, error) {
		if order != statement.DateOrderUnknown {
			opts.DateOrder = order
		}
		return imports.Preview(ctx, s.pool, ws, imports.Upload{WalletID: *walletID, Data: sent.file, FileName: sent.name,
			Options: statement.Options{CSV: opts, QIF: statement.QIFOptions{DateOrder: opts.DateOrder}}, Account: account,
			CreatedBy: principalFrom(ctx).Metadata.ActorID}, newID(), s.now())
	}
	imp, err := preview(opts)
	var refused *domain.Error
	if fallback != nil && errors.As(err, &refused) && refused.Code == "IMPORT_MAPPING_REQUIRED" {
		imp, err = preview(*fallback)
	}
	if err != nil {
		writeError(w, r, err)
		return
	}
	respond(w, r, map[string]any{"import": imp})
}

// statementUploadSent is what an upload of a statement holds: the file, its name, and a
// CSV's mapping or saved profile, each from a query parameter or a multipart field.
type statementUploadSent struct {
	file             []byte
	name             *string
	mapping, profile string
}

// csvOptionsOf are the CSV reader's options of an upload: its mapping, else its
// profile's, else none (the header's names must say) with, as the fallback for a header
// that does not say plainly, the wallet's one profile when it has exactly one.
func (s *Server) csvOptionsOf(r *http.Request, workspaceID, walletID uuid.UUID, sent statementUploadSent) (statement.CSVOptions, *statement.CSVOptions, error) {
	ctx := r.Context()
	if sent.mapping != "" {
		m, err := importMappingOf("mapping", sent.mapping)
		return csvOptions(m), nil, err
	}
	if sent.profile != "" {
		id, err := parseUUID(sent.profile)
		if err != nil {
			return statement.CSVOptions{}, nil, domain.InvalidField("profile", "must be an import profile's id")
		}
		p, err := queries.ImportProfileByID(workspaceID, id).Get(ctx, s.pool)
		if err != nil {
			return statement.CSVOptions{}, nil, notFoundAs(err, "IMPORT_PROFILE_NOT_FOUND", "import profile not found")
		}
		return csvOptions(domain.ImportMapping(p.Mapping)), nil, nil
	}
	profiles, err := queries.ImportProfiles(ctx, s.pool, workspaceID, &walletID)
	if err != nil || len(profiles) != 1 {
		return statement.CSVOptions{}, nil, err
	}
	fallback := csvOptions(domain.ImportMapping(profiles[0].Mapping))
	return statement.CSVOptions{}, &fallback, nil
}

// readStatementUpload reads an upload: the file as the body, with mapping and profile
// as query parameters, or a multipart form of the fields file, mapping and profile.
func readStatementUpload(w http.ResponseWriter, r *http.Request) (statementUploadSent, error) {
	sent := statementUploadSent{mapping: r.URL.Query().Get("mapping"), profile: r.URL.Query().Get("profile")}
	body := http.MaxBytesReader(w, r.Body, imports.MaxFile+1<<20)
	read := func(rd io.Reader, limit int) ([]byte, error) {
		data, err := io.ReadAll(io.LimitReader(rd, int64(limit)+1))
		var tooLarge *http.MaxBytesError
		switch {
		case errors.As(err, &tooLarge) || len(data) > limit:
			return nil, errStatementTooLarge
		case err != nil:
			return nil, errorf(http.StatusBadRequest, "INVALID_BODY", "the statement file could not be read")
		}
		return data, nil
	}
	media, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if media != "multipart/form-data" {
		data, err := read(body, imports.MaxFile)
		sent.file = data
		return sent, nonEmpty(data, err)
	}
	parts := multipart.NewReader(body, params["boundary"])
	for {
		part, err := parts.NextPart()
		if errors.Is(err, io.EOF) {
			return sent, nonEmpty(sent.file, nil)
		}
		if err != nil {
			var tooLarge *http.MaxBytesError
			if errors.As(err, &tooLarge) {
				return sent, errStatementTooLarge
			}
			return sent, errorf(http.StatusBadRequest, "INVALID_BODY", "the multipart form could not be read")
		}
		switch part.FormName() {
		case "file":
			if sent.file, err = read(part, imports.MaxFile); err != nil {
				return sent, err
			}
			if n := domain.ConceptText.Clean(part.FileName()); n != "" {
				sent.name = &n
			}
		case "mapping", "profile":
			v, err := read(part, 4096)
			if err != nil {
				return sent, domain.InvalidField(part.FormName(), "must be at most 4096 bytes")
			}
			if part.FormName() == "mapping" {
				sent.mapping = string(v)
			} else {
				sent.profile = strings.TrimSpace(string(v))
			}
		}
	}
}

// nonEmpty refuses an upload without a file.
func nonEmpty(file []byte, err error) error {
	if err == nil && len(file) == 0 {
		return domain.InvalidField("file", "is empty: send the statement file as the body, or as the multipart field file")
	}
	return err
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
		CategoryID: transactionCategory.read(b), TagID: recordTag.read(b), MergeWith: importMergeWith.read(b).Ptr(),
		ToWalletID: importToWallet.read(b).Ptr()}
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
	answer := map[string]any{"row": row}
	if category := c.CategoryID.Ptr(); category != nil {
		// A correction of the category offers the rule that would have made it.
		answer["suggestedRule"] = ruleFromCorrection(row.Payee, *category)
	}
	respond(w, r, answer)
}

func discardImport(s *Server, w http.ResponseWriter, r *http.Request) {
	id, b, ok := readRequest(w, r, true)
	if !ok {
		return
	}
	if err := b.finish(); err != nil {
		writeError(w, r, err)
		return
	}
	if err := imports.Discard(r.Context(), s.pool, activeWorkspace(r), id); err != nil {
		writeError(w, r, err)
		return
	}
	respond(w, r, map[string]bool{"ok": true})
}

func commitImport(s *Server, w http.ResponseWriter, r *http.Request) {
	allowStatementTime(w)
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
	allowStatementTime(w)
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
