package httpapi_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/finledger/finledger/attachments/storetest"
	"github.com/finledger/finledger/internal/testkit/apitest"
)

// searched lists the concepts a search finds, newest first.
func searched(t *testing.T, c *apitest.Client, query string) []string {
	t.Helper()
	var out []string
	for _, tr := range c.Get("/api/transactions?pageSize=100&"+query).Expect(t, http.StatusOK).List("transactions") {
		out = append(out, tr["description"].(string))
	}
	return out
}

// A search ignores accents and case, in the text and in the search, and a search that
// reads as an amount (as the API writes amounts) also finds the transactions of that
// amount, whatever their scale.
func TestSearchIgnoresAccentsAndCaseAndMatchesAmounts(t *testing.T) {
	env := apitest.Start(t)
	f := newLedger(t, env, "alice")
	for _, tr := range []map[string]any{
		{"concept": "Súper del barrio", "amount": json.Number("45.10"), "date": "2026-03-01"},
		{"description": "ÑANDÚ CAFÉ", "amount": json.Number("12.50"), "date": "2026-03-02"},
		{"concept": "rent", "amount": json.Number("120.00"), "date": "2026-03-03"},
		{"concept": "taxi 120", "amount": json.Number("33"), "date": "2026-03-04"},
		{"concept": "big", "amount": json.Number("1250.5"), "date": "2026-03-05"},
		{"concept": "100% natural_", "amount": json.Number("7"), "date": "2026-03-06"},
	} {
		tr["type"] = "expense"
		f.c.Post("/api/transactions", tr).Expect(t, http.StatusCreated)
	}
	for _, c := range []struct {
		search string
		want   []string
	}{
		{"super", []string{"Súper del barrio"}},
		{"SÚPER", []string{"Súper del barrio"}},
		{"nandu cafe", []string{"ÑANDÚ CAFÉ"}},
		{"Café", []string{"ÑANDÚ CAFÉ"}},
		{"120", []string{"taxi 120", "rent"}},
		{"120.00", []string{"rent"}},
		{"$120", []string{"rent"}},
		{"12.5", []string{"ÑANDÚ CAFÉ"}},
		{"12,50", nil}, // no grouping of three: text, found nowhere
		{"1,250.50", []string{"big"}},
		{"0%", []string{"100% natural_"}},
		{"l_", []string{"100% natural_"}},
	} {
		for _, param := range []string{"search", "q"} {
			if got := searched(t, f.c, param+"="+url.QueryEscape(c.search)); !slices.Equal(got, c.want) {
				t.Errorf("%s=%q found %q, want %q", param, c.search, got, c.want)
			}
		}
	}
}

// A transaction carries a cleared mark: false unless created so, set and unset by a
// PATCH that moves no money (a goal movement's included), kept by a replay.
func TestTransactionsCarryAClearedMark(t *testing.T) {
	env := apitest.Start(t)
	f := newLedger(t, env, "alice")
	plain := f.c.Post("/api/transactions", map[string]any{"type": "expense", "amount": 5}).Expect(t, http.StatusCreated).Object("transaction")
	if plain["cleared"] != false {
		t.Fatalf("a new transaction's cleared = %v", plain["cleared"])
	}
	marked := f.c.Post("/api/transactions", map[string]any{"type": "income", "amount": 5, "cleared": true}).
		Expect(t, http.StatusCreated).Object("transaction")
	if marked["cleared"] != true {
		t.Fatalf("created cleared: %v", marked["cleared"])
	}
	id := plain["id"].(string)
	keyed := f.c.With("Idempotency-Key", "clear-1")
	if got := keyed.Patch("/api/transactions/"+id, map[string]any{"cleared": true}).Expect(t, http.StatusOK).Object("transaction"); got["cleared"] != true {
		t.Fatalf("after PATCH cleared: %v", got)
	}
	if f.balance(t, f.cash) != "100" {
		t.Fatalf("the mark moved money: cash %s", f.balance(t, f.cash))
	}
	if code := f.c.With("Idempotency-Key", "clear-2").Patch("/api/transactions/"+id, map[string]any{"cleared": nil}).
		Expect(t, http.StatusBadRequest).ErrorCode(); code != "VALIDATION_ERROR" {
		t.Fatalf("cleared null: %s", code)
	}
	if code := f.c.With("Idempotency-Key", "clear-3").Patch("/api/transactions/"+id, map[string]any{"cleared": "yes"}).
		Expect(t, http.StatusBadRequest).ErrorCode(); code != "VALIDATION_ERROR" {
		t.Fatalf("cleared as text: %s", code)
	}
	goal := f.c.Post("/api/goals", map[string]any{"name": "Trip", "targetAmount": 900}).Expect(t, http.StatusOK).Object("goal")["id"].(string)
	deposit := f.c.Post("/api/goals/"+goal+"/deposit", map[string]any{"amount": 10, "walletId": f.cash}).Expect(t, http.StatusOK).List("transactions")[0]["id"].(string)
	f.c.With("Idempotency-Key", "clear-4").Patch("/api/transactions/"+deposit, map[string]any{"cleared": true}).Expect(t, http.StatusOK)
	f.c.With("Idempotency-Key", "clear-5").Patch("/api/transactions/"+deposit, map[string]any{"cleared": true, "amount": 3}).
		Expect(t, http.StatusConflict)
	f.c.With("Idempotency-Key", "clear-6").Patch("/api/transactions/"+marked["id"].(string), map[string]any{"cleared": false, "amount": 6}).
		Expect(t, http.StatusOK)
	for tid, want := range map[string]bool{id: true, deposit: true, marked["id"].(string): false} {
		if got := f.c.Get("/api/transactions/"+tid).Expect(t, http.StatusOK).Object("transaction")["cleared"]; got != want {
			t.Errorf("%s cleared = %v, want %v", tid, got, want)
		}
	}
	replayReproduces(t, env)
	if got := f.c.Get("/api/transactions/"+id).Expect(t, http.StatusOK).Object("transaction")["cleared"]; got != true {
		t.Fatalf("after replay cleared = %v", got)
	}
}

