package httpapi

import (
	"errors"
	"io"
	"log/slog"
	"mime"
	"mime/multipart"
	"net/http"
	"strconv"

	"github.com/finledger/finledger/attachments"
	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/queries"
)

// The errors of a receipt's upload.
var (
	errAttachmentTooLarge = errorf(http.StatusRequestEntityTooLarge, "ATTACHMENT_TOO_LARGE",
		"the file is larger than "+strconv.Itoa(attachments.MaxSize>>20)+" MiB")
	errAttachmentKind = errorf(http.StatusUnsupportedMediaType, "ATTACHMENT_TYPE_UNSUPPORTED",
		"the file is not a JPEG, PNG, WebP, HEIC or PDF file, as its content tells")
)

// attachFile stores a receipt and attaches it to a transaction. The file is spooled
// whole from the client first, then stored, then named by the command's event: an
// attachment never names content that is not stored, and content a refused command
// stored is purged when nothing names it.
func attachFile(s *Server, w http.ResponseWriter, r *http.Request) {
	allowFileTime(w)
	transactionID, err := pathID(r, "id")
	if err != nil {
		writeError(w, r, err)
		return
	}
	upload, name, err := readAttachmentUpload(w, r)
	if err != nil {
		writeError(w, r, err)
		return
	}
	defer upload.Close()
	ws := activeWorkspace(r)
	if err := s.files.Save(r.Context(), ws, upload); err != nil {
		writeError(w, r, err)
		return
	}
	cmd := domain.AttachFile{AttachmentID: newID(), TransactionID: transactionID, SHA256: upload.SHA256, Size: upload.Size,
		ContentType: upload.Kind.MIME(), FileName: name}
	// The request an Idempotency-Key stands for is the file and its name.
	b := &body{raw: []byte(upload.SHA256 + "\n" + name)}
	s.run(w, r, b, command{Decide: cmd.Decide,
		Answer: queries.Record("attachment", queries.AttachmentByID(ws, transactionID, cmd.AttachmentID))})
}

// readAttachmentUpload reads a receipt sent as the body (its name in the query parameter
// fileName) or as the multipart field file (its name the part's), spooled as it comes.
func readAttachmentUpload(w http.ResponseWriter, r *http.Request) (*attachments.Upload, string, error) {
	body := http.MaxBytesReader(w, r.Body, attachments.MaxSize+1<<20)
	media, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if media != "multipart/form-data" {
		u, err := attachments.Spool(body)
		return u, r.URL.Query().Get("fileName"), attachmentError(err)
	}
	parts := multipart.NewReader(body, params["boundary"])
	for {
		part, err := parts.NextPart()
		if errors.Is(err, io.EOF) {
			return nil, "", attachmentError(attachments.ErrEmpty)
		}
		if err != nil {
			return nil, "", attachmentError(err)
		}
		if part.FormName() == "file" {
			u, err := attachments.Spool(part)
			return u, part.FileName(), attachmentError(err)
		}
	}
}

// attachmentError tells why a receipt could not be taken.
func attachmentError(err error) error {
	var tooLarge *http.MaxBytesError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, attachments.ErrEmpty):
		return domain.InvalidField("file", "is empty: send the receipt as the body, or as the multipart field file")
	case errors.Is(err, attachments.ErrTooLarge), errors.As(err, &tooLarge), errors.Is(err, multipart.ErrMessageTooLarge):
		return errAttachmentTooLarge
	case errors.Is(err, attachments.ErrKind):
		return errAttachmentKind
	}
	return errorf(http.StatusBadRequest, "INVALID_BODY", "the file could not be read")
}

// listAttachments lists a transaction's files.
func listAttachments(s *Server, w http.ResponseWriter, r *http.Request) {
	transactionID, err := pathID(r, "id")
	if err != nil {
		writeError(w, r, err)
		return
	}
	ws := activeWorkspace(r)
	if _, err := queries.TransactionByID(ws, transactionID).Get(r.Context(), s.pool); err != nil {
		writeError(w, r, notFoundAs(err, "TRANSACTION_NOT_FOUND", "transaction not found"))
		return
	}
	list, err := queries.Attachments(r.Context(), s.pool, ws, transactionID)
	if err != nil {
		writeError(w, r, err)
		return
	}
	respond(w, r, map[string]any{"attachments": list})
}

// attachment looks up the attachment the path names.
func (s *Server) attachment(r *http.Request) (queries.Attachment, error) {
	transactionID, err := pathID(r, "id")
	if err != nil {
		return queries.Attachment{}, err
	}
	id, err := pathID(r, "attachmentId")
	if err != nil {
		return queries.Attachment{}, err
	}
	a, err := queries.AttachmentByID(activeWorkspace(r), transactionID, id).Get(r.Context(), s.pool)
	return a, notFoundAs(err, "ATTACHMENT_NOT_FOUND", "attachment not found")
}

// downloadAttachment sends a file, always as a download: never shown by the browser as
// a page of the service's origin, whatever it holds.
func downloadAttachment(s *Server, w http.ResponseWriter, r *http.Request) {
	allowFileTime(w)
	a, err := s.attachment(r)
	if err != nil {
		writeError(w, r, err)
		return
	}
	content, err := s.files.Open(r.Context(), activeWorkspace(r), a.SHA256)
	if err != nil {
		writeError(w, r, err)
		return
	}
	defer content.Close()
	name := "attachment-" + a.ID.String()
	if a.FileName != nil {
		name = *a.FileName
	}
	h := w.Header()
	h.Set("Content-Type", content.Kind.MIME())
	h.Set("Content-Length", strconv.FormatInt(content.Size, 10))
	h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": name}))
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'none'; sandbox")
	h.Set("Cache-Control", "private, no-cache")
	startAnswer(w, r)
	// Each chunk is read on a connection of its own, released before it is sent: a
	// slow client holds none. A content found damaged cuts the answer short of its
	// Content-Length, so that no client takes it for the whole file.
	if _, err := io.Copy(w, content); err != nil && r.Context().Err() == nil {
		slog.ErrorContext(r.Context(), "attachment download cut short", "attachment", a.ID, "err", err)
	}
}

// detachFile takes a file off its transaction.
func detachFile(s *Server, w http.ResponseWriter, r *http.Request) {
	transactionID, b, ok := readRequest(w, r, true)
	if !ok {
		return
	}
	id, err := pathID(r, "attachmentId")
	if err != nil {
		writeError(w, r, err)
		return
	}
	cmd := domain.DetachFile{AttachmentID: id, TransactionID: transactionID}
	s.run(w, r, b, command{Decide: cmd.Decide, Answer: queries.Value(map[string]bool{"ok": true})})
}
