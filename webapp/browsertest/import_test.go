package browsertest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// marchCSV is a bank's CSV whose header names no column plainly, with a decimal comma:
// a rent, a purchase at a shop recorded by hand beforehand, and a salary.
const marchCSV = "Dia;Cosa;Dinero;Folio\n02/03/2026;Renta;-1.500,00;F1\n11/03/2026;OXXO Centro;-250,00;F2\n15/03/2026;Nomina;20.000,50;F3\n"

// TestABanksHistoryIsImportedReviewedAndUndone: a CSV with an unclear header is
// uploaded (picked in English, dropped on the page in Spanish), its columns mapped with
// the preview following; the purchase recorded beforehand is shown beside its row and
// merged; the rent's category is changed and "Always do this" makes the rule; the commit
// moves the wallet's balance and brings the rows to the transactions page, saves the
// mapping as the wallet's profile, and lists the import in the history, whose Undo takes
// the rows away again.
func TestABanksHistoryIsImportedReviewedAndUndone(t *testing.T) {
	english := words(t)
	var wallet, rent, shop string
	inEachView(t, func(t *testing.T, s *scene) {
		wallet = s.api.Post("/api/wallets", map[string]any{"name": "Banorte", "balance": 1000, "isDefault": true}).
			Expect(t, http.StatusOK).Object("wallet")["id"].(string)
		rent = s.api.Post("/api/categories", map[string]any{"name": "Vivienda"}).Expect(t, http.StatusOK).Object("category")["id"].(string)
		shop = s.api.Post("/api/transactions", map[string]any{"type": "expense", "amount": json.Number("250.00"), "walletId": wallet,
			"description": "OXXO Centro", "date": "2026-03-10"}).Expect(t, http.StatusCreated).Object("transaction")["id"].(string)
	}, func(t *testing.T, s *scene) {
		// The first upload is refused for want of a mapping, on purpose.
		s.expected = append(s.expected, "status of 422")
		look := func(name string) {
			t.Helper()
			if bad := s.untranslated(english); len(bad) > 0 {
				t.Errorf("%s shows %q", name, bad)
			}
		}
		s.open("/app/import", s.view.say("Import", "Importar"))
		s.waitFor("the history", `document.querySelector('#h-import-history')`)
		s.axe("import-" + s.view.Name)
		file := fmt.Sprintf(`(() => { const dt = new DataTransfer(); dt.items.add(new File([%q], 'march.csv', { type: 'text/csv' })); return dt; })()`, marchCSV)
		if s.view.Language == "en" {
			s.eval(`(() => { const f = document.querySelector('form[aria-label="Upload a statement"]'); f.elements.file.files = `+file+`.files; f.requestSubmit(); })()`, nil)
		} else {
			s.eval(`document.querySelector('main > div').dispatchEvent(new DragEvent('drop', { bubbles: true, cancelable: true, dataTransfer: `+file+` }))`, nil)
		}

		// The columns, mapped one choice at a time: the preview follows.
		s.waitFor("the column mapping", `document.querySelectorAll('.mapping select[data-column]').length === 4`)
		look("the mapping")
		s.axe("import-mapping-" + s.view.Name)
		s.eval(`(() => {
			const set = (el, v) => { el.value = v; el.dispatchEvent(new Event('change', { bubbles: true })); };
			const col = (n) => document.querySelector('.mapping select[data-column="' + n + '"]');
			set(col(1), 'date'); set(col(2), 'payee'); set(col(3), 'amount'); set(col(4), 'externalId');
			set(document.querySelector('.mapping select[name=decimalSeparator]'), ',');
			set(document.querySelector('.mapping select[name=dateOrder]'), 'DMY');
			const keep = document.querySelector('.mapping input[name=saveProfile]');
			keep.checked = true; keep.dispatchEvent(new Event('change', { bubbles: true }));
		})()`, nil)
		s.waitFor("the preview's rows", `document.querySelectorAll('tr[data-row]').length === 3`)

		// The purchase recorded beforehand, beside its row, with why; merged.
		s.waitFor("the probable duplicate beside its transaction", fmt.Sprintf(
			`document.querySelector('[data-verdict=probable] + tr [data-matched=%q]') && document.querySelector('[data-matched=%q]').innerText.includes('OXXO Centro')`, shop, shop))
		decision := `document.querySelector('[data-verdict=probable] select[data-focus^=decision]').value`
		s.pushButton(s.view.say("Import as new", "Importar como nuevo") + ": OXXO Centro")
		s.waitFor("the row to import as new", decision+` === 'import'`)
		s.pushButton(s.view.say("Merge", "Fusionar") + ": OXXO Centro")
		s.waitFor("the row merged", decision+` === 'merge' && !document.querySelector('[data-testid=commit]').disabled`)

		// The rent's category corrected, and the rule it suggests made.
		s.eval(fmt.Sprintf(`(() => { const el = document.querySelector('select[aria-label$=": Renta"][data-focus^=category]'); el.value = %q;
			el.dispatchEvent(new Event('change', { bubbles: true })); })()`, rent), nil)
		s.waitFor("Always do this", `document.querySelector('[data-testid=always]')`)
		look("the review")
		s.axe("import-review-" + s.view.Name)
		s.eval(`document.querySelector('[data-testid=always]').click()`, nil)
		waitUntil(t, "the rule made", func() bool {
			rules := s.api.Get("/api/rules").Expect(t, http.StatusOK).List("rules")
			return len(rules) == 1 && rules[0]["name"] == "Renta"
		})

		// The commit: 2 to import, 1 to merge.
		s.waitFor("the commit's count", `/: 2 \D+ 1 /.test(document.querySelector('[data-testid=commit]').innerText) && !document.querySelector('[data-testid=commit]').disabled`)
		// The commit's own live update may list it in the history before its answer has
		// been read here: the page says what the commit did once it has, and never, not for
		// a moment, that it was committed elsewhere.
		s.eval(fmt.Sprintf(`(() => { const stage = document.querySelector('main .import-stage'); window.saidElsewhere = false;
			new MutationObserver(() => { if (stage.innerText.includes(%q)) window.saidElsewhere = true; })
				.observe(stage, { subtree: true, childList: true, characterData: true }); })()`,
			s.view.say("committed elsewhere", "se confirmó en otro lado")), nil)
		s.eval(`document.querySelector('[data-testid=commit]').click()`, nil)
		s.waitFor("the commit's outcome", fmt.Sprintf(`document.getElementById('toasts').innerText.includes(%q)`,
			s.view.say("Imported: 2 created, 1 merged, 0 skipped.", "Importado: 2 creados, 1 fusionados, 0 omitidos.")))
		s.waitFor("the import in the history", `document.querySelector('#h-import-history + .table-wrap .badge[data-state=committed]')`)
		var elsewhere bool
		s.eval(`window.saidElsewhere`, &elsewhere)
		if elsewhere {
			t.Fatal("the page said the import it committed was committed elsewhere")
		}
		w := s.api.Get("/api/wallets/"+wallet).Expect(t, http.StatusOK).Object("wallet")
		if mustFloat(t, w["balance"]) != 19250.5 { // 1,000 - 250 - 1,500 + 20,000.50
			t.Fatalf("the wallet's balance after the import: %v", w["balance"])
		}
		if n := count(s, "/api/import-profiles", "profiles"); n != 1 {
			t.Fatalf("%d import profiles saved, want 1", n)
		}
		s.open("/app/wallets", s.view.say("Wallets", "Carteras"))
		s.waitFor("the balance after the import", `document.querySelector('main').innerText.includes('19,250.50')`)
		s.open("/app/transactions", s.view.say("Transactions", "Movimientos"))
		s.waitFor("the imported rows", rowsText(s)+`.includes('Nomina') && `+rowsText(s)+`.includes('Renta')`)

		// The history's Undo takes the rows away.
		s.open("/app/import", s.view.say("Import", "Importar"))
		s.waitFor("the committed import", `document.querySelector('.badge[data-state=committed]')`)
		look("the history")
		s.answerConfirmation(s.view.say("Undo", "Deshacer"), "march.csv", true)
		s.waitFor("the import undone", `document.querySelector('.badge[data-state=undone]') && !document.querySelector('.badge[data-state=committed]')`)
		w = s.api.Get("/api/wallets/"+wallet).Expect(t, http.StatusOK).Object("wallet")
		if mustFloat(t, w["balance"]) != 750 {
			t.Fatalf("the wallet's balance after the undo: %v", w["balance"])
		}
		s.open("/app/transactions", s.view.say("Transactions", "Movimientos"))
		s.waitFor("the rows gone", `document.querySelector('main tbody') && `+rowsText(s)+`.join() === 'OXXO Centro'`)
		var shown []string
		s.eval(rowsText(s), &shown)
		if strings.Join(shown, ",") != "OXXO Centro" {
			t.Fatalf("after the undo the transactions are %v", shown)
		}
	})
}