// A listing of one wallet's transactions gives, on each, the wallet's balance after it:
// exact, with the scale of the amounts, transfers in and out counted with the amount
// each side moved, on every page, whatever else the filter leaves out.
func TestWalletListingHasRunningBalances(t *testing.T) {
	env := apitest.Start(t)
	f := newLedger(t, env, "alice")
	for _, tr := range []map[string]any{
		{"type": "income", "amount": json.Number("10.25"), "date": "2026-03-01"},
		{"type": "expense", "amount": json.Number("0.10"), "date": "2026-03-02", "concept": "gum"},
		{"type": "transfer", "amount": json.Number("50"), "date": "2026-03-02", "walletId": f.bank, "toWalletId": f.cash},
		{"type": "transfer", "amount": json.Number("20"), "date": "2026-03-03", "walletId": f.cash, "toWalletId": f.bank},
		{"type": "transfer", "amount": json.Number("17.50"), "destinationAmount": json.Number("1"), "date": "2026-03-04", "walletId": f.cash, "toWalletId": f.dollar},
		{"type": "expense", "amount": json.Number("3.333"), "date": "2026-02-01", "concept": "gum"},
		{"type": "expense", "amount": json.Number("99"), "date": "2026-03-01", "walletId": f.bank},
	} {
		f.c.Post("/api/transactions", tr).Expect(t, http.StatusCreated)
	}
	// Cash: 100 initial; -3.333, +10.25, -0.10, +50, -20, -17.50, newest first below.
	want := []string{"119.317", "136.817", "156.817", "106.817", "106.917", "96.667"}
	var got []string
	for page := 1; page <= 3; page++ {
		for _, tr := range f.c.Get("/api/transactions?pageSize=2&page="+string(rune('0'+page))+"&walletId="+f.cash).Expect(t, http.StatusOK).List("transactions") {
			got = append(got, num(tr["runningBalance"]))
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("running balances %v, want %v", got, want)
	}
	if balance := decimal.RequireFromString(f.balance(t, f.cash)); !balance.Equal(decimal.RequireFromString(want[0])) {
		t.Fatalf("newest running balance %s, wallet %s", want[0], balance)
	}
	gum := f.c.Get("/api/transactions?search=gum&walletId="+f.cash).Expect(t, http.StatusOK).List("transactions")
	if len(gum) != 2 || num(gum[0]["runningBalance"]) != "106.817" || num(gum[1]["runningBalance"]) != "96.667" {
		t.Fatalf("filtered: %v", gum)
	}
	if got := f.c.Get("/api/transactions?walletId="+f.dollar).Expect(t, http.StatusOK).List("transactions"); len(got) != 1 || num(got[0]["runningBalance"]) != "1" {
		t.Fatalf("dollars: %v", got)
	}
	if tr := f.c.Get("/api/transactions").Expect(t, http.StatusOK).List("transactions")[0]; tr["runningBalance"] != nil {
		t.Fatalf("a listing of every wallet has running balances: %v", tr)
	}
}

// The export is a zip of a CSV per resource and a JSON of everything: each CSV's rows
// are the records as the API gives them, amounts with their scale, formula-like text
// neutralised; only those who manage the team may take it.
func TestExportIsAZipOfEveryRecord(t *testing.T) {
	env := apitest.Start(t)
	f := newLedger(t, env, "alice")
	f.c.Post("/api/tags", map[string]any{"name": "=HYPERLINK(\"x\")"}).Expect(t, http.StatusOK)
	bought := f.c.Post("/api/transactions", map[string]any{"type": "expense", "amount": json.Number("12.50"), "concept": "Súper, \"bueno\"",
		"date": "2026-03-01", "categoryId": f.food, "cleared": true}).Expect(t, http.StatusCreated).Object("transaction")["id"].(string)
	png := append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 64)...)
	ticket := f.c.With("Content-Type", "image/png").Post("/api/transactions/"+bought+"/attachments?fileName=ticket.png", png).
		Expect(t, http.StatusCreated).Object("attachment")
	invoice := storetest.PDF(t, 4096)
	damaged := f.c.With("Content-Type", "application/pdf").Post("/api/transactions/"+bought+"/attachments?fileName=factura.pdf", invoice).
		Expect(t, http.StatusCreated).Object("attachment")
	// The invoice's stored bytes change behind the service's back.
	if _, err := env.Pool.Exec(context.Background(), `UPDATE attachment_chunks SET data = overlay(data placing 'X' from 100) WHERE sha256 = $1`,
		damaged["sha256"]); err != nil {
		t.Fatal(err)
	}
	f.c.Post("/api/transactions", map[string]any{"type": "transfer", "amount": json.Number("0.1000"), "date": "2026-03-02",
		"walletId": f.bank, "toWalletId": f.cash}).Expect(t, http.StatusCreated)
	gone := f.c.Post("/api/transactions", map[string]any{"type": "income", "amount": 3}).Expect(t, http.StatusCreated).Object("transaction")["id"].(string)
	f.c.With("Idempotency-Key", "export-1").Delete("/api/transactions/"+gone).Expect(t, http.StatusOK)
	f.c.Post("/api/goals", map[string]any{"name": "Trip", "targetAmount": json.Number("900.00")}).Expect(t, http.StatusOK)
	f.c.Post("/api/debts", map[string]any{"name": "Car", "totalAmount": 5000}).Expect(t, http.StatusOK)
	f.c.Post("/api/budgets", map[string]any{"name": "Food", "categoryId": f.food, "amount": 300, "startDate": "2026-03-01", "endDate": "2026-03-31"}).Expect(t, http.StatusOK)
	f.c.Post("/api/recurrent", map[string]any{"name": "Rent", "amount": 700, "kind": "expense", "periodicity": "monthly",
		"nextPayment": "2026-04-01", "walletId": f.cash}).Expect(t, http.StatusOK)

	res := f.c.Get("/api/export").Expect(t, http.StatusOK)
	if ct, cd := res.Header.Get("Content-Type"), res.Header.Get("Content-Disposition"); ct != "application/zip" ||
		!strings.HasPrefix(cd, `attachment; filename="finledger-`) || !strings.HasSuffix(cd, `.zip"`) {
		t.Fatalf("headers %q %q", ct, cd)
	}
	z, err := zip.NewReader(bytes.NewReader(res.Raw), int64(len(res.Raw)))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, file := range z.File {
		r, err := file.Open()
		if err != nil {
			t.Fatal(err)
		}
		files[file.Name], err = io.ReadAll(r)
		if err != nil {
			t.Fatal(err)
		}
	}
	var all map[string]any
	if err := json.Unmarshal(files["finledger.json"], &all); err != nil {
		t.Fatal(err)
	}
	api := map[string]string{"wallets": "/api/wallets", "categories": "/api/categories", "tags": "/api/tags",
		"goals": "/api/goals", "debts": "/api/debts", "recurring-payments": "/api/recurrent", "budgets": "/api/budgets",
		"transactions": "/api/transactions?pageSize=100"}
	for _, name := range []string{"wallets", "categories", "tags", "transactions", "budgets", "goals", "debts", "recurring-payments", "members",
		"attachments"} {
		rows, err := csv.NewReader(bytes.NewReader(files[name+".csv"])).ReadAll()
		if err != nil || len(rows) < 2 {
			t.Fatalf("%s.csv: %v %q", name, err, files[name+".csv"])
		}
		if listed := all[name].([]any); len(listed) != len(rows)-1 {
			t.Fatalf("%s: %d in the JSON, %d in the CSV", name, len(listed), len(rows)-1)
		}
		path, ok := api[name]
		if !ok {
			continue
		}
		key := strings.TrimPrefix(strings.Split(path, "?")[0], "/api/")
		records := f.c.Get(path).Expect(t, http.StatusOK).List(key)
		if len(records) != len(rows)-1 {
			t.Fatalf("%s: %d records, %d rows", name, len(records), len(rows)-1)
		}
		byID := map[string]map[string]any{}
		for _, r := range records {
			byID[r["id"].(string)] = r
		}
		header := rows[0]
		for _, row := range rows[1:] {
			record := byID[row[slices.Index(header, "id")]]
			for i, field := range header {
				want, ok := record[field]
				if !ok {
					continue // a field of the budget's period, which the export leaves to the listing
				}
				got := row[i]
				switch w := want.(type) {
				case nil:
					if got != "" {
						t.Errorf("%s %s: %q, want empty", name, field, got)
					}
				case json.Number:
					if !decimal.RequireFromString(got).Equal(decimal.RequireFromString(w.String())) {
						t.Errorf("%s %s: %q, want %s", name, field, got, w)
					}
				case string:
					if got != w && got != "'"+w {
						t.Errorf("%s %s: %q, want %q", name, field, got, w)
					}
				case bool:
					if got != strconv.FormatBool(w) {
						t.Errorf("%s %s: %q, want %v", name, field, got, w)
					}
				}
			}
		}
	}
	transactions := string(files["transactions.csv"])
	for _, exact := range []string{",12.50,", ",0.1000,", `"Súper, ""bueno"""`} {
		if !strings.Contains(transactions, exact) {
			t.Errorf("transactions.csv lacks %s:\n%s", exact, transactions)
		}
	}
	if !strings.Contains(string(files["tags.csv"]), `"'=HYPERLINK(""x"")"`) {
		t.Errorf("a formula in tags.csv is not neutralised:\n%s", files["tags.csv"])
	}
	if !strings.Contains(string(files["finledger.json"]), `"amount":12.50`) || all["format"] != "finledger-export/1" {
		t.Errorf("finledger.json loses the scale, or has no format: %s", files["finledger.json"])
	}
	if !strings.Contains(string(files["attachments.csv"]), ticket["sha256"].(string)+",72,image/png,ticket.png,") {
		t.Errorf("attachments.csv does not list the receipt %v: %s", ticket, files["attachments.csv"])
	}
	// The receipts go in whole; the damaged one is named, not exported as if whole.
	if got := files["receipts/"+ticket["id"].(string)+".png"]; !bytes.Equal(got, png) {
		t.Errorf("the receipt in the export: %q, want the %d bytes uploaded", got, len(png))
	}
	if _, in := files["receipts/"+damaged["id"].(string)+".pdf"]; in || !strings.Contains(string(files["receipts/unreadable.txt"]), damaged["id"].(string)) {
		t.Errorf("the damaged receipt: in the export %v, unreadable.txt %q", in, files["receipts/unreadable.txt"])
	}
	if !strings.Contains(string(files["members.csv"]), "alice") {
		t.Errorf("members.csv: %s", files["members.csv"])
	}
	// Others than owners and admins may not take it.
	team := f.c.Post("/api/workspaces", map[string]any{"name": "Team"}).Expect(t, http.StatusOK).Object("workspace")["id"].(string)
	env.As("bob").Get("/api/me").Expect(t, http.StatusOK)
	f.c.With("X-Workspace-Id", team).Post("/api/workspaces/"+team+"/members", map[string]any{"email": "bob@example.com", "role": "collaborator"}).
		Expect(t, http.StatusOK)
	if code := env.As("bob").With("X-Workspace-Id", team).Get("/api/export").Expect(t, http.StatusForbidden).ErrorCode(); code == "" {
		t.Fatal("a viewer took the export")
	}
}
