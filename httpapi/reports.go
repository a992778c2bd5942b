package httpapi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/finledger/finledger/domain"
	"github.com/finledger/finledger/internal/fx"
	"github.com/finledger/finledger/queries"
)

// Spending-summary periods (spec 4.B rule 4).
var summaryPeriods = []string{"today", "yesterday", "this_week", "last_week", "this_month", "last_month", "last_7_days", "last_30_days"}

// maxSummaryDays is the longest custom range of a spending summary.
const maxSummaryDays = 366

// periodBounds resolves a named period on today, weeks running Monday to Sunday.
func periodBounds(name string, today domain.Date) (from, to domain.Date) {
	monday := today.AddDate(0, 0, -((int(today.Weekday()) + 6) % 7))
	first := today.MonthStart()
	switch name {
	case "today":
		return today, today
	case "yesterday":
		return today.AddDate(0, 0, -1), today.AddDate(0, 0, -1)
	case "last_week":
		return monday.AddDate(0, 0, -7), monday.AddDate(0, 0, -1)
	case "this_month":
		return first, today
	case "last_month":
		return first.AddDate(0, -1, 0), first.AddDate(0, 0, -1)
	case "last_7_days":
		return today.AddDate(0, 0, -6), today
	case "last_30_days":
		return today.AddDate(0, 0, -29), today
	}
	return monday, today // this_week
}

func spendingSummary(s *Server, w http.ResponseWriter, r *http.Request) {
	q := &query{values: r.URL.Query()}
	period := q.values.Get("period")
	from, to := q.date("from"), q.date("to")
	kind := domain.TransactionType(q.values.Get("type"))
	if kind == "" {
		kind = domain.TxExpense
	}
	if kind != domain.TxExpense && kind != domain.TxIncome {
		q.fail("type", "must be expense or income")
	}
	custom := q.values.Has("from") || q.values.Has("to")
	switch {
	case custom && period != "":
		q.fail("period", "goes alone, or give from and to instead")
	case custom && (from == nil) != (to == nil):
		q.fail("to", "from and to go together")
	case custom && from != nil && to != nil && to.Before(*from):
		q.fail("to", "must not be before from")
	case custom && from != nil && to != nil && to.Sub(*from) > maxSummaryDays:
		q.fail("to", "must be at most 366 days after from")
	case period != "" && !slices.Contains(summaryPeriods, period):
		q.fail("period", "must be one of today, yesterday, this_week, last_week, this_month, last_month, last_7_days, last_30_days")
	}
	at := s.asOf(q)
	if err := q.err(); err != nil {
		writeError(w, r, err)
		return
	}
	ctx := r.Context()
	ws := principalFrom(ctx).Workspace.ID
	category, err := s.categoryParam(r, q.values.Get("category"))
	if err != nil {
		writeError(w, r, err)
		return
	}
	var summary queries.SpendingSummary
	err = s.readAt(ctx, ws, at, func(db queries.DB, today domain.Date) (err error) {
		var start, end domain.Date
		if custom {
			period, start, end = "custom", *from, *to
		} else {
			if period == "" {
				period = "this_week"
			}
			start, end = periodBounds(period, today)
		}
		summary, err = queries.SpendingSummaryOf(ctx, db, ws, period, start, end, kind, category)
		return err
	})
	if err != nil {
		writeError(w, r, err)
		return
	}
	respond(w, r, summary)
}

// categoryParam resolves a category given by id or by name (ignoring accents and
// case); an unknown name is 404 with suggestions.
func (s *Server) categoryParam(r *http.Request, value string) (*uuid.UUID, error) {
	if value == "" {
		return nil, nil
	}
	if id, err := parseUUID(value); err == nil {
		return &id, nil
	}
	list, err := queries.Categories(r.Context(), s.pool, activeWorkspace(r))
	if err != nil {
		return nil, err
	}
	names := make([]string, len(list))
	for i, c := range list {
		if domain.FoldName(c.Name) == domain.FoldName(value) {
			return &c.ID, nil
		}
		names[i] = c.Name
	}
	return nil, &apiError{Status: http.StatusNotFound, Code: "CATEGORY_NOT_FOUND", Message: "no category is named " + value,
		Details: map[string]any{"suggestions": domain.Suggest(names, value, 5)}}
}

func monthlySummary(s *Server, w http.ResponseWriter, r *http.Request) {
	q := &query{values: r.URL.Query()}
	var month *time.Time
	if m := q.values.Get("month"); m != "" {
		parsed, err := parseMonth(m)
		if err != nil {
			q.fail("month", monthRule)
		}
		month = &parsed
	}
	at := s.asOf(q)
	if err := q.err(); err != nil {
		writeError(w, r, err)
		return
	}
	ctx := r.Context()
	p := principalFrom(ctx)
	var summary queries.MonthlySummary
	err := s.readAt(ctx, p.Workspace.ID, at, func(db queries.DB, today domain.Date) error {
		day := today
		if month != nil {
			day = domain.DateAt(*month)
		}
		rates, err := fx.Load(ctx, db, p.Workspace.ID, today.Time())
		if err != nil {
			return err
		}
		summary, err = queries.MonthlySummaryOf(ctx, db, p.Workspace.ID, p.Workspace.Currency, day, rates)
		if err != nil {
			return err
		}
		summary.MissingRates, err = rates.Missing(ctx, db, p.Workspace.ID, summary.Currencies, p.Workspace.Currency)
		return err
	})
	if err != nil {
		writeError(w, r, err)
		return
	}
	respond(w, r, summary)
}

