package domain

import (
	"regexp"

	"github.com/google/uuid"
)

// Event types of the files attached to transactions.
const (
	TypeAttachmentAdded   = "attachment.added.v1"
	TypeAttachmentRemoved = "attachment.removed.v1"
)

// MaxAttachments bounds the files one transaction holds at once.
const MaxAttachments = 20

// Attachment is a file attached to a transaction, as the write side sees it.
type Attachment struct {
	TransactionID uuid.UUID
	Removed       bool
}

// AttachmentAdded: a file was attached to a transaction. SHA256 names the file's
// content, which is stored by it: the history's chain covers the file, and a check of
// the stored content against the hash tells whether it changed since.
type AttachmentAdded struct {
	AttachmentID  uuid.UUID `json:"attachmentId"`
	TransactionID uuid.UUID `json:"transactionId"`
	SHA256        string    `json:"sha256"`
	Size          int64     `json:"size"`
	ContentType   string    `json:"contentType"`
	FileName      string    `json:"fileName,omitempty"`
}

// EventType names AttachmentAdded in history.
func (AttachmentAdded) EventType() string { return TypeAttachmentAdded }

func (AttachmentAdded) sealed() {}

// AttachmentRemoved: a file was taken off its transaction.
type AttachmentRemoved struct {
	AttachmentID  uuid.UUID `json:"attachmentId"`
	TransactionID uuid.UUID `json:"transactionId"`
}

// EventType names AttachmentRemoved in history.
func (AttachmentRemoved) EventType() string { return TypeAttachmentRemoved }

func (AttachmentRemoved) sealed() {}

// sha256Hex is a SHA-256 as the content store names it: 64 lowercase hex digits.
var sha256Hex = regexp.MustCompile(`^[0-9a-f]{64}$`)

// AttachFile attaches a stored file to a live transaction of the workspace.
//
// Errors: TRANSACTION_NOT_FOUND; ATTACHMENT_LIMIT (the transaction holds
// MaxAttachments already); VALIDATION_ERROR (a name past 255 characters).
type AttachFile struct {
	AttachmentID  uuid.UUID
	TransactionID uuid.UUID
	SHA256        string
	Size          int64
	ContentType   string
	FileName      string
}

// Decide returns the attachment's event.
func (c AttachFile) Decide(w *Workspace) ([]Event, error) {
	if !sha256Hex.MatchString(c.SHA256) || c.Size <= 0 || c.ContentType == "" {
		return nil, Unprocessable("ATTACHMENT_INVALID", "an attachment needs its content's SHA-256, size and type")
	}
	name := ConceptText.Clean(c.FileName)
	if len([]rune(name)) > 255 {
		return nil, InvalidField("fileName", "must be at most 255 characters")
	}
	if _, err := w.liveTransaction(c.TransactionID); err != nil {
		return nil, err
	}
	held := 0
	for _, a := range w.Attachments {
		if a.TransactionID == c.TransactionID && !a.Removed {
			held++
		}
	}
	if held >= MaxAttachments {
		return nil, Unprocessable("ATTACHMENT_LIMIT", "transaction %s holds %d files already, the most it may", c.TransactionID, MaxAttachments)
	}
	return []Event{&AttachmentAdded{AttachmentID: c.AttachmentID, TransactionID: c.TransactionID, SHA256: c.SHA256,
		Size: c.Size, ContentType: c.ContentType, FileName: name}}, nil
}

// DetachFile takes a file off its transaction; its content stays for the history's
// reads until the retention purges it.
//
// Errors: ATTACHMENT_NOT_FOUND (none, or removed already, or of another transaction).
type DetachFile struct {
	AttachmentID  uuid.UUID
	TransactionID uuid.UUID
}

// Decide returns the removal's event.
func (c DetachFile) Decide(w *Workspace) ([]Event, error) {
	a, ok := w.Attachments[c.AttachmentID]
	if !ok || a.Removed || a.TransactionID != c.TransactionID {
		return nil, NotFound("ATTACHMENT_NOT_FOUND", "attachment %s not found", c.AttachmentID)
	}
	return []Event{&AttachmentRemoved{AttachmentID: c.AttachmentID, TransactionID: c.TransactionID}}, nil
}
