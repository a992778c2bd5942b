package httpapi_test

import (
	"archive/zip"
	"bytes"
	"encoding/csv"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/finledger/finledger/internal/testkit/apitest"
)

// Text a member typed never becomes a live formula in a CSV the service exports (the
// report and every CSV of the export): every prefix a spreadsheet runs (=, +, -, @) is
// neutralised in concepts, descriptions, reference numbers and the names of wallets and
// categories, even text that looks like a number, while the columns the service writes
// (amounts, a negative balance) stay numbers. The JSON keeps the text as typed.
func TestCSVExportsNeutraliseFormulas(t *testing.T) {
	env := apitest.Start(t)
	f := newLedger(t, env, "alice")
	wallet := f.c.Post("/api/wallets", map[string]any{"name": "@SUM(A1:A9)"}).Expect(t, http.StatusOK).Object("wallet")["id"].(string)
	category := f.c.Post("/api/categories", map[string]any{"name": "-1+cmd|' /C calc'!A0"}).Expect(t, http.StatusOK).Object("category")["id"].(string)
	concepts := []string{`=HYPERLINK("http://evil.example","x")`, "@SUM(A1)", "+1+1", "-2+3", "-12.50"}
	var ids []string
	for i, concept := range concepts {
		tr := f.c.Post("/api/transactions", map[string]any{"type": "expense", "amount": 12.5, "date": "2026-03-0" + string(rune('1'+i)),
			"walletId": wallet, "categoryId": category, "concept": concept, "description": "=cmd", "referenceNumber": "+52"}).
			Expect(t, http.StatusCreated).Object("transaction")
		ids = append(ids, tr["id"].(string))
	}
	for i, id := range ids { // the JSON is data: the text as typed
		if got := f.c.Get("/api/transactions/"+id).Expect(t, http.StatusOK).Object("transaction")["concept"]; got != concepts[i] {
			t.Errorf("the JSON's concept %q, want %q", got, concepts[i])
		}
	}

	raw := f.c.Get("/api/reports?from=2026-03-01&to=2026-03-31&format=csv").Expect(t, http.StatusOK).Raw
	if !bytes.Contains(raw, []byte(`"'=HYPERLINK(""http://evil.example"",""x"")"`)) {
		t.Fatalf("the formula is not quoted after a single quote:\n%s", raw)
	}
	report := readCSV(t, raw)
	if len(report) != len(concepts)+1 {
		t.Fatalf("csv %q", report)
	}
	for i, line := range report[1:] {
		cells := map[string]string{}
		for j, name := range report[0] {
			cells[name] = line[j]
		}
		for field, want := range map[string]string{"amount": "12.5", "concept": "'" + concepts[i], "description": "'=cmd",
			"wallet": "'@SUM(A1:A9)", "category": "'-1+cmd|' /C calc'!A0", "reference_number": "'+52"} {
			if cells[field] != want {
				t.Errorf("report line %d: %s %q, want %q", i+1, field, cells[field], want)
			}
		}
		noFormula(t, "report", line)
	}

	res := f.c.Get("/api/export").Expect(t, http.StatusOK)
	z, err := zip.NewReader(bytes.NewReader(res.Raw), int64(len(res.Raw)))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][][]string{}
	for _, file := range z.File {
		if !strings.HasSuffix(file.Name, ".csv") {
			continue
		}
		r, err := file.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
		files[file.Name] = readCSV(t, b)
		for _, line := range files[file.Name][1:] {
			if file.Name != "wallets.csv" {
				noFormula(t, file.Name, line)
			}
		}
	}
	transactions := files["transactions.csv"]
	concept, amount := slices.Index(transactions[0], "concept"), slices.Index(transactions[0], "amount")
	var got []string
	for _, line := range transactions[1:] {
		got = append(got, line[concept])
		if line[amount] != "12.5" {
			t.Errorf("transactions.csv amount %q, want 12.5", line[amount])
		}
	}
	for _, c := range concepts {
		if !slices.Contains(got, "'"+c) {
			t.Errorf("transactions.csv concepts %q lack %q", got, "'"+c)
		}
	}
	// The wallet spent 62.5 it did not hold: its balance is a negative number, as is.
	wallets := files["wallets.csv"]
	name, balance := slices.Index(wallets[0], "name"), slices.Index(wallets[0], "balance")
	for _, line := range wallets[1:] {
		if line[name] == "'@SUM(A1:A9)" {
			if line[balance] != "-62.5" {
				t.Errorf("the negative balance is written %q, want -62.5", line[balance])
			}
			return
		}
	}
	t.Errorf("wallets.csv has no neutralised name: %q", wallets)
}

func readCSV(t *testing.T, raw []byte) [][]string {
	t.Helper()
	records, err := csv.NewReader(bytes.NewReader(raw)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return records
}

// noFormula fails for a cell a spreadsheet would run; the amounts and balances the
// service writes are numbers, not formulas.
func noFormula(t *testing.T, file string, line []string) {
	t.Helper()
	for _, cell := range line {
		if cell != "" && strings.ContainsRune("=+@\t\r", rune(cell[0])) {
			t.Errorf("%s: cell %q starts a formula", file, cell)
		}
	}
}