// reportRange is a report's from and to: by default, the current month up to today.
func reportRange(q *query, today domain.Date) (from, to domain.Date) {
	from, to = today.MonthStart(), today
	if d := q.date("from"); d != nil {
		from = *d
	}
	if d := q.date("to"); d != nil {
		to = *d
	}
	if to.Before(from) {
		q.fail("to", "must not be before from")
	}
	return from, to
}

// reportSummary answers a range's totals per currency, its expenses by category on one
// chart and the twelve months ending with it, amounts converted to the workspace's
// currency at today's rates where one exists.
func reportSummary(s *Server, w http.ResponseWriter, r *http.Request) {
	q := &query{values: r.URL.Query()}
	at := s.asOf(q)
	from, to := reportRange(q, s.dayOf(at))
	if err := q.err(); err != nil {
		writeError(w, r, err)
		return
	}
	ctx := r.Context()
	ws := principalFrom(ctx).Workspace
	var summary queries.ReportSummary
	err := s.readAt(ctx, ws.ID, at, func(db queries.DB, today domain.Date) error {
		rates, err := fx.Load(ctx, db, ws.ID, today.Time())
		if err != nil {
			return err
		}
		summary, err = queries.ReportSummaryOf(ctx, db, ws.ID, ws.Currency, from, to, rates)
		if err != nil {
			return err
		}
		summary.Converted, summary.MissingRates, err = converted(ctx, db, summary.Totals, rates, ws.ID, ws.Currency)
		return err
	})
	if err != nil {
		writeError(w, r, err)
		return
	}
	respond(w, r, summary)
}

// Report formats.
var reportFormats = []string{"json", "csv", "pdf"}

func report(s *Server, w http.ResponseWriter, r *http.Request) {
	q := &query{values: r.URL.Query()}
	at := s.asOf(q)
	f := queries.ReportFilter{WalletID: q.id("walletId"), CategoryID: q.id("categoryId")}
	f.From, f.To = reportRange(q, s.dayOf(at))
	format := q.values.Get("format")
	if format == "" {
		format = "json"
	}
	if !slices.Contains(reportFormats, format) {
		q.fail("format", "must be json, csv or pdf")
	}
	if err := q.err(); err != nil {
		writeError(w, r, err)
		return
	}
	p := principalFrom(r.Context())
	// The CSV lists the transactions alone, and is made whole before it is sent, so that
	// a report found too large is an error and not a cut file.
	var rep queries.Report
	var chart queries.ExpenseChart // the PDF's, on one scale
	var lines []byte
	err := s.readAt(r.Context(), p.Workspace.ID, at, func(db queries.DB, today domain.Date) (err error) {
		if format == "csv" {
			lines, err = queries.ReportCSV(r.Context(), db, p.Workspace.ID, f)
			return err
		}
		rep, err = queries.BuildReport(r.Context(), db, p.Workspace.ID, p.Workspace.Name, f)
		if err != nil {
			return err
		}
		rates, err := fx.Load(r.Context(), db, p.Workspace.ID, today.Time())
		if err != nil {
			return err
		}
		chart = queries.ExpensesChart(rep.ByCategory, p.Workspace.Currency, rates)
		rep.Converted, rep.MissingRates, err = converted(r.Context(), db, rep.Totals, rates, p.Workspace.ID, p.Workspace.Currency)
		return err
	})
	if errors.Is(err, queries.ErrReportTooLarge) {
		err = &apiError{Status: http.StatusUnprocessableEntity, Code: "REPORT_TOO_LARGE", Message: err.Error()}
	}
	if err != nil {
		writeError(w, r, err)
		return
	}
	name := fmt.Sprintf("finledger-%s-%s", f.From, f.To)
	switch format {
	case "csv":
		w.Header().Set("Content-Type", "text/csv; charset=utf-8")
		w.Header().Set("Content-Disposition", `attachment; filename="`+name+`.csv"`)
		startAnswer(w, r)
		_, _ = w.Write(lines)
	case "pdf":
		var buf bytes.Buffer
		if err := rep.WritePDF(&buf, chart); err != nil {
			writeError(w, r, err)
			return
		}
		w.Header().Set("Content-Type", "application/pdf")
		w.Header().Set("Content-Disposition", `attachment; filename="`+name+`.pdf"`)
		startAnswer(w, r)
		_, _ = w.Write(buf.Bytes())
	default:
		respond(w, r, map[string]any{"report": rep})
	}
}

// converted is the total of totals in the workspace currency at today's rates, nil
// where a currency has none, and the conversions that could not be made.
func converted(ctx context.Context, db queries.DB, totals []queries.ReportTotal, rates *fx.Rates, workspaceID uuid.UUID, currency string) (*queries.ReportTotal, []fx.Missing, error) {
	var sum *queries.ReportTotal
	if total, ok := queries.ConvertTotals(totals, currency, rates); ok {
		sum = &total
	}
	currencies := make([]string, len(totals))
	for i, t := range totals {
		currencies[i] = t.Currency
	}
	missing, err := rates.Missing(ctx, db, workspaceID, currencies, currency)
	return sum, missing, err
}

func agentContext(s *Server, w http.ResponseWriter, r *http.Request) {
	p := principalFrom(r.Context())
	c, err := queries.BuildAgentContext(r.Context(), s.pool, p.Workspace, s.today(), s.now())
	if err != nil {
		writeError(w, r, err)
		return
	}
	// Meant to be read once per conversation (spec 4.A rule 2).
	w.Header().Set("Cache-Control", "private, max-age=300")
	respond(w, r, c)
}
