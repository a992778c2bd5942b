package browsertest_test

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/finledger/finledger/attachments/storetest"
)

// receiptFiles writes the files a person picks: a photo (a small PNG), a PDF, and a page
// of HTML named as a PDF; it returns their paths.
func receiptFiles(t *testing.T) (photo, pdf, fake string) {
	t.Helper()
	dir := t.TempDir()
	img := image.NewRGBA(image.Rect(0, 0, 8, 6))
	for x := range 8 {
		for y := range 6 {
			img.Set(x, y, color.RGBA{R: uint8(30 * x), G: 120, B: uint8(40 * y), A: 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	photo, pdf, fake = filepath.Join(dir, "ticket.png"), filepath.Join(dir, "factura.pdf"), filepath.Join(dir, "recibo.pdf")
	for path, data := range map[string][]byte{photo: b.Bytes(), pdf: storetest.PDF(t, 3000),
		fake: []byte("<!doctype html><html><body><script>alert(1)</script></body></html>")} {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return photo, pdf, fake
}

// The receipts of a transaction being corrected: a photo and a PDF picked through the
// file input, the photo's thumbnail (fetched with the session) and the PDF's icon, each
// with its kind and size; the photo viewed large and the viewer closed by Escape, the
// focus back on its thumbnail; a live update that keeps the area open; the download
// link; a page of HTML named .pdf refused in the person's language; a deletion undone,
// and one sent once its undo time is over; a live update with the focus elsewhere that opens the row
// again; a photo dropped on the zone; and the thumbnails' blob: URLs revoked when the
// row closes.
func TestReceiptsAreAttachedViewedAndDeleted(t *testing.T) {
	english := words(t)
	var tx string
	inEachView(t, func(t *testing.T, s *scene) {
		s.api.Post("/api/wallets", map[string]any{"name": "Banorte", "balance": 1000, "isDefault": true}).Expect(t, http.StatusOK)
		tx = s.api.Post("/api/transactions", map[string]any{"type": "expense", "amount": 5, "description": "Coffee"}).
			Expect(t, http.StatusCreated).Object("transaction")["id"].(string)
	}, func(t *testing.T, s *scene) {
		s.expected = append(s.expected, "status of 415")
		photo, pdf, fake := receiptFiles(t)
		path := "/api/transactions/" + tx + "/attachments"
		picker := `.receipts input[type=file][accept="image/jpeg,image/png,image/webp,image/heic,application/pdf"]`

		s.open("/app/transactions", s.view.say("Transactions", "Movimientos"))
		s.waitFor("the live updates", `document.querySelector('#live[data-up=true]')`)
		s.press(s.view.say("Edit", "Editar"), "Coffee")
		s.waitFor("the receipts, none yet", `document.querySelector('.receipts:not([aria-busy]) .empty')`)
		var camera string
		s.eval(`document.querySelector('.receipts input[capture]').getAttribute('capture')`, &camera)
		if camera != "environment" {
			t.Errorf("the photo's input captures %q", camera)
		}
		s.do(chromedp.SetUploadFiles(picker, []string{photo, pdf}))
		s.waitFor("the photo's thumbnail", `(document.querySelector('.receipt .thumb img') || {}).naturalWidth === 8`)
		s.waitFor("the PDF with its icon", `[...document.querySelectorAll('.receipt')].some((li) => li.querySelector('.file-icon') && li.innerText.includes('factura.pdf'))`)
		list := s.api.Get(path).Expect(t, http.StatusOK).List("attachments")
		if len(list) != 2 || list[0]["fileName"] != "ticket.png" || list[1]["contentType"] != "application/pdf" {
			t.Fatalf("attached %v", list)
		}
		var kinds []string
		s.eval(`[...document.querySelectorAll('.receipt-info .muted')].map((el) => el.innerText)`, &kinds)
		if fmt.Sprint(kinds) != fmt.Sprintf("[PNG · %v bytes PDF · 3 kB]", list[0]["size"]) {
			t.Errorf("the receipts say %q", kinds)
		}
		var href string
		s.eval(`document.querySelector('.receipt a[download="factura.pdf"]').getAttribute('href')`, &href)
		if want := path + "/" + list[1]["id"].(string); href != want {
			t.Errorf("the PDF's download link is %q, want %q", href, want)
		}
		s.axe("receipts-" + s.view.Name)
		if bad := s.untranslated(english); len(bad) > 0 {
			t.Errorf("the receipts show %q", bad)
		}

		view := s.view.say("View", "Ver") + " ticket.png"
		s.pushButton(view)
		s.waitFor("the viewer", `(document.querySelector('dialog[open] img.viewer') || {}).naturalWidth === 8`)
		s.axe("receipt-viewer-" + s.view.Name)
		s.do(chromedp.KeyEvent("\x1b"))
		s.waitFor("the viewer closed, the focus on its thumbnail", fmt.Sprintf(`!document.querySelector('dialog[open]') && document.activeElement.getAttribute('aria-label') === %q`, view))

		// A transaction recorded elsewhere redraws the list; the receipts stay, and the focus.
		s.api.Post("/api/transactions", map[string]any{"type": "expense", "amount": 7, "description": "Bread"}).Expect(t, http.StatusCreated)
		s.waitFor("the other device's expense in the list", `document.querySelector('main tbody').innerText.includes('Bread')`)
		s.waitFor("the receipts kept", fmt.Sprintf(`(document.querySelector('.receipt .thumb img') || {}).naturalWidth === 8 && document.activeElement.getAttribute('aria-label') === %q`, view))

		s.do(chromedp.SetUploadFiles(picker, []string{fake}))
		s.waitFor("the refusal", `(document.querySelector('.receipts .form-error') || {}).dataset?.code === 'ATTACHMENT_TYPE_UNSUPPORTED'`)
		want := "recibo.pdf: " + s.view.say("This is not a file a receipt is taken as: a JPEG, PNG, WebP or HEIC photo, or a PDF.",
			"Este no es un archivo que se acepte como comprobante: una foto JPEG, PNG, WebP o HEIC, o un PDF.")
		if got := s.text(".receipts .form-error"); got != want {
			t.Errorf("the refusal says %q, want %q", got, want)
		}
		if n := len(s.api.Get(path).List("attachments")); n != 2 {
			t.Fatalf("after the refusal %d attachments", n)
		}

		s.press(s.view.say("Delete", "Eliminar"), "factura.pdf")
		s.waitFor("the PDF gone from the list", `!document.querySelector('.receipt .file-icon')`)
		s.eval(fmt.Sprintf(`[...document.querySelectorAll('.toast button')].find((b) => b.innerText === %q).click()`, s.view.say("Undo", "Deshacer")), nil)
		s.waitFor("the PDF back", `document.querySelector('.receipt .file-icon')`)
		s.press(s.view.say("Delete", "Eliminar"), "ticket.png")
		s.waitFor("the photo gone from the list", `!document.querySelector('.receipt .thumb') && document.querySelectorAll('.receipt').length === 1`)
		waitUntil(t, "the deletion sent after its undo time", func() bool { return len(s.api.Get(path).List("attachments")) == 1 })

		// With the focus out of the row, a live update opens it again, receipts and all.
		s.eval(`document.activeElement.blur()`, nil)
		s.api.Post("/api/transactions", map[string]any{"type": "expense", "amount": 9, "description": "Milk"}).Expect(t, http.StatusCreated)
		s.waitFor("the row opened again", `document.querySelector('main tbody').innerText.includes('Milk') && document.querySelector('.receipts:not([aria-busy]) .receipt .file-icon')`)

		// A photo dropped on the zone is attached; the row closes: the thumbnails' blob: URLs are revoked.
		photoBytes, err := os.ReadFile(photo)
		if err != nil {
			t.Fatal(err)
		}
		s.eval(fmt.Sprintf(`(() => {
			const dt = new DataTransfer();
			dt.items.add(new File([Uint8Array.from(atob(%q), (c) => c.charCodeAt(0))], 'ticket.png', { type: 'image/png' }));
			document.querySelector('.drop-zone').dispatchEvent(new DragEvent('drop', { bubbles: true, cancelable: true, dataTransfer: dt }));
		})()`, base64.StdEncoding.EncodeToString(photoBytes)), nil)
		s.waitFor("the dropped photo", `(document.querySelector('.receipt .thumb img') || {}).naturalWidth === 8`)
		var names []string
		for _, a := range s.api.Get(path).Expect(t, http.StatusOK).List("attachments") {
			names = append(names, fmt.Sprint(a["fileName"]))
		}
		if fmt.Sprint(names) != "[factura.pdf ticket.png]" {
			t.Fatalf("attached at the end: %v", names)
		}
		var src string
		s.eval(`document.querySelector('.receipt .thumb img').src`, &src)
		s.pushButtonText(s.view.say("Cancel", "Cancelar"))
		s.waitFor("the row closed", `!document.querySelector('.receipts')`)
		s.waitFor("the blob: URL revoked", fmt.Sprintf(`new Promise((done) => { const img = new Image(); img.onload = () => done(false); img.onerror = () => done(true); img.src = %q; })`, src))
	})
}
