package queries

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/go-pdf/fpdf"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/internal/fx"
)

// MaxReportLines bounds the transactions one report lists.
const MaxReportLines = 100_000

// ErrReportTooLarge is returned for a report over MaxReportLines transactions.
var ErrReportTooLarge = fmt.Errorf("the report would list more than %d transactions: narrow the dates", MaxReportLines)

// ReportFilter selects a report's transactions.
type ReportFilter struct {
	From, To   domain.Date
	WalletID   *uuid.UUID
	CategoryID *uuid.UUID
}

// ReportTotal is the income and expenses of one currency.
type ReportTotal struct {
	Currency string `json:"currency"`
	Income   Amount `json:"income"`
	Expenses Amount `json:"expenses"`
	Net      Amount `json:"net"`
}

// ReportCategory is the income and expenses of one category in one currency.
type ReportCategory struct {
	CategoryID *uuid.UUID `json:"categoryId"`
	Name       string     `json:"name"`
	Currency   string     `json:"currency"`
	Income     Amount     `json:"income"`
	Expenses   Amount     `json:"expenses"`
}

// ReportLine is a transaction with the names of its wallet and category.
type ReportLine struct {
	Transaction
	WalletName   string  `json:"walletName"`
	CategoryName *string `json:"categoryName"`
}

// Report is the data of GET /api/reports.
type Report struct {
	Workspace string        `json:"workspace"`
	From      domain.Date   `json:"from"`
	To        domain.Date   `json:"to"`
	Totals    []ReportTotal `json:"totals"`
	// Converted is the total in the workspace currency at today's rates, null where a
	// currency has none (MissingRates then says which); the caller fills both.
	Converted    *ReportTotal     `json:"converted"`
	MissingRates []fx.Missing     `json:"missingRates"`
	ByCategory   []ReportCategory `json:"byCategory"`
	Transactions []ReportLine     `json:"transactions"`
	// names are the workspace's wallets' and categories' names, for the PDF's parts.
	names reportNames
}

// reportLines selects a report's transactions: what follows the columns of
// BuildReport's query. A report of one category holds the transactions of that
// category and the split ones with a part of it. Their wallets' and categories' names
// are looked up apart (reportNames): the workspace has few, and a join planned for the
// as-of views' row estimates could compare each line with every category.
const reportLines = `FROM transactions t
	WHERE t.workspace_id = $1 AND t.deleted_at IS NULL AND t.date BETWEEN $2 AND $3
		AND ($4::uuid IS NULL OR t.wallet_id = $4 OR t.to_wallet_id = $4)
		AND ($5::uuid IS NULL OR t.category_id = $5 OR t.splits @> jsonb_build_array(jsonb_build_object('categoryId', $5::uuid::text)))`

// reportPartLines selects a report's lines for its CSV, as reportLines does but with a
// line per part of a split transaction (p, its part and position, NULL for a
// transaction not split): in a report of one category, the parts of that category.
const reportPartLines = `FROM transactions t
	LEFT JOIN LATERAL (SELECT e.part, e.n FROM jsonb_array_elements(t.splits) WITH ORDINALITY AS e(part, n)
		WHERE $5::uuid IS NULL OR e.part->>'categoryId' = $5::uuid::text) p ON true
	WHERE t.workspace_id = $1 AND t.deleted_at IS NULL AND t.date BETWEEN $2 AND $3
		AND ($4::uuid IS NULL OR t.wallet_id = $4 OR t.to_wallet_id = $4)
		AND ($5::uuid IS NULL OR t.category_id = $5 OR p.part IS NOT NULL)
		AND (t.splits IS NULL OR p.part IS NOT NULL)`

// reportOrder is the order of a report's lines: oldest first, and those of a day in the
// order they were recorded.
const reportOrder = `t.date, t.created_version`

// reportNames are the names of a workspace's wallets and categories, by id.
type reportNames map[uuid.UUID]string

