package httpapi_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"github.com/finledger/finledger/attachments"
	"github.com/finledger/finledger/attachments/storetest"
	"github.com/finledger/finledger/internal/testkit/apitest"
)

// A receipt attached to a transaction over HTTP: uploaded as the body or as a form,
// listed, downloaded byte for byte as a download that no browser renders, seen by
// another instance, taken off, and hidden with its transaction; a retried upload with
// its Idempotency-Key attaches it once; another workspace sees none of it.
func TestAttachments(t *testing.T) {
	env := apitest.Start(t)
	f := newLedger(t, env, "alice")
	tx := f.c.Post("/api/transactions", map[string]any{"amount": 420, "type": "expense", "walletId": f.cash, "categoryId": f.food,
		"concept": "Supermercado", "date": "2026-03-01"}).Expect(t, http.StatusCreated).Object("transaction")["id"].(string)
	path := "/api/transactions/" + tx + "/attachments"

	big := storetest.PDF(t, 600<<10) // several chunks of the store
	sum := sha256.Sum256(big)
	first := f.c.With("Content-Type", "application/pdf").With("Idempotency-Key", "receipt-1").
		Post(path+"?fileName="+"ticket%20marzo.pdf", big).Expect(t, http.StatusCreated).Object("attachment")
	if first["sha256"] != hex.EncodeToString(sum[:]) || first["size"] != jsonInt(len(big)) || first["contentType"] != "application/pdf" ||
		first["fileName"] != "ticket marzo.pdf" || first["transactionId"] != tx {
		t.Fatalf("attached = %v", first)
	}
	again := f.c.With("Content-Type", "application/pdf").With("Idempotency-Key", "receipt-1").Post(path+"?fileName=ticket%20marzo.pdf", big).
		Expect(t, http.StatusCreated)
	if again.Header.Get("Idempotent-Replayed") != "true" || again.Object("attachment")["id"] != first["id"] {
		t.Fatalf("a retried upload: %s, want the first answer replayed", again.Raw)
	}

	// A PNG sent as a form, whatever the part says it is.
	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	part, _ := mw.CreateFormFile("file", "foto.txt")
	part.Write(append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 100)...)) //nolint:errcheck // a buffer
	mw.Close()                                                            //nolint:errcheck // a buffer
	photo := f.c.With("Content-Type", mw.FormDataContentType()).Post(path, form.Bytes()).Expect(t, http.StatusCreated).Object("attachment")
	if photo["contentType"] != "image/png" || photo["fileName"] != "foto.txt" {
		t.Fatalf("photo = %v", photo)
	}

	// Another instance on the same database lists and serves them.
	other := env.Instance().As("alice")
	list := other.Get(path).Expect(t, http.StatusOK).List("attachments")
	if len(list) != 2 || list[0]["id"] != first["id"] || list[1]["id"] != photo["id"] {
		t.Fatalf("listed = %v", list)
	}
	got := other.Get(path+"/"+first["id"].(string)).Expect(t, http.StatusOK)
	h := got.Header
	if !bytes.Equal(got.Raw, big) || h.Get("Content-Type") != "application/pdf" || h.Get("X-Content-Type-Options") != "nosniff" ||
		!strings.HasPrefix(h.Get("Content-Disposition"), "attachment;") || !strings.Contains(h.Get("Content-Security-Policy"), "sandbox") {
		t.Fatalf("download: %d bytes (want %d), headers %v", len(got.Raw), len(big), h)
	}

	// Another person's workspace holds no such transaction, nor its files.
	bob := env.As("bob")
	expectError(t, bob.Get(path), http.StatusNotFound, "TRANSACTION_NOT_FOUND")
	expectError(t, bob.Get(path+"/"+first["id"].(string)), http.StatusNotFound, "ATTACHMENT_NOT_FOUND")
	expectError(t, bob.With("Content-Type", "application/pdf").Post(path, big), http.StatusNotFound, "TRANSACTION_NOT_FOUND")

	// Taken off: gone from the list and the download; a second removal finds nothing.
	f.c.Delete(path+"/"+photo["id"].(string)).Expect(t, http.StatusOK)
	expectError(t, f.c.Delete(path+"/"+photo["id"].(string)), http.StatusNotFound, "ATTACHMENT_NOT_FOUND")
	expectError(t, f.c.Get(path+"/"+photo["id"].(string)), http.StatusNotFound, "ATTACHMENT_NOT_FOUND")
	if list := f.c.Get(path).Expect(t, http.StatusOK).List("attachments"); len(list) != 1 {
		t.Fatalf("after the removal: %v", list)
	}
	// The audit log tells both.
	audit := f.c.Get("/api/audit?entity=attachment").Expect(t, http.StatusOK).List("entries")
	if len(audit) != 3 || audit[0]["action"] != "delete" || audit[0]["entityId"] != photo["id"] {
		t.Fatalf("audit of attachments = %v, want 2 attached (the retried upload once) and 1 removed", audit)
	}

	// A deleted transaction's files are hidden with it.
	f.c.With("Idempotency-Key", "delete-1").Delete("/api/transactions/"+tx).Expect(t, http.StatusOK)
	expectError(t, f.c.Get(path+"/"+first["id"].(string)), http.StatusNotFound, "ATTACHMENT_NOT_FOUND")
	expectError(t, f.c.Get(path), http.StatusNotFound, "TRANSACTION_NOT_FOUND")
}

// Files a receipt does not come in, an empty one and one too large are refused with
// nothing attached.
func TestAttachmentBadInput(t *testing.T) {
	env := apitest.Start(t)
	f := newLedger(t, env, "alice")
	tx := f.c.Post("/api/transactions", map[string]any{"amount": 10, "type": "expense", "walletId": f.cash, "date": "2026-03-01"}).
		Expect(t, http.StatusCreated).Object("transaction")["id"].(string)
	path := "/api/transactions/" + tx + "/attachments"
	for name, file := range map[string]string{
		"HTML sent as a PDF": "<html><body><script>alert(1)</script></body></html>%PDF-1.7",
		"SVG":                `<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>`,
		"text":               "just a note",
	} {
		if r := f.c.With("Content-Type", "application/pdf").Post(path, file); r.Status != http.StatusUnsupportedMediaType ||
			r.ErrorCode() != "ATTACHMENT_TYPE_UNSUPPORTED" {
			t.Errorf("%s: %d %s, want 415 ATTACHMENT_TYPE_UNSUPPORTED", name, r.Status, r.Raw)
		}
	}
	expectError(t, f.c.With("Content-Type", "application/pdf").Post(path, ""), http.StatusBadRequest, "VALIDATION_ERROR")
	expectError(t, f.c.With("Content-Type", "application/pdf").Post(path, storetest.PDF(t, attachments.MaxSize+1)),
		http.StatusRequestEntityTooLarge, "ATTACHMENT_TOO_LARGE")
	expectError(t, f.c.With("Content-Type", "application/pdf").Post("/api/transactions/0195f3a2-0000-7000-8000-000000000001/attachments",
		storetest.PDF(t, 100)), http.StatusNotFound, "TRANSACTION_NOT_FOUND")
	if list := f.c.Get(path).Expect(t, http.StatusOK).List("attachments"); len(list) != 0 {
		t.Fatalf("attached after refusals: %v", list)
	}
}
