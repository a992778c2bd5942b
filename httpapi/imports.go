package httpapi

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"os"
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

// fileDeadline bounds the reading of an uploaded file (a statement, a receipt) and the
// writing of a file or an import's answers, past the server's own timeouts: a 64 MiB
// file on a home connection, the answer of 200,000 rows, or the commit of as many
// outlast those. Nothing waits on the client while it holds a database connection: a
// file is spooled whole first, an answer is written once the database is done, and a
// download reads each chunk on a connection it releases before sending it.
const fileDeadline = 10 * time.Minute

// allowFileTime extends the request's read and write deadlines to
// fileDeadline from now.
func allowFileTime(w http.ResponseWriter) {
	rc, deadline := http.NewResponseController(w), time.Now().Add(fileDeadline)
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
	allowFileTime(w)
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
	defer sent.file.Close()
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
		if _, err := sent.file.Seek(0, io.SeekStart); err != nil {
			return nil, fmt.Errorf("httpapi: read the statement again: %w", err)
		}
		return imports.Preview(ctx, s.pool, ws, imports.Upload{WalletID: *walletID, File: sent.file, FileName: sent.name,
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
	writeImport(w, r, imp)
}

// statementUploadSent is what an upload of a statement holds: the file, its name, and a
// CSV's mapping or saved profile, each from a query parameter or a multipart field.
type statementUploadSent struct {
	file             *os.File // spooled (spoolStatement); its reader closes it
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
// as query parameters, or a multipart form of the fields file, mapping and profile. The
// file is spooled as it comes (spoolStatement): an upload holds none of it in memory.
// Unless it fails, the caller closes the file.
func readStatementUpload(w http.ResponseWriter, r *http.Request) (sent statementUploadSent, err error) {
	sent = statementUploadSent{mapping: r.URL.Query().Get("mapping"), profile: r.URL.Query().Get("profile")}
	defer func() {
		if err == nil && sent.file == nil {
			err = domain.InvalidField("file", "is empty: send the statement file as the body, or as the multipart field file")
		}
		if err != nil && sent.file != nil {
			sent.file.Close()
		}
	}()
	body := http.MaxBytesReader(w, r.Body, imports.MaxFile+1<<20)
	media, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if media != "multipart/form-data" {
		sent.file, err = spoolStatement(body)
		return sent, err
	}
	parts := multipart.NewReader(body, params["boundary"])
	for {
		part, err := parts.NextPart()
		if errors.Is(err, io.EOF) {
			return sent, nil
		}
		if err != nil {
			return sent, uploadError(err)
		}
		switch part.FormName() {
		case "file":
			if sent.file != nil {
				return sent, domain.InvalidField("file", "must be sent once")
			}
			if sent.file, err = spoolStatement(part); err != nil {
				return sent, err
			}
			if n := domain.ConceptText.Clean(part.FileName()); n != "" {
				sent.name = &n
			}
		case "mapping", "profile":
			v, err := io.ReadAll(io.LimitReader(part, 4097))
			if err != nil {
				return sent, uploadError(err)
			}
			if len(v) > 4096 {
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

// spoolStatement copies a statement file as it comes into a temporary file, removed
// from its folder at once (it is gone once closed, whatever becomes of the process),
// and returns it open at its start; nil for an empty one. A file past imports.MaxFile
// is refused.
func spoolStatement(rd io.Reader) (*os.File, error) {
	f, err := os.CreateTemp("", "finledger-statement-*")
	if err != nil {
		return nil, fmt.Errorf("httpapi: spool a statement: %w", err)
	}
	_ = os.Remove(f.Name())
	n, err := io.Copy(f, io.LimitReader(rd, imports.MaxFile+1))
	if err == nil && n > imports.MaxFile {
		err = errStatementTooLarge
	}
	if err == nil {
		_, err = f.Seek(0, io.SeekStart)
	}
	if err != nil || n == 0 {
		f.Close()
		return nil, uploadError(err)
	}
	return f, nil
}

// uploadError tells why an upload could not be read: too large, or not read whole.
func uploadError(err error) error {
	var tooLarge *http.MaxBytesError
	switch {
	case err == nil || err == errStatementTooLarge:
		return err
	case errors.As(err, &tooLarge):
		return errStatementTooLarge
	case errors.Is(err, multipart.ErrMessageTooLarge):
		return errStatementTooLarge
	}
	return errorf(http.StatusBadRequest, "INVALID_BODY", "the statement file could not be read")
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
	writeImport(w, r, imp)
}

// writeImport answers an import with its rows, {"import": {..., "rows": [...]}}, as
// respond would, but a row at a time: a statement's 200,000 rows are never held as one
// answer in memory.
func writeImport(w http.ResponseWriter, r *http.Request, imp *imports.Import) {
	rows := imp.Rows
	if len(rows) == 0 {
		respond(w, r, map[string]any{"import": imp})
		return
	}
	bare := *imp
	bare.Rows = nil
	head, err := json.Marshal(&bare) // "rows" is its last field, left out when empty
	if err != nil {
		writeError(w, r, fmt.Errorf("httpapi: encode import %s: %w", imp.ID, err))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	startAnswer(w, r)
	out := bufio.NewWriterSize(w, answerChunk)
	out.WriteString(`{"import":`)
	out.Write(head[:len(head)-1])
	out.WriteString(`,"rows":[`)
	for i := range rows {
		row, err := json.Marshal(&rows[i])
		if err != nil {
			return // the rows are data that always encode: the answer is cut short
		}
		if i > 0 {
			out.WriteByte(',')
		}
		out.Write(row)
	}
	out.WriteString(`]}}`)
	_ = out.Flush()
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
	allowFileTime(w)
	id, b, ok := readRequest(w, r, true)
	if !ok {
		return
	}
	ws := activeWorkspace(r)
	cmd, rows, err := imports.Commit(r.Context(), s.pool, ws, id)
	if err != nil {
		writeError(w, r, err)
		return
	}
	s.run(w, r, b, command{Bind: ledger.BindImportCommit(cmd, rows), Answer: importAnswer(ws, id)})
}

func undoImport(s *Server, w http.ResponseWriter, r *http.Request) {
	allowFileTime(w)
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