func readReportNames(ctx context.Context, db DB, workspaceID uuid.UUID) (reportNames, error) {
	rows, err := db.Query(ctx, `SELECT id, name FROM wallets WHERE workspace_id = $1
		UNION ALL SELECT id, name FROM categories WHERE workspace_id = $1`, workspaceID)
	if err != nil {
		return nil, fmt.Errorf("queries: report names: %w", err)
	}
	names := reportNames{}
	var id uuid.UUID
	var name string
	_, err = pgx.ForEachRow(rows, []any{&id, &name}, func() error {
		names[id] = name
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("queries: report names: %w", err)
	}
	return names, nil
}

// of is the name of the record id names, nil for none.
func (n reportNames) of(id *uuid.UUID) *string {
	if id == nil {
		return nil
	}
	name, ok := n[*id]
	if !ok {
		return nil
	}
	return &name
}

// BuildReport lists the live transactions of a range, oldest first, with totals per
// currency and per category. Transfers and goal movements are listed but are neither
// income nor expenses.
func BuildReport(ctx context.Context, db DB, workspaceID uuid.UUID, workspaceName string, f ReportFilter) (Report, error) {
	r := Report{Workspace: workspaceName, From: f.From, To: f.To,
		Totals: []ReportTotal{}, ByCategory: []ReportCategory{}}
	names, err := readReportNames(ctx, db, workspaceID)
	if err != nil {
		return r, err
	}
	r.names = names
	rows, err := db.Query(ctx, `SELECT `+qualified("t", transactionColumns)+` `+reportLines+` ORDER BY `+reportOrder+` LIMIT $6`,
		workspaceID, f.From, f.To, f.WalletID, f.CategoryID, MaxReportLines+1)
	if err != nil {
		return r, fmt.Errorf("queries: report: %w", err)
	}
	r.Transactions, err = all(rows, func(row pgx.CollectableRow) (ReportLine, error) {
		t, err := scanTransaction(row)
		if f.CategoryID != nil {
			t.MatchingParts = partsOf(t.Splits, *f.CategoryID)
		}
		return ReportLine{Transaction: t, WalletName: names[t.WalletID], CategoryName: names.of(t.CategoryID)}, err
	}, "report")
	if err != nil {
		return r, err
	}
	if len(r.Transactions) > MaxReportLines {
		return r, ErrReportTooLarge
	}
	type key struct {
		category uuid.UUID
		currency string
	}
	totals := map[string]*[2]decimal.Decimal{}
	categories := map[key]*ReportCategory{}
	sums := map[key]*[2]decimal.Decimal{}
	for _, l := range r.Transactions {
		side := -1
		switch l.Type {
		case domain.TxIncome:
			side = 0
		case domain.TxExpense:
			side = 1
		}
		if side < 0 {
			continue
		}
		if totals[l.Currency] == nil {
			totals[l.Currency] = &[2]decimal.Decimal{}
		}
		for _, share := range l.categoryShares(f.CategoryID) {
			totals[l.Currency][side] = totals[l.Currency][side].Add(share.Amount)
			k := key{currency: l.Currency}
			name := "Uncategorized"
			if share.CategoryID != nil {
				k.category, name = *share.CategoryID, deref(names.of(share.CategoryID))
			}
			if categories[k] == nil {
				categories[k] = &ReportCategory{CategoryID: share.CategoryID, Name: name, Currency: l.Currency}
				sums[k] = &[2]decimal.Decimal{}
			}
			sums[k][side] = sums[k][side].Add(share.Amount)
		}
	}
	for currency, t := range totals {
		r.Totals = append(r.Totals, ReportTotal{Currency: currency, Income: Amount(t[0]), Expenses: Amount(t[1]), Net: Amount(t[0].Sub(t[1]))})
	}
	sort.Slice(r.Totals, func(i, j int) bool { return r.Totals[i].Currency < r.Totals[j].Currency })
	for k, c := range categories {
		c.Income, c.Expenses = Amount(sums[k][0]), Amount(sums[k][1])
		r.ByCategory = append(r.ByCategory, *c)
	}
	sort.Slice(r.ByCategory, func(i, j int) bool {
		a, b := r.ByCategory[i], r.ByCategory[j]
		if a.Currency != b.Currency {
			return a.Currency < b.Currency
		}
		if c := decimal.Decimal(a.Expenses).Cmp(decimal.Decimal(b.Expenses)); c != 0 {
			return c > 0
		}
		return a.Name < b.Name
	})
	return r, nil
}

// categoryShares are the shares by which a transaction counts towards its categories
// (domain.CategoryShares), in a report of one category (only) that category's alone.
func (t Transaction) categoryShares(only *uuid.UUID) []domain.CategoryShare {
	parts := make([]domain.SplitPart, len(t.Splits))
	for i, p := range t.Splits {
		parts[i] = p.Part()
	}
	shares := domain.CategoryShares(t.CategoryID, decimal.Decimal(t.Amount), parts)
	if only == nil {
		return shares
	}
	return slices.DeleteFunc(shares, func(s domain.CategoryShare) bool { return s.CategoryID == nil || *s.CategoryID != *only })
}

// reportCSVColumns are a report's CSV columns: the header, then each line's field as
// the query gives it, written by PostgreSQL as the CSV shows it (a date as YYYY-MM-DD,
// an amount with its exact digits and no trailing zeros, an id in its canonical form,
// the fields a transaction shows as the API shows them), or, for a name, the id it is
// looked up by. A split transaction has a line per part (reportPartLines): its amount
// and category are the part's, split_part its position from 1, split_concept its
// concept and transaction_amount the whole transaction's; those three are empty on the
// line of a transaction not split.
var reportCSVColumns = []struct{ header, field string }{
	{"date", "t.date::text"}, // DateStyle ISO (database.Open)
	{"type", "t.type"},
	{"amount", "trim_scale(coalesce((p.part->>'amount')::numeric, t.amount))::text"},
	{"currency", "t.currency"},
	{"destination_amount", "trim_scale(t.destination_amount)::text"},
	{"concept", "t.concept"},
	{"description", "coalesce(t.description, t.concept)"}, // as scanTransaction shows it
	{"wallet", "t.wallet_id::text"},
	{"category", "CASE WHEN p.part IS NULL THEN t.category_id::text ELSE p.part->>'categoryId' END"},
	{"destination_wallet_id", "t.to_wallet_id::text"},
	{"reference_number", "t.reference_number"},
	{"id", "t.id::text"},
	{"split_part", "p.n::text"},
	{"split_concept", "p.part->>'concept'"},
	{"transaction_amount", "CASE WHEN p.part IS NOT NULL THEN trim_scale(t.amount)::text END"},
}

// The CSV columns whose field is looked up in the report's names.
const csvWallet, csvCategory = 7, 8

// reportCSVQuery is the query of ReportCSV: the fields, then the version that
// orders the lines of a day (reportOrder).
var reportCSVQuery = func() string {
	fields := make([]string, len(reportCSVColumns))
	for i, c := range reportCSVColumns {
		fields[i] = c.field
	}
	return `SELECT ` + strings.Join(fields, ", ") + `, t.created_version::text ` + reportPartLines + ` LIMIT $6`
}()

// csvLine is where a report's line stands among the lines written in the order read,
// and where reportOrder puts it: by its date (YYYY-MM-DD, which sorts as its text),
// then by version.
type csvLine struct {
	date       string
	version    int64
	start, end int
}

// ReportCSV is the transactions a report lists as RFC 4180 CSV (UTF-8, CRLF, a header
// row, a person's text that could run as a formula neutralised: csvColumns.write); an
// empty field stands for a value the transaction has not. The fields go from the rows
// to the CSV as PostgreSQL wrote them, each line encoded as it is read. The
// lines are then put in order (reportOrder): the as-of view of transactions joins two
// tables, so no index hands its rows over in order, and PostgreSQL took longer to sort
// a month's lines than to read them. It returns ErrReportTooLarge for a report over
// MaxReportLines transactions.
func ReportCSV(ctx context.Context, db DB, workspaceID uuid.UUID, f ReportFilter) ([]byte, error) {
	ids, err := readReportNames(ctx, db, workspaceID)
	if err != nil {
		return nil, err
	}
	names := make(map[string]string, len(ids))
	for id, name := range ids {
		names[id.String()] = name
	}
	rows, err := db.Query(ctx, reportCSVQuery, workspaceID, f.From, f.To, f.WalletID, f.CategoryID, MaxReportLines+1)
	if err != nil {
		return nil, fmt.Errorf("queries: csv: %w", err)
	}
	defer rows.Close()
	var read bytes.Buffer // the lines, in the order read
	var lines []csvLine
	record := make([]string, len(reportCSVColumns))
	for i, c := range reportCSVColumns {
		record[i] = c.header
	}
	columns := csvColumnsOf(record)
	var text []byte
	for rows.Next() {
		if len(lines) == MaxReportLines {
			return nil, ErrReportTooLarge
		}
		raw := rows.RawValues() // each a text's bytes, nil for NULL
		// One string holds the row's fields, each a part of it.
		text = text[:0]
		for _, v := range raw[:len(record)] {
			text = append(text, v...)
		}
		row, at := string(text), 0
		for i, v := range raw[:len(record)] {
			record[i], at = row[at:at+len(v)], at+len(v)
		}
		record[csvWallet], record[csvCategory] = names[record[csvWallet]], names[record[csvCategory]]
		l := csvLine{date: record[0], start: read.Len()}
		if l.version, err = strconv.ParseInt(string(raw[len(record)]), 10, 64); err != nil {
			return nil, fmt.Errorf("queries: csv: a line's version: %w", err)
		}
		columns.write(&read, record)
		l.end = read.Len()
		lines = append(lines, l)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("queries: csv: %w", err)
	}
	// Stable: the parts of a transaction keep their order.
	slices.SortStableFunc(lines, func(a, b csvLine) int {
		if c := strings.Compare(a.date, b.date); c != 0 {
			return c
		}
		return cmp.Compare(a.version, b.version)
	})
	for i, c := range reportCSVColumns {
		record[i] = c.header
	}
	start := read.Len()
	csvColumns(nil).write(&read, record)
	all := read.Bytes()
	body := make([]byte, 0, len(all))
	body = append(body, all[start:]...)
	for _, l := range lines {
		body = append(body, all[l.start:l.end]...)
	}
	return body, nil
}

// qualified prefixes each column of a list with a table alias.
func qualified(alias, columns string) string {
	parts := strings.Split(columns, ",")
	for i, p := range parts {
		parts[i] = alias + "." + strings.TrimSpace(p)
	}
	return strings.Join(parts, ", ")
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// WritePDF writes the report as a PDF: totals per currency, the chart of expenses by
// category (ExpensesChart, one scale), and the transactions.
func (r Report) WritePDF(w io.Writer, chart ExpenseChart) error {
	pdf := fpdf.New("P", "mm", "A4", "")
	tr := pdf.UnicodeTranslatorFromDescriptor("") // the core fonts speak cp1252: accents survive
	pdf.SetTitle("Finledger report", true)
	pdf.SetAutoPageBreak(true, 15)
	pdf.AddPage()
	pdf.SetFont("Helvetica", "B", 16)
	pdf.CellFormat(0, 10, tr("Finledger report: "+r.Workspace), "", 1, "L", false, 0, "")
	pdf.SetFont("Helvetica", "", 10)
	pdf.CellFormat(0, 6, fmt.Sprintf("%s (%s to %s), %d transactions", PeriodLabel(r.From, r.To), r.From, r.To, len(r.Transactions)),
		"", 1, "L", false, 0, "")
	pdf.Ln(4)

	heading := func(text string) {
		pdf.SetFont("Helvetica", "B", 12)
		pdf.CellFormat(0, 8, tr(text), "", 1, "L", false, 0, "")
		pdf.SetFont("Helvetica", "", 9)
	}
	row := func(widths []float64, cells []string, bold bool) {
		style := ""
		if bold {
			style = "B"
		}
		pdf.SetFont("Helvetica", style, 9)
		for i, c := range cells {
			// Amounts sit right: the last column, and every column but the first of the
			// totals table.
			align := "L"
			if numeric := i == len(cells)-1 || (len(cells) == 4 && i > 0); numeric {
				align = "R"
			}
			pdf.CellFormat(widths[i], 6, tr(c), "1", 0, align, bold, 0, "")
		}
		pdf.Ln(-1)
	}

	heading("Totals, " + PeriodLabel(r.From, r.To))
	pdf.SetFillColor(230, 230, 230)
	row([]float64{30, 50, 50, 50}, []string{"Currency", "Income", "Expenses", "Net"}, true)
	for _, t := range r.Totals {
		row([]float64{30, 50, 50, 50}, []string{t.Currency, money(t.Income), money(t.Expenses), money(t.Net)}, false)
	}
	pdf.Ln(4)

	heading("Expenses, " + PeriodLabel(r.From, r.To) + ", by category in " + chart.Currency)
	writeChart(pdf, tr, chart)
	pdf.Ln(4)

	heading("Transactions")
	pdf.SetFillColor(230, 230, 230)
	widths := []float64{22, 24, 60, 30, 24, 30}
	row(widths, []string{"Date", "Type", "Concept", "Category", "Wallet", "Amount"}, true)
	for _, l := range r.Transactions {
		category := deref(l.CategoryName)
		if len(l.Splits) > 0 {
			category = fmt.Sprintf("Split in %d", len(l.Splits))
		}
		row(widths, []string{l.Date.String(), string(l.Type), clip(l.Description, 40), clip(category, 18), l.WalletName,
			money(l.Amount) + " " + l.Currency}, false)
		for i, p := range l.Splits {
			name := "Uncategorized"
			if p.CategoryID != nil {
				name = deref(r.names.of(p.CategoryID))
			}
			row(widths, []string{"", fmt.Sprintf("part %d", i+1), clip("  "+deref(p.Concept), 40), clip(name, 18), "",
				money(p.Amount) + " " + l.Currency}, false)
		}
	}
	if err := pdf.Output(w); err != nil {
		return fmt.Errorf("queries: pdf: %w", err)
	}
	return nil
}

// writeChart draws a chart's bars on one scale, the largest 90 mm long, what "Other"
// holds beneath it, and what has no rate to the chart's currency, not drawn.
func writeChart(pdf *fpdf.Fpdf, tr func(string) string, chart ExpenseChart) {
	largest := decimal.Zero
	for _, b := range chart.Bars {
		largest = decimal.Max(largest, decimal.Decimal(b.Amount))
	}
	for _, b := range chart.Bars {
		width, _ := decimal.Decimal(b.Amount).Div(largest).Mul(decimal.NewFromInt(90)).Float64() // drawing only
		y := pdf.GetY()
		pdf.SetFont("Helvetica", "", 9)
		pdf.CellFormat(50, 6, tr(clip(b.Name, 28)), "", 0, "L", false, 0, "")
		pdf.SetFillColor(79, 70, 229)
		pdf.Rect(pdf.GetX(), y+1, width, 4, "F")
		pdf.SetX(pdf.GetX() + 92)
		pdf.CellFormat(0, 6, money(b.Amount)+" "+chart.Currency, "", 1, "L", false, 0, "")
		if len(b.Holds) > 0 {
			held := make([]string, len(b.Holds))
			for i, c := range b.Holds {
				held[i] = c.Name + " " + money(c.Amount)
			}
			pdf.SetFont("Helvetica", "", 8)
			pdf.MultiCell(0, 4, tr("Other holds: "+strings.Join(held, ", ")), "", "L", false)
		}
	}
	if len(chart.Unconverted) > 0 {
		left := make([]string, len(chart.Unconverted))
		for i, u := range chart.Unconverted {
			left[i] = money(u.Amount) + " " + u.Currency
		}
		pdf.SetFont("Helvetica", "", 9)
		pdf.MultiCell(0, 5, tr("Not drawn, no rate to "+chart.Currency+": "+strings.Join(left, ", ")), "", "L", false)
	}
}

// clip shortens text to n characters, an ellipsis ending what was cut.
func clip(text string, n int) string {
	if r := []rune(text); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return text
}

// PeriodLabel names a range of days as a person says it: "October 2026" for a whole
// month, else "1 Sep - 15 Oct 2026", the year said once when both share it.
func PeriodLabel(from, to domain.Date) string {
	a, b := from.Time(), to.Time()
	switch {
	case from.IsZero() || to.IsZero():
		return from.String() + " - " + to.String()
	case a.Day() == 1 && firstOfMonth(a).AddDate(0, 1, -1).Equal(b):
		return a.Format("January 2006")
	case a.Equal(b):
		return a.Format("2 Jan 2006")
	case a.Year() == b.Year():
		return a.Format("2 Jan") + " - " + b.Format("2 Jan 2006")
	}
	return a.Format("2 Jan 2006") + " - " + b.Format("2 Jan 2006")
}

// money writes an amount with two decimals at least, its exact digits kept.
func money(a Amount) string {
	d := decimal.Decimal(a)
	if d.Exponent() >= -2 {
		return d.StringFixed(2)
	}
	return d.String()
}