// statementOFX is an OFX 2 statement in pesos of n payments of 1.00, whose closing
// balance is the one given.
func statementOFX(n int, closing string) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><?OFX OFXHEADER="200" VERSION="211" SECURITY="NONE" OLDFILEUID="NONE" NEWFILEUID="NONE"?>` +
		`<OFX><BANKMSGSRSV1><STMTTRNRS><TRNUID>0</TRNUID><STMTRS><CURDEF>MXN</CURDEF><BANKACCTFROM><BANKID>1</BANKID><ACCTID>77</ACCTID>` +
		`<ACCTTYPE>CHECKING</ACCTTYPE></BANKACCTFROM><BANKTRANLIST>`)
	for i := range n {
		fmt.Fprintf(&b, `<STMTTRN><TRNTYPE>DEBIT</TRNTYPE><DTPOSTED>202603%02d</DTPOSTED><TRNAMT>-1.00</TRNAMT><FITID>P%d</FITID><NAME>Parking %d</NAME></STMTTRN>`,
			i%28+1, i, i)
	}
	fmt.Fprintf(&b, `</BANKTRANLIST><LEDGERBAL><BALAMT>%s</BALAMT><DTASOF>20260331</DTASOF></LEDGERBAL></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>`, closing)
	return b.String()
}

// TestALargeStatementIsReviewedAPageAtATime: a statement of 250 rows is previewed
// without asking anything (an OFX names its fields), drawn a hundred rows at a time;
// its closing balance stands beside the wallet's after the import, and the difference
// between them is marked.
func TestALargeStatementIsReviewedAPageAtATime(t *testing.T) {
	inEachView(t, func(t *testing.T, s *scene) {
		s.api.Post("/api/wallets", map[string]any{"name": "Banorte", "balance": 1000, "isDefault": true}).Expect(t, http.StatusOK)
	}, func(t *testing.T, s *scene) {
		s.open("/app/import", s.view.say("Import", "Importar"))
		s.eval(fmt.Sprintf(`(() => { const dt = new DataTransfer(); dt.items.add(new File([%q], 'march.ofx'));
			const f = document.querySelector('form[aria-label=%q]'); f.elements.file.files = dt.files; f.requestSubmit(); })()`,
			statementOFX(250, "700.00"), s.view.say("Upload a statement", "Subir un estado de cuenta")), nil)
		s.waitFor("the first hundred rows", `document.querySelectorAll('tr[data-row]').length === 100 && document.querySelector('tr[data-row="0"]')`)
		// 1,000 - 250 = 750 after the import; the statement says 700.
		s.waitFor("the difference, marked", `document.querySelector('[data-testid=difference].differs') && document.querySelector('[data-testid=difference]').innerText.includes('50.00')`)
		s.axe("import-large-" + s.view.Name)
		s.eval(`document.querySelector('.import-rows nav.pager button:last-child').click()`, nil)
		s.waitFor("the next hundred", `document.querySelectorAll('tr[data-row]').length === 100 && document.querySelector('tr[data-row="100"]') && !document.querySelector('tr[data-row="99"]')`)
		if got := s.text(".import-rows nav.pager span"); !strings.Contains(got, "250") {
			t.Fatalf("the rows' pager says %q", got)
		}
	})
}
