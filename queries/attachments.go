package queries

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// Attachment is a file attached to a transaction: a receipt, an invoice.
type Attachment struct {
	ID            uuid.UUID `json:"id"`
	TransactionID uuid.UUID `json:"transactionId"`
	SHA256        string    `json:"sha256"`
	Size          int64     `json:"size"`
	ContentType   string    `json:"contentType"`
	FileName      *string   `json:"fileName"`
	CreatedAt     time.Time `json:"createdAt"`
}

const attachmentColumns = `a.id, a.transaction_id, a.sha256, a.size, a.content_type, a.file_name, a.created_at`

// liveAttachments are the workspace's ($1) attachments not removed, of transactions not
// deleted: a deleted transaction's files are hidden with it.
const liveAttachments = ` FROM attachments a JOIN transactions t ON t.workspace_id = a.workspace_id AND t.id = a.transaction_id
	WHERE a.workspace_id = $1 AND a.removed_at IS NULL AND t.deleted_at IS NULL`

// liveAttachmentsOf are those of transaction $2.
const liveAttachmentsOf = liveAttachments + ` AND a.transaction_id = $2`

func scanAttachment(row pgx.CollectableRow) (Attachment, error) {
	var a Attachment
	err := row.Scan(&a.ID, &a.TransactionID, &a.SHA256, &a.Size, &a.ContentType, &a.FileName, &a.CreatedAt)
	return a, err
}

// Attachments lists the files of a live transaction, in the order they were attached.
func Attachments(ctx context.Context, db DB, workspaceID, transactionID uuid.UUID) ([]Attachment, error) {
	rows, err := db.Query(ctx, `SELECT `+attachmentColumns+liveAttachmentsOf+` ORDER BY a.created_version, a.id`, workspaceID, transactionID)
	if err != nil {
		return nil, fmt.Errorf("queries: attachments: %w", err)
	}
	return all(rows, scanAttachment, "attachments")
}

// AttachmentByID looks up a file of a live transaction.
func AttachmentByID(workspaceID, transactionID, id uuid.UUID) Lookup[Attachment] {
	return Lookup[Attachment]{"attachment", `SELECT ` + attachmentColumns + liveAttachmentsOf + ` AND a.id = $3`,
		[]any{workspaceID, transactionID, id}, scanAttachment}
}
